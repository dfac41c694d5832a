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

    init() {
        notifySocket = Posix.environment("NOTIFY_SOCKET")
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

    /// The listening sockets systemd passed (socket activation), from fd 3, with their
    /// `FileDescriptorName=` (LISTEN_FDNAMES; the socket unit's name by default); empty
    /// otherwise. Unsets the variables so children do not inherit them.
    static func listenSockets() -> [(fd: Int32, name: String)] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = Posix.environment("LISTEN_PID").flatMap({ Int32($0) }), pid == Posix.processID,
            let n = Posix.environment("LISTEN_FDS").flatMap({ Int32($0) }), n > 0
        else { return [] }
        let names = Posix.environment("LISTEN_FDNAMES").map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        return (0..<n).map { (3 + $0, Int($0) < names.count ? names[Int($0)] : "") }
    }
}
