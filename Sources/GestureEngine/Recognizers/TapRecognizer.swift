/// A tap of `fingers` fingers, `taps` times in a row (single, double, triple tap).
/// Discrete: recognized when the last tap's fingers lift.
struct TapRecognizer: Recognizer {
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

    /// Ready: where the taps were.
    private var state = DiscreteLifecycle<Phase, PixelPoint>.idle

    init(fingers: Int, taps: Int, thresholds: Thresholds) {
        self.fingers = fingers
        self.taps = taps
        self.thresholds = thresholds
    }

    static let transitions: [TransitionRow] =
        [
            (.idle, .contactBegan, .pressing), (.idle, .contactBegan, .failed),
            (.pressing, .contactBegan, .pressing), (.pressing, .contactBegan, .failed),
            (.pressing, .contactMoved, .pressing), (.pressing, .contactMoved, .failed),
            (.pressing, .contactReplaced, .pressing),
            (.pressing, .contactEnded, .pressing), (.pressing, .contactEnded, .waitingForNextTap),
            (.pressing, .contactEnded, .ready), (.pressing, .contactEnded, .failed),
            (.pressing, .deadline, .failed),
            (.waitingForNextTap, .contactBegan, .pressing), (.waitingForNextTap, .contactBegan, .failed),
            (.waitingForNextTap, .deadline, .failed),
            // Lifted and blocked (by a gesture that must fail first) when the next touch lands.
            (.ready, .contactBegan, .ready),
        ] + DiscreteLifecycle<Phase, PixelPoint>.sharedTransitions(tracking: [.pressing, .waitingForNextTap])

    var stateName: RecognizerStateName { state.name { $0.name } }
    var status: RecognizerStatus { state.status }
    var failure: FailReason? { state.failure }

    var deadline: Timestamp? {
        switch state {
        case .tracking(.pressing(_, let downAt, _, _, _)): return downAt + thresholds.tapMaxDuration
        case .tracking(.waitingForNextTap(_, let upAt, _)): return upAt + thresholds.multiTapInterval
        case .idle, .ready, .recognized, .failed: return nil
        }
    }

    mutating func reset() { state = .idle }

    private func event(_ position: PixelPoint, _ time: Timestamp) -> GestureEvent {
        var e = GestureEvent(kind: .tap, phase: .recognized, time: time, position: position)
        e.fingers = fingers
        e.count = taps
        return e
    }

    mutating func handle(_ input: RecognizerInput) -> Emissions {
        switch (state, input) {
        // The arena's word: the lifecycle every discrete gesture shares.
        case (_, .accepted(let time)):
            return state.accept(at: time, from: stateName, event)
        case (_, .rejected(_, let reason)):
            state.reject(because: reason)
        case (.idle, .contact(_, let frame)):
            let s = frame.pointee
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                state = .tracking(
                    .pressing(tapsDone: 0, downAt: s.time, origin: s.centroid, maxFingers: s.count, position: s.centroid))
            }
        case (.tracking(.pressing(let done, let downAt, let origin, let maxFingers, let position)), .contact(_, let frame)):
            let s = frame.pointee
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.maxTravel > thresholds.tapSlop {
                state = .failed(.moved)
            } else if s.count > 0 {
                // The tap is where its fingers were while all of them were down, not where the
                // last one to lift was.
                state = .tracking(
                    .pressing(
                        tapsDone: done, downAt: downAt, origin: origin, maxFingers: max(maxFingers, s.count),
                        position: s.count >= maxFingers ? s.centroid : position))
            } else if maxFingers != fingers {
                state = .failed(.tooFewFingers)
            } else if done + 1 == taps {
                state = .ready(position)
            } else {
                state = .tracking(.waitingForNextTap(tapsDone: done + 1, upAt: s.time, origin: origin))
            }
        case (.tracking(.pressing), .deadline):
            state = .failed(.heldTooLong)
        case (.tracking(.waitingForNextTap(let done, _, let origin)), .contact(_, let frame)):
            let s = frame.pointee
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                if s.scale.length(s.centroid - origin) > thresholds.multiTapSlop {
                    state = .failed(.tooFarFromFirstTap)
                } else {
                    state = .tracking(
                        .pressing(tapsDone: done, downAt: s.time, origin: origin, maxFingers: s.count, position: s.centroid))
                }
            }
        case (.tracking(.waitingForNextTap), .deadline):
            state = .failed(.waitedTooLong)
        case (.ready, .contact), (.recognized, .contact), (.failed, .contact):
            break
        case (.idle, .deadline), (.ready, .deadline), (.recognized, .deadline), (.failed, .deadline):
            state.unexpectedDeadline(from: stateName)
        }
        return .none
    }
}
