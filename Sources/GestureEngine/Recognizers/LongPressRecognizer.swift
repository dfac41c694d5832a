/// Fingers held still for `longPressDuration`. Fires at its deadline (not at the next event),
/// then reports movement as changed and the lift as ended.
struct LongPressRecognizer: Recognizer {
    let fingers: Int
    let thresholds: Thresholds

    private enum State {
        case idle
        /// Fingers landing; `fullAt` is when all `fingers` were down.
        case pressing(firstDownAt: Timestamp, fullAt: Timestamp?, position: PixelPoint)
        case ready(position: PixelPoint)
        /// The deadline came, the arena still held it, and the fingers lifted: began + ended on accept.
        case readyLifted(position: PixelPoint, liftedAt: Timestamp)
        case active(position: PixelPoint)
        case ended
        case failed(FailReason)
    }

    private var state = State.idle

    init(fingers: Int, thresholds: Thresholds) {
        self.fingers = fingers
        self.thresholds = thresholds
    }

    static let transitions: [(from: StaticString, input: StaticString, to: StaticString)] = [
        ("idle", "contactBegan", "pressing"), ("idle", "contactBegan", "failed"),
        ("pressing", "contactBegan", "pressing"), ("pressing", "contactBegan", "failed"),
        ("pressing", "contactMoved", "pressing"), ("pressing", "contactMoved", "failed"),
        ("pressing", "contactEnded", "failed"), ("pressing", "deadline", "ready"),
        ("pressing", "deadline", "pressing"), ("pressing", "deadline", "failed"),
        ("ready", "contactBegan", "ready"), ("ready", "contactMoved", "ready"),
        ("ready", "contactEnded", "ready"), ("ready", "contactEnded", "readyLifted"),
        ("ready", "accepted", "active"), ("readyLifted", "accepted", "ended"),
        ("active", "contactBegan", "active"), ("active", "contactMoved", "active"),
        ("active", "contactEnded", "active"), ("active", "contactEnded", "ended"),
        ("idle", "rejected", "failed"), ("pressing", "rejected", "failed"), ("ready", "rejected", "failed"),
        ("readyLifted", "rejected", "failed"), ("active", "rejected", "failed"),
    ]

    var stateName: StaticString {
        switch state {
        case .idle: return "idle"
        case .pressing: return "pressing"
        case .ready: return "ready"
        case .readyLifted: return "readyLifted"
        case .active: return "active"
        case .ended: return "ended"
        case .failed: return "failed"
        }
    }

    var status: RecognizerStatus {
        switch state {
        case .idle, .pressing: return .possible
        case .ready, .readyLifted: return .ready
        case .active: return .active
        case .ended: return .finished
        case .failed: return .failed
        }
    }

    var failure: FailReason? {
        if case .failed(let r) = state { return r }
        return nil
    }

    var deadline: Timestamp? {
        guard case .pressing(let firstDownAt, let fullAt, _) = state else { return nil }
        if let fullAt { return fullAt + thresholds.longPressDuration }
        return firstDownAt + thresholds.fingerSettle
    }

    mutating func reset() { state = .idle }

    private func event(_ phase: GesturePhase, _ time: Timestamp, _ position: PixelPoint) -> GestureEvent {
        var e = GestureEvent(kind: .longPress, phase: phase, time: time, position: position)
        e.fingers = fingers
        return e
    }

    mutating func handle(_ input: RecognizerInput) -> Emissions {
        switch (state, input) {
        case (.idle, .frame(let s)):
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                state = .pressing(
                    firstDownAt: s.time, fullAt: s.count == fingers ? s.time : nil, position: s.centroid)
            }
        case (.pressing(let firstDownAt, let fullAt, _), .frame(let s)):
            if s.count > fingers {
                state = .failed(.tooManyFingers)
            } else if s.maxTravel > thresholds.longPressTolerance {
                state = .failed(.moved)
            } else if s.count == 0 || (fullAt != nil && s.count < fingers) {
                state = .failed(.liftedTooSoon)
            } else {
                let full = fullAt ?? (s.count == fingers ? s.time : nil)
                state = .pressing(firstDownAt: firstDownAt, fullAt: full, position: s.centroid)
            }
        case (.pressing(_, let fullAt, let position), .deadline):
            state = fullAt == nil ? .failed(.tooFewFingers) : .ready(position: position)
        case (.ready, .frame(let s)):
            state = s.count == 0 ? .readyLifted(position: s.centroid, liftedAt: s.time) : .ready(position: s.centroid)
        case (.active, .frame(let s)):
            if s.count < fingers {
                state = .ended
                return Emissions(event(.ended, s.time, s.centroid))
            }
            state = .active(position: s.centroid)
            if s.delta != .zero { return Emissions(event(.changed, s.time, s.centroid)) }
        case (.readyLifted, .frame), (.ended, .frame), (.failed, .frame):
            break
        case (.idle, .deadline), (.ready, .deadline), (.readyLifted, .deadline), (.active, .deadline),
            (.ended, .deadline), (.failed, .deadline):
            state = .failed(.invalidInput(state: stateName, input: input.name))
        }
        return .none
    }

    mutating func accept(at time: Timestamp) -> Emissions {
        switch state {
        case .ready(let position):
            state = .active(position: position)
            return Emissions(event(.began, time, position))
        case .readyLifted(let position, _):
            state = .ended
            return Emissions(event(.began, time, position), event(.ended, time, position))
        case .idle, .pressing, .active, .ended, .failed:
            return .none
        }
    }

    mutating func reject(at time: Timestamp, because reason: FailReason) -> Emissions {
        if case .active(let position) = state {
            state = .failed(reason)
            return Emissions(event(.cancelled, time, position))
        }
        state = .failed(reason)
        return .none
    }
}
