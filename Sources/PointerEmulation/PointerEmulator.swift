import GestureEngine

/// Turns the gestures of pointer regions into what a mouse would do (`PointerOp`s): taps click,
/// a long press right-clicks or starts a drag, a pan scrolls the wheel and, lifted while moving,
/// coasts (`KineticTail`), a pinch zooms with Ctrl + wheel. A value with no I/O and no clock, as
/// the engine is: gesture events and deadlines in, ops out (appended to the caller's buffer).
///
/// There is one pointer: one gesture at a time holds it (a scroll, a drag, a zoom, from its
/// began to its end); what other gestures would do meanwhile is left undone.
public struct PointerEmulator: Sendable {
    /// The pointer regions' mappings; a region is an index into them.
    public let mappings: [PointerMapping]
    /// The panel's millimetres per pixel (the double-click slop is in mm).
    private let scale: MillimetersPerPixel

    /// The gesture holding the pointer, by its event id.
    enum Hold: Hashable, Sendable {
        case none
        case scrolling(id: UInt64, region: Int, wheel: WheelAccumulator)
        case dragging(id: UInt64, region: Int, button: PointerButton)
        case zooming(id: UInt64, region: Int, steps: Int)
    }
    private var hold = Hold.none
    /// The last click, for the double-click rule.
    private var lastClick: (position: PixelPoint, time: Timestamp, button: PointerButton)?

    public init(mappings: [PointerMapping], scale: MillimetersPerPixel) {
        self.mappings = mappings
        self.scale = scale
    }

    /// When the kinetic tail's next tick is due. Stored (kept after every change of the tail):
    /// the pipeline asks it every frame.
    public private(set) var nextDeadline: Timestamp?
    private var tail: KineticTail? {
        didSet { nextDeadline = tail?.next }
    }
    /// No gesture holds the pointer and no tail is turning the wheel.
    public var isIdle: Bool { hold == .none && tail == nil }

    /// Fires the kinetic tail's ticks due by `time`, each at its own time.
    public mutating func advance(to time: Timestamp, into ops: inout [PointerOp]) {
        while let t = tail?.next, t <= time {
            guard let tick = tail!.tick() else { break }
            if let w = tick.wheel { ops.append(PointerOp(time: tick.time, kind: .wheel(w), region: tail!.region)) }
            if tail!.next == nil { tail = nil }
        }
    }

    /// A finger landed at `position` in pointer region `region`: the kinetic tail stops at once
    /// (there is one pointer: turning on, it would scroll what lies under the finger), and,
    /// unless a gesture holds the pointer, the pointer goes to the finger (hover, as a mouse
    /// brought there would: the app's hover state shows under the finger, and the compositor has
    /// a pointer event before the click; weston 10 gives its seat a pointer only at a pointer's
    /// first event, so a click as the first event would reach no client). True when it stopped
    /// a tail turning in `region` (a touch that stops a scroll, whose tap clicks nothing).
    public mutating func touchDown(inRegion region: Int, at position: PixelPoint, time: Timestamp, into ops: inout [PointerOp]) -> Bool {
        let stopped = tail?.region == region
        tail = nil
        guard region >= 0, region < mappings.count, hold == .none else { return stopped }
        ops.append(PointerOp(time: time, kind: .move(position), region: region))
        return stopped
    }

    /// The region whose kinetic tail turns the wheel now, or -1.
    public var tailRegion: Int { tail?.region ?? -1 }

    /// A finger landed outside every pointer region (or in a region nested in one that is not
    /// the pointer's): the kinetic tail stops, as a touch on a scrolling list stops it.
    public mutating func stopTail() { tail = nil }

    /// A gesture event of region `region` playing `role` (nil: a gesture of no role, or of an
    /// earlier configuration, which can only carry on what it already holds).
    public mutating func handle(_ e: GestureEvent, role: PointerRole?, region: Int, into ops: inout [PointerOp]) {
        if carriesOn(e, into: &ops) { return }
        guard let role, region >= 0, region < mappings.count, hold == .none else { return }
        guard e.phase == .began || e.phase == .recognized else { return }
        tail = nil
        let m = mappings[region]
        switch role {
        case .tap: if let b = m.tap { click(b, at: e.position, time: e.time, region: region, into: &ops) }
        case .twoFingerTap: if let b = m.twoFingerTap { click(b, at: e.position, time: e.time, region: region, into: &ops) }
        case .longPress:
            if m.longPress == .drag {
                press(.left, at: e.position, id: e.id, time: e.time, region: region, into: &ops)
            } else if let b = m.longPress.button {
                click(b, at: e.position, time: e.time, region: region, into: &ops)
            }
        case .pan:
            // The pointer goes where the finger landed: the wheel scrolls what is under it.
            let landing = e.position - e.translation
            switch m.pan {
            case .scroll:
                ops.append(PointerOp(time: e.time, kind: .move(landing), region: region))
                hold = .scrolling(id: e.id, region: region, wheel: WheelAccumulator(pixelsPerNotch: m.pixelsPerNotch))
                _ = carriesOn(e, into: &ops)
            case .drag:
                press(.left, at: landing, id: e.id, time: e.time, region: region, into: &ops)
                ops.append(PointerOp(time: e.time, kind: .move(e.position), region: region))
            case .none: break
            }
        case .pinch:
            guard m.pinch == .zoom else { return }
            ops.append(PointerOp(time: e.time, kind: .move(e.position), region: region))
            hold = .zooming(id: e.id, region: region, steps: 0)
            _ = carriesOn(e, into: &ops)
        }
    }

    /// The event of the gesture holding the pointer: the scroll, the drag or the zoom goes on,
    /// or ends (a scroll lifted while moving coasts on). False for any other event.
    private mutating func carriesOn(_ e: GestureEvent, into ops: inout [PointerOp]) -> Bool {
        let ends = e.phase == .ended || e.phase == .cancelled
        switch hold {
        case .none: return false
        case .scrolling(let id, let region, var wheel):
            guard id == e.id else { return false }
            if let w = wheel.turn(to: e.translation) { ops.append(PointerOp(time: e.time, kind: .wheel(w), region: region)) }
            hold = ends ? .none : .scrolling(id: id, region: region, wheel: wheel)
            let m = mappings[region]
            if e.phase == .ended && m.kinetic && scale.length(e.velocity).value >= m.kineticMinSpeed {
                tail = KineticTail(region: region, at: e.time, velocity: e.velocity, travel: e.translation, wheel: wheel, mapping: m)
            }
        case .dragging(let id, let region, let button):
            guard id == e.id else { return false }
            ops.append(PointerOp(time: e.time, kind: .move(e.position), region: region))
            if ends {
                ops.append(PointerOp(time: e.time, kind: .release(button), region: region))
                hold = .none
            }
        case .zooming(let id, let region, let steps):
            guard id == e.id else { return false }
            // At the pinch's end the notches an event's cap held back follow at once.
            let cap = e.phase == .ended ? 2 * Self.maxZoomSteps : Self.maxNotchesPerEvent
            let to = e.phase == .cancelled ? steps : Self.zoomSteps(scale: e.scale, from: steps, step: mappings[region].zoomStep, cap: cap)
            if to != steps {
                ops.append(PointerOp(time: e.time, kind: .ctrl(pressed: true), region: region))
                let notch: Int32 = to > steps ? 1 : -1
                for _ in 0..<abs(to - steps) {
                    let wheel = PointerWheel(vertical: PointerWheel.unitsPerNotch * notch, horizontal: 0, verticalNotches: notch)
                    ops.append(PointerOp(time: e.time, kind: .wheel(wheel), region: region))
                }
                ops.append(PointerOp(time: e.time, kind: .ctrl(pressed: false), region: region))
            }
            hold = ends ? .none : .zooming(id: id, region: region, steps: to)
        }
        return true
    }

    /// Zoom notches one pinch event may send, and the most a pinch may stand for either way:
    /// the work of an event stays bounded whatever the scale or the step (at the least step the
    /// config takes, 1.05, 16 notches are a scale of 2.2 from the last event).
    static let maxNotchesPerEvent = 16
    static let maxZoomSteps = 128

    /// The zoom steps a pinch at `scale` stands for, from `steps`: one more each time the scale
    /// passes the next power of `step`, one fewer each time it falls back past the one below;
    /// at most `cap` from `steps` (the rest follow with the next events), and within
    /// ±`maxZoomSteps`. A scale that is not a finite positive number changes nothing.
    static func zoomSteps(scale: Double, from steps: Int, step: Double, cap: Int = maxNotchesPerEvent) -> Int {
        guard scale.isFinite, scale > 0, step.isFinite, step > 1 else { return steps }
        func level(_ n: Int) -> Double {
            var v = 1.0
            for _ in 0..<min(abs(n), maxZoomSteps + 1) { v = n > 0 ? v * step : v / step }
            return v
        }
        var n = steps
        for _ in 0..<cap {
            guard n < maxZoomSteps, scale >= level(n + 1) else { break }
            n += 1
        }
        guard n == steps else { return n }
        for _ in 0..<cap {
            guard n > -maxZoomSteps, scale <= level(n - 1) else { break }
            n -= 1
        }
        return n
    }

    /// Moves to `p` and clicks `button` there; a second click soon after and close by lands where
    /// the first did.
    private mutating func click(_ button: PointerButton, at p: PixelPoint, time: Timestamp, region: Int, into ops: inout [PointerOp]) {
        var at = p
        let m = mappings[region]
        if let last = lastClick, last.button == button, time - last.time <= m.doubleClickInterval,
            scale.length(p - last.position) <= m.doubleClickSlop
        {
            at = last.position
        }
        lastClick = (at, time, button)
        ops.append(PointerOp(time: time, kind: .move(at), region: region))
        ops.append(PointerOp(time: time, kind: .press(button), region: region))
        ops.append(PointerOp(time: time, kind: .release(button), region: region))
    }

    /// Moves to `p` and holds `button` down for gesture `id` until it ends.
    private mutating func press(_ button: PointerButton, at p: PixelPoint, id: UInt64, time: Timestamp, region: Int, into ops: inout [PointerOp]) {
        ops.append(PointerOp(time: time, kind: .move(p), region: region))
        ops.append(PointerOp(time: time, kind: .press(button), region: region))
        hold = .dragging(id: id, region: region, button: button)
        lastClick = nil
    }
}
