/// Two or more fingers spreading, closing or turning. Begins once their span has changed by
/// `pinchSlop` or they have turned `rotationSlop`; reports scale (since they landed), rotation
/// (degrees, clockwise positive) and centre.
struct PinchRecognizer: ContinuousRecognizer {
    let minFingers: Int
    let maxFingers: Int
    let thresholds: Thresholds

    struct Shape {
        var scale: Double = 1
        var rotation: Double = 0  // radians
        var fingers: Int = 0
        var position: PixelPoint = .zero
    }

    /// While deciding: when it started, and the shape so far.
    struct Tracking {
        var startAt: Timestamp
        var shape: Shape
    }

    var state = ContinuousLifecycle<Tracking, Shape>.idle

    init(minFingers: Int, maxFingers: Int, thresholds: Thresholds) {
        self.minFingers = max(2, minFingers)
        self.maxFingers = max(self.minFingers, maxFingers)
        self.thresholds = thresholds
    }

    static let transitions: [TransitionRow] =
        [
            (.idle, .contactBegan, .tracking), (.idle, .contactBegan, .failed),
            (.tracking, .contactBegan, .tracking), (.tracking, .contactBegan, .failed),
            (.tracking, .contactBegan, .ready),
            (.tracking, .contactMoved, .tracking), (.tracking, .contactReplaced, .tracking), (.tracking, .contactMoved, .ready),
            (.tracking, .contactMoved, .failed),
            (.tracking, .contactEnded, .tracking), (.tracking, .contactEnded, .ready),
            (.tracking, .contactEnded, .failed),
            (.tracking, .deadline, .failed),
        ] + ContinuousLifecycle<Tracking, Shape>.sharedTransitions(tracking: .tracking)


    var deadline: Timestamp? {
        if case .tracking(let k) = state, k.shape.fingers < minFingers { return k.startAt.after(thresholds.ns.fingerSettle) }
        return nil
    }

    mutating func reset() { state = .idle }

    private static let degreesPerRadian = 57.295_779_513_082_32

    func event(_ phase: GesturePhase, _ time: Timestamp, _ shape: Shape, _: Timestamp?) -> GestureEvent {
        var e = GestureEvent(kind: .pinch, phase: phase, time: time, position: shape.position)
        e.fingers = shape.fingers
        e.scale = shape.scale
        e.rotation = shape.rotation * Self.degreesPerRadian
        return e
    }

    func follow(_ shape: Shape, _ s: FrameSummary.Ref) -> Shape {
        var next = shape
        next.scale *= s.spreadRatio
        next.rotation += s.rotationDelta
        next.position = s.centroid
        next.fingers = max(next.fingers, s.count)
        return next
    }

    func begin(_ s: FrameSummary.Ref) -> ContinuousLifecycle<Tracking, Shape> {
        .tracking(Tracking(startAt: s.time, shape: follow(Shape(), s)))
    }

    func track(_ k0: Tracking, _ s: FrameSummary.Ref) -> ContinuousLifecycle<Tracking, Shape> {
        var k = k0
        k.shape = follow(k.shape, s)
        if s.count == 0 { return .failed(.liftedTooSoon) }
        if s.count > maxFingers { return .failed(.tooManyFingers) }
        if s.count < minFingers {
            return s.time >= k.startAt.after(thresholds.ns.fingerSettle) ? .failed(.tooFewFingers) : .tracking(k)
        }
        let spanChange = s.spread.value * abs(1 - 1 / k.shape.scale)
        let turned = abs(k.shape.rotation) * Self.degreesPerRadian
        if spanChange >= thresholds.pinchSlop.value || turned >= thresholds.rotationSlop { return .ready(k.shape) }
        return .tracking(k)
    }

    func deadlinePassed(_ k: Tracking) -> ContinuousLifecycle<Tracking, Shape> { .failed(.tooFewFingers) }
    func lifted(_ s: FrameSummary.Ref) -> Bool { s.count < minFingers }
    func ends(_ s: FrameSummary.Ref) -> Bool { s.count < minFingers }
    func changes(_ s: FrameSummary.Ref) -> Bool { s.spreadRatio != 1 || s.rotationDelta != 0 || s.delta != .zero }
}
