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

    public var description: String {
        let why = reason.map { " (\($0))" } ?? ""
        return "#\(gesture) \(from) --\(input)--> \(to)\(why)"
    }
}

/// The gesture engine: frames and time in, gesture events out. Pure and deterministic: no
/// clock, no I/O, no threads; the same input gives the same output.
///
/// Use: call `handle(_:into:)` for each frame and `advance(to:into:)` when `nextDeadline` passes
/// (a replay calls it with each frame's time, a daemon arms a timer at `nextDeadline`). Events
/// are appended to a caller-owned buffer, so a steady stream of frames allocates nothing.
///
/// One engine serves one touch surface: while a sequence is under way, frames from another
/// device are ignored (a sequence never mixes devices).
public struct Engine {
    public private(set) var configuration: CompiledConfiguration
    private var pending: CompiledConfiguration?
    private var bank: RecognizerBank
    private var arena: Arena
    private var tracker = ContactTracker()

    private var now = Timestamp.zero
    private var sequence = 0
    private var device: UInt32?
    /// The sequence was cancelled (palm, lost events): frames are ignored until every finger lifts.
    private var poisoned = false
    private var nextID: UInt64 = 1
    private var instance: [UInt64]
    /// Per region: where its dragged content rests (px), for drag constraints.
    private var rest: [PixelPoint]
    /// Per region: it has drag constraints (looked up per pan event; asking the optional
    /// constraints themselves copied them).
    private var dragged: [Bool]

    /// Counts configurations applied: events are indexed into `configuration`, so whoever names
    /// them must re-read it when this changes.
    public private(set) var configurationGeneration = 0

    /// When non-nil, every recognizer transition is appended here (the caller drains it).
    public var transitionLog: [Transition]?
    /// Log also the transitions that stay in their state on a frame or a deadline (left out of
    /// `--verbose`, where they would be every frame; the table check wants every row taken).
    public var logsSelfLoops = false
    /// The members a winner's firing rules out, as the arena returns them (reused: no allocation).
    private var losers: [Int] = []
    /// Impossible (state, input) pairs met so far: each failed its recognizer (never a trap).
    /// A bug if it moves; the daemon logs a warning and counts it in `stats`.
    public private(set) var invalidInputs = 0
    /// Decisions the arena was asked to take twice (its invariant broken); 0 unless a bug.
    /// Stored (kept after each decision): read from another module, a computed property copied
    /// the whole engine to ask.
    public private(set) var arenaViolations = 0

    public init(configuration: EngineConfiguration) {
        self.init(compiled: CompiledConfiguration(configuration))
    }

    public init(compiled: CompiledConfiguration) {
        configuration = compiled
        bank = RecognizerBank(compiled)
        arena = Arena(gestureCount: compiled.gestures.count)
        instance = [UInt64](repeating: 0, count: compiled.gestures.count)
        losers.reserveCapacity(compiled.gestures.count)
        rest = compiled.regions.map { $0.drag?.initial ?? .zero }
        dragged = compiled.regions.map { $0.drag != nil }
    }

    /// Replaces the configuration from the next sequence on (the current one finishes under the old).
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
    /// changed since the last time. On most frames of a gesture under way nothing did (the pan
    /// stays active, the swipe keeps its deadline), and neither this nor `resolve` has work.
    /// Called where every entry point ends, after its last `resolve`: what changed after that
    /// leaves nothing the arena could fire (everything rejected, or the arena cleared).
    private mutating func settle() {
        // (Debug builds, which the tests run: the bank's kept statuses and deadlines are the
        // recognizers' own.)
        assert(bank.keptMatchesRecognizers(), "a recognizer's kept status or deadline went stale")
        guard bank.moved || arena.moved else { return }
        nextDeadline = earliestDeadline()
        bank.moved = false
        arena.moved = false
    }

    private func earliestDeadline() -> Timestamp? {
        var best: Timestamp?
        for g in arena.members where isLive(g) {
            if let d = bank.deadline(g), best == nil || d < best! { best = d }
        }
        return best
    }

    /// No gesture is under way or pending.
    public var isIdle: Bool { arena.isEmpty && tracker.count == 0 }

    // MARK: - Input

    public mutating func handle(_ frame: TouchFrame, into out: inout [GestureEvent]) {
        defer { settle() }
        let time = max(frame.time, now)  // time never runs backwards inside the engine
        advance(to: time, into: &out)
        if let d = device, d != frame.device, tracker.count > 0 { return }
        device = frame.device

        if frame.discontinuity {
            cancelSequence(at: time, because: .eventsLost, into: &out)
            tracker.reset()
            poisoned = !frame.contacts.isEmpty
            finishIfDone()
            return
        }

        // A variable, so that recognizers read it where it is (`withUnsafePointer(to: &s)`);
        // a constant was copied to a temporary for each pointer taken.
        var s = tracker.update(frame, at: time)
        if s.hasPalm && !poisoned {
            cancelSequence(at: time, because: .palm, into: &out)
            poisoned = true
        }
        if poisoned {
            if frame.contacts.isEmpty {
                poisoned = false
                finishIfDone()
            }
            return
        }

        if s.count > 0 && s.added == s.count {
            if s.removed > 0 {
                // Every finger was replaced within one frame (a lift and a landing between two
                // SYN_REPORTs): the old sequence ends here, as if an empty frame had come between.
                var lift = FrameSummary(time: time)
                lift.removed = s.removed
                lift.centroid = s.previousCentroid
                lift.scale = s.scale
                withUnsafePointer(to: &lift) { deliverToLive($0, into: &out) }
                resolve(at: time, into: &out)
                finishIfDoneIgnoringContacts()
            }
            // The new sequence's first frame: its contacts landed (those that lifted were the
            // old sequence's, told above).
            s.removed = 0
            withUnsafePointer(to: &s) { beginSequence($0, into: &out) }
        } else {
            withUnsafePointer(to: &s) { deliverToLive($0, into: &out) }
        }
        resolve(at: time, into: &out)
        finishIfDone()
    }

    /// Fires every deadline up to `time`, each at its own time, in order.
    public mutating func advance(to time: Timestamp, into out: inout [GestureEvent]) {
        var guardLoops = 0
        while let d = nextDeadline, d <= time, guardLoops < 10_000 {
            guardLoops += 1
            now = max(now, d)
            for g in arena.members where isLive(g) {
                guard let gd = bank.deadline(g), gd <= d else { continue }
                deliver(.deadline(d), to: g, into: &out)
                // A recognizer must move past its deadline; one that does not is failed, not looped on.
                if let again = bank.deadline(g), again <= d {
                    reject(g, at: d, because: .invalidInput(state: bank.look(g).stateName, input: .deadline), into: &out)
                }
            }
            resolve(at: d, into: &out)
            finishIfDone()
            settle()
        }
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
            let complete = configuration.gestures[g].spec.kind.isDiscrete && bank.status(g) == .ready
            if !complete { reject(g, at: t, because: .deviceRemoved, into: &out) }
        }
        resolve(at: t, into: &out)
        cancelSequence(at: t, because: .deviceRemoved, into: &out)
        tracker.reset()
        poisoned = false
        device = nil
        finishIfDone()
    }

    // MARK: - Sequence and arena

    private func isLive(_ g: Int) -> Bool {
        guard arena.contains(g) else { return false }
        switch arena.decision[g] {
        case .undecided: return true
        case .accepted: return bank.status(g) == .active
        case .rejected: return false
        }
    }

    private mutating func beginSequence(_ p: UnsafePointer<FrameSummary>, into out: inout [GestureEvent]) {
        let s = FrameSummary.Ref(p: p)
        sequence += 1
        applyPendingIfIdle()
        let region = configuration.hitTest(s.firstContact)
        let path = region.map { configuration.paths[$0] } ?? []

        // Members carried over from an earlier sequence (a multi-tap waiting for its next tap)
        // see this touch-down first; those not on the new path cannot get it.
        for g in arena.members where arena.isUndecided(g) {
            if path.contains(g) {
                deliver(.frame(p), to: g, into: &out)
            } else {
                reject(g, at: s.time, because: .outsideRegion, into: &out)
            }
        }
        // What that decided fires now, so a gesture it frees can start a new round below.
        resolve(at: s.time, into: &out)
        // Everything else on the path starts a new round with this touch-down. (A gesture still
        // running cannot be here: its fingers lifted; should one be, it is cancelled, never reset.)
        for g in path where arena.contains(g) && arena.decision[g] == .accepted && bank.status(g) == .active {
            reject(g, at: s.time, because: .eventsLost, into: &out)
        }
        for g in path where !arena.isUndecided(g) {
            bank.reset(g)
            arena.arm(g, round: sequence)
            deliver(.frame(p), to: g, into: &out)
        }
    }

    /// A frame to every live member, in arming order. Only the members not rejected are
    /// looked at (a sequence's first frames reject most); a member rejected on the way is
    /// skipped by `isLive`, as before.
    private mutating func deliverToLive(_ p: UnsafePointer<FrameSummary>, into out: inout [GestureEvent]) {
        arena.refreshOpen()
        var k = 0
        while k < arena.open.count {
            let g = arena.open[k]
            k += 1
            if isLive(g) { deliver(.frame(p), to: g, into: &out) }
        }
    }

    private mutating func deliver(_ input: RecognizerInput, to g: Int, into out: inout [GestureEvent]) {
        let before = transitionLog == nil ? nil : bank.look(g).stateName
        let first = out.count
        let (wasFailed, status) = bank.handle(g, input, into: &out)
        if let before {
            let after = bank.look(g)
            log(g, before, input.name, after.stateName, after.failure, at: input.time)
        }
        if out.count > first { stamp(from: first, g, &out) }
        guard status == .failed else { return }
        if !wasFailed, case .invalidInput? = bank.look(g).failure { invalidInputs += 1 }
        if arena.isUndecided(g) {
            arena.decide(g, .rejected)
            arenaViolations = arena.violations
        }
    }

    /// Applies the arena's decisions: each winner it returns is told `accepted` (and fires), each
    /// member its firing rules out is told `rejected`; then the arena is asked again, until a
    /// whole pass decides nothing.
    private mutating func resolve(at time: Timestamp, into out: inout [GestureEvent]) {
        // Nothing changed since the last pass, which fired everything it could.
        guard bank.moved || arena.moved else { return }
        var changed = true
        while changed {
            changed = false
            var from = 0
            while let (g, next) = arena.fireNext(from: from, bank: bank, policy: configuration.policy, losers: &losers) {
                from = next
                changed = true
                let before = transitionLog == nil ? nil : bank.look(g).stateName
                instance[g] = nextID
                nextID += 1
                let first = out.count
                _ = bank.handle(g, .accepted(time), into: &out)
                if let before { log(g, before, .accepted, bank.look(g).stateName, nil, at: time) }
                if out.count > first { stamp(from: first, g, &out) }
                for o in losers { reject(o, at: time, because: .lostTo(g), into: &out) }
                losers.removeAllKeepingCapacity()
            }
        }
    }

    private mutating func reject(_ g: Int, at time: Timestamp, because reason: FailReason, into out: inout [GestureEvent]) {
        let before = transitionLog == nil ? nil : bank.look(g).stateName
        let first = out.count
        _ = bank.handle(g, .rejected(time, reason), into: &out)
        if let before { log(g, before, .rejected, bank.look(g).stateName, reason, at: time) }
        if out.count > first { stamp(from: first, g, &out) }
        if case .invalidInput = reason { invalidInputs += 1 }
        // An accepted gesture cancelled later (a palm, lost events) was decided already.
        if arena.isUndecided(g) {
            arena.decide(g, .rejected)
            arenaViolations = arena.violations
        }
    }

    private mutating func cancelSequence(at time: Timestamp, because reason: FailReason, into out: inout [GestureEvent]) {
        for g in arena.members where isLive(g) { reject(g, at: time, because: reason, into: &out) }
    }

    /// Closes the arena once every finger is up and every member is decided and done.
    private mutating func finishIfDone() {
        guard tracker.count == 0 else { return }
        finishIfDoneIgnoringContacts()
    }

    /// As `finishIfDone`, for the moment between a sequence whose fingers all lifted and the next
    /// one's landing in the same frame (the tracker already holds the new fingers).
    private mutating func finishIfDoneIgnoringContacts() {
        guard !poisoned else { return }
        for g in arena.members where isLive(g) { return }
        arena.clear()
        device = nil
        applyPendingIfIdle()
    }

    private mutating func applyPendingIfIdle() {
        guard let next = pending, arena.isEmpty else { return }
        pending = nil
        configuration = next
        configurationGeneration += 1
        bank = RecognizerBank(next)
        arena = Arena(gestureCount: next.gestures.count)
        instance = [UInt64](repeating: 0, count: next.gestures.count)
        rest = next.regions.map { $0.drag?.initial ?? .zero }
        dragged = next.regions.map { $0.drag != nil }
    }

    // MARK: - Output

    /// Stamps what recognizer `g` just appended to `out` (from index `first`).
    private mutating func stamp(from first: Int, _ g: Int, _ out: inout [GestureEvent]) {
        var i = first
        while i < out.count {
            stamp(&out[i], g)
            i += 1
        }
    }

    /// Gives an emitted event its instance id, gesture and generation (and a pan its drag
    /// offset), in place in the output.
    private mutating func stamp(_ e: inout GestureEvent, _ g: Int) {
        e.id = instance[g]
        e.gesture = g
        e.generation = configurationGeneration
        let r = configuration.gestures[g].region
        if e.kind == .pan, dragged[r], let drag = configuration.regions[r].drag {
            let raw = rest[r] + e.translation
            let offset = PixelPoint(x: drag.x?.constrain(raw.x) ?? raw.x, y: drag.y?.constrain(raw.y) ?? raw.y)
            e.offset = offset
            switch e.phase {
            case .ended:
                let target = PixelPoint(
                    x: drag.x?.rest(offset: offset.x, velocity: e.velocity.x, projection: drag.projection) ?? offset.x,
                    y: drag.y?.rest(offset: offset.y, velocity: e.velocity.y, projection: drag.projection) ?? offset.y)
                e.target = target
                rest[r] = target
            case .cancelled:
                e.target = rest[r]
            case .began, .changed, .recognized:
                break
            }
        }
    }

    private mutating func log(
        _ g: Int, _ from: RecognizerStateName, _ input: RecognizerInputName, _ to: RecognizerStateName,
        _ reason: FailReason?, at time: Timestamp
    ) {
        guard transitionLog != nil else { return }
        guard from != to || input == .accepted || input == .rejected || logsSelfLoops else { return }
        transitionLog!.append(Transition(time: time, gesture: g, from: from, input: input, to: to, reason: to == .failed ? reason : nil))
    }
}
