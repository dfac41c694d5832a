import ArgumentParser
import GestureProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// `touchgesturectl keyboard`: runs an on-screen keyboard (wvkbd) in the kiosk's Wayland session
/// and keeps it and the daemon in step. The file's `keyboard` actions (a swipe up from the
/// bottom edge) show and hide it; while it is shown, its area is an excluded region of this
/// connection's (`exclude`), so its touches reach it and no gesture sees them. The exclusion ends
/// when it hides, when the keyboard exits (the helper exits with it), and when the helper does.
struct Keyboard: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run an on-screen keyboard (wvkbd) that the configuration's keyboard actions show and hide, its area out of gestures while shown.",
        discussion: """
            The keyboard lies along the screen's bottom edge, must start hidden, and must hide on \
            SIGUSR1 and show on SIGUSR2 (wvkbd does). SIGUSR1, SIGUSR2 and SIGRTMIN sent to this command \
            hide, show and toggle it as the actions do (signal this command, not the keyboard, so that \
            the excluded area follows). Needs the socket's group (docs/GUIDE.md, "An on-screen keyboard").
            """)

    @OptionGroup var connection: SocketOption

    @Option(help: "The keyboard's height in screen pixels (10-4000; wvkbd's -H and -L by default).")
    var height = 300

    @Option(help: "Its height when the screen is wider than tall (default: --height).")
    var landscapeHeight: Int?

    @Option(help: "The name of the excluded region while it is shown (unique among the daemon's regions).")
    var regionName = "keyboard"

    @Argument(
        parsing: .postTerminator,
        help: "The keyboard's command after -- (default: wvkbd-mobintl --hidden -H HEIGHT -L LANDSCAPE_HEIGHT).")
    var command: [String] = []

    func validate() throws {
        guard (10...4000).contains(height), (10...4000).contains(landscapeHeight ?? height) else {
            throw ValidationError("--height and --landscape-height are 10 to 4000 pixels")
        }
        if let why = KeyboardLink.nameProblem(regionName) { throw ValidationError("--region-name: \(why)") }
    }

    var argv: [String] {
        command.isEmpty
            ? ["wvkbd-mobintl", "--hidden", "-H", "\(height)", "-L", "\(landscapeHeight ?? height)"] : command
    }

    func run() throws {
        // Blocked before the keyboard starts, so none of them ends this process (the keyboard
        // starts with an empty mask and default dispositions).
        let signals: Descriptor
        switch Posix.signalDescriptor() {
        case .success(let d): signals = d
        case .failure(let e): throw fail("\(e)")
        }
        let child: Int32
        switch Posix.spawnChild(argv) {
        case .success(let pid): child = pid
        case .failure(let e): throw fail("cannot start the keyboard: \(e)")
        }
        guard case .success(let exits) = Posix.processDescriptor(child) else {
            Posix.kill(child, SIGTERM)
            throw fail("cannot follow the keyboard (pid \(child))")
        }
        // Nothing is sent to it before it takes its signals (their default action ends it): the
        // daemon is reached after, and a signal sent to this command meanwhile waits.
        KeyboardProcess.waitUntilItTakesSignals(child, exits: exits.raw)
        var link = KeyboardLink(
            socket: connection.path, keyboard: KeyboardProcess(pid: child), region: regionName,
            heights: (height, landscapeHeight ?? height))
        let code = link.run(signals: signals.raw, exits: exits.raw)
        throw ExitCode(code)
    }
}

/// The keyboard's process: shown and hidden by signals, stopped, reaped.
struct KeyboardProcess {
    let pid: Int32
    private var lastSignalAt: Int64 = 0

    init(pid: Int32) { self.pid = pid }

    mutating func show() { send(SIGUSR2) }
    mutating func hide() { send(SIGUSR1) }

    /// Two signals pending at once are taken lowest number first (SIGUSR1, hide, before SIGUSR2,
    /// show, whatever order they came in): one is sent 100 ms after the last at the soonest.
    private mutating func send(_ signal: Int32) {
        let next = lastSignalAt + 100_000_000
        if Posix.monotonicNanoseconds() < next { Posix.sleep(untilMonotonic: next) }
        Posix.kill(pid, signal)
        lastSignalAt = Posix.monotonicNanoseconds()
    }

    /// SIGTERM, then SIGKILL after 2 s.
    func stop() {
        Posix.kill(pid, SIGTERM)
        let deadline = Posix.monotonicNanoseconds() + 2_000_000_000
        while !Posix.reap(pid) {
            guard Posix.monotonicNanoseconds() < deadline else {
                Posix.kill(pid, SIGKILL)
                _ = Posix.reap(pid)
                return
            }
            Posix.sleep(seconds: 0.05)
        }
    }

    /// Its exit code, or 128 + the signal that ended it (it has exited: its pidfd is readable).
    func exitCode() -> Int32 {
        guard let s = Posix.reap() else { return 1 }
        return s.signal != 0 ? 128 + s.signal : s.exitCode
    }

    /// SIGUSR1 and SIGUSR2: blocked (wvkbd reads them from a signalfd) or caught.
    static let takenMask: UInt64 = 1 << (UInt64(SIGUSR1) - 1) | 1 << (UInt64(SIGUSR2) - 1)

    /// Waits (10 s at most, or until it exits) for the keyboard to take SIGUSR1 and SIGUSR2, as
    /// /proc/PID/status shows it (SigBlk, SigCgt): a signal sent before would be lost.
    static func waitUntilItTakesSignals(_ pid: Int32, exits: Int32) {
        let deadline = Posix.monotonicNanoseconds() + 10_000_000_000
        while Posix.monotonicNanoseconds() < deadline {
            if let status = try? readTextFile("/proc/\(pid)/status"), takes(status) { return }
            if case .success(let ready) = Posix.poll(exits, events: Int16(POLLIN), timeoutMs: 50), ready != 0 { return }
        }
        say("touchgesturectl keyboard: the keyboard took neither SIGUSR1 nor SIGUSR2 within 10 s; going on")
    }

    /// Does a /proc/PID/status text show both signals blocked or caught?
    static func takes(_ status: String) -> Bool {
        var taken: UInt64 = 0
        for line in status.split(separator: "\n") where line.hasPrefix("SigBlk:") || line.hasPrefix("SigCgt:") {
            taken |= UInt64(String(line.split(separator: ":").last?.filter { $0 != " " && $0 != "\t" } ?? ""), radix: 16) ?? 0
        }
        return taken & takenMask == takenMask
    }
}
