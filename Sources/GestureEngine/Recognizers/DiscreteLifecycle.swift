/// The life of a discrete gesture, shared by tap and swipe (as `ContinuousLifecycle` is by the
/// others): deciding (`Tracking`, the kind's own phases), then ready with what it will report
/// (`Ready`) while the arena decides, then recognized once, never taken back.
enum DiscreteLifecycle<Tracking, Ready> {
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
        case .ready: return .ready
        case .recognized: return .finished
        case .failed: return .failed
        }
    }

    var failure: FailReason? {
        if case .failed(let r) = self { return r }
        return nil
    }

    /// The arena lets it fire: recognized, with the event `event` builds from what it was ready
    /// with. Accepting anything but a ready recognizer is an impossible pair (`from` names it).
    mutating func accept(at time: Timestamp, from name: RecognizerStateName, _ event: (Ready, Timestamp) -> GestureEvent)
        -> Emissions
    {
        guard case .ready(let r) = self else {
            self = .failed(.invalidInput(state: name, input: .accepted))
            return .none
        }
        self = .recognized
        return Emissions(event(r, time))
    }

    /// The arena (or a palm, a lost device) rules it out. Recognized stays recognized: a late
    /// rejection cannot take back what was reported.
    mutating func reject(because reason: FailReason) {
        if case .recognized = self { return }
        self = .failed(reason)
    }

    /// A deadline the recognizer did not ask for (it asks only while tracking): impossible.
    mutating func unexpectedDeadline(from name: RecognizerStateName) {
        self = .failed(.invalidInput(state: name, input: .deadline))
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
protocol DiscreteRecognizer: Recognizer {
    associatedtype Tracking
    associatedtype Ready
    var state: DiscreteLifecycle<Tracking, Ready> { get set }
    /// The most fingers it takes; more fail it.
    var maxFingers: Int { get }
    /// The name of a deciding phase.
    func trackingName(_ k: Tracking) -> RecognizerStateName
    /// A sequence's first frame, with 1...maxFingers fingers down.
    mutating func begin(_ s: FrameSummary) -> DiscreteLifecycle<Tracking, Ready>
    /// A frame while deciding.
    mutating func track(_ k: Tracking, _ s: FrameSummary) -> DiscreteLifecycle<Tracking, Ready>
    /// The deadline it asked for while deciding.
    func deadlinePassed(_ k: Tracking) -> DiscreteLifecycle<Tracking, Ready>
    /// The recognized event.
    func event(_ ready: Ready, _ time: Timestamp) -> GestureEvent
}

extension DiscreteRecognizer {
    var stateName: RecognizerStateName { state.name(tracking: trackingName) }
    var status: RecognizerStatus { state.status }
    var failure: FailReason? { state.failure }

    mutating func handle(_ input: RecognizerInput) -> Emissions {
        var next = state
        defer { state = next }
        switch (next, input) {
        // The arena's word.
        case (_, .accepted(let time)):
            return next.accept(at: time, from: stateName, event)
        case (_, .rejected(_, let reason)):
            next.reject(because: reason)
        case (.idle, .contact(_, let frame)):
            let s = frame.pointee
            if s.count > maxFingers {
                next = .failed(.tooManyFingers)
            } else if s.count > 0 {
                next = begin(s)
            }
        case (.tracking(let k), .contact(_, let frame)):
            next = track(k, frame.pointee)
        case (.tracking(let k), .deadline):
            next = deadlinePassed(k)
        case (.ready, .contact), (.recognized, .contact), (.failed, .contact):
            break
        case (.idle, .deadline), (.ready, .deadline), (.recognized, .deadline), (.failed, .deadline):
            next.unexpectedDeadline(from: stateName)
        }
        return .none
    }
}
