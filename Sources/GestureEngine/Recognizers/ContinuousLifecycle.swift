/// The life of a continuous gesture, shared by long press, pan, pinch and edge swipe. What differs
/// between them is the data each phase carries (`Tracking` while deciding, `Shape` once it wants
/// to fire) and how frames move it; the phases, what the arena sees of them, and how acceptance
/// and rejection play out are the same, so they are written once here.
enum ContinuousLifecycle<Tracking, Shape> {
    case idle
    /// Deciding: not yet past its threshold.
    case tracking(Tracking)
    /// Past its threshold; waits for the arena.
    case ready(Shape)
    /// Ready, still held by the arena, and the fingers lifted: accepting it begins and ends it at once.
    case readyLifted(Shape, liftedAt: Timestamp)
    /// Accepted: began, emits changed.
    case active(Shape)
    case ended
    case failed(FailReason)

    /// The state's name in logs and diagrams; `tracking` names the deciding state of this kind.
    func name(tracking: RecognizerStateName) -> RecognizerStateName {
        switch self {
        case .idle: return .idle
        case .tracking: return tracking
        case .ready: return .ready
        case .readyLifted: return .readyLifted
        case .active: return .active
        case .ended: return .ended
        case .failed: return .failed
        }
    }

    var status: RecognizerStatus {
        switch self {
        case .idle, .tracking: return .possible
        case .ready, .readyLifted: return .ready
        case .active: return .active
        case .ended: return .finished
        case .failed: return .failed
        }
    }

    var failure: FailReason? {
        if case .failed(let r) = self { return r }
        return nil
    }

    /// The arena lets it fire: began (and ended, if the fingers already lifted).
    /// `event(phase, time, shape, liftedAt)` builds the kind's event. Accepting anything but a
    /// ready recognizer is an impossible pair (`from` names it).
    mutating func accept(
        at time: Timestamp, from name: RecognizerStateName,
        _ event: (GesturePhase, Timestamp, Shape, Timestamp?) -> GestureEvent
    ) -> Emissions {
        switch self {
        case .ready(let shape):
            self = .active(shape)
            return Emissions(event(.began, time, shape, nil))
        case .readyLifted(let shape, let liftedAt):
            self = .ended
            return Emissions(event(.began, time, shape, liftedAt), event(.ended, time, shape, liftedAt))
        case .idle, .tracking, .active, .ended, .failed:
            self = .failed(.invalidInput(state: name, input: .accepted))
            return .none
        }
    }

    /// The arena (or a palm, a lost device) ends it: cancelled if it had begun, failed otherwise.
    mutating func reject(
        at time: Timestamp, because reason: FailReason, _ event: (GesturePhase, Timestamp, Shape, Timestamp?) -> GestureEvent
    ) -> Emissions {
        if case .active(let shape) = self {
            self = .failed(reason)
            return Emissions(event(.cancelled, time, shape, nil))
        }
        self = .failed(reason)
        return .none
    }

    /// The transitions every continuous recognizer shares after its deciding state; each kind adds
    /// its own for `idle` and the deciding state.
    static func sharedTransitions(tracking: RecognizerStateName) -> [TransitionRow] {
        [
(.ready, .contactBegan, .ready), (.ready, .contactReplaced, .ready), (.ready, .contactMoved, .ready), (.ready, .contactEnded, .ready),
            (.ready, .contactEnded, .readyLifted),
            (.ready, .accepted, .active), (.readyLifted, .accepted, .ended),
            (.active, .contactBegan, .active), (.active, .contactReplaced, .active), (.active, .contactMoved, .active),
            (.active, .contactEnded, .active), (.active, .contactEnded, .ended),
            (tracking, .rejected, .failed), (.ready, .rejected, .failed),
            (.readyLifted, .rejected, .failed), (.active, .rejected, .failed),
        ]
    }
}
