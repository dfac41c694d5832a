/// A quick flick of `minFingers...maxFingers` fingers (reported: the most down at once). Discrete: recognized at the lift when the centroid
/// travelled `swipeMinDistance` and left the glass at `swipeMinVelocity` or faster, within
/// `swipeMaxDuration` of touching down.
struct SwipeRecognizer: DiscreteRecognizer {
    let minFingers: Int
    let maxFingers: Int
    let directionCount: Int
    /// Accepted directions as a bit set over `SwipeDirection.allCases` (a value: no heap).
    let allowed: UInt8
    let thresholds: Thresholds

    /// While deciding: when the first finger landed, how far the centroid went, the most fingers down.
    struct Track {
        var startAt: Timestamp
        var translation: PixelPoint
        var mostFingers: Int
    }

    /// Ready: what the recognized line reports.
    struct Flick {
        var direction: SwipeDirection
        var speed: Double
        var position: PixelPoint
        var fingers: Int
    }

    typealias Tracking = Track
    typealias Ready = Flick
    var state = DiscreteLifecycle<Track, Flick>.idle
    private var tracker: VelocityTracker

    init(minFingers: Int, maxFingers: Int, directionCount: Int, directions: Set<SwipeDirection>, thresholds: Thresholds) {
        self.minFingers = minFingers
        self.maxFingers = max(minFingers, maxFingers)
        self.directionCount = directionCount == 8 ? 8 : 4
        var mask: UInt8 = 0
        for d in SwipeDirection.allCases where directions.isEmpty || directions.contains(d) { mask |= 1 << d.sector }
        allowed = mask
        self.thresholds = thresholds
        tracker = VelocityTracker(horizon: thresholds.velocityHorizon)
    }

    static let transitions: [TransitionRow] =
        [
            (.idle, .contactBegan, .tracking), (.idle, .contactBegan, .failed),
            (.tracking, .contactBegan, .tracking), (.tracking, .contactBegan, .failed),
            (.tracking, .contactMoved, .tracking), (.tracking, .contactReplaced, .tracking), (.tracking, .contactEnded, .tracking),
            (.tracking, .contactEnded, .ready), (.tracking, .contactEnded, .failed),
            (.tracking, .deadline, .failed),
        ] + DiscreteLifecycle<Track, Flick>.sharedTransitions(tracking: [.tracking])

    func trackingName(_ k: Track) -> RecognizerStateName { .tracking }

    var deadline: Timestamp? {
        if case .tracking(let t) = state { return t.startAt.after(thresholds.ns.swipeMax) }
        return nil
    }

    mutating func reset() {
        state = .idle
        tracker.reset()
    }

    /// The direction of a displacement, quantized to 4 or 8 sectors (y grows downward).
    static func direction(of t: PixelPoint, sectors: Int) -> SwipeDirection {
        let pi = 3.141_592_653_589_793
        let angle = arcTangent2(t.y, t.x)  // -pi...pi, 0 = right, pi/2 = down
        let sector = 2 * pi / Double(sectors)
        let k = Int((angle / sector).rounded())
        let index = ((k % sectors) + sectors) % sectors
        return SwipeDirection(sector: index * (8 / sectors))
    }

    func event(_ f: Flick, _ time: Timestamp) -> GestureEvent {
        var e = GestureEvent(kind: .swipe, phase: .recognized, time: time, position: f.position)
        e.fingers = f.fingers
        e.direction = f.direction
        e.speed = f.speed
        return e
    }

    mutating func begin(_ s: borrowing FrameSummary) -> DiscreteLifecycle<Track, Flick> {
        tracker.reset()
        tracker.add(s.time, .zero)
        return .tracking(Track(startAt: s.time, translation: .zero, mostFingers: s.count))
    }

    @inline(__always)  // (a call would copy the borrowed summary, ~160 bytes)
    mutating func track(_ k: Track, _ s: borrowing FrameSummary) -> DiscreteLifecycle<Track, Flick> {
        var track = k
        track.translation = track.translation + s.delta
        tracker.sample(s.time, fingers: s.count, onlyHeld: s.onlyHeld, track.translation)
        if s.count > maxFingers { return .failed(.tooManyFingers) }
        if s.count == 0 { return release(track.translation, mostFingers: track.mostFingers, at: s) }
        track.mostFingers = max(track.mostFingers, s.count)
        return .tracking(track)
    }

    func deadlinePassed(_ k: Track) -> DiscreteLifecycle<Track, Flick> { .failed(.tooSlow) }

    @inline(__always)  // (as `track`)
    private mutating func release(_ t: PixelPoint, mostFingers: Int, at s: borrowing FrameSummary) -> DiscreteLifecycle<Track, Flick> {
        guard mostFingers >= minFingers else { return .failed(.tooFewFingers) }
        // No travel has no direction: never a swipe, even with `swipe_min_distance = 0`.
        guard t != .zero, s.scale.length(t) >= thresholds.swipeMinDistance else { return .failed(.tooShort) }
        let v = tracker.velocity(at: tracker.releaseTime(s.time))
        guard s.scale.length(v).value >= thresholds.swipeMinVelocity else { return .failed(.tooSlow) }
        let d = Self.direction(of: t, sectors: directionCount)
        guard allowed & (1 << d.sector) != 0 else { return .failed(.wrongDirection) }
        return .ready(Flick(direction: d, speed: v.length, position: s.centroid, fingers: mostFingers))
    }

}

extension SwipeDirection {
    /// The direction's place in `allCases` (0 right, clockwise in steps of 45°), the bit of
    /// `SwipeRecognizer.allowed`: a switch, where an array of the cases is a global to look up.
    var sector: UInt8 {
        switch self {
        case .right: 0
        case .downRight: 1
        case .down: 2
        case .downLeft: 3
        case .left: 4
        case .upLeft: 5
        case .up: 6
        case .upRight: 7
        }
    }

    /// The direction at place `k` (0...7) of `allCases`.
    init(sector k: Int) {
        switch k & 7 {
        case 0: self = .right
        case 1: self = .downRight
        case 2: self = .down
        case 3: self = .downLeft
        case 4: self = .left
        case 5: self = .upLeft
        case 6: self = .up
        default: self = .upRight
        }
    }
}
