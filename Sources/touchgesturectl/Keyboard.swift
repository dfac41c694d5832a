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
            The keyboard must hide on SIGUSR1 and show on SIGUSR2 (wvkbd does) and start hidden. \
            SIGUSR1, SIGUSR2 and SIGRTMIN sent to this command hide, show and toggle it as the actions do \
            (signal this command, not the keyboard, so that the excluded area follows). \
            Needs the socket's group (README, "On-screen keyboard").
            """)

    @OptionGroup var connection: SocketOption

    @Option(help: "The keyboard's height in screen pixels (wvkbd's -H; 10-4000).")
    var height = 300

    @Option(help: "Its height when the screen is wider than tall (wvkbd's -L; default: --height).")
    var landscapeHeight: Int?

    @Option(help: "The screen edge the keyboard lies along: bottom (wvkbd's) or top.")
    var edge = "bottom"

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
        guard edge == "bottom" || edge == "top" else { throw ValidationError("--edge is bottom or top, found '\(edge)'") }
        if let why = KeyboardLink.nameProblem(regionName) { throw ValidationError("--region-name: \(why)") }
    }

    var argv: [String] {
        command.isEmpty
            ? ["wvkbd-mobintl", "--hidden", "-H", "\(height)", "-L", "\(landscapeHeight ?? height)"] : command
    }

    func run() throws {
        // Blocked before the keyboard starts, so none of them ends this process (the child gets
        // an empty mask and default dispositions).
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
        var link = KeyboardLink(
            socket: connection.path, child: child, region: regionName, edge: edge,
            heights: (height, landscapeHeight ?? height))
        let code = link.run(signals: signals.raw, exits: exits.raw)
        throw ExitCode(code)
    }
}

/// The helper's loop: the daemon's connection (made again when it goes), the signals, the
/// keyboard's exit.
struct KeyboardLink {
    let socket: String
    let child: Int32
    let region: String
    let edge: String
    let heights: (portrait: Int, landscape: Int)
    private var connection: Connection?
    private var screen: (width: Double, height: Double)?
    private var shown = false
    private var retryAt: Int64 = 0
    private var retrySeconds = 1
    private var saidWaiting = false

    init(socket: String, child: Int32, region: String, edge: String, heights: (portrait: Int, landscape: Int)) {
        (self.socket, self.child, self.region, self.edge, self.heights) = (socket, child, region, edge, heights)
    }

    static func nameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64, !name.contains("/") else { return "1 to 64 bytes, no '/'" }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return "no control character" }
        return nil
    }

    /// Until the keyboard exits (its exit code, or 128 + its signal) or a stop signal (0).
    mutating func run(signals: Int32, exits: Int32) -> Int32 {
        connect()
        while true {
            var fds = [signals, exits]
            if let c = connection { fds.append(c.fd) }
            let wait = connection == nil ? Int32(max(0, (retryAt - Posix.monotonicNanoseconds()) / 1_000_000) + 1) : -1
            guard case .success(let ready) = Posix.poll(fds, events: Int16(POLLIN), timeoutMs: wait) else { continue }
            if ready[1] != 0 { return keyboardExited() }
            if ready[0] != 0, let code = takeSignals(signals) { return code }
            if fds.count == 3, ready[2] != 0 { readDaemon() }
            if connection == nil && Posix.monotonicNanoseconds() >= retryAt { connect() }
        }
    }

    // MARK: - The keyboard

    private mutating func show() {
        guard !shown else { return }
        shown = true
        Posix.kill(child, SIGUSR2)
        sendRegion()
    }

    private mutating func hide() {
        guard shown else { return }
        shown = false
        Posix.kill(child, SIGUSR1)
        connection?.send(#"{"op":"clear_regions","id":4}"#)
    }

    /// The signals that came: hide, show, toggle, or stop (the keyboard is ended first).
    private mutating func takeSignals(_ fd: Int32) -> Int32? {
        while let s = Posix.nextSignal(fd) {
            switch s {
            case SIGUSR1: hide()
            case SIGUSR2: show()
            case Posix.firstRealTimeSignal: if shown { hide() } else { show() }
            case SIGTERM, SIGINT, SIGHUP:
                stopKeyboard()
                return 0
            default: break
            }
        }
        return nil
    }

    /// SIGTERM, then SIGKILL after 2 s.
    private func stopKeyboard() {
        Posix.kill(child, SIGTERM)
        let deadline = Posix.monotonicNanoseconds() + 2_000_000_000
        while !Posix.reap(child) {
            guard Posix.monotonicNanoseconds() < deadline else {
                Posix.kill(child, SIGKILL)
                _ = Posix.reap(child)
                return
            }
            Posix.sleep(seconds: 0.05)
        }
    }

    private func keyboardExited() -> Int32 {
        let status = Posix.reap()
        let code = status.map { $0.signal != 0 ? 128 + $0.signal : $0.exitCode } ?? 1
        say("touchgesturectl keyboard: the keyboard exited (status \(code)); its area is no longer excluded")
        return code
    }

    // MARK: - The daemon

    private mutating func connect() {
        let c = (try? Connection(SocketPaths.requests(besides: socket), quiet: true)) ?? (try? Connection(socket, quiet: true))
        guard let c else {
            if !saidWaiting { say("touchgesturectl keyboard: cannot reach the daemon at \(socket); trying again") }
            saidWaiting = true
            retryAt = Posix.monotonicNanoseconds() + Int64(retrySeconds) * 1_000_000_000
            retrySeconds = min(retrySeconds * 2, 10)
            return
        }
        if saidWaiting { say("touchgesturectl keyboard: connected to \(socket)") }
        (saidWaiting, retrySeconds, screen) = (false, 1, nil)
        connection = c
        // No gesture lines, but the lines every gesture subscriber gets (keyboard, idle, wake).
        c.send(#"{"op":"subscribe","id":1,"gestures":[]}"#)
        c.send(#"{"op":"get_config","id":2}"#)
    }

    private mutating func readDaemon() {
        guard let c = connection else { return }
        repeat {
            guard let line = c.readLine(until: Posix.monotonicNanoseconds() + 100_000_000) else {
                if c.timedOut { return }
                say("touchgesturectl keyboard: the daemon closed the connection; connecting again")
                connection = nil
                retryAt = Posix.monotonicNanoseconds() + 1_000_000_000
                return
            }
            take(line)
        } while c.hasBufferedLine
    }

    private mutating func take(_ line: String) {
        guard let v = try? parseJSON(Array(line.utf8)), case .string(let type)? = v["type"] else { return }
        switch type {
        case "keyboard":
            switch v["keyboard"] {
            case .string("show")?: show()
            case .string("hide")?: hide()
            case .string("toggle")?: if shown { hide() } else { show() }
            default: break
            }
        case "reply" where v["id"] == .number(2):
            guard case .object(let s)? = v["screen"], case .number(let w)? = s.first(where: { $0.0 == "width" })?.1,
                case .number(let h)? = s.first(where: { $0.0 == "height" })?.1, w > 0, h > 0
            else { return }
            screen = (w, h)
            if shown { sendRegion() }
        case "error":
            let message = { if case .string(let m)? = v["message"] { String(m.prefix(1024)) } else { "error" } }()
            say("touchgesturectl keyboard: the daemon refused: \(SafeText.escaped(message))")
        default: break
        }
    }

    /// The excluded region over the keyboard's area, this connection's only region.
    private func sendRegion() {
        guard let c = connection, let screen else { return }
        let h = Double(screen.width > screen.height ? heights.landscape : heights.portrait)
        let y = edge == "top" ? 0 : max(0, screen.height - h)
        let rect: [JSONValue] = [0, y, screen.width, min(h, screen.height)].map { .number($0) }
        let r: JSONValue = .object([("name", .string(region)), ("rect", .array(rect)), ("exclude", .bool(true))])
        c.send(jsonText(.object([("op", .string("set_regions")), ("id", .number(3)), ("regions", .array([r]))])))
    }
}
