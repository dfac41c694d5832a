import CLinux
import GestureConfig
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The listening Unix socket: what may be replaced at its path, who may reach it.
enum ListenSocket {
    /// systemd's socket (socket activation), or our own at `settings.socket`; `path` is set
    /// when the daemon made the socket file (it removes it when it stops), `directory` when it
    /// made the directory for it (removed if the start fails).
    static func open(_ settings: DaemonSettings, log: Logger) throws -> (fd: Int32, path: String?, directory: String?) {
        if let fd = Systemd.listenFDs().first {
            log.info("using the socket systemd passed (fd \(fd))")
            return (fd, nil, nil)
        }
        let path = settings.socket
        guard path.hasPrefix("/") else {
            throw Daemon.StartError("the socket must be an absolute path, found '\(path)' (abstract sockets, '@name', are not supported)")
        }
        var gid: gid_t = getegid()
        if let group = settings.group {
            guard let g = getgrnam(group) else { throw Daemon.StartError("unknown group '\(group)' ([daemon] group)") }
            gid = g.pointee.gr_gid
        }
        let madeDirectory = try makeDirectory(of: path, group: gid)
        do {
            try replaceStale(path, type: SOCK_STREAM, log: log)
            return (try bindAndListen(path, type: SOCK_STREAM, group: gid), path, madeDirectory)
        } catch {
            // Nothing of a start that failed stays behind: not the socket, not a directory made for it.
            if let dir = madeDirectory { rmdir(dir) }
            throw error
        }
    }

    /// The action runner's own SOCK_SEQPACKET socket at `path` (run by hand, without systemd's
    /// touchgestured-actions.socket), with the runner's group: a stale one is replaced, a live
    /// one refused, as for the daemon's.
    static func bindSequentialPacket(_ path: String, log: Logger) throws -> Int32 {
        guard path.hasPrefix("/") else { throw Daemon.StartError("the runner's socket must be an absolute path, found '\(path)'") }
        try replaceStale(path, type: SOCK_SEQPACKET, log: log)
        return try bindAndListen(path, type: SOCK_SEQPACKET, group: getegid())
    }

    /// A missing directory is made 0750 with the socket's group: the members that may connect
    /// can reach the socket, nobody else can even list it. An existing one is left as it is.
    /// Returns the directory when it made it.
    private static func makeDirectory(of path: String, group gid: gid_t) throws -> String? {
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard !parent.isEmpty && access(parent, F_OK) != 0 else { return nil }
        guard mkdir(parent, 0o750) == 0 || errno == EEXIST else {
            throw Daemon.StartError("cannot create \(parent): \(String(cString: strerror(errno)))")
        }
        guard lchown(parent, geteuid(), gid) == 0 else {
            let e = errno
            rmdir(parent)
            throw Daemon.StartError("cannot give \(parent) its group: \(String(cString: strerror(e)))")
        }
        return parent
    }

    /// Only a socket nobody listens on is replaced (a daemon that died left it); anything else
    /// there is not ours to delete. The probe does not wait: a listener whose backlog is full
    /// (EAGAIN) is a listener, and start-up must not hang on it with SIGTERM blocked.
    private static func replaceStale(_ path: String, type socketType: __socket_type, log: Logger) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        let type = st.st_mode & S_IFMT
        guard type == S_IFSOCK else {
            let kind =
                type == S_IFDIR ? "a directory" : type == S_IFREG ? "a regular file" : type == S_IFLNK ? "a symbolic link"
                : type == S_IFIFO ? "a FIFO" : "a device"
            throw Daemon.StartError("\(path) is \(kind), not a socket; refusing to replace it (choose another --socket or remove it)")
        }
        let probe = socket(AF_UNIX, Int32(socketType.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(probe) }
        if cl_connect_unix(probe, path) == 0 || errno == EAGAIN || errno == EINPROGRESS {
            throw Daemon.StartError("another process is listening on \(path)")
        }
        guard unlink(path) == 0 else { throw Daemon.StartError("cannot remove the stale socket \(path): \(String(cString: strerror(errno)))") }
        log.notice("replaced a stale socket at \(path)")
    }

    /// Binds the socket already 0660 (by the umask during `bind`: a `chmod` by path after it
    /// would follow a link put there meanwhile) and gives it its group without following links.
    /// On any failure the socket file is removed.
    private static func bindAndListen(_ path: String, type socketType: __socket_type, group gid: gid_t) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(socketType.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw EventLoop.Failure(call: "socket", errno: errno) }
        let mask = umask(0o117)
        let bound = cl_bind_unix(fd, path)
        let bindErrno = errno
        umask(mask)
        guard bound == 0 else {
            close(fd)
            throw Daemon.StartError("cannot bind \(path): \(String(cString: strerror(bindErrno)))")
        }
        guard lchown(path, geteuid(), gid) == 0 else {
            let e = errno
            close(fd)
            unlink(path)
            throw Daemon.StartError("cannot set the group of \(path): \(String(cString: strerror(e)))")
        }
        guard listen(fd, 64) == 0 else {
            let e = errno
            close(fd)
            unlink(path)
            throw EventLoop.Failure(call: "listen", errno: e)
        }
        return fd
    }
}
