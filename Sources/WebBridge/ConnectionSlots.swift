import Synchronization

/// How many pages are connected, against `--max-connections` and, for each local user,
/// `--max-connections-per-user` (so one user's idle pages cannot take the kiosk page's place, as
/// the daemon's `max_clients_per_user` does for its socket). A page holds a `ConnectionSlot` for
/// as long as its session runs; dropping the slot (however the session ends) frees it.
public final class ConnectionSlots: Sendable {
    public let limit: Int
    public let perUser: Int
    private struct Taken {
        var total = 0
        var byUser: [UInt32: Int] = [:]
    }
    private let taken = Mutex(Taken())

    public init(limit: Int, perUser: Int? = nil) {
        self.limit = limit
        self.perUser = min(perUser ?? limit, limit)
    }

    public var count: Int { taken.withLock { $0.total } }
    public var full: Bool { count >= limit }

    /// Why a page of `uid` (nil: a remote peer, counted in the total only) cannot have a slot.
    public enum Refusal: Error, Equatable, Sendable {
        case full
        case userFull(UInt32)
    }

    /// A slot, or why there is none.
    public func claim(for uid: UInt32?) -> Result<ConnectionSlot, Refusal> {
        let refusal: Refusal? = taken.withLock { t in
            if t.total >= limit { return .full }
            if let uid, t.byUser[uid, default: 0] >= perUser { return .userFull(uid) }
            t.total += 1
            if let uid { t.byUser[uid, default: 0] += 1 }
            return nil
        }
        if let refusal { return .failure(refusal) }
        return .success(ConnectionSlot(self, uid: uid))
    }

    /// A slot counted in the total only, or nil when there is none.
    public func take() -> ConnectionSlot? { try? claim(for: nil).get() }

    fileprivate func release(_ uid: UInt32?) {
        taken.withLock { t in
            t.total -= 1
            if let uid {
                t.byUser[uid, default: 1] -= 1
                if t.byUser[uid] == 0 { t.byUser[uid] = nil }
            }
        }
    }
}

/// One page's place among the connections; given back when the last reference goes.
public final class ConnectionSlot: Sendable {
    private let slots: ConnectionSlots
    let uid: UInt32?
    fileprivate init(_ slots: ConnectionSlots, uid: UInt32?) { (self.slots, self.uid) = (slots, uid) }
    deinit { slots.release(uid) }
}
