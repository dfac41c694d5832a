/// Each user's share of the daemon's time for its requests: a token bucket of nanoseconds per
/// uid (all its connections together), holding a tenth of a second's worth and refilled as time
/// passes. The burst bounds how long one user's requests can hold the loop in one go (10 ms at
/// the default share, plus the request that overdrew it).
/// The time its connections are read and their requests handled (a `set_regions` recompiles
/// every region: about 1.5 ms for 64 gestures) is charged as it passes; a user in debt is not
/// read until the debt is paid back. So however many connections one user opens and whatever it
/// sends, that work takes at most `nsPerSecond` of each second over time (writing the replies
/// is not counted), and other users' requests and the gesture lines go on.
struct UserTimeShare {
    /// Nanoseconds of handling one user's requests may take per second over time.
    var nsPerSecond: Double
    private var buckets: [UInt32: Bucket] = [:]

    private struct Bucket {
        var left: Double
        var at: Int64
    }

    init(nsPerSecond: Double) {
        self.nsPerSecond = nsPerSecond
    }

    /// What a user that has been quiet has: a tenth of a second's worth.
    var burst: Double { nsPerSecond / 10 }

    /// The nanoseconds `uid` has left at `now` (negative: its debt).
    mutating func left(_ uid: UInt32, now: Int64) -> Double {
        guard var b = buckets[uid] else { return burst }
        b.left = min(burst, b.left + Double(max(0, now - b.at)) / 1e9 * nsPerSecond)
        b.at = max(b.at, now)
        if b.left >= burst {
            buckets[uid] = nil  // full again: nothing to remember
        } else {
            buckets[uid] = b
        }
        return b.left
    }

    /// `uid`'s request took `ns` at `now`.
    mutating func charge(_ uid: UInt32, _ ns: Int64, now: Int64) {
        let left = left(uid, now: now) - Double(max(0, ns))
        buckets[uid, default: Bucket(left: 0, at: now)].left = left
    }

    /// Nanoseconds until `uid`, in debt at `now` (`left` was called then), has time again (at
    /// least 1 ms, so a throttled client is not woken for a sliver); 0 when it has time now.
    mutating func wait(_ uid: UInt32, now: Int64) -> Int64 {
        let left = left(uid, now: now)
        guard left <= 0 else { return 0 }
        return max(1_000_000, Int64((1 - left) / nsPerSecond * 1e9))
    }
}
