/// Two or more fingers spreading, closing or turning. Begins once their span has changed by
/// `pinchSlop` or they have turned `rotationSlop`; reports scale (since they landed), rotation
/// (degrees, clockwise positive) and centre.
struct PinchRecognizer: Recognizer {
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

    private var state = ContinuousLifecycle<Tracking, Shape>.idle

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

    var stateName: RecognizerStateName { state.name(tracking: .tracking) }
    var status: RecognizerStatus { state.status }
    var failure: FailReason? { state.failure }

    var deadline: Timestamp? {
        if case .tracking(let k) = state, k.shape.fingers < minFingers { return k.startAt + thresholds.fingerSettle }
        return nil
    }

    mutating func reset() { state = .idle }

    private static let degreesPerRadian = 57.295_779_513_082_32

    private func event(_ phase: GesturePhase, _ time: Timestamp, _ shape: Shape, _: Timestamp? = nil) -> GestureEvent {
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
        // The arena's word: the lifecycle every continuous gesture shares.
        case (_, .accepted(let time)):
            return state.accept(at: time, from: stateName, event)
        case (_, .rejected(let time, let reason)):
            return state.reject(at: time, because: reason, event)
        case (.idle, .contact(_, let frame)):
            let s = frame.pointee
            if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                state = .tracking(Tracking(startAt: s.time, shape: updated(Shape(), s)))
            }
        case (.tracking(var k), .contact(_, let frame)):
            let s = frame.pointee
            k.shape = updated(k.shape, s)
            if s.count == 0 {
                state = .failed(.liftedTooSoon)
            } else if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if s.count < minFingers {
                state = s.time >= k.startAt + thresholds.fingerSettle ? .failed(.tooFewFingers) : .tracking(k)
            } else {
                let spanChange = s.spread.value * abs(1 - 1 / k.shape.scale)
                let turned = abs(k.shape.rotation) * Self.degreesPerRadian
                if spanChange >= thresholds.pinchSlop.value || turned >= thresholds.rotationSlop {
                    state = .ready(k.shape)
                } else {
                    state = .tracking(k)
                }
            }
        case (.tracking, .deadline):
            state = .failed(.tooFewFingers)
        case (.ready(let shape0), .contact(_, let frame)):
            let s = frame.pointee
            let shape = updated(shape0, s)
            state = s.count < minFingers ? .readyLifted(shape, liftedAt: s.time) : .ready(shape)
        case (.active(let shape0), .contact(_, let frame)):
            let s = frame.pointee
            let shape = updated(shape0, s)
            if s.count < minFingers {
                state = .ended
                return Emissions(event(.ended, s.time, shape))
            }
            state = .active(shape)
            if s.spreadRatio != 1 || s.rotationDelta != 0 || s.delta != .zero {
                return Emissions(event(.changed, s.time, shape))
            }
        case (.readyLifted, .contact), (.ended, .contact), (.failed, .contact):
            break
        case (.idle, .deadline), (.ready, .deadline), (.readyLifted, .deadline), (.active, .deadline),
            (.ended, .deadline), (.failed, .deadline):
            state = .failed(.invalidInput(state: stateName, input: input.name))
        }
        return .none
    }

}
