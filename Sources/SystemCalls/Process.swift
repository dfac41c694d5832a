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

    /// Starts `argv` (argv[0] looked up in PATH) as a child that keeps this process's stdout,
    /// stderr, environment and session (`cl_spawn_child`); its pid.
    public static func spawnChild(_ argv: [String]) -> Result<Int32, SystemCallError> {
        var pid: pid_t = 0
        let rc = withCStrings(argv) { cl_spawn_child(argv[0], $0, &pid) }
        return rc == 0 ? .success(pid) : .failure(SystemCallError("posix_spawnp(\(argv[0]))", rc))
    }

    /// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER).
    public static func becomeSubreaper() -> SystemCallError? {
        cl_become_subreaper() == 0 ? nil : SystemCallError("prctl(PR_SET_CHILD_SUBREAPER)", errno)
    }

    /// Transparent huge pages off for this process and what it starts (`disabled`), or back to
    /// the system's setting (PR_SET_THP_DISABLE; a kernel without them refuses, harmlessly).
    public static func setHugePagesDisabled(_ disabled: Bool) -> SystemCallError? {
        cl_set_thp_disabled(disabled ? 1 : 0) == 0 ? nil : SystemCallError("prctl(PR_SET_THP_DISABLE)", errno)
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

    /// The calling thread's real-time priority: its SCHED_FIFO or SCHED_RR priority, 0 at any
    /// other policy (touchgestured.service raises the daemon's after start; `stats` reports it).
    public static func realtimePriority() -> Int {
        // The policy comes with SCHED_RESET_ON_FORK (linux/sched.h: 0x40000000; not in Glibc's
        // module) set when the unit asked for it.
        let policy = sched_getscheduler(0) & ~Int32(0x4000_0000)
        guard policy == SCHED_FIFO || policy == SCHED_RR else { return 0 }
        var p = sched_param()
        return sched_getparam(0, &p) == 0 ? Int(p.sched_priority) : 0
    }

    /// Sleeps `seconds` (monotonic; interruptions resumed).
    public static func sleep(seconds: Double) {
        sleep(untilMonotonic: monotonicNanoseconds() + Int64(max(0, seconds) * 1e9))
    }
}

extension Posix {
    /// A child that has ended, reaped without waiting: its pid, exit code (-1 if killed) and
    /// signal (0 if it exited); nil when none has ended (or there is no child).
    public static func reap() -> (pid: Int32, exitCode: Int32, signal: Int32)? {
        var code: Int32 = 0, sig: Int32 = 0
        guard case .success(let pid) = retry("waitpid", { cl_reap(&code, &sig) }), pid > 0 else { return nil }
        return (pid, code, sig)
    }
}

/// Runs a program (looked up in PATH) with arguments and waits; returns its exit status, or nil
/// when it could not be started (not installed).
public func runProgram(_ argv: [String]) -> Int32? {
    var pid: pid_t = 0
    // Safe: the C strings live until the child is spawned, then are freed.
    var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for p in cArgs { free(p) } }
    let rc = posix_spawnp(&pid, argv[0], nil, nil, &cArgs, environ)
    guard rc == 0 else { return nil }
    var status: Int32 = 0
    guard case .success = Posix.retry("waitpid(\(pid))", { waitpid(pid, &status, 0) }) else { return nil }
    // WIFEXITED / WEXITSTATUS are macros: decode the wait status by hand.
    if status & 0x7f == 0 { return (status >> 8) & 0xff }
    return 128 + (status & 0x7f)
}
