import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The calls that are not reads or writes (accept, poll, epoll_wait, the sleeps, close), in the
/// shape of swift-nio's `syscall(blocking:where:)`: EINTR is retried here and nowhere else, and a
/// failure is a `SystemCallError` that names the call.
extension Posix {
    /// `body` until it is not interrupted: its result if not negative, else the error naming
    /// `call` (errno as it was).
    @inlinable
    public static func retry<R: BinaryInteger>(_ call: @autoclosure () -> String, _ body: () -> R) -> Result<R, SystemCallError> {
        while true {
            let r = body()
            if r >= 0 { return .success(r) }
            let e = errno
            if e == EINTR { continue }
            return .failure(SystemCallError(call: call(), errno: e))
        }
    }

    /// A call that returns its error number instead of setting errno (clock_nanosleep), until
    /// it is not interrupted.
    @inlinable
    public static func retryReturned(_ call: @autoclosure () -> String, _ body: () -> Int32) -> SystemCallError? {
        while true {
            let e = body()
            if e == 0 { return nil }
            if e == EINTR { continue }
            return SystemCallError(call: call(), errno: e)
        }
    }

    /// Closes `fd` once (never retried: on Linux the descriptor is gone even when close is
    /// interrupted, and a retry could close another thread's new one). Negative: nothing.
    public static func close(_ fd: Int32) {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
    }

    /// A child that has ended, reaped without waiting: its pid, exit code (-1 if killed) and
    /// signal (0 if it exited); nil when none has ended (or there is no child).
    public static func reap() -> (pid: Int32, exitCode: Int32, signal: Int32)? {
        var code: Int32 = 0, sig: Int32 = 0
        guard case .success(let pid) = retry("waitpid", { cl_reap(&code, &sig) }), pid > 0 else { return nil }
        return (pid, code, sig)
    }

    /// Sleeps until `ns` on CLOCK_MONOTONIC (at once if it has passed), interruptions resumed.
    public static func sleep(untilMonotonic ns: Int64) {
        var ts = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
        _ = retryReturned("clock_nanosleep") { clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) }
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

/// What one epoll_wait returns: each ready fd's data word and events, in two buffers of 64 this
/// object owns for its life (allocated once, never copied: the loop keeps one), read by index.
public final class EpollEvents {
    public static let capacity = 64
    // Safe: allocated once for the object's life, freed in deinit; `wait` fills at most `capacity`.
    @usableFromInline let data = UnsafeMutablePointer<UInt64>.allocate(capacity: EpollEvents.capacity)
    @usableFromInline let events = UnsafeMutablePointer<UInt32>.allocate(capacity: EpollEvents.capacity)

    public init() {}

    deinit {
        data.deallocate()
        events.deallocate()
    }

    /// The data word (the fd the loop registered) of ready entry `i`, below what `wait` returned.
    @inlinable public func fd(at i: Int) -> Int32 {
        precondition(i >= 0 && i < Self.capacity, "epoll entry out of range")
        return Int32(bitPattern: UInt32(truncatingIfNeeded: data[i]))
    }

    /// The events of ready entry `i`.
    @inlinable public func events(at i: Int) -> UInt32 {
        precondition(i >= 0 && i < Self.capacity, "epoll entry out of range")
        return events[i]
    }
}

extension Posix {
    /// Waits on epoll instance `ep` (timeout in ms, -1 without end) and fills `ready`; how many
    /// entries are ready (at most its capacity: the kernel writes no more).
    @inlinable
    public static func wait(_ ep: Int32, into ready: EpollEvents, timeoutMs: Int32) -> Result<Int, SystemCallError> {
        retry("epoll_wait") { cl_epoll_wait(ep, ready.data, ready.events, Int32(EpollEvents.capacity), timeoutMs) }.map { Int($0) }
    }
}
