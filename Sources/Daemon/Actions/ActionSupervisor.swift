import GestureConfig
import Logging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The action runner's processes: each command starts in a session of its own, and everything
/// it forks stays below the runner (a child subreaper), so the runner can count, time out and
/// kill a command's whole tree, whatever it backgrounds. An action is running from its start
/// until its leader has exited *and* no process of its session is left. The cap counts live
/// processes, not commands; a process that leaves its action's session (setsid) is killed as
/// soon as it is seen, as it could otherwise outlive every timeout.
final class ActionSupervisor {
    private let loop: EventLoop
    private let log: Logger
    private let timer: DeadlineTimer
    private let me = Posix.processID
    /// SIGTERM first; SIGKILL this long after.
    static let killGrace: Int64 = 2_000_000_000
    /// Bytes of a command's output kept per line in the log.
    static let maxLogLine = 1024
    /// Lines of a command's output logged (one firing must not flood the journal: a command
    /// printing 30 MB once logged 29,000 lines for one tap).
    static let maxLogLines = 32

    struct Running {
        var id: Int
        /// Who asked (a connection of the runner's).
        var owner: Int32
        var name: String
        var leader: Int32
        var startedAt: Int64
        var termAt: Int64
        /// Set once SIGTERM went: when SIGKILL follows (.max once it went).
        var killAt: Int64?
        /// The leader's end, once reaped: exit status, or the signal (status -1).
        var exit: (status: Int, signal: Int)?
    }
    private(set) var running: [Running] = []
    private var strays = RepeatedWarning(what: "killed")

    init(loop: EventLoop, log: Logger) throws {
        self.loop = loop
        self.log = log
        timer = try DeadlineTimer()
        try loop.add(timer.fd) { [unowned self] _ in
            self.timer.acknowledge()
            self.enforceTimeouts()
        }
    }

    /// Live processes below the runner, every action's.
    var processCount: Int { ProcessTree.descendants(of: me).count }

    /// Starts `argv` for `owner` unless `maxProcesses` action processes are alive.
    func start(
        id: Int, owner: Int32, name: String, argv: [String], env: [String], timeoutMs: Int, maxProcesses: Int, firedAt: Int
    ) -> RunnerMessage {
        let alive = processCount
        guard alive < maxProcesses else { return .skipped(id: id, running: alive) }
        let pipe: DescriptorPair  // first: the read end, watched; second: the child's, closed here
        switch Posix.outputPipe() {
        case .success(let p): pipe = p
        case .failure(let e): return .failed(id: id, reason: "\(e)")
        }
        let before = monotonicNanoseconds()
        let spawned = Posix.spawnAction(argv, environment: env, output: pipe.second.raw)
        let readEnd = pipe.keepingFirst()  // the write end closed: the child has its copy
        let pid: Int32
        switch spawned {
        case .success(let p): pid = p
        case .failure(let e): return .failed(id: id, reason: "cannot start \(argv[0]): \(e.reason)")
        }
        let now = monotonicNanoseconds()
        let timeout = Int64(max(1, timeoutMs)) * 1_000_000
        running.append(Running(id: id, owner: owner, name: name, leader: pid, startedAt: now, termAt: now + timeout))
        log.info("action '\(name)' started: \(Action.quoted(argv)) (pid \(pid))")
        log.debug("action '\(name)': posix_spawn took \((now - before) / 1000) µs, started \(Int(now / 1000) - firedAt) µs after its gesture")
        watchOutput(readEnd.release(), name: name, pid: pid)
        armTimer()
        return .started(id: id, pid: Int(pid), spawnMicros: max(0, Int(now / 1000) - firedAt))
    }

    /// SIGCHLD: reaps every process that ended (leaders and orphans alike); the actions whose
    /// trees are now empty, as `ended` messages for their owners.
    func reap() -> [(owner: Int32, message: RunnerMessage)] {
        var any = false
        while let (pid, code, sig) = Posix.reap() {
            any = true
            if let i = running.firstIndex(where: { $0.leader == pid }) { running[i].exit = (Int(code), Int(sig)) }
        }
        guard any else { return [] }
        return sweep(ProcessTree.descendants(of: me))
    }

    /// The actions that are over, removed and reported; processes of no action killed; trees
    /// that were sent SIGKILL sent it again (a child forked before the signal landed).
    private func sweep(_ members: [ProcessTree.Member]) -> [(owner: Int32, message: RunnerMessage)] {
        var ended: [(owner: Int32, message: RunnerMessage)] = []
        let leaders = Set(running.map(\.leader))
        let orphans = members.filter { !leaders.contains($0.session) }
        if !orphans.isEmpty {
            ProcessTree.signal(orphans, SIGKILL)
            if let more = strays.note(at: monotonicNanoseconds()) {
                log.warning("killed \(orphans.count) process(es) that left their action's session (pid \(orphans.map(\.pid)))\(more)")
            }
        }
        let now = monotonicNanoseconds()
        running.removeAll { r in
            let left = members.filter { $0.session == r.leader }
            if r.killAt == .max { ProcessTree.signal(left, SIGKILL) }
            guard let exit = r.exit, left.isEmpty else { return false }
            let ms = Int((now - r.startedAt) / 1_000_000)
            if exit.signal != 0 {
                log.warning("action '\(r.name)' (pid \(r.leader)) killed by signal \(exit.signal) after \(ms) ms")
            } else if exit.status != 0 {
                log.warning("action '\(r.name)' (pid \(r.leader)) exited with status \(exit.status) after \(ms) ms")
            } else {
                log.info("action '\(r.name)' (pid \(r.leader)) exited with status 0 after \(ms) ms")
            }
            ended.append((r.owner, .ended(id: r.id, status: exit.status, signal: exit.signal, ms: ms)))
            return true
        }
        armTimer()
        return ended
    }

    /// Each action past its timeout: SIGTERM to every process of its tree, SIGKILL a grace later.
    private func enforceTimeouts() {
        let now = monotonicNanoseconds()
        let members = ProcessTree.descendants(of: me)
        for i in running.indices {
            let r = running[i]
            let tree = members.filter { $0.session == r.leader }
            if let killAt = r.killAt {
                guard now >= killAt && killAt != .max else { continue }
                log.warning("action '\(r.name)' (pid \(r.leader)) still running \(Self.killGrace / 1_000_000_000) s after SIGTERM: SIGKILL to \(tree.count) process(es)")
                ProcessTree.signal(tree, SIGKILL)
                running[i].killAt = .max
            } else if now >= r.termAt {
                let ms = (r.termAt - r.startedAt) / 1_000_000
                if r.owner < 0 {
                    log.notice("action '\(r.name)' (pid \(r.leader)): the daemon went away; after \(ms) ms, SIGTERM to \(tree.count) process(es)")
                } else {
                    let what = r.exit == nil ? "timed out" : "left \(tree.count) process(es) running, timed out"
                    log.warning("action '\(r.name)' (pid \(r.leader)) \(what) after \(ms) ms: SIGTERM to \(tree.count) process(es)")
                }
                ProcessTree.signal(tree, SIGTERM)
                running[i].killAt = now + Self.killGrace
            }
        }
        armTimer()
    }

    /// `owner` went away (the daemon stopped or died): its actions time out now.
    func abandon(owner: Int32) {
        let now = monotonicNanoseconds()
        for i in running.indices where running[i].owner == owner {
            // No one to tell when it ends (a later connection may get the same fd).
            running[i].owner = -1
            if running[i].killAt == nil { running[i].termAt = min(running[i].termAt, now) }
        }
        enforceTimeouts()
    }

    /// The runner stops: SIGKILL to every process below it until none is left, for at most a
    /// second (a process in uninterruptible sleep dies when its I/O returns, and must not hold
    /// the runner's exit). Each round kills the parents whose late children the next one finds.
    func killAll() {
        let end = monotonicNanoseconds() + 1_000_000_000
        while true {
            while Posix.reap() != nil {}
            let members = ProcessTree.descendants(of: me)
            if members.isEmpty || monotonicNanoseconds() > end { break }
            ProcessTree.signal(members, SIGKILL)
            Posix.sleep(seconds: 0.002)
        }
        running.removeAll()
    }

    private func armTimer() {
        let next = running.map { $0.killAt ?? $0.termAt }.filter { $0 != .max }.min()
        if let e = timer.arm(at: next) { log.error("action timeout timer: \(e)") }
    }

    /// The command's stdout and stderr, line by line into the log, until every process holding
    /// them has closed them: its first `maxLogLines` lines (each cut at `maxLogLine` bytes), then
    /// one line counting what was read and not logged. The rest is still read, so a command
    /// never blocks on a full pipe, and its timeout still ends a command that prints forever.
    private func watchOutput(_ fd: Int32, name: String, pid: Int32) {
        var output = OutputLog(name: name, pid: pid, log: log)
        var buffer = [UInt8](repeating: 0, count: 4096)
        do {
            try loop.add(fd) { [unowned self] _ in
                // At most 64 KiB a wake-up: a chatty command cannot hold the runner.
                for _ in 0..<16 {
                    let got = Posix.read(fd, into: &buffer)
                    if got == .wouldBlock { return }
                    guard case .done(let n) = got, n > 0 else {
                        output.end()
                        if let e = self.loop.remove(fd) { self.log.debug("action '\(name)': \(e)") }
                        Posix.close(fd)
                        return
                    }
                    output.take(buffer[0..<n])
                }
            }
        } catch {
            log.warning("action '\(name)': its output is not read: \(error)")
            Posix.close(fd)
        }
    }
}
