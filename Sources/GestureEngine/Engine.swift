/// One recognizer transition, for `--verbose` logs and trace pictures:
/// `tap#1 pressing --contactEnded--> waitingForNextTap`.
public struct Transition: Sendable, CustomStringConvertible {
    public var time: Timestamp
    /// Index of the compiled gesture.
    public var gesture: Int
    public var from: RecognizerStateName
    public var input: RecognizerInputName
    public var to: RecognizerStateName
    /// Why it failed or was rejected, when it did.
    public var reason: FailReason?
    /// The sequence of the gesture's round (as its events' `sequence`).
    public var sequence = 0

    public var description: String {
        let why = reason.map { " (\($0))" } ?? ""
        return "#\(gesture) \(from) --\(input)--> \(to)\(why)"
    }
}

/// A contact landing in a region's sequence, for trace pictures: one for each region with
/// gestures it was hit-tested to or is nested in, innermost first.
public struct Landing: Sendable {
    public var time: Timestamp
    public var contact: UInt32
    /// Index of the compiled region.
    public var region: Int
    public var sequence: Int
}

/// The gesture engine: frames and time in, gesture events out. Pure and deterministic: no
/// clock, no I/O, no threads; the same input gives the same output.
///
/// Use: call `handle(_:into:)` for each frame and `advance(to:into:)` when `nextDeadline` passes
/// (a replay calls it with each frame's time, a daemon arms a timer at `nextDeadline`). Events
/// are appended to a caller-owned buffer, so a steady stream of frames allocates nothing.
///
/// Touches are delivered as UIKit delivers them (`SequenceTable`): each contact is hit-tested
/// where it lands, and a gesture sees only the contacts of its region's sequence, so regions side
/// by side recognize independently. One engine serves one touch surface: while contacts are
/// down, frames from another device are ignored (a sequence never mixes devices).
public struct Engine {
    public private(set) var configuration: CompiledConfiguration
    private var pending: CompiledConfiguration?
    private let edges: PixelRect?
    var bank: RecognizerBank
    var arena: Arena
    var sequences: SequenceTable
    /// The last frame's summaries (regions', then claims'), filled by `sequences.read`.
    /// Optional only so that `handle` can move it out and back (nil in between): swapped with an
    /// empty array instead, the empty one was released on every frame.
    private var summaries: [FrameSummary]? = []
    /// What a recognizer is lent with an input that is not a frame (a deadline, the arena's
    /// word): an empty summary, never read. (Summaries go down to the recognizers `inout`, which
    /// lets the compiler pass their address, then `borrowing`: read only, never copied.)
    var noFrame = FrameSummary(time: Timestamp(nanoseconds: 0))
    var drags: DragRests

    var now = Timestamp.zero
    private var device: UInt32?
    /// Events were lost: frames are ignored until every contact lifts.
    private var lost = false
    var nextID: UInt64 = 1
    /// Per gesture: the id of its current instance, its region, and its sequence's number.
    var instance: [UInt64]
    var regionOf: [Int]
    var sequenceOf: [Int]

    /// Counts configurations applied: events are indexed into `configuration`, so whoever names
    /// them must re-read it when this changes.
    public private(set) var configurationGeneration = 0

    /// When non-nil, every recognizer transition is appended here (the caller drains it).
    public var transitionLog: [Transition]?
    /// When non-nil, every contact's landing is appended here (the caller drains it).
    public var landingLog: [Landing]?
    /// Log also the transitions that stay in their state on a frame or a deadline (left out of
    /// `--verbose`, where they would be every frame; the table check wants every row taken).
    public var logsSelfLoops = false
    /// Scratch lists, reused (no allocation): the members a winner's firing rules out, and the
    /// members whose rounds are over.
    var losers = FrameList<Int>()
    var finished = FrameList<Int>()
    /// Impossible (state, input) pairs met so far: each failed its recognizer (never a trap).
    /// A bug if it moves; the daemon logs a warning and counts it in `stats`.
    public internal(set) var invalidInputs = 0
    /// Decisions the arena was asked to take twice (its invariant broken); 0 unless a bug.
    /// Stored (kept after each decision): read from another module, a computed property copied
    /// the whole engine to ask.
    public internal(set) var arenaViolations = 0

    public init(configuration: EngineConfiguration) {
        self.init(compiled: CompiledConfiguration(configuration))
    }

    /// `edges`: the panel's part of the screen (its `output`), where its edge swipes start; nil
    /// for the whole screen.
    public init(compiled: CompiledConfiguration, edges: PixelRect? = nil) {
        configuration = compiled
        self.edges = edges
        bank = RecognizerBank(compiled, edges: edges ?? compiled.screen)
        arena = Arena(gestureCount: compiled.gestures.count)
        sequences = SequenceTable(compiled)
        drags = DragRests(compiled)
        instance = [UInt64](repeating: 0, count: compiled.gestures.count)
        regionOf = compiled.gestures.map(\.region)
        sequenceOf = [Int](repeating: 0, count: compiled.gestures.count)
        losers = FrameList(capacity: compiled.gestures.count)
        finished = FrameList(capacity: compiled.gestures.count)
        // At most one summary a region and one a claim: the first frames allocate nothing.
        summaries!.reserveCapacity(compiled.regions.count + compiled.gestures.count)
    }

    /// Replaces the configuration once no contact is down and no gesture waits (what is under
    /// way finishes under the old one).
    public mutating func reconfigure(_ compiled: CompiledConfiguration) {
        defer { settle() }
        pending = compiled
        applyPendingIfIdle()
    }

    /// The earliest time at which `advance(to:)` has something to do. Kept by every entry point
    /// that can change a recognizer (`handle`, `advance`, `deviceRemoved`, `reconfigure`), so
    /// reading it, once a frame here and once a wake-up in the daemon, is a load.
    public private(set) var nextDeadline: Timestamp?

    /// Works out `nextDeadline` again if a recognizer's status or deadline, or the arena,
    /// changed since the last time. On most frames of a gesture under way nothing did.
    /// Called where every entry point ends, after its last `resolve`.
    /// (Its check inlined, its work out of line: most frames move no recognizer, and the call
    /// a frame cost more than the check.)
    @inline(__always)
    mutating func settle() {
        // (Debug builds, which the tests run: the bank's kept statuses and deadlines are the
        // recognizers' own.)
        assert(bank.keptMatchesRecognizers(), "a recognizer's kept status or deadline went stale")
        if bank.moved || arena.moved { settleMoved() }
    }

    @inline(never)
    private mutating func settleMoved() {
        nextDeadline = earliestDeadline()
        if bank.moved { noteShapeReaders() }
        bank.moved = false
        arena.moved = false
    }

    // Inlined: called from a `mutating` method, a call copied the whole engine (~1 KB) for `self`.
    @inline(__always)
    private func earliestDeadline() -> Timestamp? {
        var best: Timestamp?
        for g in arena.members where isLive(g) {
            if let d = bank.deadline(g), best == nil || d < best! { best = d }
        }
        return best
    }

    /// No gesture is under way or pending.
    public var isIdle: Bool { arena.isEmpty && sequences.contactCount == 0 }

    /// Gesture `g` is in a round and still undecided: it may yet be recognized.
    public func isPending(_ g: Int) -> Bool { g >= 0 && g < regionOf.count && arena.isUndecided(g) }

    /// The contacts gesture `g` follows now (its own once it claimed them, else its region's
    /// sequence's): what a system gesture takes from the app in pass-through mode.
    public func contacts(of g: Int) -> [UInt32] {
        g >= 0 && g < regionOf.count ? sequences.contacts(ofGesture: g, region: regionOf[g]) : []
    }

    // MARK: - Input

    public mutating func handle(_ frame: TouchFrame, into out: inout [GestureEvent]) {
        defer { settle() }
        let time = max(frame.time, now)  // time never runs backwards inside the engine
        advance(to: time, into: &out)
        if let d = device, d != frame.device, sequences.contactCount > 0 || lost { return }
        device = frame.device
        if sequences.contactCount == 0 { applyPendingIfIdle() }

        if frame.discontinuity {
            for g in arena.members where isLive(g) { reject(g, at: time, because: .eventsLost, into: &out) }
            sequences.reset()
            lost = !frame.contacts.isEmpty
            finish()
            return
        }
        if lost {
            if frame.contacts.isEmpty {
                lost = false
                finish()
            }
            return
        }
        // Worked on as a local (moved out of `self`), so the summaries can be lent in place
        // (through a span) while the recognizers, which are `self`'s, change.
        guard var sums = summaries.take() else { preconditionFailure("Engine.handle re-entered") }
        sequences.read(frame, at: time, into: &sums)
        deliverFrame(&sums, at: time, into: &out)
        summaries = consume sums
        if landingLog != nil {
            for l in sequences.landings { sequences.logLanding(l.contact, leaf: l.leaf, at: time, into: &landingLog!) }
        }
        // Only a decision, a recognizer that moved on, or a sequence that ended can end a round.
        if arena.moved || bank.moved || sequences.emptiedRegion { finish() }
    }

    /// One frame, read into `sums`, to the gestures that see it.
    private mutating func deliverFrame(_ sums: inout [FrameSummary], at time: Timestamp, into out: inout [GestureEvent]) {
        // What the frame holds beyond motion, in one look (most frames only move fingers).
        var palms = false, starts = false, poisoned = false
        for r in sequences.active {
            let slot = sequences.summarySlot(ofRegion: r)
            if sequences.poisoned[r] {
                poisoned = true
            } else if sums[slot].hasPalm {
                palms = true
            }
            if sums[slot].count > 0 && sums[slot].added == sums[slot].count { starts = true }
        }
        // A palm cancels the sequences it came down in (and is ignored until they are over).
        if palms {
            for r in sequences.active where sums[sequences.summarySlot(ofRegion: r)].hasPalm && !sequences.poisoned[r] {
                sequences.poisoned[r] = true
                poisoned = true
                for g in arena.members where regionOf[g] == r && isLive(g) { reject(g, at: time, because: .palm, into: &out) }
            }
        }
        // Gestures under way (and those carried over, waiting for their next tap) see their view.
        deliverToLive(&sums, at: time, into: &out)
        resolve(at: time, into: &out)
        if starts { beginSequences(&sums, at: time, into: &out) }
        // Only an acceptance or a finger landing can give a gesture its fingers.
        if arena.moved || !sequences.landings.isEmpty { claimContacts() }
        if poisoned {
            for r in sequences.active where sequences.poisoned[r] && sequences.present(r) == 0 {
                sequences.poisoned[r] = false
            }
        }
    }

    /// The regions whose sequence starts with this frame: where every finger was replaced
    /// between two reports, what was carried over sees the new fingers land (after the old ones'
    /// lift, delivered before); then each arms its gestures for a new round.
    private mutating func beginSequences(_ sums: inout [FrameSummary], at time: Timestamp, into out: inout [GestureEvent]) {
        var replaced = false
        for r in sequences.active where !sequences.poisoned[r] {
            let slot = sequences.summarySlot(ofRegion: r)
            guard sums[slot].count > 0 && sums[slot].added == sums[slot].count && sums[slot].removed > 0 else { continue }
            sums[slot].removed = 0
            replaced = true
            for g in configuration.regions[r].gestures
            where arena.isUndecided(g) && !sequences.hasClaim(g) && bank.status(g) != .readyLifted {
                show(&sums[slot], to: g, into: &out)
            }
        }
        if replaced { resolve(at: time, into: &out) }
        for r in sequences.active where !sequences.poisoned[r] {
            let slot = sequences.summarySlot(ofRegion: r)
            guard sums[slot].count > 0 && sums[slot].added == sums[slot].count else { continue }
            beginSequence(r, &sums[slot], at: time, into: &out)
        }
        resolve(at: time, into: &out)
    }

    /// A frame to every live member whose region it concerns, in arming order: its claimed
    /// contacts' summary, else its region's (for a region whose fingers were all replaced, first
    /// their lift). Only the members not rejected are looked at (a sequence's first frames
    /// reject most); a member rejected on the way is skipped by `isLive`.
    private mutating func deliverToLive(_ sums: inout [FrameSummary], at time: Timestamp, into out: inout [GestureEvent]) {
        arena.refreshOpen()
        var k = 0
        while k < arena.open.count {
            let g = arena.open[k]
            k += 1
            let r = regionOf[g]
            guard isLive(g), sequences.isActive(r), !sequences.poisoned[r], bank.status(g) != .readyLifted else { continue }
            if sequences.hasClaim(g) {
                show(&sums[sequences.summarySlot(ofClaim: g)], to: g, into: &out)
                continue
            }
            let slot = sequences.summarySlot(ofRegion: r)
            if sums[slot].count > 0 && sums[slot].added == sums[slot].count && sums[slot].removed > 0 {
                // Every finger was replaced within one frame: the old ones lift first.
                var lift = FrameSummary(time: time)
                lift.removed = sums[slot].removed
                lift.centroid = sums[slot].previousCentroid
                lift.scale = sums[slot].scale
                show(&lift, to: g, into: &out)
            } else {
                show(&sums[slot], to: g, into: &out)
            }
        }
    }

    /// Fires every deadline up to `time`, each at its own time, in order. (The check inlined
    /// where the engine calls it, at each frame; the firing out of line.)
    public mutating func advance(to time: Timestamp, into out: inout [GestureEvent]) {
        if let d = nextDeadline, d <= time { fireDeadlines(upTo: time, into: &out) }
        now = max(now, time)
    }

    /// The device went away. What was under way ends `cancelled`; a discrete gesture that had
    /// everything it needed and waited only on the clock or the arena (a tap waiting out the
    /// double-tap window) is recognized now, since what it waited for can no longer happen.
    public mutating func deviceRemoved(at time: Timestamp, into out: inout [GestureEvent]) {
        defer { settle() }
        advance(to: time, into: &out)
        let t = max(time, now)
        for g in arena.members where isLive(g) {
            let complete = configuration.gestures[g].spec.kind.isDiscrete && bank.status(g).isReady
            if !complete { reject(g, at: t, because: .deviceRemoved, into: &out) }
        }
        resolve(at: t, into: &out)
        for g in arena.members where isLive(g) { reject(g, at: t, because: .deviceRemoved, into: &out) }
        sequences.reset()
        lost = false
        device = nil
        finish()
    }

    // MARK: - Sequences

    /// Region `r`'s sequence starts with frame `p`: its gestures that are through with their last
    /// round are armed for a new one and see the frame, unless a gesture of a region it is
    /// nested in is already under way and takes the new contact (it rules them out at once, as
    /// Flutter's accepted drag claims every new pointer).
    private mutating func beginSequence(_ r: Int, _ s: inout FrameSummary, at time: Timestamp, into out: inout [GestureEvent]) {
        sequences.startSequence(r)
        for g in configuration.regions[r].gestures where !arena.isUndecided(g) {
            // (A gesture still running cannot be here: its fingers lifted; should one be, it is
            // cancelled, never reset.)
            if arena.contains(g) && arena.decision(g) == .accepted && bank.status(g) == .active {
                reject(g, at: time, because: .eventsLost, into: &out)
            }
            releaseClaim(g)
            bank.reset(g)
            arena.arm(g, round: sequences.round[r], region: r, firstSerial: sequences.firstSerialOfFrame)
            sequenceOf[g] = sequences.sequenceID[r]
            show(&s, to: g, into: &out)
            if arena.isUndecided(g), let taker = runningGesture(over: r, against: g) {
                reject(g, at: time, because: .lostTo(taker), into: &out)
            }
        }
    }

    /// A gesture of a region that holds `r`, accepted and running and still taking new contacts,
    /// that may not run with `g`: the new contact is its.
    @inline(__always)  // as `earliestDeadline`
    private func runningGesture(over r: Int, against g: Int) -> Int? {
        for m in arena.open where regionOf[m] != r && arena.decision(m) == .accepted && bank.status(m) == .active {
            if !sequences.hasClaim(m) && sequences.tree.isAncestor(regionOf[m], of: r) && !configuration.policy.simultaneous(m, g) {
                return m
            }
        }
        return nil
    }

    private mutating func applyPendingIfIdle() {
        guard let next = pending, arena.isEmpty, sequences.contactCount == 0, !lost else { return }
        pending = nil
        let previous = configuration
        configuration = next
        configurationGeneration += 1
        bank = RecognizerBank(next, edges: edges ?? next.screen)
        arena = Arena(gestureCount: next.gestures.count)
        let old = sequences
        sequences = SequenceTable(next)
        sequences.continueNumbering(from: old)
        drags = DragRests(next, keeping: drags, of: previous)
        instance = [UInt64](repeating: 0, count: next.gestures.count)
        regionOf = next.gestures.map(\.region)
        sequenceOf = [Int](repeating: 0, count: next.gestures.count)
    }

    /// Lets go of the members whose round is over (decided and done, their region's sequence
    /// over); once none is left and no contact is down, the engine is idle.
    mutating func finish() {
        finished.removeAll()
        for g in arena.members where !isLive(g) {
            let r = regionOf[g]
            if sequences.present(r) == 0 && !sequences.poisoned[r] { finished.append(g) }
        }
        for g in finished { releaseClaim(g) }
        arena.release(finished)
        if arena.isEmpty && sequences.contactCount == 0 && !lost {
            device = nil
            applyPendingIfIdle()
        }
    }
}
