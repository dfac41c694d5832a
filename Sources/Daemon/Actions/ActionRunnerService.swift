import Logging
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// `touchgestured --serve-actions`: the process that runs exec actions for a daemon. It is a
/// child subreaper running one epoll loop over its connections (SOCK_SEQPACKET, a message a
/// request), SIGCHLD and the timeouts. Two ways to start it:
/// - by the daemon itself, as its child over a socket pair (`--serve-actions-fd`); it then ends
///   once the daemon's end closes and the commands it ran are gone;
/// - as a service of its own (touchgestured-actions.service, socket-activated or on a path it
///   binds), under a user without the daemon's input and uinput access; it serves daemons until
///   stopped.
/// Whichever way, a connection that closes has its commands' trees ended (SIGTERM, SIGKILL a
/// grace later), and a SIGTERM to the runner kills every process below it before it exits.
public final class ActionRunnerService: EventLoopOwner {
    private let log: Logger
    private let loop: EventLoop
    private let supervisor: ActionSupervisor
    private var signalFD: Int32 = -1
    private var listenFD: Int32?
    /// The socket file the runner bound (removed when it stops); nil for systemd's.
    private var boundPath: String?
    /// The socket file it listens on (its own or systemd's, as named on the command line).
    private let socketPath: String?
    private var connections: Set<Int32> = []
    /// Ended-action messages waiting for the end of the turn.
    private var outbox: [(owner: Int32, message: RunnerMessage)] = []
    private var strays = StraySignals()
    /// Serving one daemon over an inherited fd: stop once it is gone and nothing runs.
    private let servesOne: Bool
    private var buffer = [UInt8](repeating: 0, count: RunnerMessage.maxBytes)

    /// Serves `connection` (an inherited, connected fd) or, with nil, the listening socket
    /// systemd passed or one bound at `path`.
    public init(log: Logger, connection: Int32?, path: String?) throws {
        self.log = log
        loop = try EventLoop()
        supervisor = try ActionSupervisor(loop: loop, log: log)
        servesOne = connection != nil
        socketPath = path
        if let connection {
            try serve(connection)
        } else if let fd = Systemd.passedDescriptors().first?.fd {
            listenFD = fd
        } else if let path {
            listenFD = try ListenSocket.bindSequentialPacket(path, log: log)
            boundPath = path
        } else {
            throw Daemon.StartError("--serve-actions needs a socket: systemd's (touchgestured-actions.socket), a path, or --serve-actions-fd")
        }
        if let fd = listenFD {
            if let e = Posix.setNonBlocking(fd) { throw e }
            try loop.add(fd) { [unowned self] _ in self.accept() }
        }
    }

    /// Runs until SIGTERM (or, serving one daemon, until it and its commands are gone).
    public func run() throws -> Int32 {
        Posix.setProcessName("tg-actions")
        if let e = Posix.becomeSubreaper() { throw e }
        signalFD = try Posix.signalDescriptor().get().release()  // held for the process's life
        try loop.add(signalFD) { [unowned self] _ in self.signals() }
        log.info("action runner ready (uid \(Posix.userID), groups \(Self.groups()))")
        // The runner reads no panel and has no subscribers: its loop's frame state stays empty.
        var none = FrameState(fanout: Fanout(coalesceNs: 0, outputBufferBytes: 0))
        loop.run(self, &none)
        if let boundPath { _ = Posix.unlink(boundPath) }
        supervisor.killAll()
        log.info("action runner stopped")
        return 0
    }

    /// The supplementary groups this process (and so each command) has, for the log.
    static func groups() -> String {
        let list = Posix.supplementaryGroups()
        return list.isEmpty ? "none" : list.map(String.init).joined(separator: ",")
    }

    /// The runner reads no touch device (it registers none with its loop).
    func deviceReady(_: UInt32, fd _: Int32, _: inout FrameState) {}

    func afterTurn(_: inout FrameState) -> Int32 {
        for (owner, message) in outbox where connections.contains(owner) { send(message, to: owner) }
        outbox.removeAll(keepingCapacity: true)
        if servesOne && connections.isEmpty && supervisor.running.isEmpty { loop.stop() }
        return -1
    }

    private func signals() {
        while true {
            guard let sig = Posix.nextSignal(signalFD) else { return }
            switch sig {
            case SIGCHLD: outbox += supervisor.reap()
            case SIGTERM, SIGINT, SIGQUIT:
                log.info("signal \(sig): stopping, every action process is killed")
                loop.stop()
            case SIGHUP: log.notice("SIGHUP: the runner has nothing to reload")
            default: strays.note(sig, log: log)
            }
        }
    }

    private func accept() {
        while true {
            let fd: Int32
            switch Posix.accept(listenFD ?? -1) {
            case .success(let accepted): fd = accepted
            case .failure(let e):
                if e.errno != .resourceTemporarilyUnavailable { log.warning("\(e)") }
                return
            }
            let peer = try? Posix.peerCredentials(fd).get()
            let why = peer.map { refusal(fd, uid: $0.uid, gid: $0.gid) } ?? "its credentials cannot be read"
            let (pid, uid) = (peer?.pid ?? 0, peer?.uid ?? 0)
            if let why {
                log.warning("refused a connection from pid \(pid), uid \(uid): \(why)")
                Posix.close(fd)
                continue
            }
            log.info("daemon connected (pid \(pid), uid \(uid))")
            do { try serve(fd) } catch {
                log.error("cannot serve a daemon: \(error)")
                Posix.close(fd)
            }
        }
    }

    /// Why a peer may not use the runner, or nil when it may: root, the runner's own user, or a
    /// member of the socket file's group when the file gives its group write access (as
    /// touchgestured-actions.socket does for the daemon's unit). The socket's mode already
    /// keeps others from connecting; this holds even when it was made looser by hand (a
    /// runner started on a path of a directory anyone may reach, a chmod).
    private func refusal(_ fd: Int32, uid: UInt32, gid: UInt32) -> String? {
        let me = Posix.userID
        if uid == 0 || uid == me { return nil }
        guard let socketPath, case .success(let st) = Posix.status(socketPath), st.permissions & 0o020 != 0 else {
            return "only root and uid \(me) may use this runner"
        }
        guard gid == st.gid || Posix.peerGroups(fd).contains(st.gid) else {
            return "not root, uid \(me), nor in group \(st.gid) of \(socketPath)"
        }
        return nil
    }

    private func serve(_ fd: Int32) throws {
        try loop.add(fd) { [unowned self] _ in self.receive(fd) }
        connections.insert(fd)
    }

    private func receive(_ fd: Int32) {
        while connections.contains(fd) {
            let got = Posix.receive(fd, into: &buffer)
            if got == .wouldBlock { return }
            guard case .done(let n) = got, n > 0 else { return drop(fd) }
            do {
                let request = try RunnerMessage(decoding: buffer[0..<n])
                guard case .run(let id, let name, let argv, let env, let timeoutMs, let maxProcesses, let firedAt) = request else {
                    log.warning("a daemon sent a reply, not a request: ignored")
                    continue
                }
                let answer = supervisor.start(
                    id: id, owner: fd, name: name, argv: argv, env: env, timeoutMs: timeoutMs, maxProcesses: maxProcesses, firedAt: firedAt)
                if case .skipped(_, let alive) = answer {
                    log.warning("action '\(name)' skipped: \(alive) action processes running, the limit (max_action_children)")
                }
                if case .failed(_, let reason) = answer { log.error("action '\(name)': \(reason)") }
                send(answer, to: fd)
            } catch {
                log.warning("a malformed request from a daemon: \(error)")
            }
        }
    }

    private func send(_ message: RunnerMessage, to fd: Int32) {
        let bytes = message.encoded()
        switch Posix.send(fd, bytes) {
        case .done: break
        case .wouldBlock: log.warning("a daemon reads no replies: one lost")
        case .removed, .failed: drop(fd)
        }
    }

    /// A daemon went: what it started ends now.
    private func drop(_ fd: Int32) {
        guard connections.remove(fd) != nil else { return }
        _ = loop.remove(fd)
        Posix.close(fd)
        log.info("daemon disconnected: its \(supervisor.running.count { $0.owner == fd }) running action(s) are ended")
        supervisor.abandon(owner: fd)
    }
}
