/// The arena decides which of the competing gestures may fire.
///
/// **Rule:** a gesture that is ready fires only when no undecided gesture that outranks it and
/// shares a contact with it (of its own round or an earlier one) is left, and when it fires,
/// every undecided gesture of its round that shares a contact with it and may not run
/// simultaneously with it is rejected.
///
/// **Invariant:** each member is accepted or rejected exactly once per round.
///
/// A *round* is one member's part in the arena, from when it is armed (at the touch-down that
/// starts a sequence in its region) until it is decided. Most rounds last one sequence; a
/// multi-tap that waits for its next tap, and a gesture waiting for that multi-tap to fail, carry
/// their round into the next sequence, where the gestures armed afresh start a new round. The
/// sequences of nested regions that hold contacts at once share a round (`SequenceTable`).
/// Two members *share a contact* when their regions are one inside the other (or the same) and
/// a contact the outer one sees landed in the inner one: gestures of sibling regions never
/// meet, so side-by-side regions recognize independently. "Outranks" comes from the
/// `ArenaPolicy`: requires_failure_of, region nesting and priority, and finger count.
struct Arena {
    enum Decision: Equatable {
        case undecided
        case accepted
        case rejected
    }

    /// Members in arming order (innermost region first within a sequence).
    private(set) var members: [Int] = []
    /// Per gesture, in one entry (one bounds check a look): whether it is a member, its
    /// decision, its round, its region, and the serial of the first contact its round can see.
    private struct Seat {
        var isMember = false
        var decision = Decision.undecided
        var round = 0
        var region = 0
        var firstSerial: UInt64 = 0
    }
    private var seats: [Seat]
    /// Undecided members spared by an accepted one they may take over (`ArenaPolicy.takesOver`),
    /// how many, and when each member was last accepted (ns): apart from the seats, which every
    /// frame reads, and looked at only while `spares` is above 0 or a member fires.
    private var sparedBy: [Int]
    private(set) var spares = 0
    private var acceptedAt: [Int64]
    /// Members or decisions changed since the engine last cleared this (see `Engine.settle`).
    var moved = true {
        didSet { if moved { openIsStale = true } }
    }
    /// The members not rejected, in arming order: those a frame can still concern (most of a
    /// sequence's members are rejected after its first frames). Rebuilt when decisions change.
    private(set) var open = FrameList<Int>()
    private var openIsStale = false

    init(gestureCount n: Int) {
        members.reserveCapacity(n)
        open = FrameList(capacity: n)
        seats = [Seat](repeating: Seat(), count: n)
        sparedBy = [Int](repeating: -1, count: n)
        acceptedAt = [Int64](repeating: 0, count: n)
    }

    var isEmpty: Bool { members.isEmpty }

    /// Brings `open` up to date (it changes only here, so it can be walked by index while
    /// decisions are being taken).
    mutating func refreshOpen() {
        guard openIsStale else { return }
        open.removeAll()
        for g in members where seats[g].decision != .rejected { open.append(g) }
        openIsStale = false
    }

    /// Gesture `g`'s decision in its round.
    func decision(_ g: Int) -> Decision { seats[g].decision }

    func contains(_ g: Int) -> Bool { seats[g].isMember }

    /// The region gesture `g` is armed in.
    func region(of g: Int) -> Int { seats[g].region }

    func isUndecided(_ g: Int) -> Bool { seats[g].isMember && seats[g].decision == .undecided }

    /// Enters `g` (of region `r`) for a new round, seeing the contacts from serial `first` on.
    mutating func arm(_ g: Int, round k: Int, region r: Int, firstSerial first: UInt64) {
        if !seats[g].isMember { members.append(g) }
        if spares > 0 { unspare(g) }
        seats[g] = Seat(isMember: true, decision: .undecided, round: k, region: r, firstSerial: first)
        moved = true
    }

    /// Do `a` and `b` share a contact? Yes in one region; for regions one inside the other, when
    /// a contact the outer member can see (landed since its round began) landed in the inner one.
    /// (The sequences' nesting and each region's last landing: `fireNext`'s, borrowed.)
    func meet(_ a: Int, _ b: Int, _ tree: borrowing RegionTree, _ lastLanded: borrowing [UInt64]) -> Bool {
        let ra = seats[a].region, rb = seats[b].region
        if ra == rb { return true }
        if tree.isAncestor(ra, of: rb) { return lastLanded[rb] >= seats[a].firstSerial }
        if tree.isAncestor(rb, of: ra) { return lastLanded[ra] >= seats[b].firstSerial }
        return false
    }

    /// Times the invariant was broken: a decision asked for a member that is not undecided. The
    /// engine asks only for undecided members, so this stays 0; if it ever moves, the daemon logs
    /// a warning and counts it in `stats` rather than deciding twice.
    private(set) var violations = 0

    @inline(__always)
    mutating func decide(_ g: Int, _ d: Decision) {
        guard seats[g].isMember, seats[g].decision == .undecided else {
            violations += 1
            return
        }
        seats[g].decision = d
        if spares > 0 { unspare(g) }
        moved = true
    }

    @inline(never)
    private mutating func unspare(_ g: Int) {
        guard sparedBy[g] >= 0 else { return }
        sparedBy[g] = -1
        spares -= 1
    }

    /// The spared member at `members[k]` and the one that spared it, when its time to take over
    /// has passed (`ArenaPolicy.Taker.window`) or that one is no longer running (ended, or
    /// cancelled): it loses to that one, as it would have when that one fired. nil otherwise.
    func lapsedSpare(at k: Int, _ now: Timestamp, _ policy: borrowing ArenaPolicy, _ bank: borrowing RecognizerBank) -> (spared: Int, by: Int)? {
        let g = members[k], x = sparedBy[g]
        guard x >= 0, seats[g].decision == .undecided else { return nil }
        let running = seats[x].decision == .accepted && bank.status(x) == .active
        return !running || now.nanoseconds - acceptedAt[x] > policy.takers[g].window ? (g, x) : nil
    }

    /// May `g` fire now? Not while an undecided member of its round or an earlier one that
    /// shares a contact with it outranks it.
    func isBlocked(_ g: Int, by policy: ArenaPolicy, _ tree: borrowing RegionTree, _ lastLanded: borrowing [UInt64]) -> Bool {
        for o in members where o != g && seats[o].decision == .undecided && seats[o].round <= seats[g].round {
            if policy.outranks(o, g), meet(o, g, tree, lastLanded) { return true }
        }
        return false
    }

    /// Does `winner`'s firing reject `o`? Yes if `o` is undecided, of its round, shares a
    /// contact with it, and may not run with it.
    func loses(_ o: Int, to winner: Int, by policy: ArenaPolicy, _ tree: borrowing RegionTree, _ lastLanded: borrowing [UInt64]) -> Bool {
        guard o != winner && seats[o].isMember && seats[o].decision == .undecided && seats[o].round == seats[winner].round
            && !policy.simultaneous(winner, o)
        else { return false }
        return meet(o, winner, tree, lastLanded)
    }

    /// The rule, applied once from position `start` of `members`: the first undecided member
    /// there or after that is ready and not blocked is accepted, and every member its firing
    /// rejects is decided rejected and appended to `losers`. The engine then tells the winner and
    /// the losers (their recognizers' `accepted` and `rejected`; a loser that may take the winner
    /// over later is spared instead, `spare`) and asks again from `next`. nil: nothing from
    /// `start` on can fire now.
    mutating func fireNext(
        from start: Int, at now: Timestamp, bank: borrowing RecognizerBank, policy: ArenaPolicy, tree: borrowing RegionTree,
        lastLanded: borrowing [UInt64], losers: inout FrameList<Int>
    ) -> (winner: Int, next: Int)? {
        var i = start
        while i < members.count {
            let g = members[i]
            i += 1
            guard seats[g].decision == .undecided, bank.status(g).isReady, !isBlocked(g, by: policy, tree, lastLanded) else {
                continue
            }
            seats[g].decision = .accepted
            acceptedAt[g] = now.nanoseconds
            moved = true
            for o in members where loses(o, to: g, by: policy, tree, lastLanded) {
                seats[o].decision = .rejected
                if spares > 0 { unspare(o) }
                losers.append(o)
            }
            return (g, i)
        }
        return nil
    }

    /// Loser `o` of `winner`'s firing, which may take it over (`ArenaPolicy.takesOver`) and
    /// lacks its fingers yet (`fingers` were down before the frame's landings), is undecided
    /// again, spared by it. Whether it was.
    mutating func spare(_ o: Int, by winner: Int, fingers: Int, _ policy: borrowing ArenaPolicy) -> Bool {
        guard policy.takesOver(o, winner), sparedBy[o] < 0, fingers < policy.takers[o].minFingers else { return false }
        seats[o].decision = .undecided
        sparedBy[o] = winner
        spares += 1
        moved = true
        return true
    }

    /// The member `winner` takes over as it fires: the one that spared it, if still active
    /// (decided rejected now); -1: none.
    mutating func takenOver(by winner: Int, _ bank: borrowing RecognizerBank) -> Int {
        let x = sparedBy[winner]
        guard x >= 0 else { return -1 }
        unspare(winner)
        guard seats[x].decision == .accepted && bank.status(x) == .active else { return -1 }
        seats[x].decision = .rejected
        moved = true
        return x
    }

    /// Lets go of the members in `gone` (decided, and their region's sequence over): the next
    /// sequence in their region arms them afresh.
    mutating func release(_ gone: FrameList<Int>) {
        guard !gone.isEmpty else { return }
        for g in gone {
            seats[g].isMember = false
            if spares > 0 { unspare(g) }
        }
        var kept = 0
        var i = 0
        while i < members.count {
            let g = members[i]
            i += 1
            if seats[g].isMember {
                members[kept] = g
                kept += 1
            }
        }
        members.removeLast(members.count - kept)
        moved = true
    }
}

