/// What the two lifecycles (`ContinuousLifecycle`, `DiscreteLifecycle`) have alike: a sequence
/// starts idle, decides in a phase carrying the kind's own data, and may fail with a reason.
protocol DecidingLifecycle {
    associatedtype Tracking
    static var idle: Self { get }
    static func failed(_ reason: FailReason) -> Self
    /// The deciding phase's data; nil in every other state.
    var deciding: Tracking? { get }
    var status: RecognizerStatus { get }
}

/// The part of every recognizer's `handle` that does not depend on its lifecycle: how a sequence
/// begins and what a deadline means. Each lifecycle's `handle` calls these from its own switch,
/// so a frame still costs one switch over the state.
protocol DecidingRecognizer: Recognizer {
    associatedtype Lifecycle: DecidingLifecycle
    var state: Lifecycle { get set }
    /// The most fingers it takes; more fail it.
    var maxFingers: Int { get }
    /// A sequence's first frame, with 1...maxFingers fingers down.
    mutating func begin(_ s: borrowing FrameSummary) -> Lifecycle
    /// A frame while deciding.
    mutating func track(_ k: Lifecycle.Tracking, _ s: borrowing FrameSummary) -> Lifecycle
    /// The deadline it asked for while deciding.
    func deadlinePassed(_ k: Lifecycle.Tracking) -> Lifecycle
}

extension DecidingRecognizer {
    var status: RecognizerStatus { state.status }

    /// A frame while idle: one to `maxFingers` fingers begin a sequence, more fail it, none
    /// leave it idle.
    mutating func beginSequence(_ s: borrowing FrameSummary) {
        if s.count > maxFingers {
            state = .failed(.tooManyFingers)
        } else if s.count > 0 {
            state = begin(s)
        }
    }

    /// A deadline is asked for only while deciding; any other is an impossible pair.
    mutating func passDeadline() {
        if let k = state.deciding {
            state = deadlinePassed(k)
        } else {
            state = .failed(.invalidInput(state: stateName, input: .deadline))
        }
    }
}
