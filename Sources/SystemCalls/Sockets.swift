import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Who is at the other end of a Unix socket, as the kernel recorded it when it connected.
public struct PeerCredentials: Equatable, Sendable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
}

/// The socket calls besides reads and writes: Unix addresses, listening, accepting, the peer's
/// identity. Each failure a `SystemCallError` naming the call.
extension Posix {
    /// Binds `fd` to the Unix socket path `path` ('@name': abstract).
    public static func bind(_ fd: Int32, unixPath path: String) -> SystemCallError? {
        cl_bind_unix(fd, path) == 0 ? nil : SystemCallError("bind(\(path))", errno)
    }

    /// Connects `fd` to the Unix socket at `path` (not retried on EINTR: the connection goes on
    /// in the kernel, and a second `connect` would fail with EALREADY).
    public static func connect(_ fd: Int32, unixPath path: String) -> SystemCallError? {
        cl_connect_unix(fd, path) == 0 ? nil : SystemCallError("connect(\(path))", errno)
    }

    public static func listen(_ fd: Int32, backlog: Int32) -> SystemCallError? {
        Glibc.listen(fd, backlog) == 0 ? nil : SystemCallError("listen", errno)
    }

    /// The next connection waiting on `listener`, non-blocking and close-on-exec (accept4: no
    /// child spawned meanwhile inherits it); EAGAIN when none waits.
    public static func accept(_ listener: Int32) -> Result<Int32, SystemCallError> {
        retry("accept4") { cl_accept(listener) }
    }

    /// SO_PEERCRED of `fd`.
    public static func peerCredentials(_ fd: Int32) -> Result<PeerCredentials, SystemCallError> {
        var c = PeerCredentials(pid: 0, uid: 0, gid: 0)
        guard cl_peer_credentials(fd, &c.pid, &c.uid, &c.gid) == 0 else { return .failure(SystemCallError("getsockopt(SO_PEERCRED)", errno)) }
        return .success(c)
    }

    /// SO_PEERGROUPS of `fd`: the peer's supplementary groups when it connected (empty when they
    /// cannot be read).
    public static func peerGroups(_ fd: Int32) -> [UInt32] {
        var groups = [gid_t](repeating: 0, count: 256)
        var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, &groups, &length) == 0 else { return [] }
        return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
    }

    /// Bounds a blocking socket's sends, and a Unix socket's connect, to `ms` milliseconds: past
    /// it they fail with EAGAIN (a peer that stopped reading cannot hold the caller).
    public static func setSendTimeout(_ fd: Int32, milliseconds ms: Int) -> SystemCallError? {
        var t = timeval(tv_sec: ms / 1000, tv_usec: (ms % 1000) * 1000)
        guard setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            return SystemCallError("setsockopt(SO_SNDTIMEO)", errno)
        }
        return nil
    }

    /// Makes `fd` non-blocking.
    public static func setNonBlocking(_ fd: Int32) -> SystemCallError? {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return SystemCallError("fcntl(O_NONBLOCK)", errno) }
        return nil
    }

    /// One byte on socket `fd`, not waiting (a nudge: what it says is that it came).
    public static func sendByte(_ fd: Int32) {
        var byte: UInt8 = 1
        // Safe: one byte of a local, lent for the call.
        _ = withUnsafeBytes(of: &byte) { send(fd, $0, "send(nudge)") }
    }

    /// Every byte waiting on socket `fd`, read and dropped.
    public static func drainBytes(_ fd: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        // Safe: the array's storage, lent for each read.
        while case .done(let n) = bytes.withUnsafeMutableBytes({ receive(fd, into: $0, "recv(nudge)") }), n > 0 {}
    }

    /// No more is sent on socket `fd` (its peer reads the end); the fd stays open.
    public static func shutdownSending(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// A connected pair of SOCK_SEQPACKET sockets (each message arrives whole), non-blocking and
    /// close-on-exec, each end owned.
    public static func sequentialPacketPair() -> Result<DescriptorPair, SystemCallError> {
        guard let pair = DescriptorPair.made({ cl_seqpacket_pair(&$0) }) else { return .failure(SystemCallError("socketpair", errno)) }
        return .success(pair)
    }
}

extension Posix {
    /// The path Unix socket `fd` is bound to ("" for none).
    public static func boundPath(ofUnixSocket fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        // Safe: the C function writes at most `buffer.count` bytes, NUL-terminated, into the array it is lent.
        let ok = buffer.withUnsafeMutableBufferPointer { cl_unix_socket_path(fd, $0.baseAddress, $0.count) } == 0
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    /// `bytes` as one datagram to the Unix socket at `path` (systemd's notify socket); false if
    /// it was not sent.
    public static func send(_ fd: Int32, _ bytes: [UInt8], toUnixPath path: String) -> Bool {
        // Safe: the array's bytes lent for the call.
        let sent = bytes.withUnsafeBytes { raw in Posix.retry("sendto(\(path))") { cl_sendto_unix(fd, raw.baseAddress, raw.count, path) } }
        if case .success = sent { return true }
        return false
    }

    /// `bytes` as one datagram to the Unix socket at `path` with `fds` passed beside it
    /// (SCM_RIGHTS, at most 16: systemd's `FDSTORE=1`); false if it was not sent.
    public static func send(_ fd: Int32, _ bytes: [UInt8], toUnixPath path: String, passing fds: [Int32]) -> Bool {
        guard fds.count <= 16 else { return false }
        // Safe: the arrays' bytes and descriptors lent for the call, which copies them.
        let sent = bytes.withUnsafeBytes { raw in
            fds.withUnsafeBufferPointer { f in
                Posix.retry("sendmsg(\(path))") { cl_sendto_unix_fds(fd, raw.baseAddress, raw.count, path, f.baseAddress, Int32(f.count)) }
            }
        }
        if case .success = sent { return true }
        return false
    }
}
