/// A tap of `fingers` fingers, `taps` times in a row (single, double, triple tap).
/// Discrete: recognized when the last tap's fingers lift.
struct TapRecognizer: Recognizer {
    let fingers: Int
    let taps: Int
    let thresholds: Thresholds

    private enum State {
        case idle
        /// Fingers are down for tap number `tapsDone + 1`.
        case pressing(tapsDone: Int, downAt: Timestamp, origin: PixelPoint, maxFingers: Int, position: PixelPoint)
        /// `tapsDone` taps complete, waiting for the next touch-down.
        case waitingForNextTap(tapsDone: Int, upAt: Timestamp, origin: PixelPoint)
        /// All taps done; waits for the arena.
        case ready(position: PixelPoint)
        case recognized
        case failed(FailReason)
    }

    private var state = State.idle

    init(fingers: Int, taps: Int, thresholds: Thresholds) {
        self.fingers = fingers
        self.taps = taps
        self.thresholds = thresholds
    }

    static let transitions: [(from: StaticString, input: StaticString, to: StaticString)] = [
        ("idle", "contactBegan", "pressing"), ("idle", "contactBegan", "failed"),
        ("pressing", "contactBegan", "pressing"), ("pressing", "contactBegan", "failed"),
        ("pressing", "contactMoved", "pressing"), ("pressing", "contactMoved", "failed"),
        ("pressing", "contactEnded", "pressing"), ("pressing", "contactEnded", "waitingForNextTap"),
        ("pressing", "contactEnded", "ready"), ("pressing", "contactEnded", "failed"),
        ("pressing", "deadline", "failed"),
        ("waitingForNextTap", "contactBegan", "pressing"), ("waitingForNextTap", "contactBegan", "failed"),
        ("waitingForNextTap", "deadline", "failed"),
        ("ready", "accepted", "recognized"),
        ("idle", "rejected", "failed"), ("pressing", "rejected", "failed"),
        ("waitingForNextTap", "rejected", "failed"), ("ready", "rejected", "failed"),
    ]

    var stateName: StaticString {
        switch state {
        case .idle: return "idle"
        case .pressing: return "pressing"
        case .waitingForNextTap: return "waitingForNextTap"
        case .ready: return "ready"
        case .recognized: return "recognized"
        case .failed: return "failed"
        }
    }

    var status: RecognizerStatus {
        switch state {
        case .idle, .pressing, .waitingForNextTap: return .possible
        case .ready: return .ready
        case .recognized: return .finished
        case .failed: return .failed
        }
    }

    var failure: FailReason? {
        if case .failed(let r) = state { return r }
        return nil
    }

    var deadline: Timestamp? {
        switch state {
        case .pressing(_, let downAt, _, _, _): return downAt + thresholds.tapMaxDuration
        case .waitingForNextTap(_, let upAt, _): return upAt + thresholds.multiTapInterval
        case .idle, .ready, .recognized, .failed: return nil
        }
    }

    mutating func reset() { state = .idle }

    mutating func handle(_ input: RecognizerInput) -> Emissions {
        switch (state, input) {
        case (.idle, .frame(let frame)):
            let s = frame.pointee
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                state = .pressing(
                    tapsDone: 0, downAt: s.time, origin: s.centroid, maxFingers: s.count, position: s.centroid)
            }
        case (.pressing(let done, let downAt, let origin, let maxFingers, let position), .frame(let frame)):
            let s = frame.pointee
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.maxTravel > thresholds.tapSlop {
                state = .failed(.moved)
            } else if s.count > 0 {
                // The tap is where its fingers were while all of them were down, not where the
                // last one to lift was.
                state = .pressing(
                    tapsDone: done, downAt: downAt, origin: origin, maxFingers: max(maxFingers, s.count),
                    position: s.count >= maxFingers ? s.centroid : position)
            } else if maxFingers != fingers {
                state = .failed(.tooFewFingers)
            } else if done + 1 == taps {
                state = .ready(position: position)
            } else {
                state = .waitingForNextTap(tapsDone: done + 1, upAt: s.time, origin: origin)
            }
        case (.pressing, .deadline):
            state = .failed(.heldTooLong)
        case (.waitingForNextTap(let done, _, let origin), .frame(let frame)):
            let s = frame.pointee
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                if s.scale.length(s.centroid - origin) > thresholds.multiTapSlop {
                    state = .failed(.tooFarFromFirstTap)
                } else {
                    state = .pressing(
                        tapsDone: done, downAt: s.time, origin: origin, maxFingers: s.count, position: s.centroid)
                }
            }
        case (.waitingForNextTap, .deadline):
            state = .failed(.waitedTooLong)
        case (.ready, .frame), (.recognized, .frame), (.failed, .frame):
            break
        case (.ready(let position), .accepted(let time)):
            state = .recognized
            var e = GestureEvent(kind: .tap, phase: .recognized, time: time, position: position)
            e.fingers = fingers
            e.count = taps
            return Emissions(e)
        case (.recognized, .rejected):
            break  // recognized stays recognized: a late rejection cannot take it back
        case (.idle, .rejected(_, let reason)), (.pressing, .rejected(_, let reason)),
            (.waitingForNextTap, .rejected(_, let reason)), (.ready, .rejected(_, let reason)),
            (.failed, .rejected(_, let reason)):
            state = .failed(reason)
        case (.idle, .deadline), (.ready, .deadline), (.recognized, .deadline), (.failed, .deadline),
            (.idle, .accepted), (.pressing, .accepted), (.waitingForNextTap, .accepted), (.recognized, .accepted),
            (.failed, .accepted):
            state = .failed(.invalidInput(state: stateName, input: input.name))
        }
        return .none
    }

}
