#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: its name (with what it acted on) and errno.
struct SystemCallError: Error, CustomStringConvertible, Equatable {
    var call: String
    var errno: Int32
    var description: String { "\(call): \(String(cString: strerror(errno)))" }
    /// The device is gone (unplugged).
    var isRemoval: Bool { errno == ENODEV }
}

/// The daemon's reads and writes on non-blocking fds, in one place: EINTR is retried here, a
/// full socket or an empty one (EAGAIN) is a value, and any other failure an error naming the
/// call.
enum Posix {
    enum IO: Equatable {
        /// This many bytes moved; 0 from `read` is the end of the stream.
        case done(Int)
        /// EAGAIN: nothing can move now; epoll says when it can.
        case wouldBlock
        case failed(SystemCallError)
    }

    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IO {
        guard let base = bytes.baseAddress else { return .done(0) }
        return retrying("write") { Glibc.write(fd, base, bytes.count) }
    }

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IO {
        guard let base = buffer.baseAddress else { return .done(0) }
        return retrying("read") { Glibc.read(fd, base, buffer.count) }
    }

    @inline(__always)
    private static func retrying(_ call: String, _ body: () -> Int) -> IO {
        while true {
            let n = body()
            if n >= 0 { return .done(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(SystemCallError(call: call, errno: errno))
            }
        }
    }
}
