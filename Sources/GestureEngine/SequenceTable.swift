/// Which contacts belong to which sequences, by UIKit's hit-testing rule: each contact is
/// hit-tested once, where it lands, to its innermost region (`CompiledConfiguration.hitTest`), and
/// a region's *sequence* holds the contacts that landed in it or in a region nested in it, from
/// the first of them down to the last of them up. So regions side by side have sequences of
/// their own, and a parent region's sequence holds the contacts of all its children.
///
/// Each frame, `read` summarizes it once per region it concerns (a `ContactTracker` per region,
/// sized for ten contacts when the table is made) and once per gesture that claimed its own contacts (`claim`);
/// the engine delivers each gesture the summary of its own view. The bound on live sequences is
/// one per region, and the contacts it follows are the panel's (at most 64 slots).
struct SequenceTable {
    /// A contact that is down: where it was hit-tested, and when it landed (a serial, in order).
    private struct Landed {
        var id: UInt32, leaf: Int32, serial: UInt64, matched: Bool
        static let none = Landed(id: 0, leaf: -1, serial: 0, matched: false)
    }

    private let configuration: CompiledConfiguration
    private let parents: [Int]
    private let hasGestures: [Bool]
    let tree: RegionTree

    // Per region.
    private var trackers: [ContactTracker]
    /// What the last frame did to each region, in one entry (one access a region a frame).
    private var frames: [RegionFrame]
    /// The serial of the last contact that landed in the region or a region nested in it.
    private(set) var lastLanded: [UInt64]
    /// The arena round and the sequence number of the region's current (or last) sequence.
    private(set) var round: [Int]
    private(set) var sequenceID: [Int]
    /// A palm came down in the region's sequence: it is ignored until its contacts are all up.
    var poisoned: [Bool]
    private var roundStamp: [UInt32]

    /// Per gesture: the contacts it claimed (ContactClaims.swift).
    private var claims: ContactClaims

    /// Whose summaries need the fingers' shape (`ContactTracker.update`'s `shape`): per region,
    /// some gesture reading the region's summary may read it; per gesture, for its own claim.
    /// Kept by the engine as statuses change (`Engine.noteShapeReaders`); all true until then.
    var shapeRegions: [Bool]
    var shapeGestures: [Bool]
    /// The gestures that may read the shape (pinches, and pans while they decide), in their regions.
    let shapeReaders: [(gesture: Int, region: Int, pinch: Bool)]

    /// Per contact. The buffers hold ten contacts from the start (a touchscreen reports up to ten).
    static let initialContacts = 10
    private var landed: [Landed] = []
    private var scratch: [Landed] = []
    private(set) var contactCount = 0
    /// Per contact of the last frame, in its order: the region it was hit-tested to (-1: none).
    private var leaves: [Int32] = []
    private var nextSerial: UInt64 = 1
    /// The serial the first contact landing in the last frame got (or will get): a gesture armed
    /// at this frame sees the contacts from this serial on.
    private(set) var firstSerialOfFrame: UInt64 = 1
    private var nextRound = 0
    private var nextSequence = 0
    private var frameStamp: UInt32 = 0

    /// The regions with gestures that the last frame concerns (a contact of theirs is down or
    /// lifted), innermost first along each contact's path; when they are one region's path and
    /// no more (every contact in it, none lifted), that region (else -1).
    private(set) var active = FrameList<Int>()
    private var activePath: Int32 = -1
    /// The contacts that landed in the last frame, with the region each was hit-tested to.
    private(set) var landings = FrameList<(contact: UInt32, leaf: Int)>()
    /// The time of the frame `landings` are from.
    private var landingsAt = Timestamp(nanoseconds: 0)
    /// The last frame emptied a region's sequence (its last contact lifted).
    private(set) var emptiedRegion = false

    init(_ c: CompiledConfiguration) {
        configuration = c
        let n = c.regions.count
        parents = c.regions.map { $0.parent ?? -1 }
        hasGestures = c.regions.map { !$0.gestures.isEmpty }
        tree = c.nesting
        // Sized for a panel's usual ten contacts, so a first touch allocates nothing (more grow
        // them); a region with no gestures never uses its own.
        let contacts = Self.initialContacts
        trackers = c.regions.map { ContactTracker(capacity: $0.gestures.isEmpty ? 1 : contacts) }
        frames = [RegionFrame](repeating: RegionFrame(), count: n)
        lastLanded = [UInt64](repeating: 0, count: n)
        round = [Int](repeating: 0, count: n)
        sequenceID = [Int](repeating: 0, count: n)
        poisoned = [Bool](repeating: false, count: n)
        roundStamp = [UInt32](repeating: 0, count: n)
        claims = ContactClaims(c, contacts: contacts)
        shapeRegions = [Bool](repeating: true, count: n)
        shapeGestures = [Bool](repeating: true, count: c.gestures.count)
        shapeReaders = c.gestures.indices.compactMap { g in
            let kind = c.gestures[g].spec.kind
            return kind == .pinch || kind == .pan ? (g, c.gestures[g].region, kind == .pinch) : nil
        }
        landed.reserveCapacity(contacts)
        scratch = [Landed](repeating: .none, count: contacts)
        leaves = [Int32](repeating: -1, count: contacts)
        landings = FrameList(capacity: contacts)
        active = FrameList(capacity: n)
    }

    /// The numbering of rounds and sequences goes on across configurations.
    mutating func continueNumbering(from other: SequenceTable) {
        // (And the contacts passed over stay so until they lift: a reload's, a wake's.)
        passedOver = other.passedOver
        nextSerial = other.nextSerial
        nextRound = other.nextRound
        nextSequence = other.nextSequence
    }

    /// Did the last frame concern region `r`?
    func isActive(_ r: Int) -> Bool { frames[r].stamp == frameStamp }

    /// Contacts (palms included) down in region `r` or a region nested in it, after the last frame.
    func present(_ r: Int) -> Int { frames[r].present }

    /// The contacts down in region `r` (or one nested in it) at `time`, before the landings of
    /// a frame at that time: a gesture made ready by a frame in which a finger landed was made
    /// ready by the others. (At a deadline after the frame its landings were down already.)
    func presentBeforeLandings(_ r: Int, at time: Timestamp) -> Int {
        guard time == landingsAt else { return frames[r].present }
        var landed = 0
        for k in 0..<landings.count where landings[k].leaf == r || tree.isAncestor(r, of: landings[k].leaf) { landed += 1 }
        return frames[r].present - landed
    }

    /// Where region `r`'s summary is in the buffer `read` filled (valid when `isActive(r)`).
    func summarySlot(ofRegion r: Int) -> Int { frames[r].slot }

    /// Where gesture `g`'s own summary is (valid when it has claimed its contacts).
    func summarySlot(ofClaim g: Int) -> Int { claims.slot[g] }

    func hasClaim(_ g: Int) -> Bool { claims.has(g) }

    /// The contacts gesture `g` (of region `r`) follows now: those it claimed, else those down
    /// in its region's sequence.
    func contacts(ofGesture g: Int, region r: Int) -> [UInt32] {
        claims.has(g) ? claims.ids[g] : trackers[r].contacts.map(\.id)
    }

    /// Fingers (palms excluded) down in region `r`'s sequence after the last frame.
    func fingers(in r: Int) -> Int { trackers[r].count }

    // MARK: - Reading a frame

    /// Hit-tests the frame's new contacts, then summarizes it for every region it concerns and
    /// for every gesture that claimed its contacts, into `summaries` (regions first, in `active`
    /// order; the buffer only grows, and what lies past this frame's summaries is stale).
    mutating func read(_ frame: TouchFrame, at time: Timestamp, into summaries: inout [FrameSummary]) {
        nextFrameStamp()
        landingsAt = time
        emptiedRegion = false
        let oneLeaf = classify(frame)
        if !landings.isEmpty && !claims.claimed.isEmpty { claims.split(by: landings, tree: tree, regions: trackers) }
        let n = active.count
        if summaries.count < n { summaries += repeatElement(FrameSummary(time: time), count: n - summaries.count) }
        // The trackers and the regions' frames moved out (no copy), then they and the summaries
        // written through spans: one uniqueness check each a frame, not one each a region.
        var (tracking, marks) = ([ContactTracker](), [RegionFrame]())
        swap(&tracking, &trackers)
        swap(&marks, &frames)
        do {
            var trs = tracking.mutableSpan, sums = summaries.mutableSpan, fr = marks.mutableSpan
            for i in 0..<n {
                let r = active[i]
                // Most frames have all their contacts in one region (one hand, or no regions at
                // all): each region on its path then follows every contact, and asks no one.
                if let leaf = oneLeaf, tree.isAncestor(r, of: leaf) {
                    trs[r].update(frame, at: time, view: EveryContact(), shape: shapeRegions[r], into: &sums[i])
                } else {
                    let view = RegionView(leaves: leaves, tree: tree, region: r)
                    trs[r].update(frame, at: time, view: view, shape: shapeRegions[r], into: &sums[i])
                }
                let now = sums[i].present
                if now == 0 && fr[r].present > 0 { emptiedRegion = true }
                fr[r].read(present: now, slot: i, stamp: frameStamp)
            }
        }
        swap(&tracking, &trackers)
        swap(&marks, &frames)
        if !claims.claimed.isEmpty {
            claims.read(frame, at: time, frames: frames, shape: shapeGestures, into: &summaries, from: n)
        }
    }

    /// Matches the frame's contacts with those down before (new ones are hit-tested and given a
    /// serial), and marks the regions of the contacts down and of those that lifted. Returns the
    /// region every contact of the frame, down or lifted, was hit-tested to, when it is one.
    /// Contacts down before this engine took over the panel: in no region (`Engine.passOver`;
    /// asked at a landing only).
    var passedOver: [UInt32] = []

    private mutating func classify(_ frame: TouchFrame) -> Int? {
        firstSerialOfFrame = nextSerial
        landings.removeAll()
        if let same = sameContactsAsBefore(frame) { return same }
        active.removeAll()
        activePath = -1
        let n = frame.contacts.count
        if leaves.count < n { leaves += [Int32](repeating: -1, count: n - leaves.count) }
        if scratch.count < n { scratch += [Landed](repeating: .none, count: n - scratch.count) }
        // Worked on as locals (swapped out of `self`), so the loop below checks no uniqueness.
        var down: [Landed] = [], next: [Landed] = [], leafOf: [Int32] = []
        swap(&down, &landed)
        swap(&next, &scratch)
        swap(&leafOf, &leaves)
        var first: Int32 = -2
        var mixed = false
        let previous = contactCount
        var newcomers = 0
        do {
            // Spans of the three local buffers (bounds-checked, lent for this block only).
            var down = down.mutableSpan, next = next.mutableSpan, leafOf = leafOf.mutableSpan
            var hint = 0
            var index = 0
            for c in frame.contacts {
                var i = hint < previous && down[hint].id == c.id ? hint : -1
                if i < 0 {
                    for k in 0..<previous where down[k].id == c.id {
                        i = k
                        break
                    }
                }
                var entry: Landed
                if i >= 0 {
                    hint = i + 1
                    down[i].matched = true
                    entry = down[i]
                    entry.matched = false
                } else {
                    entry = Landed(id: c.id, leaf: -1, serial: 0, matched: false)
                    newcomers += 1
                }
                leafOf[index] = entry.leaf
                next[index] = entry
                index += 1
            }
            for k in 0..<previous where !down[k].matched {
                if first == -2 { first = down[k].leaf } else if down[k].leaf != first { mixed = true }
            }
        }
        // Newcomers are hit-tested (rare: a landing), then every contact marks its path.
        if newcomers > 0 { hitTestNewcomers(frame, &next, &leafOf) }
        var marked: Int32 = -2
        for index in 0..<n {
            let leaf = leafOf[index]
            if first == -2 { first = leaf } else if leaf != first { mixed = true }
            if leaf != marked { mark(leaf) }
            marked = leaf
        }
        for k in 0..<previous where !down[k].matched { mark(down[k].leaf) }
        landed = next
        scratch = down
        leaves = leafOf
        contactCount = n
        return mixed || first < 0 ? nil : Int(first)
    }

    /// The frame's contacts that landed (no serial yet in `next`) get their region, a serial and
    /// a landing.
    private mutating func hitTestNewcomers(_ frame: TouchFrame, _ next: inout [Landed], _ leafOf: inout [Int32]) {
        var index = 0
        for c in frame.contacts {
            if next[index].serial == 0 {
                let leaf = passedOver.contains(c.id) ? -1 : Int32(configuration.hitTest(c.position) ?? -1)
                next[index] = Landed(id: c.id, leaf: leaf, serial: nextSerial, matched: false)
                leafOf[index] = leaf
                nextSerial += 1
                noteLanding(next[index])
                landings.append((c.id, Int(leaf)))
            }
            index += 1
        }
    }

    /// Most frames move the same contacts as the frame before, in the same order: then nothing is
    /// matched or hit-tested, the regions are marked as they were, and the result is
    /// `classify`'s (nil when it is not such a frame, or when its contacts are in several regions).
    private mutating func sameContactsAsBefore(_ frame: TouchFrame) -> Int?? {
        let n = contactCount
        guard frame.contacts.count == n, n > 0, landed.count >= n else { return nil }
        var leaf = landed[0].leaf
        for i in 0..<n {
            let l = landed[i]
            guard l.id == frame.contacts[i].id else { return nil }
            if l.leaf != leaf { leaf = -1 }
        }
        guard leaf >= 0 else { return nil }
        if leaf != activePath {
            // (Else the last frame concerned this path alone, as this one does: `read` stamps
            // its regions with this frame, in the order they are listed.)
            active.removeAll()
            mark(leaf)
            activePath = leaf
        }
        return .some(Int(leaf))
    }

    /// A new contact: the regions on its path note it as their latest.
    private mutating func noteLanding(_ e: Landed) {
        var r = Int(e.leaf)
        while r >= 0 {
            lastLanded[r] = e.serial
            r = parents[r]
        }
    }

    /// Marks `leaf` and the regions it is nested in as concerned by this frame.
    private mutating func mark(_ leaf: Int32) {
        var r = Int(leaf)
        while r >= 0 && frames[r].stamp != frameStamp {
            frames[r].stamp = frameStamp
            if hasGestures[r] { active.append(r) }
            r = parents[r]
        }
    }

    // MARK: - Sequences and rounds

    /// Region `r`'s sequence starts with this frame: it gets a new sequence number and its round,
    /// which it shares with the sequences of the regions it is nested in that hold contacts now
    /// (the outermost of them decides: its round goes on, or starts anew with this frame).
    mutating func startSequence(_ r: Int) {
        var root = r
        var p = parents[r]
        while p >= 0 {
            if hasGestures[p] && frames[p].stamp == frameStamp && frames[p].present > 0 { root = p }
            p = parents[p]
        }
        if roundStamp[root] != frameStamp && (root == r || startsNow(root)) {
            nextRound += 1
            round[root] = nextRound
            roundStamp[root] = frameStamp
        }
        round[r] = round[root]
        roundStamp[r] = frameStamp
        nextSequence += 1
        sequenceID[r] = nextSequence
    }

    /// Does region `r`'s sequence start with this frame (every finger of it new)?
    private func startsNow(_ r: Int) -> Bool {
        isActive(r) && trackers[r].count > 0 && trackers[r].landedThisFrame == trackers[r].count
    }

    /// The sequences contact `contact`, hit-tested to `leaf`, belongs to: one per region with
    /// gestures on its path, innermost first.
    func logLanding(_ contact: UInt32, leaf: Int, at time: Timestamp, into log: inout [Landing]) {
        var r = leaf
        while r >= 0 {
            if hasGestures[r] { log.append(Landing(time: time, contact: contact, region: r, sequence: sequenceID[r])) }
            r = parents[r]
        }
    }

    // MARK: - Claims

    /// Gesture `g` (of region `r`) keeps the fingers down in `r` now as its own, at most `most`.
    mutating func claim(_ g: Int, in r: Int, most: Int) { claims.claim(g, in: r, from: trackers[r], most: most) }

    mutating func releaseClaim(_ g: Int) { claims.release(g) }

    /// Events were lost or the device went away: no contact is down, no sequence runs.
    mutating func reset() {
        for r in trackers.indices {
            trackers[r].reset()
            frames[r].present = 0
            poisoned[r] = false
        }
        claims.releaseAll()
        contactCount = 0
        active.removeAll()
        activePath = -1
        nextFrameStamp()
    }

    /// A new frame stamp; at the wrap (every 2³² frames) every region's stamps cleared, so none
    /// left from 2³² frames before reads as this frame's. (Inlined: out of line, its call cost
    /// 14 instructions a frame.)
    @inline(__always)
    private mutating func nextFrameStamp() {
        frameStamp &+= 1
        if frameStamp == 0 { clearStamps() }
    }

    @inline(never)
    private mutating func clearStamps() {
        for r in frames.indices { frames[r].stamp = 0; roundStamp[r] = 0 }
        frameStamp = 1
    }
}
