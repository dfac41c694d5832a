import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The calls that are not reads or writes (accept, poll, epoll_wait, the sleeps, close), in the
/// shape of swift-nio's `syscall(blocking:where:)`: EINTR is retried here and nowhere else, and a
/// failure is a `SystemCallError` that names the call.
extension Posix {
    /// Where a call's error number is: errno, after a -1 (the system calls), or the call's own
    /// result, negated (libevdev, the shims that return `-errno`) or as it is (clock_nanosleep).
    public enum ErrnoSource: Sendable {
        case global, negated, returned
    }

    /// `body` until it is not interrupted (EINTR): the one place the project retries. Its
    /// result if not negative (`.returned`: if 0), else the error naming `call` (evaluated
    /// only then), with its errno from `source`. `io`: a read's or write's, whose EAGAIN and
    /// ENODEV are values to its caller (`IO`): their error names no call, so the name is not
    /// built on every empty read.
    @inlinable
    public static func retry<R: BinaryInteger>(
        _ call: @autoclosure () -> String, errno source: ErrnoSource = .global, io: Bool = false, _ body: () -> R
    ) -> Result<R, SystemCallError> {
        while true {
            let r = body()
            let e: Int32
            switch source {
            case .global:
                if r >= 0 { return .success(r) }
                e = errno
            case .negated:
                if r >= 0 { return .success(r) }
                e = -Int32(truncatingIfNeeded: r)
            case .returned:
                if r == 0 { return .success(r) }
                e = Int32(truncatingIfNeeded: r)
            }
            if e == EINTR { continue }
            if io && (e == EAGAIN || e == EWOULDBLOCK || e == ENODEV) { return .failure(SystemCallError(call: "", errno: e)) }
            return .failure(SystemCallError(call: call(), errno: e))
        }
    }
}

extension Posix {
}
