import CLinux
import GestureConfig
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The listening Unix socket: what may be replaced at its path, who may reach it.
enum ListenSocket {
    /// systemd's socket (socket activation), or our own at `settings.socket`; `path` is set
    /// when the daemon made the socket file (it removes it when it stops).
    static func open(_ settings: DaemonSettings, log: Logger) throws -> (fd: Int32, path: String?) {
        if let fd = Systemd.listenFDs().first {
            log.info("using the socket systemd passed (fd \(fd))")
            return (fd, nil)
        }
        let path = settings.socket
        var gid: gid_t = getegid()
        if let group = settings.group {
            guard let g = getgrnam(group) else { throw Daemon.StartError("unknown group '\(group)' ([daemon] group)") }
            gid = g.pointee.gr_gid
        }
        // A missing directory is made 0750 with the socket's group: the members that may connect
        // can reach the socket, nobody else can even list it. An existing one is left as it is.
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty && access(parent, F_OK) != 0 {
            guard mkdir(parent, 0o750) == 0 || errno == EEXIST else {
                throw Daemon.StartError("cannot create \(parent): \(String(cString: strerror(errno)))")
            }
            guard chown(parent, geteuid(), gid) == 0 else {
                throw Daemon.StartError("cannot give \(parent) its group: \(String(cString: strerror(errno)))")
            }
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            // Only a socket nobody listens on is replaced (a daemon that died left it); anything
            // else there is not ours to delete.
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                let kind = st.st_mode & S_IFMT == S_IFDIR ? "a directory" : st.st_mode & S_IFMT == S_IFREG ? "a regular file" : "not a socket"
                throw Daemon.StartError("\(path) is \(kind), not a socket; refusing to replace it (choose another --socket or remove it)")
            }
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            defer { close(probe) }
            if cl_connect_unix(probe, path) == 0 {
                throw Daemon.StartError("another touchgestured is listening on \(path)")
            }
            guard unlink(path) == 0 else { throw Daemon.StartError("cannot remove the stale socket \(path): \(String(cString: strerror(errno)))") }
            log.notice("replaced a stale socket at \(path)")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw EventLoop.Failure(call: "socket", errno: errno) }
        guard cl_bind_unix(fd, path) == 0 else {
            let e = errno
            close(fd)
            throw Daemon.StartError("cannot bind \(path): \(String(cString: strerror(e)))")
        }
        guard chown(path, geteuid(), gid) == 0, chmod(path, 0o660) == 0 else {
            throw Daemon.StartError("cannot set the owner and mode of \(path): \(String(cString: strerror(errno)))")
        }
        guard listen(fd, 64) == 0 else { throw EventLoop.Failure(call: "listen", errno: errno) }
        return (fd, path)
    }
}
