import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A thread blocked in `read(2)` on one descriptor, and the way another thread ends that read
/// (the input thread's: `InputThread`). The blocked thread names its descriptor (`watch`), makes
/// it blocking, looks once more at whatever may have changed, and reads. A waker changes that
/// state first, then sends the thread the wake signal (`send`), whose handler (readwake.c) makes
/// the named descriptor non-blocking again: the read returns (EAGAIN), whether the signal came
/// before the call or during it. The signal is SIGURG (a standard one: a send never fails for
/// want of queue room). Only the thread that installed the handler takes it (every other thread
/// of the daemon blocks it with its own signals); one sent from outside is a read ended early,
/// looked at again.
public enum ReadWake {
    /// The signal (SIGURG).
    public static var signal: Int32 { cl_read_wake_signal() }

    /// Installs the handler and unblocks the signal on the calling thread.
    public static func install() -> SystemCallError? {
        cl_read_wake_install() == 0 ? nil : SystemCallError("sigaction(SIGURG)", errno)
    }

    /// The descriptor the calling thread blocks on from now on (-1: none), which the handler
    /// makes non-blocking. Named while the thread holds it open, cleared before it lets it go.
    public static func watch(_ fd: Int32) { cl_read_wake_watch(fd) }

    /// `fd` made blocking or not (`fcntl(F_SETFL)`, a constant: a panel's descriptor has no
    /// other status flag). It is the open file's flag: every copy (`dup`) of it changes.
    public static func setBlocking(_ fd: Int32, _ blocking: Bool) -> SystemCallError? {
        cl_set_blocking(fd, blocking ? 1 : 0) == 0 ? nil : SystemCallError("fcntl(F_SETFL)", errno)
    }

    /// The calling thread's id, for `send`.
    public static var currentThread: UInt { cl_thread_self() }

    /// The wake signal sent to `thread` (a thread of this process that installed the handler).
    public static func send(to thread: UInt) -> SystemCallError? {
        cl_read_wake_send(thread) == 0 ? nil : SystemCallError("pthread_kill(SIGURG)", errno)
    }
}
