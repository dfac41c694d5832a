/// Two or more fingers spreading, closing or turning. Begins once their span has changed by
/// `pinchSlop` or they have turned `rotationSlop`; reports scale (since they landed), rotation
/// (degrees, clockwise positive) and centre.
struct PinchRecognizer: Recognizer {
    let minFingers: Int
    let maxFingers: Int
    let thresholds: Thresholds

    private struct Shape {
        var scale: Double = 1
        var rotation: Double = 0  // radians
        var fingers: Int = 0
        var position: PixelPoint = .zero
    }

    private enum State {
        case idle
        case tracking(startAt: Timestamp, shape: Shape)
        case ready(Shape)
        case readyLifted(Shape)
        case active(Shape)
        case ended
        case failed(FailReason)
    }

    private var state = State.idle

    init(minFingers: Int, maxFingers: Int, thresholds: Thresholds) {
        self.minFingers = max(2, minFingers)
        self.maxFingers = max(self.minFingers, maxFingers)
        self.thresholds = thresholds
    }

    static let transitions: [(from: StaticString, input: StaticString, to: StaticString)] = [
        ("idle", "contactBegan", "tracking"), ("idle", "contactBegan", "failed"),
        ("tracking", "contactBegan", "tracking"), ("tracking", "contactBegan", "failed"),
        ("tracking", "contactBegan", "ready"),
        ("tracking", "contactMoved", "tracking"), ("tracking", "contactMoved", "ready"),
        ("tracking", "contactMoved", "failed"),
        ("tracking", "contactEnded", "tracking"), ("tracking", "contactEnded", "ready"),
        ("tracking", "contactEnded", "failed"),
        ("tracking", "deadline", "failed"),
        ("ready", "contactBegan", "ready"), ("ready", "contactMoved", "ready"), ("ready", "contactEnded", "ready"),
        ("ready", "contactEnded", "readyLifted"), ("ready", "accepted", "active"), ("readyLifted", "accepted", "ended"),
        ("active", "contactBegan", "active"), ("active", "contactMoved", "active"),
        ("active", "contactEnded", "active"), ("active", "contactEnded", "ended"),
        ("idle", "rejected", "failed"), ("tracking", "rejected", "failed"), ("ready", "rejected", "failed"),
        ("readyLifted", "rejected", "failed"), ("active", "rejected", "failed"),
    ]

    var stateName: StaticString {
        switch state {
        case .idle: return "idle"
        case .tracking: return "tracking"
        case .ready: return "ready"
        case .readyLifted: return "readyLifted"
        case .active: return "active"
        case .ended: return "ended"
        case .failed: return "failed"
        }
    }

    var status: RecognizerStatus {
        switch state {
        case .idle, .tracking: return .possible
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
        if case .tracking(let startAt, let shape) = state, shape.fingers < minFingers {
            return startAt + thresholds.fingerSettle
        }
        return nil
    }

    mutating func reset() { state = .idle }

    private static let degreesPerRadian = 57.295_779_513_082_32

    private func event(_ phase: GesturePhase, _ time: Timestamp, _ shape: Shape) -> GestureEvent {
        var e = GestureEvent(kind: .pinch, phase: phase, time: time, position: shape.position)
        e.fingers = shape.fingers
        e.scale = shape.scale
        e.rotation = shape.rotation * Self.degreesPerRadian
        return e
    }

    private func updated(_ shape: Shape, _ s: FrameSummary) -> Shape {
        var next = shape
        next.scale *= s.spreadRatio
        next.rotation += s.rotationDelta
        next.position = s.centroid
        next.fingers = max(next.fingers, s.count)
        return next
    }

    mutating func handle(_ input: RecognizerInput) -> Emissions {
        switch (state, input) {
        case (.idle, .frame(let s)):
            if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                state = .tracking(startAt: s.time, shape: updated(Shape(), s))
            }
        case (.tracking(let startAt, let shape0), .frame(let s)):
            let shape = updated(shape0, s)
            if s.count == 0 {
                state = .failed(.liftedTooSoon)
            } else if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if s.count < minFingers {
                state = s.time >= startAt + thresholds.fingerSettle
                    ? .failed(.tooFewFingers) : .tracking(startAt: startAt, shape: shape)
            } else {
                let spanChange = s.spread.value * abs(1 - 1 / shape.scale)
                let turned = abs(shape.rotation) * Self.degreesPerRadian
                if spanChange >= thresholds.pinchSlop.value || turned >= thresholds.rotationSlop {
                    state = .ready(shape)
                } else {
                    state = .tracking(startAt: startAt, shape: shape)
                }
            }
        case (.tracking, .deadline):
            state = .failed(.tooFewFingers)
        case (.ready(let shape0), .frame(let s)):
            let shape = updated(shape0, s)
            state = s.count < minFingers ? .readyLifted(shape) : .ready(shape)
        case (.active(let shape0), .frame(let s)):
            let shape = updated(shape0, s)
            if s.count < minFingers {
                state = .ended
                return Emissions(event(.ended, s.time, shape))
            }
            state = .active(shape)
            if s.spreadRatio != 1 || s.rotationDelta != 0 || s.delta != .zero {
                return Emissions(event(.changed, s.time, shape))
            }
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
        case .ready(let shape):
            state = .active(shape)
            return Emissions(event(.began, time, shape))
        case .readyLifted(let shape):
            state = .ended
            return Emissions(event(.began, time, shape), event(.ended, time, shape))
        case .idle, .tracking, .active, .ended, .failed:
            return .none
        }
    }

    mutating func reject(at time: Timestamp, because reason: FailReason) -> Emissions {
        if case .active(let shape) = state {
            state = .failed(reason)
            return Emissions(event(.cancelled, time, shape))
        }
        state = .failed(reason)
        return .none
    }
}
