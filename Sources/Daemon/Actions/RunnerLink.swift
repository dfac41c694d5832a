import Logging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's end of the action runner. Without `--action-runner` the daemon starts the runner
/// as its own child (`touchgestured --serve-actions-fd 3` over a socket pair), when the first
/// configuration with an exec action loads, and again after it died; with it, the daemon
/// connects to the runner's socket (touchgestured-actions.socket), and a runner that is not
/// there fails the firing (never a fallback that would run the command with the daemon's
/// groups). Sends never wait: a runner that reads nothing makes a firing fail, not the loop stall.
final class RunnerLink {
    private let loop: EventLoop
    private let log: Logger
    /// The runner's socket, or nil for a runner of the daemon's own.
    let socket: String?
    private let verbose: Bool
    private var fd: Int32 = -1
    /// The runner the daemon started, while it lives.
    private(set) var child: Int32 = 0
    private var nextID = 1
    /// Commands sent whose end has not come back, by id.
    private var waiting: Set<Int> = []
    private var buffer = [UInt8](repeating: 0, count: RunnerMessage.maxBytes)
    private var connectFailures = RepeatedWarning(what: "failed")
    var onReply: (RunnerMessage) -> Void = { _ in }

    init(loop: EventLoop, log: Logger, socket: String?, verbose: Bool) {
        self.loop = loop
        self.log = log
        self.socket = socket
        self.verbose = verbose
    }

    var inFlight: Int { waiting.count }
    var isConnected: Bool { fd >= 0 }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Connects (or starts the runner) unless already done; the error otherwise.
    @discardableResult
    func connect() -> Failure? {
        guard fd < 0 else { return nil }
        do {
            fd = try socket.map(Self.open) ?? startChild()
            try loop.add(fd) { [unowned self] _ in self.receive() }
            return nil
        } catch let e as Failure {
            if fd >= 0 { Posix.close(fd) }
            fd = -1
            return e
        } catch {
            if fd >= 0 { Posix.close(fd) }
            fd = -1
            return Failure(description: "\(error)")
        }
    }

    private static func open(_ path: String) throws(Failure) -> Int32 {
        let s: Descriptor
        switch Posix.socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue)) {
        case .success(let d): s = d
        case .failure(let e): throw Failure(description: "\(e)")
        }
        if let e = Posix.connect(s.raw, unixPath: path) {
            throw Failure(description: "cannot reach the action runner at \(path): \(e.reason) (is touchgestured-actions.socket enabled?)")
        }
        return s.release()
    }

    /// The runner as the daemon's child: the same executable, in its runner mode.
    private func startChild() throws(Failure) -> Int32 {
        // The daemon is the subreaper above its runner: if the runner dies, what its commands
        // run comes to the daemon (reap), not to init, where nothing would end it.
        if let e = Posix.becomeSubreaper() { throw Failure(description: "\(e)") }
        let pair: DescriptorPair  // first: the daemon's end; second: the runner's, closed here once it has its copy
        switch Posix.sequentialPacketPair() {
        case .success(let p): pair = p
        case .failure(let e): throw Failure(description: "\(e)")
        }
        let argv = ["touchgestured", "--serve-actions-fd", "3"] + (verbose ? ["--verbose"] : [])
        let spawned = Posix.spawnSelf(argv, fd3: pair.second.raw)
        let ours = pair.keepingFirst()
        switch spawned {
        case .success(let pid): child = pid
        case .failure(let e): throw Failure(description: "cannot start the action runner: \(e.reason)")
        }
        log.info("action runner started (pid \(child))")
        return ours.release()
    }

    /// Asks the runner to run a command; the error when it could not be asked.
    func run(name: String, argv: [String], env: [String], timeoutMs: Int, maxProcesses: Int, firedAt: Int) -> Failure? {
        if let e = connect() { return e }
        let id = nextID
        nextID += 1
        let bytes = RunnerMessage.run(
            id: id, name: name, argv: argv, env: env, timeoutMs: timeoutMs, maxProcesses: maxProcesses, firedAt: firedAt
        ).encoded()
        guard bytes.count <= RunnerMessage.maxBytes else { return Failure(description: "its command line is over 256 KiB") }
        switch Posix.send(fd, bytes, "send to the action runner") {
        case .done(let n) where n == bytes.count: break
        case .done, .wouldBlock: return Failure(description: "the action runner is not reading")
        case .removed:
            disconnect("send to the action runner: its socket went away")
            return Failure(description: "the action runner went away")
        case .failed(let e):
            disconnect("\(e)")
            return Failure(description: "the action runner went away")
        }
        waiting.insert(id)
        return nil
    }

    private func receive() {
        while fd >= 0 {
            let got = Posix.receive(fd, into: &buffer, "recv from the action runner")
            if got == .wouldBlock { return }
            guard case .done(let n) = got, n > 0 else {
                if case .failed(let e) = got { return disconnect("\(e)") }
                return disconnect("it closed the connection")
            }
            do {
                let m = try RunnerMessage(decoding: buffer[0..<n])
                switch m {
                case .skipped(let id, _), .failed(let id, _), .ended(let id, _, _, _): waiting.remove(id)
                case .started, .run: break
                }
                onReply(m)
            } catch {
                log.warning("the action runner sent a malformed message: \(error)")
            }
        }
    }

    /// The connection is gone: what was sent is over. A runner that lives ends what it ran for
    /// us when it sees the close; one that died left it to the daemon (`reap`) or, as a service,
    /// to its unit's stop (KillMode=control-group).
    private func disconnect(_ why: String) {
        guard fd >= 0 else { return }
        _ = loop.remove(fd)
        Posix.close(fd)
        fd = -1
        if let more = connectFailures.note(at: monotonicNanoseconds()) {
            let who = socket == nil ? "the daemon kills what a dead runner left" : "its service ends them when the runner stops"
            log.error("lost the action runner (\(why)) with \(waiting.count) action(s) running: a runner that lives ends them, \(who)\(more)")
        }
        waiting.removeAll()
    }

    /// SIGCHLD: reaps the runner child if it ended (the next firing starts another), and any
    /// process it left: the daemon is the subreaper above its runner, so when the runner dies
    /// (killed, or crashed) every command still running, and whatever they started, becomes
    /// the daemon's child instead of init's, and is killed here. Each one reaped sweeps again,
    /// so a process forked while its parent was being killed is found in its turn.
    func reap() {
        var sweep = false
        while let (pid, code, sig) = Posix.reap() {
            sweep = true
            guard pid == child else { continue }
            child = 0
            disconnect("it ended")
            let how = sig != 0 ? "was killed by signal \(sig)" : "exited with status \(code)"
            let left = killOrphans()
            log.warning("the action runner (pid \(pid)) \(how); \(left) process(es) of its commands were left, killed now")
        }
        if sweep { orphansKilled += killOrphans() }
    }

    /// Processes the runner left that were killed, since start (for tests and the log).
    private(set) var orphansKilled = 0

    /// SIGKILL to every process below the daemon but the runner it has now: what a dead runner
    /// left. How many were signalled.
    @discardableResult
    func killOrphans() -> Int {
        guard socket == nil else { return 0 }
        return ProcessTree.signal(ProcessTree.descendants(of: Posix.processID, except: child), SIGKILL)
    }

    /// Closes the connection; the runner then ends every command it ran for this daemon. A
    /// runner child is waited for, at most its grace for SIGKILL and a second.
    func close(waitForChild: Bool) {
        guard fd >= 0 else { return }
        _ = loop.remove(fd)
        Posix.close(fd)
        fd = -1
        guard waitForChild, child > 0 else { return }
        guard case .success(let pidfd) = Posix.processDescriptor(child) else { return }
        let ms = Int32((ActionSupervisor.killGrace + 1_000_000_000) / 1_000_000)
        _ = Posix.poll(pidfd.raw, events: Int16(POLLIN), timeoutMs: ms)
        if Posix.reap(child) { child = 0 }
        // A runner that died before (or would not end) left its commands to the daemon.
        if child == 0, killOrphans() > 0 { log.warning("killed the processes a dead action runner left") }
    }
}
