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

    /// While deciding: when it started, the shape so far, how far the centroid travelled (px)
    /// and how much the fingers' span changed (mm), over the same contacts frame to frame.
    struct Tracking {
        var startAt: Timestamp
        var shape: Shape
        var translation: PixelPoint
        var spanChange: Double
    }

    var state = ContinuousLifecycle<Tracking, Shape>.idle

    init(minFingers: Int, maxFingers: Int, thresholds: Thresholds) {
        self.minFingers = max(2, minFingers)
        self.maxFingers = max(self.minFingers, maxFingers)
        self.thresholds = thresholds
    }

    static let transitions: [TransitionRow] =
        TransitionRows.tracking + [
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

    func follow(_ shape: Shape, _ s: borrowing FrameSummary) -> Shape {
        var next = shape
        next.scale *= s.spreadRatio
        next.rotation += s.rotationDelta
        next.position = s.centroid
        next.fingers = max(next.fingers, s.count)
        return next
    }

    func begin(_ s: borrowing FrameSummary) -> ContinuousLifecycle<Tracking, Shape> {
        .tracking(Tracking(startAt: s.time, shape: follow(Shape(), s), translation: .zero, spanChange: 0))
    }

    func track(_ k0: Tracking, _ s: borrowing FrameSummary) -> ContinuousLifecycle<Tracking, Shape> {
        var k = k0
        k.shape = follow(k.shape, s)
        k.translation += s.delta
        k.spanChange += s.spanDelta.value
        if s.count == 0 { return .failed(.liftedTooSoon) }
        if s.count > maxFingers { return .failed(.tooManyFingers) }
        if s.count < minFingers {
            return s.time >= k.startAt.after(thresholds.ns.fingerSettle) ? .failed(.tooFewFingers) : .tracking(k)
        }
        // The slop is on the fingers' mean distance from their centroid (half the span). A pinch
        // also needs the span to change more than the centroid travels: fingers moving together
        // with some spread are a pan's (`PanRecognizer.track` holds the same line).
        let span = abs(k.spanChange)
        let travelled = s.scale.length(k.translation).value
        let spread = span / 2 >= thresholds.pinchSlop.value && span > travelled
        let turned = abs(k.shape.rotation) * Self.degreesPerRadian
        if spread || turned >= thresholds.rotationSlop { return .ready(k.shape) }
        return .tracking(k)
    }

    func deadlinePassed(_ k: Tracking) -> ContinuousLifecycle<Tracking, Shape> { .failed(.tooFewFingers) }
    func lifted(_ s: borrowing FrameSummary) -> Bool { s.count < minFingers }
    func ends(_ s: borrowing FrameSummary) -> Bool { s.count < minFingers }
    func changes(_ s: borrowing FrameSummary) -> Bool {
        let (spread, rotation, delta) = (s.spreadRatio, s.rotationDelta, s.delta)  // (`||` would capture `s`)
        return spread != 1 || rotation != 0 || delta != .zero
    }
}
