/// A quick flick of `minFingers...maxFingers` fingers (reported: the most down at once). Discrete: recognized at the lift when the centroid
/// travelled `swipeMinDistance` and left the glass at `swipeMinVelocity` or faster, within
/// `swipeMaxDuration` of touching down.
struct SwipeRecognizer: Recognizer {
    let minFingers: Int
    let maxFingers: Int
    let directionCount: Int
    /// Accepted directions as a bit set over `SwipeDirection.allCases` (a value: no heap).
    let allowed: UInt8
    let thresholds: Thresholds

    /// While deciding: when the first finger landed, how far the centroid went, the most fingers down.
    struct Track {
        var startAt: Timestamp
        var translation: PixelPoint
        var mostFingers: Int
    }

    /// Ready: what the recognized line reports.
    struct Flick {
        var direction: SwipeDirection
        var speed: Double
        var position: PixelPoint
        var fingers: Int
    }

    private var state = DiscreteLifecycle<Track, Flick>.idle
    /// `SwipeDirection.allCases` once (a synthesized allCases builds a new array per call).
    private static let order: [SwipeDirection] = SwipeDirection.allCases
    private var tracker: VelocityTracker

    init(minFingers: Int, maxFingers: Int, directionCount: Int, directions: Set<SwipeDirection>, thresholds: Thresholds) {
        self.minFingers = minFingers
        self.maxFingers = max(minFingers, maxFingers)
        self.directionCount = directionCount == 8 ? 8 : 4
        var mask: UInt8 = 0
        for (i, d) in SwipeDirection.allCases.enumerated() where directions.isEmpty || directions.contains(d) {
            mask |= 1 << UInt8(i)
        }
        allowed = mask
        self.thresholds = thresholds
        tracker = VelocityTracker(horizon: thresholds.velocityHorizon)
    }

    static let transitions: [TransitionRow] =
        [
            (.idle, .contactBegan, .tracking), (.idle, .contactBegan, .failed),
            (.tracking, .contactBegan, .tracking), (.tracking, .contactBegan, .failed),
            (.tracking, .contactMoved, .tracking), (.tracking, .contactReplaced, .tracking), (.tracking, .contactEnded, .tracking),
            (.tracking, .contactEnded, .ready), (.tracking, .contactEnded, .failed),
            (.tracking, .deadline, .failed),
        ] + DiscreteLifecycle<Track, Flick>.sharedTransitions(tracking: [.tracking])

    var stateName: RecognizerStateName { state.name { _ in .tracking } }
    var status: RecognizerStatus { state.status }
    var failure: FailReason? { state.failure }

    var deadline: Timestamp? {
        if case .tracking(let t) = state { return t.startAt + thresholds.swipeMaxDuration }
        return nil
    }

    mutating func reset() {
        state = .idle
        tracker.reset()
    }

    /// The direction of a displacement, quantized to 4 or 8 sectors (y grows downward).
    static func direction(of t: PixelPoint, sectors: Int) -> SwipeDirection {
        let pi = 3.141_592_653_589_793
        let angle = arcTangent2(t.y, t.x)  // -pi...pi, 0 = right, pi/2 = down
        let sector = 2 * pi / Double(sectors)
        let k = Int((angle / sector).rounded())
        let index = ((k % sectors) + sectors) % sectors
        return order[index * (8 / sectors)]
    }

    private func event(_ f: Flick, _ time: Timestamp) -> GestureEvent {
        var e = GestureEvent(kind: .swipe, phase: .recognized, time: time, position: f.position)
        e.fingers = f.fingers
        e.direction = f.direction
        e.speed = f.speed
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
            if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                tracker.reset()
                tracker.add(s.time, .zero)
                state = .tracking(Track(startAt: s.time, translation: .zero, mostFingers: s.count))
            }
        case (.tracking(var track), .contact(_, let frame)):
            let s = frame.pointee
            track.translation = track.translation + s.delta
            tracker.add(s.time, track.translation)
            if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                track.mostFingers = max(track.mostFingers, s.count)
                state = .tracking(track)
            } else {
                state = release(track.translation, mostFingers: track.mostFingers, at: s)
            }
        case (.tracking, .deadline):
            state = .failed(.tooSlow)
        case (.ready, .contact), (.recognized, .contact), (.failed, .contact):
            break
        case (.idle, .deadline), (.ready, .deadline), (.recognized, .deadline), (.failed, .deadline):
            state.unexpectedDeadline(from: stateName)
        }
        return .none
    }

    private mutating func release(_ t: PixelPoint, mostFingers: Int, at s: FrameSummary) -> DiscreteLifecycle<Track, Flick> {
        guard mostFingers >= minFingers else { return .failed(.tooFewFingers) }
        guard s.scale.length(t) >= thresholds.swipeMinDistance else { return .failed(.tooShort) }
        let v = tracker.velocity(at: s.time)
        guard s.scale.length(v).value >= thresholds.swipeMinVelocity else { return .failed(.tooSlow) }
        let d = Self.direction(of: t, sectors: directionCount)
        let bit = UInt8(Self.order.firstIndex(of: d) ?? 0)
        guard allowed & (1 << bit) != 0 else { return .failed(.wrongDirection) }
        return .ready(Flick(direction: d, speed: v.length, position: s.centroid, fingers: mostFingers))
    }

}
