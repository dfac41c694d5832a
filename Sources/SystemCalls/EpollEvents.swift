import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// What one epoll_wait returns: each ready fd's data word and events, in two buffers of 64 this
/// object owns for its life (allocated once, never copied: the loop keeps one), read by index.
public final class EpollEvents {
    public static let capacity = 64
    // Safe: allocated once for the object's life, freed in deinit; `wait` fills at most `capacity`.
    @usableFromInline let data = UnsafeMutablePointer<UInt64>.allocate(capacity: EpollEvents.capacity)
    @usableFromInline let events = UnsafeMutablePointer<UInt32>.allocate(capacity: EpollEvents.capacity)

    public init() {}

    deinit {
        data.deallocate()
        events.deallocate()
    }

    /// The data word (the fd the loop registered) of ready entry `i`, below what `wait` returned.
    @inlinable public func fd(at i: Int) -> Int32 {
        precondition(i >= 0 && i < Self.capacity, "epoll entry out of range")
        return Int32(bitPattern: UInt32(truncatingIfNeeded: data[i]))
    }

    /// The events of ready entry `i`.
    @inlinable public func events(at i: Int) -> UInt32 {
        precondition(i >= 0 && i < Self.capacity, "epoll entry out of range")
        return events[i]
    }
}

extension Posix {
    /// Waits on epoll instance `ep` (timeout in ms, -1 without end) and fills `ready`; how many
    /// entries are ready (at most its capacity: the kernel writes no more).
    @inlinable
    public static func wait(_ ep: Int32, into ready: EpollEvents, timeoutMs: Int32) -> Result<Int, SystemCallError> {
        retry("epoll_wait") { cl_epoll_wait(ep, ready.data, ready.events, Int32(EpollEvents.capacity), timeoutMs) }.map { Int($0) }
    }

    /// The same, but a signal's handler ends it with nothing ready (0) rather than waiting
    /// again for the whole timeout: a thread that takes signals (`ReadWake`) works its timeout
    /// out again, so a burst of them cannot put its deadlines off.
    public static func waitOnce(_ ep: Int32, into ready: EpollEvents, timeoutMs: Int32) -> Result<Int, SystemCallError> {
        let n = cl_epoll_wait(ep, ready.data, ready.events, Int32(EpollEvents.capacity), timeoutMs)
        if n >= 0 { return .success(Int(n)) }
        return errno == EINTR ? .success(0) : .failure(SystemCallError("epoll_wait", errno))
    }
}
