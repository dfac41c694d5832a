import Synchronization

/// How many pages are connected, against `--max-connections`. A page holds a `ConnectionSlot`
/// for as long as its session runs; dropping the slot (however the session ends) frees it.
public final class ConnectionSlots: Sendable {
    public let limit: Int
    private let taken = Atomic<Int>(0)

    public init(limit: Int) { self.limit = limit }

    public var count: Int { taken.load(ordering: .relaxed) }
    public var full: Bool { count >= limit }

    /// A slot, or nil when all `limit` are taken.
    public func take() -> ConnectionSlot? {
        var now = taken.load(ordering: .relaxed)
        while now < limit {
            let (exchanged, original) = taken.compareExchange(expected: now, desired: now + 1, ordering: .acquiringAndReleasing)
            if exchanged { return ConnectionSlot(self) }
            now = original
        }
        return nil
    }

    fileprivate func release() { taken.subtract(1, ordering: .acquiringAndReleasing) }
}

/// One page's place among the connections; given back when the last reference goes.
public final class ConnectionSlot: Sendable {
    private let slots: ConnectionSlots
    fileprivate init(_ slots: ConnectionSlots) { self.slots = slots }
    deinit { slots.release() }
}
