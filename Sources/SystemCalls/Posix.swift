import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: its name (with what it acted on) and errno.
public struct SystemCallError: Error, CustomStringConvertible, Equatable, Sendable {
    public var call: String
    public var errno: Int32
    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }
    /// A library call's failure by its returned errno (libevdev returns `-errno`).
    public init(_ call: String, _ errno: Int32) { self.init(call: call, errno: errno) }
    public var description: String { "\(call): \(reason)" }
    /// The error's text alone ("No such file or directory").
    public var reason: String { String(cString: strerror(errno)) }
    /// The device is gone (unplugged).
    public var isRemoval: Bool { errno == ENODEV }
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
    }

    @inlinable
    public static func read(
        // Safe: callers lend a buffer valid for the call; the kernel writes at most its count.
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, _ call: @autoclosure () -> String = "read"
    ) -> IO {
        guard let base = buffer.baseAddress else { return .done(0) }
        return retrying(call) { Glibc.read(fd, base, buffer.count) }
    }

    @inlinable
    // Safe: callers lend bytes valid for the call.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ call: @autoclosure () -> String = "write") -> IO {
        guard let base = bytes.baseAddress else { return .done(0) }
        return retrying(call) { Glibc.write(fd, base, bytes.count) }
    }

    /// One datagram or packet, without blocking (a SOCK_SEQPACKET message).
    @inlinable
    public static func receive(
        // Safe: as `read`.
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, _ call: @autoclosure () -> String = "recv"
    ) -> IO {
        guard let base = buffer.baseAddress else { return .done(0) }
        return retrying(call) { Glibc.recv(fd, base, buffer.count, Int32(MSG_DONTWAIT)) }
    }

    /// One message, without blocking and without SIGPIPE (a peer that went is an EPIPE error).
    @inlinable
    // Safe: as `write`.
    public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ call: @autoclosure () -> String = "send") -> IO {
        guard let base = bytes.baseAddress else { return .done(0) }
        return retrying(call) { Glibc.send(fd, base, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
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
            case .wouldBlock: return SystemCallError(call: call(), errno: EAGAIN)
            case .removed: return SystemCallError(call: call(), errno: ENODEV)
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
            case .wouldBlock: return .failure(SystemCallError(call: call(), errno: EAGAIN))
            case .removed: return .failure(SystemCallError(call: call(), errno: ENODEV))
            case .failed(let e): return .failure(e)
            }
        }
    }

    @inlinable @inline(__always)
    static func retrying(_ call: () -> String, _ body: () -> Int) -> IO {
        while true {
            let n = body()
            if n >= 0 { return .done(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case ENODEV: return .removed
            default: return .failed(SystemCallError(call: call(), errno: errno))
            }
        }
    }
}
