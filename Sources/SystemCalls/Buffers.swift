/// The reads and writes for callers that hold their bytes in arrays: the buffer lent to the call
/// here, so that no caller outside SystemCalls handles a raw pointer for it.
extension Posix {
    /// Reads into `buffer` (from its start, at most its count).
    @inlinable
    public static func read(_ fd: Int32, into buffer: inout [UInt8], _ call: @autoclosure () -> String = "read") -> IO {
        // Safe: each array's storage is lent for the one system call, within its count.
        buffer.withUnsafeMutableBytes { read(fd, into: $0, call()) }
    }

    /// One datagram or packet into `buffer`, without blocking.
    @inlinable
    public static func receive(_ fd: Int32, into buffer: inout [UInt8], _ call: @autoclosure () -> String = "recv") -> IO {
        // Safe: the array's storage, lent for the call.
        buffer.withUnsafeMutableBytes { receive(fd, into: $0, call()) }
    }

    /// `bytes` as one message, without blocking and without SIGPIPE.
    @inlinable
    public static func send(_ fd: Int32, _ bytes: [UInt8], _ call: @autoclosure () -> String = "send") -> IO {
        // Safe: the array's storage, lent for the call.
        bytes.withUnsafeBytes { send(fd, $0, call()) }
    }

    /// `bytes` in one write (what a non-blocking fd takes of them).
    @inlinable
    public static func write(_ fd: Int32, _ bytes: [UInt8], _ call: @autoclosure () -> String = "write") -> IO {
        // Safe: as above.
        bytes.withUnsafeBytes { write(fd, $0, call()) }
    }

    /// All of `bytes` to a blocking fd, partial writes continued.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ call: @autoclosure () -> String = "write") -> SystemCallError? {
        // Safe: the array's storage, lent for the call.
        bytes.withUnsafeBytes { writeAll(fd, $0, call()) }
    }
}
