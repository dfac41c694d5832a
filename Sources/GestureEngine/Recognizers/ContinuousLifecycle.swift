/// The life of a continuous gesture, shared by long press, pan, pinch and edge swipe. What differs
/// between them is the data each phase carries (`Tracking` while deciding, `Shape` once it wants
/// to fire) and how frames move it; the phases, what the arena sees of them, and how acceptance
/// and rejection play out are the same, so they are written once here.
enum ContinuousLifecycle<Tracking, Shape>: DecidingLifecycle {
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
        case .ready: return .ready
        case .readyLifted: return .readyLifted
        case .active: return .active
        case .ended: return .finished
        case .failed: return .failed
        }
    }

    var deciding: Tracking? {
        if case .tracking(let k) = self { return k }
        return nil
    }

    /// The transitions every continuous recognizer shares after its deciding state; each kind adds
    /// its own for `idle` and the deciding state. A kind of a fixed finger count (`fixedFingers`)
    /// claims its contacts when it begins (`Engine.claimContacts`), so while active it never sees
    /// a contact land; `endsAtAnyLift` for one that ends when any of them lifts.
    static func sharedTransitions(
        tracking: RecognizerStateName, fixedFingers: Bool = false, endsAtAnyLift: Bool = false
    ) -> [TransitionRow] {
        var rows: [TransitionRow] = [
            (.ready, .contactBegan, .ready), (.ready, .contactReplaced, .ready), (.ready, .contactMoved, .ready), (.ready, .contactEnded, .ready),
            (.ready, .contactEnded, .readyLifted),
            (.ready, .accepted, .active), (.readyLifted, .accepted, .ended),
            (.active, .contactMoved, .active), (.active, .contactEnded, .ended),
            (tracking, .rejected, .failed), (.ready, .rejected, .failed),
            (.readyLifted, .rejected, .failed), (.active, .rejected, .failed),
        ]
        if !fixedFingers { rows += [(.active, .contactBegan, .active), (.active, .contactReplaced, .active)] }
        if !endsAtAnyLift { rows.append((.active, .contactEnded, .active)) }
        return rows
    }
}

/// A continuous recognizer says only what is its own: how a sequence begins, how a frame moves
/// it while deciding, what a deadline means then, how its shape follows the fingers, and when an
/// active gesture ends or changes. `handle` (below) is the one switch over (state, input) they
/// all share.
protocol ContinuousRecognizer: DecidingRecognizer where Lifecycle == ContinuousLifecycle<Tracking, Shape> {
    associatedtype Tracking
    associatedtype Shape
    /// The deciding state's name (`tracking` unless the kind says otherwise).
    static var trackingName: RecognizerStateName { get }
    /// The shape after a frame, once past its threshold (ready or active).
    mutating func follow(_ shape: Shape, _ s: borrowing FrameSummary) -> Shape
    /// Ready, the fingers are gone (accepting it now begins and ends it at once).
    func lifted(_ s: borrowing FrameSummary) -> Bool
    /// Active, this frame ends it.
    func ends(_ s: borrowing FrameSummary) -> Bool
    /// Active, this frame is reported as changed.
    func changes(_ s: borrowing FrameSummary) -> Bool
    /// The kind's event (`liftedAt`: when the fingers lifted, if before the arena's word).
    func event(_ phase: GesturePhase, _ time: Timestamp, _ shape: Shape, _ liftedAt: Timestamp?) -> GestureEvent
    /// The event of a frame while active (a kind may read its state in place).
    mutating func frameEvent(_ phase: GesturePhase, _ time: Timestamp, _ shape: Shape) -> GestureEvent
}

extension ContinuousRecognizer {
    static var trackingName: RecognizerStateName { .tracking }
    var stateName: RecognizerStateName { state.name(tracking: Self.trackingName) }
    var failure: FailReason? {
        if case .failed(let r) = state { return r }
        return nil
    }
    func lifted(_ s: borrowing FrameSummary) -> Bool { s.count == 0 }
    func deadlinePassed(_ k: Tracking) -> ContinuousLifecycle<Tracking, Shape> {
        .failed(.invalidInput(state: Self.trackingName, input: .deadline))
    }
    mutating func frameEvent(_ phase: GesturePhase, _ time: Timestamp, _ shape: Shape) -> GestureEvent {
        event(phase, time, shape, nil)
    }

    /// One switch over (input, state), changing the state in place and appending what it emits
    /// to `out` (a copy of the state in and out, and a returned pair of events, cost more than
    /// the work on a frame).
    mutating func handle(_ input: RecognizerInput, _ s: inout FrameSummary, into out: inout [GestureEvent]) {
        switch input {
        // The arena lets it fire: began (and ended, if the fingers already lifted). Accepting
        // anything but a ready recognizer is an impossible pair.
        case .accepted(let time):
            switch state {
            case .ready(let shape):
                state = .active(shape)
                out.append(event(.began, time, shape, nil))
            case .readyLifted(let shape, let liftedAt):
                state = .ended
                out.append(event(.began, time, shape, liftedAt))
                out.append(event(.ended, time, shape, liftedAt))
            case .idle, .tracking, .active, .ended, .failed:
                state = .failed(.invalidInput(state: stateName, input: .accepted))
            }
        // The arena (or a palm, a lost device) ends it: cancelled if it had begun, failed otherwise.
        case .rejected(let time, let reason):
            if case .active(let shape) = state { out.append(event(.cancelled, time, shape, nil)) }
            state = .failed(reason)
        case .deadline:
            passDeadline()
        case .contact:
            switch state {
            case .idle:
                beginSequence(s)
            case .tracking(let k):
                state = track(k, s)
            case .ready(let shape):
                let followed = follow(shape, s)
                state = lifted(s) ? .readyLifted(followed, liftedAt: s.time) : .ready(followed)
            case .active(let shape):
                let followed = follow(shape, s)
                if ends(s) {
                    state = .ended
                    out.append(frameEvent(.ended, s.time, followed))
                } else {
                    state = .active(followed)
                    if changes(s) { out.append(frameEvent(.changed, s.time, followed)) }
                }
            case .readyLifted, .ended, .failed:
                break
            }
        }
    }
}
