import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// One end of a TCP connection: an IPv4 or IPv6 address (network order) and a port.
public struct TCPEndpoint: Equatable, Sendable, CustomStringConvertible {
    public var family: Int32
    public var address: [UInt8]
    public var port: UInt16

    /// `127.0.0.1` or `::1` (an IPv4-mapped IPv6 address is taken as the IPv4 one: the peer's
    /// own socket is an IPv4 socket), and a port; nil when the address is not one.
    public init?(address text: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        var v6 = in6_addr()
        var v4 = in_addr()
        var host = text
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.lowercased().hasPrefix("::ffff:"), host.contains(".") { host = String(host.dropFirst(7)) }
        // The address structs are plain bytes in network order (4 and 16): copied out as they are.
        if inet_pton(AF_INET, host, &v4) == 1 {
            family = AF_INET
            // Safe: a local address's bytes, copied out.
            address = withUnsafeBytes(of: v4) { Array($0) }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            family = AF_INET6
            // Safe: a local address's bytes, copied out.
            address = withUnsafeBytes(of: v6) { Array($0) }
        } else {
            return nil
        }
        self.port = UInt16(port)
    }

    /// `HOST:PORT` or `[V6]:PORT`, as the bridge writes it.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return nil }
        self.init(address: String(text[..<colon]), port: port)
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: 64)
        // `address` holds the family's 4 or 16 bytes; inet_ntop writes at most 46 into the 64.
        // Safe: the array's bytes lent for the call; `buffer` is a local of the size given.
        let ok = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) } != nil
        let host = ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        return family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Who owns the socket on this machine whose local end is `local` and remote end `remote`
    /// (the kernel's sock_diag, as `ss -e` reads it): a uid, or the errno (ENOENT: no such
    /// socket here, as when the other end is on another host).
    public static func owner(local: TCPEndpoint, remote: TCPEndpoint) -> Result<UInt32, SystemCallError> {
        guard local.family == remote.family else { return .failure(SystemCallError("sock_diag", EAFNOSUPPORT)) }
        var uid: UInt32 = 0
        // Both arrays hold 4 or 16 bytes, as the family says: the C side copies that many.
        return Posix.retry("sock_diag \(local) → \(remote)", errno: .negated) {
            // Safe: both arrays lent for the call only.
            local.address.withUnsafeBufferPointer { src in
                remote.address.withUnsafeBufferPointer { dst in
                    cl_tcp_socket_uid(local.family, src.baseAddress, local.port, dst.baseAddress, remote.port, &uid)
                }
            }
        }.map { _ in uid }
    }
}

/// A user as the system's user database has it: uid, primary group and every group it is in.
public struct UserIdentity: Equatable, Sendable {
    public var uid: UInt32
    public var name: String
    public var gid: UInt32
    public var groups: [UInt32]

    public init(uid: UInt32, name: String, gid: UInt32, groups: [UInt32]) {
        (self.uid, self.name, self.gid, self.groups) = (uid, name, gid, groups)
    }

    /// The user `uid`, or nil when the database does not know it (then it has no group at all).
    public static func lookup(_ uid: UInt32) -> UserIdentity? {
        var entry = passwd()
        // Safe: getpwuid_r's out-parameter, pointing into `entry`, read while `entry` and `buffer` live.
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let namePointer = entry.pw_name else {
            return nil
        }
        // pw_name points into `buffer`, alive until the end of this function.
        let name = String(cString: namePointer)
        var count: Int32 = 256
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, entry.pw_gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, entry.pw_gid, &groups, &count)
        }
        return UserIdentity(uid: uid, name: name, gid: entry.pw_gid, groups: Array(groups.prefix(Int(max(0, count)))))
    }

    /// Why this user could not connect to the Unix socket at `path` itself, or nil when it could:
    /// search (x) on every directory above it and write (w) on the socket, by owner, group and
    /// other bits as the kernel checks them (root passes). ACLs are not read: a socket whose
    /// directory grants more by an ACL is judged by its mode bits alone (stricter, never looser).
    public func cannotConnect(to path: String) -> String? {
        if uid == 0 { return nil }
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        for (i, part) in parts.enumerated() {
            prefix += "/" + part
            var st = stat()
            guard stat(prefix, &st) == 0 else { return "\(prefix): \(String(cString: strerror(errno)))" }
            let last = i == parts.count - 1
            let need: mode_t = last ? 0o2 : 0o1
            let bits: mode_t
            if st.st_uid == uid {
                bits = (st.st_mode >> 6) & 0o7
            } else if st.st_gid == gid || groups.contains(st.st_gid) {
                bits = (st.st_mode >> 3) & 0o7
            } else {
                bits = st.st_mode & 0o7
            }
            if bits & need == 0 {
                return "uid \(uid) (\(name)) may not \(last ? "write to" : "search") \(prefix)"
            }
        }
        return nil
    }
}
