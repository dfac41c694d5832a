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

    /// Waits up to `ms` (-1: without end) for `events` on `fd`; the events that came (0: the time
    /// ran out).
    public static func poll(_ fd: Int32, events: Int16, timeoutMs ms: Int32) -> Result<Int16, SystemCallError> {
        var p = pollfd(fd: fd, events: events, revents: 0)
        return retry("poll") { Glibc.poll(&p, 1, ms) }.map { $0 > 0 ? p.revents : 0 }
    }
}

/// What one epoll_wait returns: each ready fd's data word and events, in two arrays of 64 the
/// loop owns (allocated once; `Posix.wait` fills them in place).
@frozen
public struct EpollEvents {
    public var data = [UInt64](repeating: 0, count: 64)
    public var events = [UInt32](repeating: 0, count: 64)
    public init() {}
}

extension Posix {
    /// Waits on epoll instance `ep` (timeout in ms, -1 without end) and fills `ready`; how many
    /// fds are ready.
    @inlinable
    public static func wait(_ ep: Int32, into ready: inout EpollEvents, timeoutMs: Int32) -> Result<Int, SystemCallError> {
        let capacity = Int32(ready.data.count)
        return ready.withBuffers { data, events in
            retry("epoll_wait") { cl_epoll_wait(ep, data, events, capacity, timeoutMs) }.map { Int($0) }
        }
    }
}

extension EpollEvents {
    // Safe: both arrays hold 64 elements for the call, and the kernel writes at most that many.
    @inlinable
    mutating func withBuffers<R>(_ body: (UnsafeMutablePointer<UInt64>, UnsafeMutablePointer<UInt32>) -> R) -> R {
        data.withUnsafeMutableBufferPointer { d in events.withUnsafeMutableBufferPointer { e in body(d.baseAddress!, e.baseAddress!) } }
    }
}
