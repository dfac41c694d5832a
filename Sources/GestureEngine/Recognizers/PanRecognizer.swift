/// A drag of `minFingers...maxFingers` fingers, optionally locked to one axis. Begins once the
/// centroid has moved `panSlop`; reports translation (px, since the fingers landed),
/// least-squares velocity (px/s), and as `fingers` the most fingers down at once since it began.
struct PanRecognizer: Recognizer {
    let minFingers: Int
    let maxFingers: Int
    let axis: PanAxis
    let thresholds: Thresholds

    /// While deciding: when it started, how far the centroid moved, how many fingers are down now,
    /// and whether the axis lock has been decided (in this pan's favour; against it the pan fails).
    struct Tracking {
        var startAt: Timestamp
        var translation: PixelPoint
        var fingers: Int
        var lock: AxisLock
    }

    /// The axis lock is a decision taken once per sequence, as SwiftUI's and UIScrollView's
    /// directional lock are: when the centroid has first travelled `axisLockThreshold`, the axis
    /// with the larger movement wins. From then on the winner keeps the drag whatever the finger
    /// does (its movement on the other axis is reported as 0) and the loser fails. A free pan has
    /// nothing to decide and starts `won`.
    enum AxisLock {
        case undecided
        case won
        case lost
    }

    /// Once past the slop: translation, the most fingers so far, the centroid.
    struct Drag {
        var translation: PixelPoint
        var fingers: Int
        var position: PixelPoint
    }

    private var state = ContinuousLifecycle<Tracking, Drag>.idle
    private var tracker: VelocityTracker

    init(minFingers: Int, maxFingers: Int, axis: PanAxis, thresholds: Thresholds) {
        self.minFingers = minFingers
        self.maxFingers = maxFingers
        self.axis = axis
        self.thresholds = thresholds
        tracker = VelocityTracker(horizon: thresholds.velocityHorizon)
    }

    static let transitions: [TransitionRow] =
        [
            (.idle, .contactBegan, .tracking), (.idle, .contactBegan, .failed),
            (.tracking, .contactBegan, .tracking), (.tracking, .contactBegan, .ready),
            (.tracking, .contactBegan, .failed), (.tracking, .contactMoved, .tracking), (.tracking, .contactReplaced, .tracking),
            (.tracking, .contactMoved, .ready), (.tracking, .contactMoved, .failed),
            (.tracking, .contactEnded, .tracking), (.tracking, .contactEnded, .ready),
            (.tracking, .contactEnded, .failed), (.tracking, .deadline, .failed),
        ] + ContinuousLifecycle<Tracking, Drag>.sharedTransitions(tracking: .tracking)

    var stateName: RecognizerStateName { state.name(tracking: .tracking) }
    var status: RecognizerStatus { state.status }
    var failure: FailReason? { state.failure }

    var deadline: Timestamp? {
        if case .tracking(let t) = state, t.fingers < minFingers { return t.startAt + thresholds.fingerSettle }
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

    /// Velocity is taken at the lift when the arena let the pan go only after it.
    /// (For accept and reject, which take it as a closure; frames use the one below.)
    private func event(_ phase: GesturePhase, _ time: Timestamp, _ d: Drag, _ liftedAt: Timestamp? = nil) -> GestureEvent {
        var tracker = tracker
        return event(phase, time, d, velocity: tracker.velocity(at: liftedAt ?? time))
    }

    /// The velocity is read where it lies (`mutating`): read from a non-mutating method, the
    /// 512-byte tracker was copied first, on every frame of a pan.
    private mutating func event(_ phase: GesturePhase, _ time: Timestamp, _ d: Drag) -> GestureEvent {
        event(phase, time, d, velocity: tracker.velocity(at: time))
    }

    private func event(_ phase: GesturePhase, _ time: Timestamp, _ d: Drag, velocity: PixelPoint) -> GestureEvent {
        var e = GestureEvent(kind: .pan, phase: phase, time: time, position: d.position)
        e.fingers = d.fingers
        e.translation = project(d.translation)
        e.velocity = project(velocity)
        e.axis = axis
        return e
    }

    /// The lock for a movement `t` since touch-down, taken once: undecided until the centroid
    /// has travelled the threshold, then won when this pan's axis dominates (a tie goes to the
    /// pan), lost otherwise. Never looked at again once decided.
    private func decideLock(_ t: PixelPoint, _ scale: MillimetersPerPixel) -> AxisLock {
        guard scale.length(t) >= thresholds.axisLockThreshold else { return .undecided }
        let h = abs(scale.horizontal(t).value), v = abs(scale.vertical(t).value)
        return (axis == .horizontal ? h >= v : v >= h) ? .won : .lost
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
                tracker.reset()
                tracker.add(s.time, .zero)
                state = .tracking(
                    Tracking(startAt: s.time, translation: .zero, fingers: s.count, lock: axis == .free ? .won : .undecided))
            }
        case (.tracking(var k), .contact(_, let frame)):
            let s = frame.pointee
            k.translation += s.delta
            k.fingers = s.count
            tracker.add(s.time, k.translation)
            if k.lock == .undecided { k.lock = decideLock(k.translation, s.scale) }
            if s.count == 0 {
                state = .failed(.liftedTooSoon)
            } else if s.count > maxFingers {
                state = .failed(.tooManyFingers)
            } else if k.lock == .lost {
                state = .failed(.wrongAxis)
            } else if s.count < minFingers {
                state = s.time >= k.startAt + thresholds.fingerSettle ? .failed(.tooFewFingers) : .tracking(k)
            } else if k.lock == .won && travel(k.translation, s.scale) >= thresholds.panSlop {
                state = .ready(Drag(translation: k.translation, fingers: s.count, position: s.centroid))
            } else {
                state = .tracking(k)
            }
        case (.tracking, .deadline):
            state = .failed(.tooFewFingers)
        case (.ready(var d), .contact(_, let frame)):
            let s = frame.pointee
            d.translation += s.delta
            tracker.add(s.time, d.translation)
            if s.count == 0 {
                d.position = s.centroid
                state = .readyLifted(d, liftedAt: s.time)
            } else {
                d.fingers = max(d.fingers, s.count)
                d.position = s.centroid
                state = .ready(d)
            }
        case (.active(var d), .contact(_, let frame)):
            let s = frame.pointee
            d.translation += s.delta
            d.position = s.centroid
            tracker.add(s.time, d.translation)
            if s.count < minFingers {
                state = .ended
                return Emissions(event(.ended, s.time, d))
            }
            d.fingers = max(d.fingers, s.count)
            state = .active(d)
            if project(s.delta) != .zero { return Emissions(event(.changed, s.time, d)) }
        case (.readyLifted, .contact), (.ended, .contact), (.failed, .contact):
            break
        case (.idle, .deadline), (.ready, .deadline), (.readyLifted, .deadline), (.active, .deadline),
            (.ended, .deadline), (.failed, .deadline):
            state = .failed(.invalidInput(state: stateName, input: input.name))
        }
        return .none
    }

}
