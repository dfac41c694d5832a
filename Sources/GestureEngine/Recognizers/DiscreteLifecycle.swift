/// The life of a discrete gesture, shared by tap and swipe (as `ContinuousLifecycle` is by the
/// others): deciding (`Tracking`, the kind's own phases), then ready with what it will report
/// (`Ready`) while the arena decides, then recognized once, never taken back.
enum DiscreteLifecycle<Tracking, Ready>: DecidingLifecycle {
    case idle
    /// Deciding.
    case tracking(Tracking)
    /// Complete; waits for the arena.
    case ready(Ready)
    case recognized
    case failed(FailReason)

    /// The state's name in logs and diagrams; `tracking` names the deciding phase.
    func name(tracking: (Tracking) -> RecognizerStateName) -> RecognizerStateName {
        switch self {
        case .idle: return .idle
        case .tracking(let t): return tracking(t)
        case .ready: return .ready
        case .recognized: return .recognized
        case .failed: return .failed
        }
    }

    var status: RecognizerStatus {
        switch self {
        case .idle, .tracking: return .possible
        // A discrete gesture is complete only once its fingers lifted.
        case .ready: return .readyLifted
        case .recognized: return .finished
        case .failed: return .failed
        }
    }

    var deciding: Tracking? {
        if case .tracking(let k) = self { return k }
        return nil
    }

    /// The transitions every discrete recognizer shares; each kind adds those of `idle` and its
    /// deciding phases.
    static func sharedTransitions(tracking: [RecognizerStateName]) -> [TransitionRow] {
        [(.ready, .accepted, .recognized), (.ready, .rejected, .failed)]
            + tracking.map { ($0, .rejected, .failed) }
    }
}

/// A discrete recognizer says only how a sequence begins, how a frame moves it while deciding,
/// and what its deadline means; `handle` (below) is the one switch over (state, input) it shares.
protocol DiscreteRecognizer: DecidingRecognizer where Lifecycle == DiscreteLifecycle<Tracking, Ready> {
    associatedtype Tracking
    associatedtype Ready
    /// The name of a deciding phase.
    func trackingName(_ k: Tracking) -> RecognizerStateName
    /// The recognized event.
    func event(_ ready: Ready, _ time: Timestamp) -> GestureEvent
}

extension DiscreteRecognizer {
    var stateName: RecognizerStateName { state.name(tracking: trackingName) }
    var failure: FailReason? {
        guard case .failed(let r) = state else { return nil }
        return r
    }

    /// One switch over (input, state), changing the state in place (see `ContinuousRecognizer`).
    mutating func handle(_ input: RecognizerInput, _ s: inout FrameSummary, into out: inout [GestureEvent]) {
        switch input {
        // The arena lets it fire: recognized, with what it was ready with. Accepting anything but
        // a ready recognizer is an impossible pair.
        case .accepted(let time):
            if case .ready(let r) = state {
                state = .recognized
                out.append(event(r, time))
            } else {
                state = .failed(.invalidInput(state: stateName, input: .accepted))
            }
        // The arena (or a palm, a lost device) rules it out. Recognized stays recognized: a late
        // rejection cannot take back what was reported.
        case .rejected(_, let reason):
            if case .recognized = state { return }
            state = .failed(reason)
        // A deadline is asked for only while tracking; any other is an impossible pair.
        case .deadline:
            passDeadline()
        case .contact:
            switch state {
            case .idle:
                beginSequence(s)
            case .tracking(let k):
                state = track(k, s)
            case .ready, .recognized, .failed:
                break
            }
        }
    }
}
