/// A tap of `fingers` fingers, `taps` times in a row (single, double, triple tap).
/// Discrete: recognized when the last tap's fingers lift.
struct TapRecognizer: DiscreteRecognizer {
    let fingers: Int
    let taps: Int
    let thresholds: Thresholds

    /// While deciding.
    enum Phase {
        /// Fingers are down for tap number `tapsDone + 1`.
        case pressing(tapsDone: Int, downAt: Timestamp, origin: PixelPoint, maxFingers: Int, position: PixelPoint)
        /// `tapsDone` taps complete, waiting for the next touch-down.
        case waitingForNextTap(tapsDone: Int, upAt: Timestamp, origin: PixelPoint)

        var name: RecognizerStateName {
            switch self {
            case .pressing: return .pressing
            case .waitingForNextTap: return .waitingForNextTap
            }
        }
    }

    typealias Tracking = Phase
    /// Ready: where the taps were.
    typealias Ready = PixelPoint
    var state = DiscreteLifecycle<Phase, PixelPoint>.idle
    var maxFingers: Int { fingers }

    init(fingers: Int, taps: Int, thresholds: Thresholds) {
        self.fingers = fingers
        self.taps = taps
        self.thresholds = thresholds
    }

    static let transitions: [TransitionRow] =
        TransitionRows.pressing + [
            (.pressing, .contactEnded, .pressing), (.pressing, .contactEnded, .waitingForNextTap),
            (.pressing, .contactEnded, .ready), (.pressing, .contactEnded, .failed),
            (.pressing, .deadline, .failed),
            (.waitingForNextTap, .contactBegan, .pressing), (.waitingForNextTap, .contactBegan, .failed),
            (.waitingForNextTap, .deadline, .failed),
        ] + DiscreteLifecycle<Phase, PixelPoint>.sharedTransitions(tracking: [.pressing, .waitingForNextTap])

    func trackingName(_ k: Phase) -> RecognizerStateName { k.name }

    var deadline: Timestamp? {
        switch state {
        case .tracking(.pressing(_, let downAt, _, _, _)): return downAt.after(thresholds.ns.tapMax)
        case .tracking(.waitingForNextTap(_, let upAt, _)): return upAt.after(thresholds.ns.multiTapInterval)
        case .idle, .ready, .recognized, .failed: return nil
        }
    }

    mutating func reset() { state = .idle }

    func event(_ position: PixelPoint, _ time: Timestamp) -> GestureEvent {
        var e = GestureEvent(kind: .tap, phase: .recognized, time: time, position: position)
        e.fingers = fingers
        e.count = taps
        return e
    }

    func begin(_ s: borrowing FrameSummary) -> DiscreteLifecycle<Phase, PixelPoint> {
        .tracking(.pressing(tapsDone: 0, downAt: s.time, origin: s.centroid, maxFingers: s.count, position: s.centroid))
    }

    func track(_ k: Phase, _ s: borrowing FrameSummary) -> DiscreteLifecycle<Phase, PixelPoint> {
        if s.count > fingers { return .failed(.tooManyFingers) }
        switch k {
        case .pressing(let done, let downAt, let origin, let maxFingers, let position):
            if s.maxTravel > thresholds.tapSlop { return .failed(.moved) }
            if s.count > 0 {
                // The tap is where its fingers were while all of them were down, not where the
                // last one to lift was.
                return .tracking(
                    .pressing(
                        tapsDone: done, downAt: downAt, origin: origin, maxFingers: max(maxFingers, s.count),
                        position: s.count >= maxFingers ? s.centroid : position))
            }
            if maxFingers != fingers { return .failed(.tooFewFingers) }
            if done + 1 == taps { return .ready(position) }
            return .tracking(.waitingForNextTap(tapsDone: done + 1, upAt: s.time, origin: origin))
        case .waitingForNextTap(let done, _, let origin):
            guard s.count > 0 else { return .tracking(k) }
            if s.scale.length(s.centroid - origin) > thresholds.multiTapSlop { return .failed(.tooFarFromFirstTap) }
            return .tracking(.pressing(tapsDone: done, downAt: s.time, origin: origin, maxFingers: s.count, position: s.centroid))
        }
    }

    func deadlinePassed(_ k: Phase) -> DiscreteLifecycle<Phase, PixelPoint> {
        switch k {
        case .pressing: return .failed(.heldTooLong)
        case .waitingForNextTap: return .failed(.waitedTooLong)
        }
    }
}
