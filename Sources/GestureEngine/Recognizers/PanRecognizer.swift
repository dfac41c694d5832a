/// A drag of `minFingers...maxFingers` fingers, optionally locked to one axis. Begins once the
/// centroid has moved `panSlop`; reports translation (px, since the fingers landed),
/// least-squares velocity (px/s), and as `fingers` the most fingers down at once since it began.
struct PanRecognizer: Recognizer {
    let minFingers: Int
    let maxFingers: Int
    let axis: PanAxis
    let thresholds: Thresholds

    private enum State {
        case idle
        case tracking(startAt: Timestamp, translation: PixelPoint, fingers: Int)
        case ready(translation: PixelPoint, fingers: Int, position: PixelPoint)
        case readyLifted(translation: PixelPoint, fingers: Int, position: PixelPoint, liftedAt: Timestamp)
        case active(translation: PixelPoint, fingers: Int, position: PixelPoint)
        case ended
        case failed(FailReason)
    }

    private var state = State.idle
    private var tracker: VelocityTracker

    init(minFingers: Int, maxFingers: Int, axis: PanAxis, thresholds: Thresholds) {
        self.minFingers = minFingers
        self.maxFingers = maxFingers
        self.axis = axis
        self.thresholds = thresholds
        tracker = VelocityTracker(horizon: thresholds.velocityHorizon)
    }

    static let transitions: [(from: StaticString, input: StaticString, to: StaticString)] = [
        ("idle", "contactBegan", "tracking"), ("idle", "contactBegan", "failed"),
        ("tracking", "contactBegan", "tracking"), ("tracking", "contactBegan", "ready"),
        ("tracking", "contactBegan", "failed"), ("tracking", "contactMoved", "tracking"),
        ("tracking", "contactMoved", "ready"), ("tracking", "contactMoved", "failed"),
        ("tracking", "contactEnded", "tracking"), ("tracking", "contactEnded", "ready"),
        ("tracking", "contactEnded", "failed"), ("tracking", "deadline", "failed"),
        ("ready", "contactBegan", "ready"), ("ready", "contactMoved", "ready"), ("ready", "contactEnded", "ready"),
        ("ready", "contactEnded", "readyLifted"),
        ("ready", "accepted", "active"), ("readyLifted", "accepted", "ended"),
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
        if case .tracking(let startAt, _, let fingers) = state, fingers < minFingers {
            return startAt + thresholds.fingerSettle
        }
        return nil
    }

    mutating func reset() {
        state = .idle
        tracker.reset()
    }

    /// Translation or velocity with the locked axis zeroed.
    private func project(_ v: PixelPoint) -> PixelPoint {
        switch axis {
        case .free: return v
        case .horizontal: return PixelPoint(x: v.x, y: 0)
        case .vertical: return PixelPoint(x: 0, y: v.y)
        }
    }

    private func event(
        _ phase: GesturePhase, _ time: Timestamp, _ t: PixelPoint, _ fingers: Int, _ position: PixelPoint,
        velocityAt: Timestamp? = nil
    ) -> GestureEvent {
        var e = GestureEvent(kind: .pan, phase: phase, time: time, position: position)
        e.fingers = fingers
        e.translation = project(t)
        e.velocity = project(tracker.velocity(at: velocityAt ?? time, horizon: thresholds.velocityHorizon))
        e.axis = axis
        return e
    }

    /// Has the movement committed to the wrong axis?
    private func movedAlongOtherAxis(_ t: PixelPoint, _ scale: MillimetersPerPixel) -> Bool {
        guard axis != .free, scale.length(t) >= thresholds.axisLockThreshold else { return false }
        let h = abs(scale.horizontal(t).value), v = abs(scale.vertical(t).value)
        return axis == .horizontal ? v > h : h > v
    }

    /// Movement along the pan's own axis (or in any direction when free).
    private func travel(_ t: PixelPoint, _ scale: MillimetersPerPixel) -> Millimeters {
        switch axis {
        case .free: return scale.length(t)
        case .horizontal: return Millimeters(abs(scale.horizontal(t).value))
        case .vertical: return Millimeters(abs(scale.vertical(t).value))
        }
    }

    mutating func handle(_ input: RecognizerInput) -> Emissions {
        switch (state, input) {
        case (.idle, .frame(let s)):
            if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if s.count > 0 {
                tracker.reset()
                tracker.add(s.time, .zero)
                state = .tracking(startAt: s.time, translation: .zero, fingers: s.count)
            }
        case (.tracking(let startAt, let t0, _), .frame(let s)):
            let t = t0 + s.delta
            tracker.add(s.time, t)
            let settled = s.time >= startAt + thresholds.fingerSettle
            if s.count == 0 {
                state = .failed(.liftedTooSoon)
            } else if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if movedAlongOtherAxis(t, s.scale) {
                state = .failed(.wrongAxis)
            } else if s.count < minFingers {
                state = settled ? .failed(.tooFewFingers) : .tracking(startAt: startAt, translation: t, fingers: s.count)
            } else if travel(t, s.scale) >= thresholds.panSlop
                && (axis == .free || s.scale.length(t) >= thresholds.axisLockThreshold)
            {
                state = .ready(translation: t, fingers: s.count, position: s.centroid)
            } else {
                state = .tracking(startAt: startAt, translation: t, fingers: s.count)
            }
        case (.tracking, .deadline):
            state = .failed(.tooFewFingers)
        case (.ready(let t0, let fingers, _), .frame(let s)):
            let t = t0 + s.delta
            tracker.add(s.time, t)
            if s.count == 0 {
                state = .readyLifted(translation: t, fingers: fingers, position: s.centroid, liftedAt: s.time)
            } else {
                state = .ready(translation: t, fingers: max(fingers, s.count), position: s.centroid)
            }
        case (.active(let t0, let fingers, _), .frame(let s)):
            let t = t0 + s.delta
            tracker.add(s.time, t)
            if s.count < minFingers {
                state = .ended
                return Emissions(event(.ended, s.time, t, fingers, s.centroid))
            }
            let most = max(fingers, s.count)
            state = .active(translation: t, fingers: most, position: s.centroid)
            if project(s.delta) != .zero { return Emissions(event(.changed, s.time, t, most, s.centroid)) }
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
        case .ready(let t, let fingers, let position):
            state = .active(translation: t, fingers: fingers, position: position)
            return Emissions(event(.began, time, t, fingers, position))
        case .readyLifted(let t, let fingers, let position, let liftedAt):
            state = .ended
            return Emissions(
                event(.began, time, t, fingers, position, velocityAt: liftedAt),
                event(.ended, time, t, fingers, position, velocityAt: liftedAt))
        case .idle, .tracking, .active, .ended, .failed:
            return .none
        }
    }

    mutating func reject(at time: Timestamp, because reason: FailReason) -> Emissions {
        if case .active(let t, let fingers, let position) = state {
            state = .failed(reason)
            return Emissions(event(.cancelled, time, t, fingers, position))
        }
        state = .failed(reason)
        return .none
    }
}
