/// The engine's hands: an input to one recognizer, the arena's decisions carried out, claims
/// taken, what a recognizer emits stamped with its instance, sequence and drag offset, and
/// which summaries the next frame must give the fingers' shape; deadlines fired.
extension Engine {
    /// A new engine for the same panel (a reload that changed its geometry or filters) goes on
    /// numbering gestures and sequences from `old`'s: ids and sequence numbers only grow.
    public mutating func continueNumbering(from old: borrowing Engine) {
        nextID = max(nextID, old.nextID)
        sequences.continueNumbering(from: old.sequences)
    }

    /// The number of region `r`'s current (or last) sequence, as its gestures' events carry it
    /// (`GestureEvent.sequence`); 0 before its first.
    public func sequence(ofRegion r: Int) -> Int { r >= 0 && r < sequences.sequenceID.count ? sequences.sequenceID[r] : 0 }

    /// A new engine taking over a panel (a reload's new geometry or filters): `ids`, the contacts
    /// the gestures saw down before it, are passed over until they lift (in no region: no
    /// gesture sees them), rather than taken for new landings (a finger held across a reload that
    /// could wait no longer: a second long press, a tap at its lift). Other fingers' gestures,
    /// and contacts the filters had not shown yet, go on as any.
    public mutating func passOver(_ ids: [UInt32]) { sequences.passedOver = ids }

    func isLive(_ g: Int) -> Bool {
        guard arena.contains(g) else { return false }
        switch arena.decision(g) {
        case .undecided: return true
        case .accepted: return bank.status(g) == .active
        case .rejected: return false
        }
    }

    /// A frame to gesture `g`: its view's summary, lent in place.
    mutating func show(_ s: inout FrameSummary, to g: Int, into out: inout [GestureEvent]) {
        deliver(.contact(ContactChange(s)), &s, to: g, into: &out)
    }

    /// `input` to gesture `g`; `s` is the frame's summary for a `.contact` input (`noFrame` else).
    mutating func deliver(_ input: RecognizerInput, _ s: inout FrameSummary, to g: Int, into out: inout [GestureEvent]) {
        let before = transitionLog == nil ? nil : bank.look(g).stateName
        let first = out.count
        let (wasFailed, status) = bank.handle(g, input, &s, into: &out)
        if let before {
            let after = bank.look(g)
            log(g, before, input.name, after.stateName, after.failure, at: input.time(s))
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
    mutating func resolve(at time: Timestamp, into out: inout [GestureEvent]) {
        // Nothing changed since the last pass, which fired everything it could.
        guard bank.moved || arena.moved else { return }
        if arena.spares > 0 { rejectLapsedSpares(at: time, into: &out) }
        var changed = true
        while changed {
            changed = false
            var from = 0
            // Only the nesting and the landings are lent (not the ~400-byte table).
            while let (g, next) = arena.fireNext(
                from: from, at: time, bank: bank, policy: configuration.policy, tree: sequences.tree, lastLanded: sequences.lastLanded,
                losers: &losers)
            {
                from = next
                changed = true
                // The gesture taken over ends (cancelled) before the one taking over begins.
                if arena.spares > 0, case let x = arena.takenOver(by: g, bank), x >= 0 { reject(x, at: time, because: .lostTo(g), into: &out) }
                let before = transitionLog == nil ? nil : bank.look(g).stateName
                instance[g] = nextID
                nextID += 1
                let first = out.count
                _ = bank.handle(g, .accepted(time), &noFrame, into: &out)
                if let before { log(g, before, .accepted, bank.look(g).stateName, nil, at: time) }
                if out.count > first { stamp(from: first, g, &out) }
                for o in losers {
                    // A loser that may take the winner over once its fingers land waits for them.
                    if configuration.policy.takesOver(o, g),
                        arena.spare(o, by: g, fingers: sequences.presentBeforeLandings(arena.region(of: o), at: time), configuration.policy)
                    {
                        continue
                    }
                    reject(o, at: time, because: .lostTo(g), into: &out)
                }
                losers.removeAll()
            }
        }
    }

    /// A gesture spared for a takeover that did not come in time, or whose winner is over, loses,
    /// as it would have. (Out of line: `resolve` runs every frame, this only while one is spared.)
    @inline(never)
    mutating func rejectLapsedSpares(at time: Timestamp, into out: inout [GestureEvent]) {
        var k = 0
        while arena.spares > 0 && k < arena.members.count {
            if let (g, x) = arena.lapsedSpare(at: k, time, configuration.policy, bank) { reject(g, at: time, because: .lostTo(x), into: &out) }
            k += 1
        }
    }

    mutating func reject(_ g: Int, at time: Timestamp, because reason: FailReason, into out: inout [GestureEvent]) {
        let before = transitionLog == nil ? nil : bank.look(g).stateName
        let first = out.count
        _ = bank.handle(g, .rejected(time, reason), &noFrame, into: &out)
        if let before { log(g, before, .rejected, bank.look(g).stateName, reason, at: time) }
        if out.count > first { stamp(from: first, g, &out) }
        if case .invalidInput = reason { invalidInputs += 1 }
        // An accepted gesture cancelled later (a palm, lost events) was decided already.
        if arena.isUndecided(g) {
            arena.decide(g, .rejected)
            arenaViolations = arena.violations
        }
    }

    /// Which summaries the next frame must give the fingers' shape: only a pinch that is not
    /// over, and a pan still deciding (pan or pinch, by the span), read it. A recognizer reset
    /// for a new sequence reads it at once, but its first frame has no finger common to the
    /// last, where the shape is "no change" whether worked out or not.
    mutating func noteShapeReaders() {
        for r in sequences.shapeRegions.indices { sequences.shapeRegions[r] = false }
        for reader in sequences.shapeReaders {
            let status = bank.status(reader.gesture)
            let reads = reader.pinch ? status != .failed && status != .finished : status == .possible
            sequences.shapeGestures[reader.gesture] = reads
            if reads { sequences.shapeRegions[reader.region] = true }
        }
    }

    // MARK: - Claims

    /// A running gesture claims its fingers: one of a fixed count (a long press, an edge swipe,
    /// `fingers = N`) when it begins, one of a range (pan, pinch) once it has its most
    /// (`max_fingers`). From then on it follows only those, so a finger that lands later for
    /// something else never moves its centroid, its finger count or its end. Kept to the end
    /// of its round.
    mutating func claimContacts() {
        for g in arena.members where arena.decision(g) == .accepted && !sequences.hasClaim(g) && bank.status(g) == .active {
            let r = regionOf[g]
            let spec = configuration.gestures[g].spec
            let most = spec.maxFingers
            guard spec.minFingers == most || sequences.fingers(in: r) >= most else { continue }
            sequences.claim(g, in: r, most: most)
        }
    }

    mutating func releaseClaim(_ g: Int) { sequences.releaseClaim(g) }

    // MARK: - Output

    /// Stamps what recognizer `g` just appended to `out` (from index `first`); a pan's events
    /// in a dragged region get its offset, and in a chained one the enclosing regions' lines
    /// (`DragRests.applyChain`), appended after `end`.
    mutating func stamp(from first: Int, _ g: Int, _ out: inout [GestureEvent]) {
        let (id, sequence, region) = (instance[g], sequenceOf[g], regionOf[g])
        let dragged = drags.isDragged(region)
        var i = first
        let end = out.count
        while i < end {
            // One access to the element (one uniqueness check of `out`), not one per field.
            Self.stamp(&out[i], id: id, gesture: g, generation: configurationGeneration, sequence: sequence)
            if dragged { drag(&out, at: i, region: region) }
            i += 1
        }
    }

    /// Event `out[i]` of dragged region `region`: its offset, or its chain's step and lines.
    /// Apart from `stamp`, whose loop every event of every gesture runs.
    private mutating func drag(_ out: inout [GestureEvent], at i: Int, region: Int) {
        if drags.isChained(region) && out[i].kind == .pan {
            drags.applyChain(&out, at: i, region: region, configuration, sequences: sequenceOf, ids: &nextID)
        } else {
            drags.apply(to: &out[i], region: region, configuration)
        }
    }

    @inline(__always)
    private static func stamp(_ e: inout GestureEvent, id: UInt64, gesture: Int, generation: Int, sequence: Int) {
        (e.id, e.gesture, e.generation, e.sequence) = (id, gesture, generation, sequence)
    }

    mutating func log(
        _ g: Int, _ from: RecognizerStateName, _ input: RecognizerInputName, _ to: RecognizerStateName,
        _ reason: FailReason?, at time: Timestamp
    ) {
        guard transitionLog != nil else { return }
        guard from != to || input == .accepted || input == .rejected || logsSelfLoops else { return }
        var t = Transition(time: time, gesture: g, from: from, input: input, to: to, reason: to == .failed ? reason : nil)
        t.sequence = sequenceOf[g]
        transitionLog!.append(t)
    }

    /// `advance`'s work, when a deadline is due: each fired at its own time, in order.
    @inline(never)
    mutating func fireDeadlines(upTo time: Timestamp, into out: inout [GestureEvent]) {
        var guardLoops = 0
        while let d = nextDeadline, d <= time, guardLoops < 10_000 {
            guardLoops += 1
            now = max(now, d)
            for g in arena.members where isLive(g) {
                guard let gd = bank.deadline(g), gd <= d else { continue }
                var none = FrameSummary(time: d)  // (`deliver` changes `self`: not `noFrame`)
                deliver(.deadline(d), &none, to: g, into: &out)
                // A recognizer must move past its deadline; one that does not is failed, not looped on.
                if let again = bank.deadline(g), again <= d {
                    reject(g, at: d, because: .invalidInput(state: bank.look(g).stateName, input: .deadline), into: &out)
                }
            }
            resolve(at: d, into: &out)
            if arena.moved { claimContacts() }
            finish()
            settle()
        }
    }
}
