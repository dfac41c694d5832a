import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The event loop's kernel objects (epoll, timerfds, the signalfd) and the monotonic clock,
/// each call through `retry`, each failure a `SystemCallError` naming it.
extension Posix {
    /// A new descriptor from `body` (a creating call), EINTR retried.
    @inlinable
    public static func descriptor(_ call: @autoclosure () -> String, _ body: () -> Int32) -> Result<Descriptor, SystemCallError> {
        retry(call(), body).map { Descriptor(adopting: $0)! }
    }

    /// A new epoll instance (close-on-exec).
    public static func epollCreate() -> Result<Descriptor, SystemCallError> {
        descriptor("epoll_create1") { cl_epoll_create() }
    }

    /// epoll's event bits (computed and inlinable: constants where they are used).
    @inlinable public static var readable: UInt32 { CL_EPOLLIN }
    @inlinable public static var writable: UInt32 { CL_EPOLLOUT }
    @inlinable public static var failed: UInt32 { CL_EPOLLERR }
    @inlinable public static var hungUp: UInt32 { CL_EPOLLHUP }
    @inlinable public static var peerHungUp: UInt32 { CL_EPOLLRDHUP }

    /// What `epollControl` does with an fd.
    public enum EpollChange: Sendable {
        case add, modify, remove
    }

    /// Adds, changes or removes `fd` on epoll instance `ep`, with `events` and the fd itself as
    /// its data word (what `EpollEvents.fd(at:)` gives back).
    public static func epollControl(_ ep: Int32, _ change: EpollChange, _ fd: Int32, events: UInt32 = 0) -> SystemCallError? {
        let (op, name): (Int32, String) =
            switch change {
            case .add: (EPOLL_CTL_ADD, "ADD")
            case .modify: (EPOLL_CTL_MOD, "MOD")
            case .remove: (EPOLL_CTL_DEL, "DEL")
            }
        let data = change == .remove ? 0 : UInt64(UInt32(bitPattern: fd))
        if case .failure(let e) = retry("epoll_ctl(\(name), \(fd))", { cl_epoll_ctl(ep, op, fd, events, data) }) { return e }
        return nil
    }

    /// A non-blocking timerfd on CLOCK_MONOTONIC (close-on-exec).
    public static func timerCreate() -> Result<Descriptor, SystemCallError> {
        descriptor("timerfd_create") { cl_timerfd_create() }
    }

    /// Arms timer `fd` at CLOCK_MONOTONIC time `ns` (0: disarms it).
    public static func armTimer(_ fd: Int32, atMonotonic ns: Int64) -> SystemCallError? {
        if case .failure(let e) = retry("timerfd_settime(\(ns))", { cl_timerfd_set_absolute(fd, ns) }) { return e }
        return nil
    }

    /// Arms timer `fd` to fire every `ns` (0: disarms it).
    public static func armTimer(_ fd: Int32, every ns: Int64) -> SystemCallError? {
        if case .failure(let e) = retry("timerfd_settime(every \(ns))", { cl_timerfd_set_interval(fd, ns) }) { return e }
        return nil
    }

    /// How many times timer `fd` fired since the last call (0: none, or the read failed).
    public static func drainTimer(_ fd: Int32) -> UInt64 {
        var n: UInt64 = 0
        guard case .success = retry("read(timerfd)", { cl_timerfd_read(fd, &n) }) else { return 0 }
        return n
    }

    /// CLOCK_MONOTONIC in nanoseconds (the clock evdev stamps events with).
    @inlinable public static func monotonicNanoseconds() -> Int64 { cl_monotonic_ns() }

    /// Blocks the daemon's signals (they wait for a signalfd; SIGPIPE ignored): first thing in
    /// main, so that a SIGHUP sent while the daemon starts does not end it.
    public static func blockDaemonSignals() -> SystemCallError? {
        cl_block_daemon_signals() == 0 ? nil : SystemCallError("sigprocmask", errno)
    }

    /// A non-blocking signalfd for the daemon's signals, which it blocks.
    public static func signalDescriptor() -> Result<Descriptor, SystemCallError> {
        descriptor("signalfd") { cl_signalfd_create() }
    }

    /// The next signal pending on signalfd `fd` (nil: none).
    public static func nextSignal(_ fd: Int32) -> Int32? {
        var s: Int32 = 0
        guard case .success = retry("read(signalfd)", { cl_signalfd_read(fd, &s) }), s > 0 else { return nil }
        return s
    }

    /// The first real-time signal (SIGRTMIN is a glibc call, not a constant).
    public static var firstRealTimeSignal: Int32 { cl_sigrtmin() }

    /// SIGPIPE ignored: a write to a closed peer fails with EPIPE instead of ending the process.
    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    /// Names this thread (what `ps -o comm` and the journal show).
    public static func setProcessName(_ name: String) { _ = cl_set_process_name(name) }
}

extension Posix {
    /// Sleeps until `ns` on CLOCK_MONOTONIC (at once if it has passed), interruptions resumed;
    /// false if the call failed (then the time may not have come).
    @discardableResult
    public static func sleep(untilMonotonic ns: Int64) -> Bool {
        var ts = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
        if case .success = retry("clock_nanosleep", errno: .returned, { clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) }) { return true }
        return false
    }

    /// Waits up to `ms` (-1: without end) for `events` on any of `fds`; the events that came on
    /// each (all 0: the time ran out).
    public static func poll(_ fds: [Int32], events: Int16, timeoutMs ms: Int32) -> Result<[Int16], SystemCallError> {
        var p = fds.map { pollfd(fd: $0, events: events, revents: 0) }
        return retry("poll") { Glibc.poll(&p, nfds_t(p.count), ms) }.map { _ in p.map(\.revents) }
    }

    /// Waits up to `ms` (-1: without end) for `events` on `fd`; the events that came (0: the time
    /// ran out).
    public static func poll(_ fd: Int32, events: Int16, timeoutMs ms: Int32) -> Result<Int16, SystemCallError> {
        var p = pollfd(fd: fd, events: events, revents: 0)
        return retry("poll") { Glibc.poll(&p, 1, ms) }.map { $0 > 0 ? p.revents : 0 }
    }
}
