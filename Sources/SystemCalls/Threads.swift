#if canImport(Glibc)
    import Glibc
#endif

/// A thread of the daemon's own (`pthread_create`, detached): it ends when its body returns.
/// It inherits the signal mask of the thread that starts it (the daemon blocks its signals first
/// thing and reads them from a signalfd), and its scheduling policy unless that one resets on
/// fork (then the normal policy: touchgestured.service makes its threads real-time once ready).
public enum Threads {
    /// The body a thread runs, kept alive for it by the start below.
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread named `name` (its first 15 bytes: `top -H`, `ps -L`).
    public static func start(named name: String, _ body: @escaping @Sendable () -> Void) -> SystemCallError? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // Safe: retained here for the new thread, which takes it back (and releases it) first thing;
        // released here when no thread was made.
        let context = Unmanaged.passRetained(Body { Posix.setProcessName(name); body() }).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, &attributes,
            { context in
                // Safe: the context is the retained `Body` passed below, taken back exactly once.
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                body.run()
                return nil
            }, context)
        guard rc == 0 else {
            // Safe: no thread took the context.
            Unmanaged<Body>.fromOpaque(context).release()
            return SystemCallError("pthread_create", rc)
        }
        _ = thread
        return nil
    }
}
