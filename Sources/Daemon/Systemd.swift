import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// sd_notify(3) and sd_listen_fds(3) in plain Swift: a datagram to $NOTIFY_SOCKET (an abstract
/// name when it starts with '@'), and the fds systemd passes from 3 on. Five fewer shared
/// libraries than libsystemd.
struct Systemd {
    let notifySocket: String?
    /// How often to send WATCHDOG=1 (half of WatchdogSec), when systemd asks for it.
    let watchdogInterval: Int64?

    /// `notifySocket`: systemd's (nil: none, as outside systemd); the watchdog is systemd's.
    init(notifySocket: String? = Posix.environment("NOTIFY_SOCKET")) {
        self.notifySocket = notifySocket
        if let usec = Posix.environment("WATCHDOG_USEC").flatMap({ Int64($0) }), usec > 0 {
            let pid = Posix.environment("WATCHDOG_PID").flatMap { Int32($0) }
            watchdogInterval = pid == nil || pid == Posix.processID ? usec * 1000 / 2 : nil
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends `state` ("READY=1", "STATUS=...", ...); does nothing outside systemd. False when
    /// the message could not be sent (the daemon warns for READY and WATCHDOG, whose loss makes
    /// systemd restart it; a lost STATUS is only a stale line in `systemctl status`).
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let path = notifySocket else { return true }
        guard case .success(let socket) = Posix.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue)) else { return false }
        let bytes = Array(state.utf8)
        return Posix.send(socket.raw, bytes, toUnixPath: path)
    }

    /// `state` with `fds` passed beside it (FDSTORE=1); false when it was not sent, or when
    /// there is no notify socket (outside systemd nothing keeps them).
    func notify(_ state: String, passing fds: [Int32]) -> Bool {
        guard let path = notifySocket else { return false }
        guard case .success(let socket) = Posix.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue)) else { return false }
        return Posix.send(socket.raw, Array(state.utf8), toUnixPath: path, passing: fds)
    }

    /// systemd keeps descriptors for the daemon: a notify socket, and a store that is not off
    /// (`$FDSTORE`, FileDescriptorStoreMax=, set by systemd 254 and later; older ones set
    /// nothing, and the unit asks for a store).
    var hasFileDescriptorStore: Bool {
        notifySocket != nil && Posix.environment("FDSTORE").flatMap { Int($0) } != 0
    }

    /// The descriptors systemd passed (socket activation, and the file descriptor
    /// store's), from fd 3, with their names (LISTEN_FDNAMES: a socket's `FileDescriptorName=`,
    /// the socket unit's name by default; a stored one's FDNAME); empty otherwise. Unsets the
    /// variables so children do not inherit them: read once.
    static func passedDescriptors() -> [(fd: Int32, name: String)] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = Posix.environment("LISTEN_PID").flatMap({ Int32($0) }), pid == Posix.processID,
            let n = Posix.environment("LISTEN_FDS").flatMap({ Int32($0) }), n > 0, n <= 4096
        else { return [] }
        let names = Posix.environment("LISTEN_FDNAMES").map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        return (0..<n).map { (3 + $0, Int($0) < names.count ? names[Int($0)] : "") }
    }
}
