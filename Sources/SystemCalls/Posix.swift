import CLinux
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The project's one error for what the system refused: the call's name (with what it acted
/// on, or a file's path), its errno, typed (swift-system's `Errno`), and, where the refusal is
/// the project's own (a file that is no regular file, too large), what it was.
public struct SystemCallError: Error, CustomStringConvertible, Equatable, Sendable {
    public var call: String
    public var errno: Errno
    /// The project's reason, when it is not the errno's text.
    public var detail: String?

    public init(call: String, errno: Errno, detail: String? = nil) {
        self.call = call
        self.errno = errno
        self.detail = detail
    }
    /// A failure by its raw errno (errno itself, or `-rc` of a library that returns `-errno`).
    public init(call: String, errno: Int32) { self.init(call: call, errno: Errno(rawValue: errno)) }
    public init(_ call: String, _ errno: Int32) { self.init(call: call, errno: Errno(rawValue: errno)) }
    /// A refusal of the project's own about `call` (a path): `detail` says what; errno EINVAL.
    public init(call: String, detail: String) { self.init(call: call, errno: .invalidArgument, detail: detail) }

    public var description: String { "\(call): \(reason)" }
    /// The error's text alone ("No such file or directory").
    public var reason: String { detail ?? String(cString: strerror(errno.rawValue)) }
    /// The device is gone (unplugged: ENODEV).
    public var isRemoval: Bool { errno == .noSuchDevice }
}

extension Errno {
    /// ENODEV ("No such device"), which swift-system names for its BSD text.
    public static var noSuchDevice: Errno { .operationNotSupportedByDevice }
}

/// The project's reads and writes on file descriptors, in one place: EINTR is retried here, a
/// full or empty non-blocking fd (EAGAIN) and a device that went away (ENODEV) are values, and
/// any other failure is an error naming the call. `call` is evaluated only on a failure.
public enum Posix {
    public enum IO: Equatable, Sendable {
        /// This many bytes moved; 0 from a read is the end of the stream (the peer closed).
        case done(Int)
        /// EAGAIN: nothing can move now; epoll says when it can.
        case wouldBlock
        /// ENODEV: the device went away (an unplugged input device).
        case removed
        case failed(SystemCallError)

        /// A read's or write's result (`Posix.retry`'s): EAGAIN and ENODEV as values.
        @inlinable @inline(__always)
        public init<R: BinaryInteger>(_ r: Result<R, SystemCallError>) {
            switch r {
            case .success(let n): self = .done(Int(n))
            case .failure(let e) where e.errno == .resourceTemporarilyUnavailable || e.errno == .wouldBlock: self = .wouldBlock
            case .failure(let e) where e.isRemoval: self = .removed
            case .failure(let e): self = .failed(e)
            }
        }
    }

    @inlinable
    public static func read(
        // Safe: callers lend a buffer valid for the call; the kernel writes at most its count.
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, _ call: @autoclosure () -> String = "read"
    ) -> IO {
        guard let base = buffer.baseAddress else { return .done(0) }
        return IO(retry(call(), io: true) { Glibc.read(fd, base, buffer.count) })
    }

    @inlinable
    // Safe: callers lend bytes valid for the call.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ call: @autoclosure () -> String = "write") -> IO {
        guard let base = bytes.baseAddress else { return .done(0) }
        return IO(retry(call(), io: true) { Glibc.write(fd, base, bytes.count) })
    }

    /// One datagram or packet, without blocking (a SOCK_SEQPACKET message).
    @inlinable
    public static func receive(
        // Safe: as `read`.
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, _ call: @autoclosure () -> String = "recv"
    ) -> IO {
        guard let base = buffer.baseAddress else { return .done(0) }
        return IO(retry(call(), io: true) { Glibc.recv(fd, base, buffer.count, Int32(MSG_DONTWAIT)) })
    }

    /// One message, without blocking and without SIGPIPE (a peer that went is an EPIPE error).
    @inlinable
    // Safe: as `write`.
    public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ call: @autoclosure () -> String = "send") -> IO {
        guard let base = bytes.baseAddress else { return .done(0) }
        return IO(retry(call(), io: true) { Glibc.send(fd, base, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) })
    }

    /// All of `bytes` to a blocking fd (a file, stdout): partial writes continued.
    // Safe: as `write`; `offset` stays below the count.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ call: @autoclosure () -> String = "write")
        -> SystemCallError?
    {
        var offset = 0
        while offset < bytes.count {
            // Safe: the rest of the caller's bytes; `offset` is below their count.
            switch write(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]), call()) {
            case .done(let n): offset += n
            case .wouldBlock: return SystemCallError(call: call(), errno: .resourceTemporarilyUnavailable)
            case .removed: return SystemCallError(call: call(), errno: .noSuchDevice)
            case .failed(let e): return e
            }
        }
        return nil
    }

    /// Everything a blocking fd gives until its end, at most `limit` bytes (nil past it).
    public static func readAll(_ fd: Int32, limit: Int, _ call: @autoclosure () -> String = "read") -> Result<[UInt8], SystemCallError>? {
        var bytes: [UInt8] = []
        // No larger than the limit needs (a sysfs attribute is read into a few dozen bytes).
        var chunk = [UInt8](repeating: 0, count: min(65536, max(1, limit) + 1))
        while true {
            // Safe: the chunk's storage, lent for the read.
            switch chunk.withUnsafeMutableBytes({ read(fd, into: $0, call()) }) {
            case .done(0): return .success(bytes)
            case .done(let n):
                bytes += chunk[0..<n]
                if bytes.count > limit { return nil }
            case .wouldBlock: return .failure(SystemCallError(call: call(), errno: .resourceTemporarilyUnavailable))
            case .removed: return .failure(SystemCallError(call: call(), errno: .noSuchDevice))
            case .failed(let e): return .failure(e)
            }
        }
    }
}
