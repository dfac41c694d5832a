#if canImport(Glibc)
    import Glibc
#endif

/// Loopback TCP for tests of who owns a connection's ends: a listener on 127.0.0.1 (a free
/// port), and the ports of a socket's two ends.
public enum LoopbackTCP {
    /// A listening socket on 127.0.0.1 and its port; accept(2) on it gives up after 10 s.
    public static func listener() -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = address(port: 0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        listen(fd, 4)
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, Int(UInt16(bigEndian: a.sin_port)))
    }

    /// A connection of this process to itself: the client's end, the accepted end, the listener.
    public static func pair() -> (client: Int32, server: Int32, listener: Int32) {
        let (l, port) = listener()
        let c = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = address(port: port)
        _ = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(c, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return (c, accept(l, nil, nil), l)
    }

    /// The port of `fd`'s own end, or of its peer's.
    public static func port(_ fd: Int32, peer: Bool) -> Int {
        var a = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(fd, $0, &len) : getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: a.sin_port))
    }

    static func address(port: Int) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        return a
    }
}
