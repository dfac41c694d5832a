#if canImport(Glibc)
    import Glibc
#endif

/// An open file descriptor owned by one value: the compiler lets it be neither copied nor used
/// after it is given up, and it is closed exactly once, when its owner ends (a local at the end
/// of its scope, a class's stored property with the object), or handed on with `release()`.
public struct Descriptor: ~Copyable {
    public let raw: Int32

    /// Takes ownership of `raw` (nil when it is negative: a failed call's result).
    public init?(adopting raw: Int32) {
        guard raw >= 0 else { return nil }
        self.raw = raw
    }

    deinit { Posix.close(raw) }

    /// Gives the fd up without closing it: whoever takes the number owns it now.
    public consuming func release() -> Int32 {
        let raw = raw
        discard self
        return raw
    }
}

extension Posix {
    /// Opens `path` (O_CLOEXEC added; `in`: relative to that folder's fd; `mode` for O_CREAT),
    /// EINTR retried; a failure names `as` (default: the call and the path).
    public static func open(
        _ path: String, _ flags: Int32, mode: mode_t = 0, in folder: Int32 = AT_FDCWD, as name: String? = nil
    ) -> Result<Descriptor, SystemCallError> {
        retry(name ?? "open(\(path))") { openat(folder, path, flags | O_CLOEXEC, mode) }.map { Descriptor(adopting: $0)! }
    }

    /// A new socket (SOCK_CLOEXEC added).
    public static func socket(_ domain: Int32, _ type: Int32) -> Result<Descriptor, SystemCallError> {
        retry("socket") { Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), 0) }.map { Descriptor(adopting: $0)! }
    }
}

/// Two descriptors made together (a pipe's ends, a socket pair), each owned.
public struct DescriptorPair: ~Copyable {
    /// A pipe's read end; a socket pair's first socket.
    public var first: Descriptor
    /// A pipe's write end; a socket pair's second socket.
    public var second: Descriptor

    /// `first`, to keep; `second` is closed (a child was given its copy).
    public consuming func keepingFirst() -> Descriptor {
        _ = consume second
        return first
    }

    /// Both fds, given up: whoever takes the numbers owns them now.
    public consuming func release() -> (first: Int32, second: Int32) {
        (first.release(), second.release())
    }

    /// Takes ownership of the two fds `body` filled in (nil: it failed, and owned none).
    static func made(_ body: (inout [Int32]) -> Int32) -> DescriptorPair? {
        var fds: [Int32] = [-1, -1]
        guard body(&fds) == 0, let a = Descriptor(adopting: fds[0]), let b = Descriptor(adopting: fds[1]) else { return nil }
        return DescriptorPair(first: a, second: b)
    }
}

extension Posix {
    /// Closes `fd` once (never retried: on Linux the descriptor is gone even when close is
    /// interrupted, and a retry could close another thread's new one). Negative: nothing.
    public static func close(_ fd: Int32) {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
    }

    /// A second descriptor for `fd`'s open file (close-on-exec), owned: another thread's own.
    public static func duplicate(_ fd: Int32) -> Result<Descriptor, SystemCallError> {
        retry("fcntl(F_DUPFD_CLOEXEC)") { fcntl(fd, F_DUPFD_CLOEXEC, 0) }.map { Descriptor(adopting: $0)! }
    }

    /// Sets close-on-exec on `fd` (one passed across exec, which has it off); false if it failed.
    public static func setCloseOnExec(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFD)
        return flags >= 0 && fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0
    }
}
