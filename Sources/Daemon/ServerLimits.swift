import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// How much the server takes: clients at once (and what RLIMIT_NOFILE allows), line and queue
/// sizes, and each client's share of a loop turn.
extension Server {
    struct Limits {
        var maxClients: Int
        var maxLineBytes: Int
        var outputBufferBytes: Int
        /// Continuous updates (a gesture's `changed` lines, touch lines) are written to a client
        /// at most once per this many ns; other lines at once, with what is held before them.
        /// 0 writes every turn.
        var coalesceNs: Int64 = 0
        /// Connections one uid may hold (`[daemon] max_clients_per_user`).
        var maxClientsPerUser = Int.max
        /// A connection that takes no lines and sends nothing this long is closed; 0 never.
        var idleNs: Int64 = 0
        /// The input pacing may read a fast panel a few frames at a time (off in pass-through and
        /// with a region that emulates the pointer: the compositor must get each frame as it comes).
        var paceInput = true
        init(maxClients: Int, maxLineBytes: Int, outputBufferBytes: Int, coalesceNs: Int64 = 0) {
            self.maxClients = maxClients
            self.maxLineBytes = maxLineBytes
            self.outputBufferBytes = outputBufferBytes
            self.coalesceNs = coalesceNs
        }
        /// Request lines served per client per loop turn.
        var requestsPerTurn = 64
        /// Bytes read per client per loop turn.
        var bytesPerTurn = 65_536
        /// Request lines a client may send per second over time (a burst of one second's worth);
        /// past it the client is not read until its budget refills.
        var requestsPerSecond = 2000.0
        /// Request bytes a client may send per second over time (a burst of one second's worth).
        var bytesPerSecond = 1_048_576.0
        /// Nanoseconds a second the handling of one user's requests may take over time, all its
        /// connections together (`[daemon] request_ms_per_user`; `UserTimeShare`).
        var requestNsPerUser = 100_000_000.0
        /// A client's turn ends once its requests took this long (one `set_regions` of the
        /// most gestures and a few small requests), so another's request or a gesture line
        /// never waits for more than a few of them.
        var nsPerTurn: Int64 = 2_000_000
    }

    /// Fds the daemon keeps for itself beyond its clients: input devices, epoll, timers,
    /// signalfd, udev, the listening socket, the reserve.
    static let fdsForTheDaemon = 64

    /// The clients the process can hold with its RLIMIT_NOFILE: the soft limit is raised to the
    /// hard one first (systemd's default soft limit is 1024, its hard limit far higher), then
    /// `configured` is lowered if the fds would still not suffice.
    static func clientLimit(configured: Int) -> Int {
        guard let limit = Posix.raiseOpenFileLimit() else { return configured }
        let available = Int(clamping: limit.soft) - fdsForTheDaemon  // RLIM_INFINITY is UInt64.max: clamped
        return max(1, min(configured, available))
    }
}
