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

    private enum State {
        case idle
        case tracking(startAt: Timestamp, translation: PixelPoint, mostFingers: Int)
        case ready(direction: SwipeDirection, speed: Double, position: PixelPoint, fingers: Int)
        case recognized
        case failed(FailReason)
    }

    private var state = State.idle
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

    static let transitions: [(from: StaticString, input: StaticString, to: StaticString)] = [
        ("idle", "contactBegan", "tracking"), ("idle", "contactBegan", "failed"),
        ("tracking", "contactBegan", "tracking"), ("tracking", "contactBegan", "failed"),
        ("tracking", "contactMoved", "tracking"), ("tracking", "contactEnded", "tracking"),
        ("tracking", "contactEnded", "ready"), ("tracking", "contactEnded", "failed"),
        ("tracking", "deadline", "failed"), ("ready", "accepted", "recognized"),
        ("idle", "rejected", "failed"), ("tracking", "rejected", "failed"), ("ready", "rejected", "failed"),
    ]

    var stateName: StaticString {
        switch state {
        case .idle: return "idle"
        case .tracking: return "tracking"
        case .ready: return "ready"
        case .recognized: return "recognized"
        case .failed: return "failed"
        }
    }

    var status: RecognizerStatus {
        switch state {
        case .idle, .tracking: return .possible
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
        if case .tracking(let startAt, _, _) = state { return startAt + thresholds.swipeMaxDuration }
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

    mutating func handle(_ input: RecognizerInput) -> Emissions {
        switch (state, input) {
        case (.idle, .frame(let frame)):
            let s = frame.pointee
            if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                tracker.reset()
                tracker.add(s.time, .zero)
                state = .tracking(startAt: s.time, translation: .zero, mostFingers: s.count)
            }
        case (.tracking(let startAt, let t0, let most), .frame(let frame)):
            let s = frame.pointee
            let t = t0 + s.delta
            tracker.add(s.time, t)
            if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                state = .tracking(startAt: startAt, translation: t, mostFingers: max(most, s.count))
            } else {
                state = release(t, mostFingers: most, at: s)
            }
        case (.tracking, .deadline):
            state = .failed(.tooSlow)
        case (.ready, .frame), (.recognized, .frame), (.failed, .frame):
            break
        case (.ready(let direction, let speed, let position, let fingers), .accepted(let time)):
            state = .recognized
            var e = GestureEvent(kind: .swipe, phase: .recognized, time: time, position: position)
            e.fingers = fingers
            e.direction = direction
            e.speed = speed
            return Emissions(e)
        case (.recognized, .rejected):
            break  // recognized stays recognized: a late rejection cannot take it back
        case (.idle, .rejected(_, let reason)), (.tracking, .rejected(_, let reason)), (.ready, .rejected(_, let reason)),
            (.failed, .rejected(_, let reason)):
            state = .failed(reason)
        case (.idle, .deadline), (.ready, .deadline), (.recognized, .deadline), (.failed, .deadline),
            (.idle, .accepted), (.tracking, .accepted), (.recognized, .accepted), (.failed, .accepted):
            state = .failed(.invalidInput(state: stateName, input: input.name))
        }
        return .none
    }

    private mutating func release(_ t: PixelPoint, mostFingers: Int, at s: FrameSummary) -> State {
        guard mostFingers >= minFingers else { return .failed(.tooFewFingers) }
        guard s.scale.length(t) >= thresholds.swipeMinDistance else { return .failed(.tooShort) }
        let v = tracker.velocity(at: s.time)
        guard s.scale.length(v).value >= thresholds.swipeMinVelocity else { return .failed(.tooSlow) }
        let d = Self.direction(of: t, sectors: directionCount)
        let bit = UInt8(Self.order.firstIndex(of: d) ?? 0)
        guard allowed & (1 << bit) != 0 else { return .failed(.wrongDirection) }
        return .ready(direction: d, speed: v.length, position: s.centroid, fingers: mostFingers)
    }

}
