import GestureConfig
import GestureEngine
import GestureProtocol
import Logging
import Pipeline
import SystemCalls
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

public let daemonVersion = packageVersion

/// The daemon: one thread, one epoll loop. Inputs, a timerfd at the engines' next deadline, a
/// signalfd (TERM/INT stop, HUP reloads), the socket and its clients. Nothing polls: with no input
/// and no clients it does not wake up.
public final class Daemon: EventLoopOwner {
    public struct Options {
        public var configPath: String?
        public var socketPath: String?
        public var replay: String?
        public var deviceDescription: String?
        public var loop = false
        public var speed = 1.0
        public var exitAfterReplay = false
        /// Start the replay once this many clients have connected (0: at once).
        public var waitForClients = 0
        public var verbose = false
        /// The action runner's socket (touchgestured-actions.socket); nil: a runner child of the
        /// daemon's own.
        public var actionRunner: String?
        /// The folder of the daemon's own state: `calibration.toml`, a calibration a client
        /// saved (`calibrate`), read after the configuration file, before its drop-ins. Nil: nothing is saved.
        public var stateDirectory: String?
        /// The saved calibrations' file, when there is a state folder.
        public var calibrationFile: String? { stateDirectory.map { $0 + "/calibration.toml" } }
        /// `--trace-hops FILE`: each mirror frame's read and write times, written there at exit (`HopTrace`).
        public var traceHops: String?
        public init() {}
    }

    let options: Options
    let log: Logger
    let loop: EventLoop
    let systemd = Systemd()
    /// The socket's clients (opened at start, before READY=1).
    let server: Server
    /// The configuration from the file (or the built-in one), without client regions.
    var base: Configuration
    /// What `[[action]]`s do: the virtual keyboard, commands.
    let actions: ActionRunner
    /// The touch devices and their pipelines (with what the engines run: the file's regions plus
    /// every client's, compiled). A constant: each wake-up's read reaches it with nothing retained.
    let devices: DeviceLifecycle<Daemon>
    /// Touch to wake: the idle timer and its counts (IdleWatch.swift).
    let idle: IdleWatch
    private let deadline: DeadlineTimer
    private var signalFD: Int32 = -1
    private var strays = StraySignals()
    private var watchdog: Int32 = -1
    /// The sockets' files and directories this start made (none under socket activation).
    private var sockets = ListenSocket.Opened()
    private var exitCode: Int32 = 0
    private(set) var lastReloadError: String?
    /// When a client last changed the configuration (`reload`, a `calibrate` save): one a second.
    var lastClientChange: Int64?

    // Reply scratch and stats.
    var writer = JSONLineWriter(capacity: 4096)
    var stats = Stats()
    private var deadlineFailures = RepeatedWarning(what: "failures")
    /// The engines' anomalies reported so far (`stats`: engine_anomalies).
    private(set) var reportedAnomalies = 0

    public init(options: Options, log: Logger) throws {
        self.options = options
        self.log = log
        // What systemd passed, first: before this process opens a descriptor of its own, so a
        // count that promises more than was passed names no descriptor of the daemon's.
        let passed = Systemd.passedDescriptors()
        let kept = MirrorStore(passed: passed.filter { MirrorStore.isMirror($0.name) }, systemd: Systemd(), log: log)
        loop = try EventLoop()
        deadline = try DeadlineTimer()
        idle = try IdleWatch(now: monotonicNanoseconds())
        actions = ActionRunner(loop: loop, log: log, maxChildren: 4, runnerSocket: options.actionRunner, verbose: options.verbose)
        var base = try Self.startingConfiguration(options, log: log)
        if let s = options.socketPath { base.daemon.socket = s }
        self.base = base
        actions.maxChildren = base.daemon.maxActionChildren
        let opened = try ListenSocket.open(base.daemon, passed: passed.filter { !MirrorStore.isMirror($0.name) }, log: log)
        sockets = opened
        do {
            server = try Server(loop: loop, listeners: opened.listeners, limits: Self.limits(base, log: log), log: log)
        } catch {
            for l in opened.listeners { Posix.close(l.fd) }
            opened.removeFiles()
            throw error
        }
        devices = DeviceLifecycle(loop: loop, log: log, actions: actions, base: base)
        devices.mirrors = kept
        devices.trace = options.traceHops.map { HopTrace(path: $0) }
        // Before the unit makes every thread real-time (`chrt --all-tasks`); only in pass-through: a
        // second thread puts the loop's system calls on glibc's slower multi-threaded path.
        if base.daemon.mode == .passthrough { devices.input = InputThread.start(log: log) }
        devices.owner = self
    }

    /// The server's limits from `[daemon]`; `max_clients` lowered (with a warning) when
    /// RLIMIT_NOFILE cannot hold that many.
    static func limits(_ configuration: Configuration, log: Logger) -> Server.Limits {
        let settings = configuration.daemon
        let n = Server.clientLimit(configured: settings.maxClients)
        if n < settings.maxClients {
            log.warning("max_clients \(settings.maxClients) lowered to \(n): RLIMIT_NOFILE leaves fds for \(n) clients")
        }
        var limits = Server.Limits(
            maxClients: n, maxLineBytes: settings.maxLineBytes, outputBufferBytes: settings.outputBufferBytes,
            coalesceNs: settings.coalesceNanoseconds)
        limits.maxClientsPerUser = settings.maxClientsPerUser
        (limits.idleNs, limits.requestNsPerUser) = (Int64(settings.idleTimeoutMilliseconds) * 1_000_000, Double(settings.requestMsPerUser) * 1e6)
        limits.paceInput = settings.mode != .passthrough && configuration.pointerRegions.isEmpty
        return limits
    }

    static func loadConfiguration(_ path: String?, calibrations: String?) throws -> Configuration {
        guard let path else { return try calibrations.map { try ConfigLoader.builtIn(calibrations: $0) } ?? .standard }
        return try ConfigLoader.load(path: path, calibrations: calibrations)
    }

    /// The configuration at start. A saved calibration never stops the daemon: when the state
    /// file is what fails (damaged, or written by hand), the daemon starts without it and says
    /// why; the admin's own files still stop a start, with file, line and reason. (A reload
    /// that fails keeps the configuration running, as for any file.)
    static func startingConfiguration(_ options: Options, log: Logger) throws -> Configuration {
        do {
            let c = try loadConfiguration(options.configPath, calibrations: options.calibrationFile)
            for n in c.notices { log.warning("\(n)") }
            return c
        } catch {
            guard let saved = options.calibrationFile, case .success = Posix.status(saved, followingLinks: false),
                let without = options.configPath.map({ try? ConfigLoader.load(path: $0) }) ?? .standard
            else { throw error }
            log.error("the saved calibrations are not applied: \(error); started without them (fix or remove \(saved): a save or a reload reads it again)")
            return without
        }
    }

    // MARK: - Start and run

    /// Sets everything up, tells systemd READY=1, runs until stopped; returns the exit code. A
    /// start-up that fails leaves no socket file behind.
    public func run() throws -> Int32 {
        // The per-frame state: a local of this call, handed on `inout` (EventLoop).
        var state = FrameState(fanout: Server.fanout(server.settings))
        do {
            try start(&state)
        } catch {
            sockets.removeFiles()
            throw error
        }
        loop.run(self, &state)

        systemd.notify("STOPPING=1")
        server.closeAll(&state)
        devices.stopAll(&state)
        actions.stopAll()
        let traced = writeTrace()
        for p in sockets.paths { _ = Posix.unlink(p) }
        log.info("stopped")
        return exitCode == 0 && !traced ? 1 : exitCode
    }

    /// `--trace-hops`: the rows, written once the mirrors lifted their last touches (false: not).
    private func writeTrace() -> Bool {
        guard let trace = devices.trace else { return true }
        do { try trace.write() } catch {
            log.error("hop trace: cannot write \(trace.path): \(error)")
            return false
        }
        log.info("hop trace written to \(trace.path)\(trace.dropped > 0 ? " (\(trace.dropped) frames past its room left out)" : "")")
        return true
    }

    private func start(_ state: inout FrameState) throws {
        Posix.setProcessName("touchgestured")
        signalFD = try Posix.signalDescriptor().get().release()  // held for the process's life
        try loop.add(signalFD) { [unowned self] _, state in self.signals(&state) }
        try loop.add(deadline.fd) { [unowned self] _, state in self.deadlineFired(&state) }

        server.onConnect = { [unowned self] c, state in self.connected(c, &state) }
        server.onRequest = { [unowned self] c, line, state in self.request(c, line, &state) }
        server.onDisconnect = { [unowned self] c, state in self.disconnected(c, &state) }
        actions.configure(base.actions)
        devices.configurePointer(&state)
        subscriptionsChanged(&state)
        try startIdleWatch(&state)

        if let path = options.replay {
            try devices.openReplay(path, options: options, clients: server.settings.maxClients, &state)
        } else {
            devices.scan(&state)
            devices.startHotplug()
        }
        devices.mirrors.dropUnclaimed()

        if let interval = systemd.watchdogInterval {
            watchdog = try Posix.timerCreate().get().release()  // held for the process's life
            if let e = Posix.armTimer(watchdog, every: interval) { throw e }
            try loop.add(watchdog) { [unowned self] _ in
                _ = Posix.drainTimer(self.watchdog)  // empties the expiry count; EAGAIN: nothing to empty
                if !self.systemd.notify("WATCHDOG=1") { self.log.warning("cannot reach systemd's notify socket (WATCHDOG=1)") }
            }
        }
        if !systemd.notify("READY=1\nSTATUS=\(status(state))\nMAINPID=\(Posix.processID)") {
            log.warning("cannot reach systemd's notify socket (READY=1)")
        }
        log.info("touchgestured \(daemonVersion) ready on \(base.daemon.socket): \(state.devices.all.count) device(s), config \(base.source)")
    }

    /// systemd's STATUS= line.
    func status(_ state: borrowing FrameState) -> String {
        var s = "\(state.devices.all.count) device(s), \(server.clientCount) client(s)"
        if let e = lastReloadError { s += "; last reload failed: \(e)" }
        return s
    }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    private func deadlineFired(_ state: inout FrameState) {
        let now = monotonicNanoseconds()
        if deadline.armedAt > 0 { stats.lateness.add(max(0, now - deadline.armedAt)) }
        deadline.acknowledge()
        devices.fireDeadlines(now: now, &state)
    }

    func deviceReady(_ id: UInt32, fd: Int32, _ state: inout FrameState) { devices.ready(id, fd: fd, &state) }

    /// After every wake-up: serve the backlog, write what was queued, start the actions' commands,
    /// re-arm the deadline timer, maybe exit, maybe pace the input; how long the next wait may
    /// last (held lines' release). Each part is read once.
    func afterTurn(_ state: inout FrameState) -> Int32 {
        let turn = server.endTurn(&state)
        let (next, anomalies) = (turn.deadline, turn.anomalies)
        actions.startPending()
        if anomalies > reportedAnomalies {
            log.warning("the engine met \(anomalies - reportedAnomalies) impossible input(s) or double decision(s): a bug; run with --verbose and report the transitions")
            reportedAnomalies = anomalies
        }
        if let e = deadline.arm(at: next), let more = deadlineFailures.note(at: monotonicNanoseconds()) {
            log.error("deadline timer: \(e); gestures waiting on time are late\(more)")
        }
        // --exit-after-replay waits for the actions' commands too (each is bounded by its timeout).
        if options.exitAfterReplay && next == nil && state.devices.allEndedAndIdle && actions.running == 0 {
            log.info("the replay is over (--exit-after-replay)")
            loop.stop()
        }
        guard let until = turn.readAgain, sleepUntil(monotonic: until) else { return server.releaseWait() }
        state.fanout.pacedUntil = until
        return server.releaseWait(since: until)
    }

    // MARK: - Signals and reload

    private func signals(_ state: inout FrameState) {
        while true {
            guard let sig = Posix.nextSignal(signalFD) else { return }
            switch sig {
            case SIGHUP: reload(&state)
            case SIGCHLD: actions.reap()
            case SIGTERM, SIGINT, SIGQUIT:
                log.info("signal \(sig): stopping")
                loop.stop()
            case SIGXCPU:
                log.error("SIGXCPU: the loop ran at real-time priority past LimitRTTIME's soft limit without sleeping (a long reload, or a fault); at the hard limit the kernel ends the daemon, and systemd starts it again")
            default:
                strays.note(sig, log: log)
            }
        }
    }

    func reload(_ state: inout FrameState) {
        guard options.configPath != nil || options.calibrationFile != nil else {  // (else the built-in and the saved calibrations)
            log.notice("SIGHUP: no --config file to reload; the built-in configuration stays")
            return
        }
        systemd.notify("RELOADING=1")
        defer { systemd.notify("READY=1\nSTATUS=\(status(state))") }
        do {
            let next = try Self.loadConfiguration(options.configPath, calibrations: options.calibrationFile)
            for n in next.notices { log.warning("\(n)") }
            let kept = try apply(next, &state)
            lastReloadError = nil
            stats.reloads += 1
            let but = kept.map { "; but \($0)" } ?? ""
            log.info("reloaded \(options.configPath ?? "the built-in configuration and the saved calibrations"): applies from the next touch sequence\(but)")
        } catch {
            stats.reloadFailures += 1
            lastReloadError = "\(error)"
            log.error("reload refused, the old configuration stays: \(error)")
        }
    }

    /// Takes a new configuration (a reload): the one place where every part hears of it. The socket's path
    /// stays; the rest applies from each device's next touch sequence. What applies only at start, said.
    @discardableResult
    func apply(_ configuration: Configuration, _ state: inout FrameState) throws -> String? {
        var next = configuration
        var kept: [String] = []
        // What applies at start stays: the sockets, and how the panels are held (a mirror the
        // compositor reads does not come and go with a reload).
        if options.socketPath == nil && (next.daemon.socket != base.daemon.socket || next.daemon.requestSocket != base.daemon.requestSocket) {
            kept.append("the sockets stay where they are until a restart")
        }
        next.daemon.socket = base.daemon.socket
        next.daemon.requestSocket = base.daemon.requestSocket
        if next.daemon.mode != base.daemon.mode {
            kept.append("[device] mode = \"\(next.daemon.mode.rawValue)\" applies at start: the panels stay \"\(base.daemon.mode.rawValue)\" until a restart")
            log.notice("\(kept[kept.count - 1])")
            next.daemon.mode = base.daemon.mode
        }
        if next.daemon.cancel != base.daemon.cancel {
            kept.append("[device] cancel = \"\(next.daemon.cancel.rawValue)\" applies at start: the virtual touchscreens keep \"\(base.daemon.cancel.rawValue)\" until a restart")
            log.notice("\(kept[kept.count - 1])")
            next.daemon.cancel = base.daemon.cancel
        }
        let geometryChanged = next.geometry != base.geometry || next.panels != base.panels
        let screen = next.engine.screen != base.engine.screen ? next.engine.screen : nil
        base = next
        devices.base = next
        actions.maxChildren = next.daemon.maxActionChildren
        actions.configure(next.actions)
        devices.configurePointer(&state)
        readmitClientRegions(&state)
        try recompile(&state)
        if geometryChanged { devices.remap(&state) }
        server.apply(Self.limits(next, log: log), to: &state)
        for c in server.allClients { server.watchIdle(c, in: state) }
        configureIdle(&state)
        if let screen { tellScreen(screen, &state) }
        return kept.isEmpty ? nil : kept.joined(separator: "; ")
    }


    // MARK: - Clients

    func connected(_ c: Client, _ state: inout FrameState) {
        writer.reset()
        Messages.hello(
            &writer, version: daemonVersion, devices: state.devices.all.map(\.summary), screen: base.engine.screen,
            maxLineBytes: base.daemon.maxLineBytes)
        state.fanout.reply(writer.bytes[...], to: c.slot)
        writer.reset()
        subscriptionsChanged(&state)
        if devices.waiting && server.clientCount >= options.waitForClients { devices.startWaiting(&state) }
        systemd.notify("STATUS=\(status(state))")
    }

    /// A client went (the server reports it between handlers, never during a fan-out): its
    /// regions are removed at once.
    private func disconnected(_ c: Client, _ state: inout FrameState) {
        if !c.ownedRegions.isEmpty {
            c.ownedRegions = []
            log.info("\(c.label)'s regions removed")
            do { try recompile(&state, chargedTo: c.uid) } catch { log.error("recompiling without a client's regions: \(error)") }
        }
        subscriptionsChanged(&state)
        systemd.notify("STATUS=\(status(state))")
    }
}

/// Devices coming and going, and what the pipelines must make for the clients.
extension Daemon: DeviceOwner {
    /// What the pipelines make: lines are formatted only when some client takes them.
    /// Never while a pipeline runs or its output is read: the fan-out reports, it does not call back.
    func subscriptionsChanged(_ state: inout FrameState) {
        state.devices.output.wants = state.fanout.wants(transitions: options.verbose)
    }

    func added(_ device: RouteDevice, _ state: inout FrameState) {
        announce(device, added: true, &state)
        systemd.notify("STATUS=\(status(state))")
    }

    func removed(_ device: RouteDevice, _ state: inout FrameState) {
        announce(device, added: false, &state)
        systemd.notify("STATUS=\(status(state))")
    }

    private func announce(_ device: RouteDevice, added: Bool, _ state: inout FrameState) {
        writer.reset()
        Messages.device(&writer, added: added, device.summary, time: Double(monotonicNanoseconds()) / 1e9)
        state.fanout.announce(writer.bytes, device: device.id)
        writer.reset()
    }
}
