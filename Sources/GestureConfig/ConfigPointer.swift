import GestureEngine
import PointerEmulation

/// A region whose gestures drive the virtual pointer (`emulate = "pointer"`), and how.
public struct PointerRegion: Hashable, Sendable {
    public var name: String
    public var mapping: PointerMapping
    /// The line of its `emulate` key (for check-config's warnings).
    public var line: Int

    public init(name: String, mapping: PointerMapping, line: Int = 0) {
        self.name = name
        self.mapping = mapping
        self.line = line
    }

    /// What each gesture does, for check-config: `tap: left click, long press: right click, …`.
    /// Only the roles some gesture of the region plays (`roles`: its gestures' `PointerRole`s;
    /// nil: every role the mapping names).
    public func summary(roles: Set<PointerRole>? = nil) -> String {
        let m = mapping
        let has = { (r: PointerRole) in roles?.contains(r) ?? true }
        var parts: [String] = []
        if let b = m.tap, has(.tap) { parts.append("tap: \(b.rawValue) click") }
        if let b = m.twoFingerTap, has(.twoFingerTap) { parts.append("two-finger tap: \(b.rawValue) click") }
        switch m.longPress {
        case _ where !has(.longPress): break
        case .drag: parts.append("long press: left drag")
        case .none: break
        default: parts.append("long press: \(m.longPress.rawValue) click")
        }
        if m.pan == .scroll && has(.pan) {
            parts.append("pan: wheel, \(format(m.pixelsPerNotch)) px a notch\(m.kinetic ? ", kinetic" : "")")
        } else if m.pan == .drag && has(.pan) {
            parts.append("pan: left drag")
        }
        if m.pinch == .zoom && has(.pinch) { parts.append("pinch: Ctrl+wheel zoom") }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}

/// What a region stands in for (`emulate`).
enum Emulation: String, CaseIterable {
    case none
    case pointer
}

/// `emulate` and `[region.pointer]`: a region's mapping to the virtual pointer, and the gestures
/// it needs when the region names none of its own.
extension Loader {
    /// The region's mapping, or nil when it emulates nothing. `gestures` (with their rule lines)
    /// gets the pointer's set when the region has none.
    func readPointer(
        _ r: Scope, thresholds: Thresholds, priority: Priority, gestures: inout [GestureSpec],
        lines: inout [(header: Int, requires: Int?, simultaneous: Int?)]
    ) throws(ConfigError) -> PointerMapping? {
        let table = try r.subtable("pointer")
        guard try r.choice("emulate", Emulation.self) == .pointer else {
            if let table { throw table.fail(nil, "[region.pointer] applies to a region with emulate = \"pointer\"") }
            return nil
        }
        var m = PointerMapping()
        m.doubleClickInterval = thresholds.multiTapInterval
        m.doubleClickSlop = thresholds.multiTapSlop
        m.kineticMinSpeed = thresholds.swipeMinVelocity
        if let p = table { try readMapping(p, into: &m) }
        if gestures.isEmpty {
            gestures = Self.pointerGestures(m, thresholds: thresholds, priority: priority)
            let line = r.table.line(of: "emulate")
            lines = gestures.map { _ in (line, nil, nil) }
        }
        return m
    }

    private func readMapping(_ p: Scope, into m: inout PointerMapping) throws(ConfigError) {
        try p.checkKeys([
            "tap", "two_finger_tap", "long_press", "pan", "pinch", "axis_lock", "pixels_per_notch", "kinetic", "deceleration",
            "kinetic_limit", "kinetic_min_speed", "zoom_step",
        ])
        if let c = try p.choice("tap", Click.self) { m.tap = c.button }
        if let c = try p.choice("two_finger_tap", Click.self) { m.twoFingerTap = c.button }
        m.longPress = try p.choice("long_press", PointerMapping.LongPress.self) ?? m.longPress
        m.pan = try p.choice("pan", PointerMapping.Pan.self) ?? m.pan
        m.pinch = try p.choice("pinch", PointerMapping.Pinch.self) ?? m.pinch
        m.axisLock = try p.bool("axis_lock") ?? m.axisLock
        // A notch a pixel at most (120 wheel units a pixel), a notch a screen at least.
        m.pixelsPerNotch = try p.number("pixels_per_notch", in: 1...1_000, unit: "px") ?? m.pixelsPerNotch
        m.kinetic = try p.bool("kinetic") ?? m.kinetic
        if let d = try p.number("deceleration", above: 0, atMost: 1) {
            guard d >= 0.9 else { throw p.fail("deceleration", "'deceleration' is the velocity kept per ms, from 0.9 to 1 (UIScrollView: 0.998 normal, 0.99 fast), found \(format(d))") }
            m.deceleration = d
        }
        if let ms = try p.number("kinetic_limit", atLeast: 0, atMost: 60_000) { m.kineticLimit = .nanoseconds(Int64(ms * 1e6)) }
        m.kineticMinSpeed = try p.number("kinetic_min_speed", atLeast: 0, atMost: 100_000) ?? m.kineticMinSpeed
        // Browsers step zoom by 10 to 25 %; under 5 % a pinch would be dozens of notches.
        if let z = try p.number("zoom_step", in: 1.05...4) { m.zoomStep = z }
    }

    /// A click's button, or none.
    enum Click: String, CaseIterable {
        case left, right, middle, none
        var button: PointerButton? { PointerButton(rawValue: rawValue) }
    }

    /// The gestures a pointer region gets when it names none: those its mapping uses, each
    /// recognized at once (a tap does not wait for a double tap: two taps are two clicks, which
    /// the compositor makes a double click).
    static func pointerGestures(_ m: PointerMapping, thresholds: Thresholds, priority: Priority) -> [GestureSpec] {
        var out: [GestureSpec] = []
        if m.tap != nil { out.append(GestureSpec(.tap, name: "tap", fingers: 1, maxFingers: 1, thresholds: thresholds)) }
        if m.twoFingerTap != nil { out.append(GestureSpec(.tap, name: "two_finger_tap", fingers: 2, maxFingers: 2, thresholds: thresholds)) }
        if m.longPress != .none { out.append(GestureSpec(.longPress, name: "long_press", fingers: 1, maxFingers: 1, thresholds: thresholds)) }
        if m.pan != .none {
            if m.axisLock {
                var v = GestureSpec(.pan, name: "pan_vertical", fingers: 1, maxFingers: 1, thresholds: thresholds)
                v.axis = .vertical
                var h = GestureSpec(.pan, name: "pan_horizontal", fingers: 1, maxFingers: 1, thresholds: thresholds)
                h.axis = .horizontal
                out += [v, h]
            } else {
                out.append(GestureSpec(.pan, name: "pan", fingers: 1, maxFingers: 1, thresholds: thresholds))
            }
        }
        if m.pinch == .zoom {
            // A one-finger pan need not wait for the pinch to see a second finger (finger_settle):
            // either may run; a second finger ends the pan and starts the pinch.
            for i in out.indices where out[i].kind == .pan { out[i].simultaneousWith = ["pinch"] }
            out.append(GestureSpec(.pinch, name: "pinch", fingers: 2, maxFingers: 5, thresholds: thresholds))
        }
        for i in out.indices { out[i].priority = priority }
        return out
    }
}
