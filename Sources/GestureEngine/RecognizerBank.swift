/// Something done to one recognizer whatever its type: the bank's single switch calls it on the
/// recognizer in place, in its typed array, so nothing is boxed or copied.
protocol RecognizerVisitor {
    associatedtype Result
    func visit<R: Recognizer>(_ r: inout R) -> Result
}

/// All recognizers of a configuration, one per compiled gesture, kept in arrays of their own
/// type. Index `g` is the compiled gesture `g`.
struct RecognizerBank {
    /// Per gesture: its kind, its place in its kind's array, and its status and deadline as of
    /// its last input or reset, in one entry (one bounds check a look, where four arrays took
    /// four). The engine asks for the status and deadline many times a frame (every member,
    /// around every delivery, for the arena and the next deadline), and a load from here costs
    /// less than a switch into the typed array each time.
    private struct Entry {
        var kind: GestureKind
        var slot: Int
        var status = RecognizerStatus.possible
        var deadline: Timestamp?
    }
    private var entries: [Entry] = []
    private var taps: [TapRecognizer] = []
    private var longPresses: [LongPressRecognizer] = []
    private var pans: [PanRecognizer] = []
    private var swipes: [SwipeRecognizer] = []
    private var pinches: [PinchRecognizer] = []
    private var edgeSwipes: [EdgeSwipeRecognizer] = []
    private var strokes: [StrokeRecognizer] = []
    /// A status or a deadline changed since the engine last cleared this (see `Engine.settle`).
    var moved = true

    /// `edges`: the panel's part of the screen, whose edges its edge swipes start from.
    init(_ config: CompiledConfiguration, edges: PixelRect) {
        for g in config.gestures {
            let s = g.spec
            switch s.kind {
            case .tap:
                entries.append(Entry(kind: s.kind, slot: taps.count))
                taps.append(TapRecognizer(fingers: s.minFingers, taps: max(1, s.tapCount), thresholds: s.thresholds))
            case .longPress:
                entries.append(Entry(kind: s.kind, slot: longPresses.count))
                longPresses.append(LongPressRecognizer(fingers: s.minFingers, thresholds: s.thresholds))
            case .pan:
                entries.append(Entry(kind: s.kind, slot: pans.count))
                pans.append(
                    PanRecognizer(
                        minFingers: s.minFingers, maxFingers: s.maxFingers, axis: s.axis, thresholds: s.thresholds))
            case .swipe:
                entries.append(Entry(kind: s.kind, slot: swipes.count))
                swipes.append(
                    SwipeRecognizer(
                        minFingers: s.minFingers, maxFingers: s.maxFingers, directionCount: s.directionCount, directions: s.directions,
                        thresholds: s.thresholds))
            case .pinch:
                entries.append(Entry(kind: s.kind, slot: pinches.count))
                pinches.append(
                    PinchRecognizer(minFingers: s.minFingers, maxFingers: s.maxFingers, thresholds: s.thresholds))
            case .edgeSwipe:
                entries.append(Entry(kind: s.kind, slot: edgeSwipes.count))
                edgeSwipes.append(
                    EdgeSwipeRecognizer(
                        fingers: s.minFingers, edges: s.edges, screen: edges, thresholds: s.thresholds))
            case .stroke:
                entries.append(Entry(kind: s.kind, slot: strokes.count))
                strokes.append(Self.strokeRecognizer(s, config))
            }
        }
    }

    var count: Int { entries.count }

    @inline(__always)
    private mutating func with<V: RecognizerVisitor>(_ g: Int, _ v: V) -> V.Result {
        let i = entries[g].slot
        switch entries[g].kind {
        case .tap: return v.visit(&taps[i])
        case .longPress: return v.visit(&longPresses[i])
        case .pan: return v.visit(&pans[i])
        case .swipe: return v.visit(&swipes[i])
        case .pinch: return v.visit(&pinches[i])
        case .edgeSwipe: return v.visit(&edgeSwipes[i])
        case .stroke: return v.visit(&strokes[i])
        }
    }

    /// Recognizer `g` takes `input` where it lies in its typed array, appending what it emits
    /// to `out`; returns whether it had failed before, and its status after.
    @inline(__always)
    mutating func handle(_ g: Int, _ input: RecognizerInput, _ s: inout FrameSummary, into out: inout [GestureEvent])
        -> (wasFailed: Bool, status: RecognizerStatus)
    {
        let entry = entries[g]
        let wasFailed = entry.status == .failed
        let i = entry.slot
        let after: (RecognizerStatus, Timestamp?)
        switch entry.kind {
        case .tap: after = Self.handle(&taps[i], input, &s, &out)
        case .longPress: after = Self.handle(&longPresses[i], input, &s, &out)
        case .pan: after = Self.handle(&pans[i], input, &s, &out)
        case .swipe: after = Self.handle(&swipes[i], input, &s, &out)
        case .pinch: after = Self.handle(&pinches[i], input, &s, &out)
        case .edgeSwipe: after = Self.handle(&edgeSwipes[i], input, &s, &out)
        case .stroke: after = Self.handle(&strokes[i], input, &s, &out)
        }
        if after.0 != entry.status || after.1 != entry.deadline {
            entries[g].status = after.0
            entries[g].deadline = after.1
            moved = true
        }
        return (wasFailed, after.0)
    }

    @inline(__always)
    private static func handle<R: Recognizer>(
        _ r: inout R, _ input: RecognizerInput, _ s: inout FrameSummary, _ out: inout [GestureEvent]
    ) -> (RecognizerStatus, Timestamp?) {
        r.handle(input, &s, into: &out)
        return (r.status, r.deadline)
    }

    /// Recognizer `g` back to idle, for a new round.
    mutating func reset(_ g: Int) {
        with(g, Reset())
        entries[g].status = .possible
        entries[g].deadline = nil
        moved = true
    }

    /// A look at recognizer `g` without changing it, read in place through a span of its array
    /// (`array[i]` would copy the whole recognizer, a pan with its velocity tracker ~700 bytes).
    func look(_ g: Int) -> Look.Seen { read(g, Look.All()) }

    /// The kept statuses and deadlines are what the recognizers themselves say (for `assert`).
    func keptMatchesRecognizers() -> Bool {
        entries.indices.allSatisfy { g in
            let seen = look(g)
            return seen.status == entries[g].status && seen.deadline == entries[g].deadline
        }
    }

    /// The status of recognizer `g`.
    func status(_ g: Int) -> RecognizerStatus { entries[g].status }

    /// The deadline of recognizer `g`.
    func deadline(_ g: Int) -> Timestamp? { entries[g].deadline }

    @inline(__always)
    private func read<L: Looker>(_ g: Int, _ l: L) -> L.Result {
        let i = entries[g].slot
        switch entries[g].kind {
        case .tap: return l.look(taps.span, i)
        case .longPress: return l.look(longPresses.span, i)
        case .pan: return l.look(pans.span, i)
        case .swipe: return l.look(swipes.span, i)
        case .pinch: return l.look(pinches.span, i)
        case .edgeSwipe: return l.look(edgeSwipes.span, i)
        case .stroke: return l.look(strokes.span, i)
        }
    }

    /// The transition table of a kind's recognizer.
    static func transitions(of kind: GestureKind) -> [TransitionRow] {
        switch kind {
        case .tap: return TapRecognizer.transitions
        case .longPress: return LongPressRecognizer.transitions
        case .pan: return PanRecognizer.transitions
        case .swipe: return SwipeRecognizer.transitions
        case .pinch: return PinchRecognizer.transitions
        case .edgeSwipe: return EdgeSwipeRecognizer.transitions
        case .stroke: return StrokeRecognizer.transitions
        }
    }

    /// A stroke's recognizer. It matches every template (a drawing is the shape it is most like),
    /// and takes the shapes it names (all when it names none).
    private static func strokeRecognizer(_ s: GestureSpec, _ config: CompiledConfiguration) -> StrokeRecognizer {
        let templates = config.strokeTemplates
        let shapeOfTemplate = templates.map { t in config.shapeNames.firstIndex(of: t.name) ?? 0 }
        let takes = config.shapeNames.map { s.shapes.isEmpty || s.shapes.contains($0) }
        return StrokeRecognizer(
            minFingers: s.minFingers, maxFingers: s.maxFingers,
            matcher: StrokeMatcher(templates: templates, tolerance: s.thresholds.strokeRotationTolerance),
            shapeOfTemplate: shapeOfTemplate, takes: takes, thresholds: s.thresholds)
    }
}

struct Reset: RecognizerVisitor {
    func visit<R: Recognizer>(_ r: inout R) { r.reset() }
}

/// What the engine sees of a recognizer for its transition log.
protocol Looker {
    associatedtype Result
    func look<R: Recognizer>(_ rs: borrowing Span<R>, _ i: Int) -> Result
}

enum Look {
    struct Seen {
        var stateName: RecognizerStateName
        var status: RecognizerStatus
        var deadline: Timestamp?
        var failure: FailReason?
    }
    struct All: Looker {
        func look<R: Recognizer>(_ rs: borrowing Span<R>, _ i: Int) -> Seen {
            Seen(stateName: rs[i].stateName, status: rs[i].status, deadline: rs[i].deadline, failure: rs[i].failure)
        }
    }
}
