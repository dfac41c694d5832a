/// Fingers held still for `longPressDuration`. Fires at its deadline (not at the next event),
/// then reports movement as changed and the lift as ended.
struct LongPressRecognizer: Recognizer {
    let fingers: Int
    let thresholds: Thresholds

    /// While deciding: when the first finger landed, when all `fingers` were down, where they are.
    struct Press {
        var firstDownAt: Timestamp
        var fullAt: Timestamp?
        var position: PixelPoint
    }

    private var state = ContinuousLifecycle<Press, PixelPoint>.idle

    init(fingers: Int, thresholds: Thresholds) {
        self.fingers = fingers
        self.thresholds = thresholds
    }

    static let transitions: [TransitionRow] =
        [
            (.idle, .contactBegan, .pressing), (.idle, .contactBegan, .failed),
            (.pressing, .contactBegan, .pressing), (.pressing, .contactBegan, .failed),
            (.pressing, .contactMoved, .pressing), (.pressing, .contactMoved, .failed),
            (.pressing, .contactReplaced, .pressing),
            (.pressing, .contactEnded, .failed), (.pressing, .deadline, .ready),
            (.pressing, .deadline, .failed),
        ] + ContinuousLifecycle<Press, PixelPoint>.sharedTransitions(tracking: .pressing)

    var stateName: RecognizerStateName { state.name(tracking: .pressing) }
    var status: RecognizerStatus { state.status }
    var failure: FailReason? { state.failure }

    var deadline: Timestamp? {
        guard case .tracking(let p) = state else { return nil }
        if let fullAt = p.fullAt { return fullAt + thresholds.longPressDuration }
        return p.firstDownAt + thresholds.fingerSettle
    }

    mutating func reset() { state = .idle }

    private func event(_ phase: GesturePhase, _ time: Timestamp, _ position: PixelPoint, _: Timestamp? = nil) -> GestureEvent {
        var e = GestureEvent(kind: .longPress, phase: phase, time: time, position: position)
        e.fingers = fingers
        return e
    }

    mutating func handle(_ input: RecognizerInput) -> Emissions {
        switch (state, input) {
        // The arena's word: the lifecycle every continuous gesture shares.
        case (_, .accepted(let time)):
            return state.accept(at: time, from: stateName, event)
        case (_, .rejected(let time, let reason)):
            return state.reject(at: time, because: reason, event)
        case (.idle, .contact(_, let frame)):
            let s = frame.pointee
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                state = .tracking(Press(firstDownAt: s.time, fullAt: s.count == fingers ? s.time : nil, position: s.centroid))
            }
        case (.tracking(var p), .contact(_, let frame)):
            let s = frame.pointee
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.maxTravel > thresholds.longPressTolerance {
                state = .failed(.moved)
            } else if s.count == 0 || (p.fullAt != nil && s.count < fingers) {
                state = .failed(.liftedTooSoon)
            } else {
                if p.fullAt == nil && s.count == fingers { p.fullAt = s.time }
                p.position = s.centroid
                state = .tracking(p)
            }
        case (.tracking(let p), .deadline):
            state = p.fullAt == nil ? .failed(.tooFewFingers) : .ready(p.position)
        case (.ready, .contact(_, let frame)):
            let s = frame.pointee
            state = s.count == 0 ? .readyLifted(s.centroid, liftedAt: s.time) : .ready(s.centroid)
        case (.active, .contact(_, let frame)):
            let s = frame.pointee
            if s.count < fingers {
                state = .ended
                return Emissions(event(.ended, s.time, s.centroid))
            }
            state = .active(s.centroid)
            if s.delta != .zero { return Emissions(event(.changed, s.time, s.centroid)) }
        case (.readyLifted, .contact), (.ended, .contact), (.failed, .contact):
            break
        case (.idle, .deadline), (.ready, .deadline), (.readyLifted, .deadline), (.active, .deadline),
            (.ended, .deadline), (.failed, .deadline):
            state = .failed(.invalidInput(state: stateName, input: input.name))
        }
        return .none
    }

}
