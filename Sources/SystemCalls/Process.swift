import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The few C-shaped arguments and results the daemon's process and socket calls need, built and
/// read here so that no caller outside SystemCalls handles a raw pointer for them.
extension Posix {
    /// argv/envp for C: NUL-terminated copies of `strings`, then a NULL, valid during `body`.
    // Safe: the C strings live until `body` returns, then are freed.
    public static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        // The array is alive for the whole call and holds count + 1 elements: baseAddress is not nil.
        // Safe: the pointers' array, lent for `body`; the strings are freed after.
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// The names in directory `path` (nil when it cannot be listed), "." and ".." left out.
    public static func directoryNames(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            // Safe: the entry's name buffer, read inside the closure while `readdir`'s entry is valid.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                // d_name is a NUL-terminated char array inside the dirent readdir returned,
                // valid until the next readdir on this stream: copied out before that.
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

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
        bytes.withUnsafeBytes { cl_sendto_unix(fd, $0.baseAddress, $0.count, path) } >= 0
    }
}

/// Starting, signalling and waiting for processes.
extension Posix {
    /// A pipe for a child's output: `first` the read end (non-blocking), `second` the write end,
    /// both close-on-exec.
    public static func outputPipe() -> Result<DescriptorPair, SystemCallError> {
        guard let pair = DescriptorPair.made({ cl_output_pipe(&$0) }) else { return .failure(SystemCallError("pipe2", errno)) }
        return .success(pair)
    }

    /// Starts an action's command (`cl_spawn`: a session of its own, default signals, "/" as its
    /// directory, stdout and stderr into `output`, no other fd); its pid.
    public static func spawnAction(_ argv: [String], environment: [String], output: Int32) -> Result<Int32, SystemCallError> {
        var pid: pid_t = 0
        let rc = withCStrings(argv) { cargv in withCStrings(environment) { cenv in cl_spawn(argv[0], cargv, cenv, output, &pid) } }
        return rc == 0 ? .success(pid) : .failure(SystemCallError("posix_spawn(\(argv[0]))", rc))
    }

    /// Starts this executable again with `argv`, `fd` as its fd 3 (the action runner); its pid.
    public static func spawnSelf(_ argv: [String], fd3 fd: Int32) -> Result<Int32, SystemCallError> {
        var pid: pid_t = 0
        let rc = withCStrings(argv) { cl_spawn_runner("/proc/self/exe", $0, fd, &pid) }
        return rc == 0 ? .success(pid) : .failure(SystemCallError("posix_spawn(/proc/self/exe)", rc))
    }

    /// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER).
    public static func becomeSubreaper() -> SystemCallError? {
        cl_become_subreaper() == 0 ? nil : SystemCallError("prctl(PR_SET_CHILD_SUBREAPER)", errno)
    }

    /// A pidfd for `pid` (readable once it has exited).
    public static func processDescriptor(_ pid: Int32) -> Result<Descriptor, SystemCallError> {
        descriptor("pidfd_open(\(pid))") { cl_pidfd_open(pid) }
    }

    /// Sends `signal` to `pid`; whether it was delivered.
    @discardableResult
    public static func kill(_ pid: Int32, _ signal: Int32) -> Bool { Glibc.kill(pid, signal) == 0 }

    /// Reaps child `pid` if it has ended, without waiting; whether it had.
    public static func reap(_ pid: Int32) -> Bool {
        var status: Int32 = 0
        guard case .success(let r) = retry("waitpid(\(pid))", { waitpid(pid, &status, WNOHANG) }) else { return false }
        return r == pid
    }

    /// Sleeps `seconds` (monotonic; interruptions resumed).
    public static func sleep(seconds: Double) {
        sleep(untilMonotonic: monotonicNanoseconds() + Int64(max(0, seconds) * 1e9))
    }
}
