#if canImport(Glibc)
    import Glibc
#endif

/// The process's identity and environment: ids, groups, environment variables, limits.
extension Posix {
    /// Environment variable `name`, nil when it is not set.
    public static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    public static var processID: Int32 { getpid() }
    public static var userID: UInt32 { getuid() }
    public static var effectiveUserID: UInt32 { geteuid() }
    public static var effectiveGroupID: UInt32 { getegid() }

    /// The id of group `name` (nil: no such group).
    public static func groupID(named name: String) -> UInt32? { getgrnam(name)?.pointee.gr_gid }

    /// This process's supplementary groups.
    public static func supplementaryGroups() -> [UInt32] {
        var list = [gid_t](repeating: 0, count: 256)
        let n = getgroups(Int32(list.count), &list)
        return n <= 0 ? [] : Array(list.prefix(Int(n)))
    }

    /// The path of this process's executable (/proc/self/exe), nil when it cannot be read.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// RLIMIT_NOFILE: how many fds this process may have open (soft) and may raise that to (hard).
    public static func openFileLimit() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft RLIMIT_NOFILE to the hard one; the limits after it.
    public static func raiseOpenFileLimit() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }
}
