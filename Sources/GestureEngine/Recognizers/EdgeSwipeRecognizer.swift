/// A drag that starts within `edgeBand` of a screen edge and moves inward. Continuous: begins
/// after `edgeMinDistance` of inward travel, then reports translation until the lift.
struct EdgeSwipeRecognizer: ContinuousRecognizer {
    let fingers: Int
    /// Enabled edges as a bit set over `ScreenEdge.allCases`.
    let edges: UInt8
    let screen: PixelRect
    let thresholds: Thresholds

    struct Drag {
        var edge: ScreenEdge
        var translation: PixelPoint
        var position: PixelPoint
        var fingers: Int
    }

    typealias Tracking = Drag
    typealias Shape = Drag
    var state = ContinuousLifecycle<Drag, Drag>.idle
    var maxFingers: Int { fingers }

    init(fingers: Int, edges: Set<ScreenEdge>, screen: PixelRect, thresholds: Thresholds) {
        self.fingers = fingers
        var mask: UInt8 = 0
        for (i, e) in ScreenEdge.allCases.enumerated() where edges.isEmpty || edges.contains(e) {
            mask |= 1 << UInt8(i)
        }
        self.edges = mask
        self.screen = screen
        self.thresholds = thresholds
    }

    static let transitions: [TransitionRow] =
        TransitionRows.tracking + [
            (.tracking, .contactMoved, .failed), (.tracking, .contactEnded, .failed),
            (.tracking, .contactEnded, .tracking),
        ] + ContinuousLifecycle<Drag, Drag>.sharedTransitions(tracking: .tracking, fixedFingers: true)


    var deadline: Timestamp? { nil }

    mutating func reset() { state = .idle }

    /// The enabled edge nearest to `p`, if `p` lies within the edge band of it.
    private func edge(at p: PixelPoint, _ scale: MillimetersPerPixel) -> ScreenEdge? {
        var best: ScreenEdge?
        var bestDistance = thresholds.edgeBand.value
        for (i, e) in ScreenEdge.allCases.enumerated() where edges & (1 << UInt8(i)) != 0 {
            let d: Double
            switch e {
            case .left: d = (p.x - screen.x) * scale.x
            case .right: d = (screen.x + screen.width - p.x) * scale.x
            case .top: d = (p.y - screen.y) * scale.y
            case .bottom: d = (screen.y + screen.height - p.y) * scale.y
            }
            if d <= bestDistance {
                best = e
                bestDistance = d
            }
        }
        return best
    }

    /// Travel (mm) inward from the edge and along it.
    private func inwardAndAlong(_ d: Drag, _ scale: MillimetersPerPixel) -> (inward: Double, along: Double) {
        let h = scale.horizontal(d.translation).value, v = scale.vertical(d.translation).value
        switch d.edge {
        case .left: return (h, v)
        case .right: return (-h, v)
        case .top: return (v, h)
        case .bottom: return (-v, h)
        }
    }

    func event(_ phase: GesturePhase, _ time: Timestamp, _ d: Drag, _: Timestamp?) -> GestureEvent {
        var e = GestureEvent(kind: .edgeSwipe, phase: phase, time: time, position: d.position)
        e.fingers = d.fingers
        e.translation = d.translation
        e.edge = d.edge
        return e
    }

    func follow(_ d: Drag, _ s: borrowing FrameSummary) -> Drag {
        var next = d
        next.translation += s.delta
        next.position = s.centroid
        next.fingers = max(next.fingers, s.count)
        return next
    }

    func begin(_ s: borrowing FrameSummary) -> ContinuousLifecycle<Drag, Drag> {
        guard let e = edge(at: s.firstContact, s.scale) else { return .failed(.notAtEdge) }
        return .tracking(Drag(edge: e, translation: .zero, position: s.centroid, fingers: s.count))
    }

    func track(_ d0: Drag, _ s: borrowing FrameSummary) -> ContinuousLifecycle<Drag, Drag> {
        let d = follow(d0, s)
        let (inward, along) = inwardAndAlong(d, s.scale)
        let minimum = thresholds.edgeMinDistance.value
        if s.count == 0 { return .failed(.liftedTooSoon) }
        if s.count > fingers { return .failed(.tooManyFingers) }
        let count = s.count
        if inward >= minimum && inward >= abs(along) && count == fingers { return .ready(d) }
        if abs(along) >= minimum || -inward >= minimum { return .failed(.wrongDirection) }
        return .tracking(d)
    }

    func ends(_ s: borrowing FrameSummary) -> Bool { s.count == 0 }
    func changes(_ s: borrowing FrameSummary) -> Bool { s.delta != .zero }
}
