import ArgumentParser
import Daemon
import GestureConfig
import Logging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

@main
struct TouchGestured: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touchgestured",
        abstract: "Touchscreen gesture daemon: recognizes gestures and serves them as JSON lines on a Unix socket.",
        discussion: """
            Protocol: docs/PROTOCOL.md. Configuration: docs/CONFIG.md. Signals: SIGHUP reloads the \
            configuration (a bad file is refused and the old one stays), SIGTERM/SIGINT/SIGQUIT stop; \
            other signals that would end a process (SIGUSR1, SIGUSR2, SIGALRM, real-time ones) are \
            logged and ignored; so is SIGXCPU (LimitRTTIME's soft limit, at the real-time priority \
            touchgestured.service gives the loop).
            """,
        version: daemonVersion
    )

    @Option(name: .long, help: "Configuration file (TOML); the built-in default without it.")
    var config: String?

    @Option(name: .long, help: "Socket path (overrides [daemon] socket; default /run/touchgestured/gestures.sock).")
    var socket: String?

    @Option(name: .customLong("replay"), help: "Play an evemu recording as a virtual touch device (one).")
    var replays: [String] = []
    /// The recording to play (`validate` refuses more than one: the last would win in silence).
    var replay: String? { replays.first }

    @Option(name: .long, help: "Device description (evemu .desc) for a recording that carries only events.")
    var device: String?

    @Flag(name: .customLong("loop"), help: "Play the recording again and again.")
    var loopReplay = false

    @Option(name: .long, help: "Replay speed factor, 0.001 to 1000 (2 = twice as fast). Gesture lines keep the recording's timeline.")
    var speed: Double = 1

    @Flag(help: "Stop once the replay is over, every gesture has ended and every exec action it started has ended (or its timeout killed it).")
    var exitAfterReplay = false

    @Option(help: "Start the replay once this many clients have connected.")
    var waitForClients = 0

    @Flag(name: .shortAndLong, help: "Log every recognizer transition.")
    var verbose = false

    @Option(help: "Send exec actions to the action runner at this socket (touchgestured-actions.socket) instead of a runner child of the daemon's own.")
    var actionRunner: String?

    @Option(help: "Be the action runner, not the daemon: serve the socket systemd passes, or bind this path (SOCK_SEQPACKET).")
    var serveActions: String?

    @Option(help: .hidden)
    var serveActionsFd: Int32?

    @Option(help: "Benchmark mode: for each frame a mirror writes, when its read returned, when the write started and ended, and the panel's own timestamp of the frame (CLOCK_MONOTONIC ns), written to this file at exit (docs/BENCHMARKS.md, \"Under load\").")
    var traceHops: String?

    @Option(help: "Where a calibration saved by a `calibrate` request is kept (calibration.toml), read after the configuration file, before its drop-ins (default $STATE_DIRECTORY, which systemd's StateDirectory= sets).")
    var stateDir: String?

    /// Blocks SIGHUP, SIGTERM and SIGINT before anything else runs (even argument parsing): one
    /// that arrives during start-up waits for the loop instead of killing the daemon.
    static func main() {
        _ = Posix.blockDaemonSignals()
        main(nil)
    }

    func validate() throws {
        guard speed >= 0.001 && speed <= 1000 else { throw ValidationError("--speed must be from 0.001 to 1000") }
        if replays.count > 1 { throw ValidationError("--replay plays one recording; \(replays.count) were given") }
        if exitAfterReplay && replay == nil { throw ValidationError("--exit-after-replay stops after a --replay; give one") }
        if exitAfterReplay && loopReplay { throw ValidationError("--loop plays the recording forever: it never ends for --exit-after-replay") }
        // No more clients than the daemon takes (`[daemon] max_clients` is 1024 at most).
        guard (0...1024).contains(waitForClients) else { throw ValidationError("--wait-for-clients must be from 0 to 1024") }
        // A replay's options without a replay: a daemon on the real panels, not what was asked.
        if replay == nil, let flag = [(loopReplay, "--loop"), (speed != 1, "--speed"), (waitForClients != 0, "--wait-for-clients")].first(where: \.0)?.1 {
            throw ValidationError("\(flag) is for a --replay; give one")
        }
        // The trace is written at exit, over what is there: never over an input of this run.
        if let traceHops, case .success(let out) = Posix.status(traceHops) {
            for input in [replay, device, config].compactMap({ $0 }) {
                if case .success(let s) = Posix.status(input), s.identity == out.identity {
                    throw ValidationError("--trace-hops \(traceHops) is \(input), an input of this run: it would be overwritten; name another file")
                }
            }
        }
    }

    func run() throws {
        JournalLogHandler.bootstrap(verbose: verbose)
        let log = Logger(label: "touchgestured")
        if serveActions != nil || serveActionsFd != nil { return try runActionRunner(log) }
        // No transparent huge pages for the daemon's memory: where the kernel gives them always
        // (Debian's default), a first touch of its memory zeroes 2 MB and khugepaged collapses
        // its pages in a stretch the real-time input thread cannot preempt (a 6 ms stall of a
        // touch in the guest's trace, docs/BENCHMARKS.md, "The hop's stalls under the hog, traced").
        if let e = Posix.setHugePagesDisabled(true) { log.debug("transparent huge pages stay as the system sets them: \(e)") }
        var options = Daemon.Options()
        options.configPath = config
        options.socketPath = socket
        options.replay = replay
        options.deviceDescription = device
        options.loop = loopReplay
        options.speed = speed
        options.exitAfterReplay = exitAfterReplay
        options.waitForClients = waitForClients
        options.verbose = verbose
        options.actionRunner = actionRunner
        options.traceHops = traceHops
        // systemd may list several folders, colon-separated: the first is ours.
        options.stateDirectory = stateDir ?? Posix.environment("STATE_DIRECTORY").flatMap { $0.split(separator: ":").first.map(String.init) }
        try exit(log, "cannot start") { try Daemon(options: options, log: log).run() }
    }

    /// `--serve-actions`: the action runner (ActionRunnerService), for a daemon's exec actions.
    func runActionRunner(_ log: Logger) throws {
        // The commands it runs get the system's own setting, not the daemon's (above).
        _ = Posix.setHugePagesDisabled(false)
        try exit(log, "the action runner cannot start") {
            try ActionRunnerService(log: log, connection: serveActionsFd, path: serveActions).run()
        }
    }

    /// Runs `body` to its exit code: nonzero exits with it; a failure is logged and exits 1.
    private func exit(_ log: Logger, _ what: String, _ body: () throws -> Int32) throws {
        do {
            let code = try body()
            if code != 0 { throw ExitCode(code) }
        } catch let e as ExitCode {
            throw e
        } catch {
            log.critical("\(what): \(error)")
            throw ExitCode(1)
        }
    }
}
