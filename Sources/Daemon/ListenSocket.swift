import SystemCalls
import GestureConfig
import GestureProtocol
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A listening socket of the daemon's. `quiet`: the request socket, whose connections start
/// subscribed to nothing (GestureProtocol.SocketPaths).
struct Listener {
    let fd: Int32
    let quiet: Bool
}

/// The listening Unix sockets: what may be replaced at their paths, who may reach them.
enum ListenSocket {
    /// What `open` made: the sockets, and the files and directories it created (removed when
    /// the daemon stops, or at once when its start fails).
    struct Opened {
        var listeners: [Listener] = []
        var paths: [String] = []
        var directories: [String] = []

        func removeFiles() {
            for p in paths { _ = Posix.unlink(p) }
            for d in directories.reversed() { _ = Posix.removeDirectory(d) }
        }
    }

    /// systemd's sockets (socket activation: `passed`), or our own at `settings.socket` and beside it the
    /// request socket (`request_socket`). Of systemd's, the request socket is the one whose path
    /// ends in `-requests.sock` (as touchgestured.socket's second `ListenStream=`), or one with
    /// `FileDescriptorName=requests`.
    static func open(_ settings: DaemonSettings, passed: [(fd: Int32, name: String)], log: Logger) throws -> Opened {
        var opened = Opened()
        if !passed.isEmpty {
            for s in passed {
                let quiet = s.name == "requests" || boundPath(s.fd).hasSuffix("-requests.sock")
                opened.listeners.append(Listener(fd: s.fd, quiet: quiet))
            }
            opened.listeners.sort { !$0.quiet && $1.quiet }
            log.info("using the sockets systemd passed (fds \(passed.map { "\($0.fd)" }.joined(separator: ", ")))")
            return opened
        }
        var paths = [(settings.socket, false)]
        let requests = settings.requestSocket ?? SocketPaths.requests(besides: settings.socket)
        if !requests.isEmpty { paths.append((requests, true)) }
        do {
            let gid = try group(settings)
            for (path, quiet) in paths {
                guard path.hasPrefix("/") else {
                    throw Daemon.StartError("the socket must be an absolute path, found '\(path)' (abstract sockets, '@name', are not supported)")
                }
                if let made = try makeDirectory(of: path, group: gid) { opened.directories.append(made) }
                try replaceStale(path, type: SOCK_STREAM, log: log)
                opened.listeners.append(Listener(fd: try bindAndListen(path, type: SOCK_STREAM, group: gid), quiet: quiet))
                opened.paths.append(path)
            }
        } catch {
            // Nothing of a start that failed stays behind: no socket, no directory made for one.
            for l in opened.listeners { Posix.close(l.fd) }
            opened.removeFiles()
            throw error
        }
        return opened
    }

    /// The path socket `fd` is bound to ("" for none).
    private static func boundPath(_ fd: Int32) -> String { Posix.boundPath(ofUnixSocket: fd) }

    private static func group(_ settings: DaemonSettings) throws -> UInt32 {
        guard let group = settings.group else { return Posix.effectiveGroupID }
        guard let g = Posix.groupID(named: group) else { throw Daemon.StartError("unknown group '\(group)' ([daemon] group)") }
        return g
    }

    /// The action runner's own SOCK_SEQPACKET socket at `path` (run by hand, without systemd's
    /// touchgestured-actions.socket), with the runner's group: a stale one is replaced, a live
    /// one refused, as for the daemon's.
    static func bindSequentialPacket(_ path: String, log: Logger) throws -> Int32 {
        guard path.hasPrefix("/") else { throw Daemon.StartError("the runner's socket must be an absolute path, found '\(path)'") }
        try replaceStale(path, type: SOCK_SEQPACKET, log: log)
        return try bindAndListen(path, type: SOCK_SEQPACKET, group: Posix.effectiveGroupID)
    }

    /// A missing directory is made 0750 with the socket's group: the members that may connect
    /// can reach the socket, nobody else can even list it. An existing one is left as it is.
    /// Returns the directory when it made it.
    private static func makeDirectory(of path: String, group gid: UInt32) throws -> String? {
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard !parent.isEmpty && Posix.access(parent, F_OK) != nil else { return nil }
        if let e = Posix.makeDirectory(parent, mode: 0o750), e.errno != .fileExists {
            throw Daemon.StartError("cannot create \(parent): \(e)")
        }
        if let e = Posix.changeOwner(parent, uid: Posix.effectiveUserID, gid: gid) {
            _ = Posix.removeDirectory(parent)
            throw Daemon.StartError("cannot give \(parent) its group: \(e)")
        }
        return parent
    }

    /// Only a socket nobody listens on is replaced (a daemon that died left it); anything else
    /// there is not ours to delete. The probe does not wait: a listener whose backlog is full
    /// (EAGAIN) is a listener, and start-up must not hang on it with SIGTERM blocked.
    private static func replaceStale(_ path: String, type socketType: __socket_type, log: Logger) throws {
        guard case .success(let st) = Posix.status(path, followingLinks: false) else { return }
        guard st.kind == .socket else {
            throw Daemon.StartError("\(path) is \(st.kindName), not a socket; refusing to replace it (choose another --socket or remove it)")
        }
        let probe = try Posix.socket(AF_UNIX, Int32(socketType.rawValue) | Int32(SOCK_NONBLOCK.rawValue)).get()
        let refused = Posix.connect(probe.raw, unixPath: path)
        if refused == nil || refused?.errno == .resourceTemporarilyUnavailable || refused?.errno == .nowInProgress {
            throw Daemon.StartError("another process is listening on \(path)")
        }
        if let e = Posix.unlink(path) { throw Daemon.StartError("cannot remove the stale socket \(path): \(e)") }
        log.notice("replaced a stale socket at \(path)")
    }

    /// Binds the socket already 0660 (by the umask during `bind`: a `chmod` by path after it
    /// would follow a link put there meanwhile) and gives it its group without following links.
    /// On any failure the socket file is removed.
    private static func bindAndListen(_ path: String, type socketType: __socket_type, group gid: UInt32) throws -> Int32 {
        // Closed by its owner on any failure below; handed on when listening.
        let socket = try Posix.socket(AF_UNIX, Int32(socketType.rawValue) | Int32(SOCK_NONBLOCK.rawValue)).get()
        if let e = Posix.withCreationMask(0o117, { Posix.bind(socket.raw, unixPath: path) }) {
            throw Daemon.StartError("cannot bind \(path): \(e)")
        }
        if let e = Posix.changeOwner(path, uid: Posix.effectiveUserID, gid: gid) {
            _ = Posix.unlink(path)
            throw Daemon.StartError("cannot set the group of \(path): \(e)")
        }
        if let e = Posix.listen(socket.raw, backlog: 64) {
            _ = Posix.unlink(path)
            throw e
        }
        return socket.release()
    }
}
