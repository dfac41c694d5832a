/// A drag of `minFingers...maxFingers` fingers, optionally locked to one axis. Begins once the
/// centroid has moved `panSlop`; reports translation (px, since the fingers landed),
/// least-squares velocity (px/s), and as `fingers` the most fingers down at once since it began.
struct PanRecognizer: ContinuousRecognizer {
    let minFingers: Int
    let maxFingers: Int
    let axis: PanAxis
    let thresholds: Thresholds

    /// While deciding: when it started, how far the centroid moved, how many fingers are down now,
    /// and whether the axis lock has been decided (in this pan's favour; against it the pan fails).
    struct Tracking {
        var startAt: Timestamp
        var translation: PixelPoint
        var fingers: Int
        var lock: AxisLock
        /// How much the fingers' span changed while deciding (mm; see `FrameSummary.spanDelta`).
        var spanChange: Double
    }

    /// The axis lock is a decision taken once per sequence, as SwiftUI's and UIScrollView's
    /// directional lock are: when the centroid has first travelled `axisLockThreshold`, the axis
    /// with the larger movement wins. From then on the winner keeps the drag whatever the finger
    /// does (its movement on the other axis is reported as 0) and the loser fails. A free pan has
    /// nothing to decide and starts `won`.
    enum AxisLock {
        case undecided
        case won
        case lost
    }

    /// Once past the slop: translation, the most fingers so far, the centroid.
    struct Drag {
        var translation: PixelPoint
        var fingers: Int
        var position: PixelPoint
    }

    typealias Shape = Drag
    var state = ContinuousLifecycle<Tracking, Drag>.idle
    private var tracker: VelocityTracker

    init(minFingers: Int, maxFingers: Int, axis: PanAxis, thresholds: Thresholds) {
        self.minFingers = minFingers
        self.maxFingers = maxFingers
        self.axis = axis
        self.thresholds = thresholds
        tracker = VelocityTracker(horizon: thresholds.velocityHorizon)
    }

    static let transitions: [TransitionRow] =
        [
            (.idle, .contactBegan, .tracking), (.idle, .contactBegan, .failed),
            (.tracking, .contactBegan, .tracking), (.tracking, .contactBegan, .ready),
            (.tracking, .contactBegan, .failed), (.tracking, .contactMoved, .tracking), (.tracking, .contactReplaced, .tracking),
            (.tracking, .contactMoved, .ready), (.tracking, .contactMoved, .failed),
            (.tracking, .contactEnded, .tracking), (.tracking, .contactEnded, .ready),
            (.tracking, .contactEnded, .failed), (.tracking, .deadline, .failed),
        ] + ContinuousLifecycle<Tracking, Drag>.sharedTransitions(tracking: .tracking)


    var deadline: Timestamp? {
        if case .tracking(let t) = state, t.fingers < minFingers { return t.startAt.after(thresholds.ns.fingerSettle) }
        return nil
    }

    mutating func reset() {
        state = .idle
        tracker.reset()
    }

    /// Translation or velocity with the locked axis zeroed.
    private func project(_ v: PixelPoint) -> PixelPoint {
        switch axis {
        case .free: return v
        case .horizontal: return PixelPoint(x: v.x, y: 0)
        case .vertical: return PixelPoint(x: 0, y: v.y)
        }
    }

    /// Velocity is taken at the lift when the arena let the pan go only after it.
    /// (For accept and reject, which take it as a closure; frames use the one below.)
    func event(_ phase: GesturePhase, _ time: Timestamp, _ d: Drag, _ liftedAt: Timestamp?) -> GestureEvent {
        var tracker = tracker
        return event(phase, time, d, velocity: tracker.velocity(at: tracker.releaseTime(liftedAt ?? time)))
    }

    /// The velocity is read where it lies (`mutating`): from a non-mutating method the 512-byte
    /// tracker would be copied first, on every frame of a pan.
    mutating func frameEvent(_ phase: GesturePhase, _ time: Timestamp, _ d: Drag) -> GestureEvent {
        event(phase, time, d, velocity: tracker.velocity(at: tracker.releaseTime(time)))
    }

    private func event(_ phase: GesturePhase, _ time: Timestamp, _ d: Drag, velocity: PixelPoint) -> GestureEvent {
        var e = GestureEvent(kind: .pan, phase: phase, time: time, position: d.position)
        e.fingers = d.fingers
        e.translation = project(d.translation)
        e.velocity = project(velocity)
        e.axis = axis
        return e
    }

    /// The lock for a movement `t` since touch-down, taken once: undecided until the centroid
    /// has travelled the threshold, then won when this pan's axis dominates (a tie goes to the
    /// pan), lost otherwise. Never looked at again once decided.
    private func decideLock(_ t: PixelPoint, _ scale: MillimetersPerPixel) -> AxisLock {
        guard scale.length(t) >= thresholds.axisLockThreshold else { return .undecided }
        let h = abs(scale.horizontal(t).value), v = abs(scale.vertical(t).value)
        return (axis == .horizontal ? h >= v : v >= h) ? .won : .lost
    }

    /// Movement along the pan's own axis (or in any direction when free).
    private func travel(_ t: PixelPoint, _ scale: MillimetersPerPixel) -> Millimeters {
        switch axis {
        case .free: return scale.length(t)
        case .horizontal: return Millimeters(abs(scale.horizontal(t).value))
        case .vertical: return Millimeters(abs(scale.vertical(t).value))
        }
    }

    mutating func begin(_ s: borrowing FrameSummary) -> ContinuousLifecycle<Tracking, Drag> {
        tracker.reset()
        tracker.add(s.time, .zero)
        return .tracking(
            Tracking(startAt: s.time, translation: .zero, fingers: s.count, lock: axis == .free ? .won : .undecided, spanChange: 0))
    }

    mutating func track(_ k0: Tracking, _ s: borrowing FrameSummary) -> ContinuousLifecycle<Tracking, Drag> {
        var k = k0
        k.translation += s.delta
        k.spanChange += s.spanDelta.value
        k.fingers = s.count
        tracker.sample(s.time, fingers: s.count, onlyHeld: s.onlyHeld, k.translation)
        if k.lock == .undecided { k.lock = decideLock(k.translation, s.scale) }
        if s.count == 0 { return .failed(.liftedTooSoon) }
        if s.count > maxFingers { return .failed(.tooManyFingers) }
        if k.lock == .lost { return .failed(.wrongAxis) }
        if s.count < minFingers {
            return s.time >= k.startAt.after(thresholds.ns.fingerSettle) ? .failed(.tooFewFingers) : .tracking(k)
        }
        // Several fingers pan when they move together: not while their span changes more than
        // they travel (a zoom with one finger anchored moves the centroid half as far as the
        // fingers' distance changes; that is a pinch's).
        let travelled = travel(k.translation, s.scale)
        let count = s.count
        if k.lock == .won && travelled >= thresholds.panSlop && (count < 2 || travelled.value >= abs(k.spanChange)) {
            return .ready(Drag(translation: k.translation, fingers: s.count, position: s.centroid))
        }
        return .tracking(k)
    }

    func deadlinePassed(_ k: Tracking) -> ContinuousLifecycle<Tracking, Drag> { .failed(.tooFewFingers) }

    @inline(__always)  // (a call copied the borrowed summary, ~180 bytes)
    mutating func follow(_ d0: Drag, _ s: borrowing FrameSummary) -> Drag {
        var d = d0
        d.translation += s.delta
        d.position = s.centroid
        d.fingers = max(d.fingers, s.count)
        tracker.sample(s.time, fingers: s.count, onlyHeld: s.onlyHeld, d.translation)
        return d
    }

    func ends(_ s: borrowing FrameSummary) -> Bool { s.count < minFingers }
    func changes(_ s: borrowing FrameSummary) -> Bool { project(s.delta) != .zero }
}
