/// Fingers held still for `longPressDuration`. Fires at its deadline (not at the next event),
/// then reports movement as changed and the lift as ended.
struct LongPressRecognizer: ContinuousRecognizer {
    let fingers: Int
    let thresholds: Thresholds

    /// While deciding: when the first finger landed, when all `fingers` were down, where they are.
    struct Press {
        var firstDownAt: Timestamp
        var fullAt: Timestamp?
        var position: PixelPoint
    }

    typealias Tracking = Press
    typealias Shape = PixelPoint
    var state = ContinuousLifecycle<Press, PixelPoint>.idle
    var maxFingers: Int { fingers }
    static var trackingName: RecognizerStateName { .pressing }

    init(fingers: Int, thresholds: Thresholds) {
        self.fingers = fingers
        self.thresholds = thresholds
    }

    static let transitions: [TransitionRow] =
        TransitionRows.pressing + [
            (.pressing, .contactEnded, .failed), (.pressing, .deadline, .ready),
            (.pressing, .deadline, .failed),
        ] + ContinuousLifecycle<Press, PixelPoint>.sharedTransitions(
            tracking: .pressing, fixedFingers: true, endsAtAnyLift: true)


    var deadline: Timestamp? {
        guard case .tracking(let p) = state else { return nil }
        if let fullAt = p.fullAt { return fullAt.after(thresholds.ns.longPress) }
        return p.firstDownAt.after(thresholds.ns.fingerSettle)
    }

    mutating func reset() { state = .idle }

    func event(_ phase: GesturePhase, _ time: Timestamp, _ position: PixelPoint, _: Timestamp?) -> GestureEvent {
        var e = GestureEvent(kind: .longPress, phase: phase, time: time, position: position)
        e.fingers = fingers
        return e
    }

    func begin(_ s: borrowing FrameSummary) -> ContinuousLifecycle<Press, PixelPoint> {
        .tracking(Press(firstDownAt: s.time, fullAt: s.count == fingers ? s.time : nil, position: s.centroid))
    }

    func track(_ p: Press, _ s: borrowing FrameSummary) -> ContinuousLifecycle<Press, PixelPoint> {
        let count = s.count
        if count > fingers { return .failed(.tooManyFingers) }
        if s.maxTravel > thresholds.longPressTolerance { return .failed(.moved) }
        if count == 0 || (p.fullAt != nil && count < fingers) { return .failed(.liftedTooSoon) }
        var p = p
        if p.fullAt == nil && count == fingers { p.fullAt = s.time }
        p.position = s.centroid
        return .tracking(p)
    }

    func deadlinePassed(_ p: Press) -> ContinuousLifecycle<Press, PixelPoint> {
        p.fullAt == nil ? .failed(.tooFewFingers) : .ready(p.position)
    }

    func follow(_ position: PixelPoint, _ s: borrowing FrameSummary) -> PixelPoint { s.centroid }
    func ends(_ s: borrowing FrameSummary) -> Bool { s.count < fingers }
    func changes(_ s: borrowing FrameSummary) -> Bool { s.delta != .zero }
}
