/// A shape drawn by `minFingers...maxFingers` fingers (their centroid's path), matched at the last
/// lift against the templates it accepts (`StrokeMatcher`). Discrete: recognized with the best
/// template's shape and score when the path is at least `strokeMinSize` across, more like that
/// shape than like a straight line or a plain arc, and scores `strokeMinScore` or more; failed at
/// `strokeMaxDuration` after the first finger landed, and `fingerSettle` after it when fewer than
/// `minFingers` came down or they moved a pan's slop (so a one-finger pan never waits for a
/// two-finger shape, which outranks it by its fingers).
struct StrokeRecognizer: DiscreteRecognizer {
    let minFingers: Int
    let maxFingers: Int
    let thresholds: Thresholds
    let matcher: StrokeMatcher
    /// Per template of the matcher: its shape's place in `CompiledConfiguration.shapeNames`.
    let shapeOfTemplate: [Int]
    /// Per shape: whether this stroke takes it (`shapes`). Every template is matched, so a
    /// drawing more like a shape it does not take fails rather than passing for one it does.
    let takes: [Bool]

    /// While deciding: when the first finger landed, the most fingers down.
    struct Track {
        var startAt: Timestamp
        var mostFingers: Int
    }

    /// Ready: what the recognized line reports.
    struct Found {
        var shape: Int
        var score: Double
        var clockwise: Bool
        var position: PixelPoint
        var fingers: Int
    }

    typealias Tracking = Track
    typealias Ready = Found
    var state = DiscreteLifecycle<Track, Found>.idle

    /// The path drawn so far.
    private var path = StrokePath()
    /// The normalized path at the lift, in storage kept too.
    private var vector: [Double] = []

    init(minFingers: Int, maxFingers: Int, matcher: StrokeMatcher, shapeOfTemplate: [Int], takes: [Bool], thresholds: Thresholds) {
        self.takes = takes
        self.minFingers = minFingers
        self.maxFingers = max(minFingers, maxFingers)
        self.matcher = matcher
        self.shapeOfTemplate = shapeOfTemplate
        self.thresholds = thresholds
        vector.reserveCapacity(StrokeShape.vectorLength)
    }

    static let transitions: [TransitionRow] =
        [
            (.idle, .contactBegan, .tracking), (.idle, .contactBegan, .failed),
            (.tracking, .contactBegan, .tracking), (.tracking, .contactBegan, .failed),
            (.tracking, .contactMoved, .tracking), (.tracking, .contactReplaced, .tracking), (.tracking, .contactEnded, .tracking),
            (.tracking, .contactMoved, .failed), (.tracking, .contactReplaced, .failed),
            (.tracking, .contactEnded, .ready), (.tracking, .contactEnded, .failed),
            (.tracking, .deadline, .failed),
        ] + DiscreteLifecycle<Track, Found>.sharedTransitions(tracking: [.tracking])

    func trackingName(_ k: Track) -> RecognizerStateName { .tracking }

    var deadline: Timestamp? {
        guard case .tracking(let t) = state else { return nil }
        return t.startAt.after(t.mostFingers < minFingers ? min(thresholds.ns.fingerSettle, thresholds.ns.strokeMax) : thresholds.ns.strokeMax)
    }

    mutating func reset() {
        state = .idle
    }

    func event(_ f: Found, _ time: Timestamp) -> GestureEvent {
        var e = GestureEvent(kind: .stroke, phase: .recognized, time: time, position: f.position)
        e.fingers = f.fingers
        e.shape = f.shape
        e.score = f.score
        e.clockwise = f.clockwise
        return e
    }

    mutating func begin(_ s: borrowing FrameSummary) -> DiscreteLifecycle<Track, Found> {
        path.begin()
        return .tracking(Track(startAt: s.time, mostFingers: s.count))
    }

    mutating func track(_ k: Track, _ s: borrowing FrameSummary) -> DiscreteLifecycle<Track, Found> {
        var track = k
        path.move(s.delta, scale: s.scale)
        if s.count > maxFingers { return .failed(.tooManyFingers) }
        if s.count == 0 { return release(mostFingers: track.mostFingers, at: s) }
        track.mostFingers = max(track.mostFingers, s.count)
        // Too few fingers once the others had time to land, or once the fingers down moved as
        // far as a pan's slop (a shape is drawn with all its fingers down: a pan with fewer
        // fingers never waits for it).
        if track.mostFingers < minFingers {
            let settled = track.startAt.after(thresholds.ns.fingerSettle)
            if s.time >= settled { return .failed(.tooFewFingers) }
            if s.maxTravel >= thresholds.panSlop { return .failed(.tooFewFingers) }
        }
        return .tracking(track)
    }

    func deadlinePassed(_ k: Track) -> DiscreteLifecycle<Track, Found> {
        .failed(k.mostFingers < minFingers ? .tooFewFingers : .tooSlow)
    }

    private mutating func release(mostFingers: Int, at s: borrowing FrameSummary) -> DiscreteLifecycle<Track, Found> {
        guard mostFingers >= minFingers else { return .failed(.tooFewFingers) }
        path.finish()
        guard path.size >= thresholds.strokeMinSize.value else { return .failed(.tooSmall) }
        // The vector's storage worked on as a local (swapped out and back: not copied).
        var v: [Double] = []
        swap(&v, &vector)
        defer { swap(&v, &vector) }
        guard StrokeShape.normalize(path.points.span, into: &v) else { return .failed(.noShape) }
        guard let m = matcher.match(v.span), m.isShape(minScore: thresholds.strokeMinScore) else { return .failed(.noShape) }
        let shape = shapeOfTemplate[m.template]
        guard takes[shape] else { return .failed(.noShape) }
        return .ready(Found(shape: shape, score: m.score, clockwise: m.clockwise, position: s.centroid, fingers: mostFingers))
    }
}
