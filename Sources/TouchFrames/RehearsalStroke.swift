import GestureEngine

/// A made-up stroke in a panel's own units and protocol, which the daemon runs through a new
/// panel's route before its first touch (`Rehearsal`): one finger lands, drags across a third
/// of the panel and lifts; then two land and spread apart (a pinch) and lift. Each frame 8 ms
/// after the last. Its positions stay inside the axes' ranges, so every decoder reads it as a
/// real panel's stream (protocol B, protocol A or single-touch, as `description` reports).
public enum RehearsalStroke {
    /// The drag's frames, then the pinch's: enough for a pan, a swipe and a pinch to begin.
    public static let dragFrames = 24
    public static let pinchFrames = 16
    static let frameNanoseconds: Int64 = 8_000_000

    /// The stroke's events from `start`; empty for a panel with no position axes.
    public static func events(for description: DeviceDescription, from start: Timestamp) -> [InputEvent] {
        guard let kind = description.touchKind, let axes = description.positionAxes else { return [] }
        var out = Writer(kind: kind, protocolA: description.isProtocolA, x: axes.x, y: axes.y, time: start)
        // The other axes a finger's frames carry, where the panel has them: a finger's size (a
        // twentieth of the range: no palm), pressure (mid-range), the tool (a finger).
        let extra: [(UInt16, Double)] = kind == .singleTouch
            ? [(Evdev.ABS_PRESSURE, 0.5)]
            : [(Evdev.ABS_MT_TOUCH_MAJOR, 0.05), (Evdev.ABS_MT_PRESSURE, 0.5), (Evdev.ABS_MT_TOOL_TYPE, 0)]
        out.landing = extra.compactMap { code, f in description.axes[code].map { (code, Writer.position(f, $0)) } }
        // The drag: 40 % → 73 % of the width, at mid-height.
        for k in 0...dragFrames {
            out.frame([(0.4 + 0.33 * Double(k) / Double(dragFrames), 0.5)])
        }
        out.frame([])
        // The pinch: two fingers from 45 % and 55 % of the width to 25 % and 75 % (one finger
        // on a single-touch panel, which has no second).
        for k in 0...pinchFrames {
            let spread = 0.05 + 0.2 * Double(k) / Double(pinchFrames)
            out.frame([(0.5 - spread, 0.45), (0.5 + spread, 0.55)])
        }
        out.frame([])
        return out.events
    }

    /// The frames as the panel's protocol writes them.
    struct Writer {
        let kind: DeviceDescription.TouchKind
        let protocolA: Bool
        let x: AbsAxis, y: AbsAxis
        var time: Timestamp
        var events: [InputEvent] = []
        /// The other axes' values, sent with each new contact (protocol A: with every contact).
        var landing: [(UInt16, Int32)] = []
        /// Fingers down after the last frame, and the next tracking id.
        private var down = 0
        private var nextID: Int32 = 1

        init(kind: DeviceDescription.TouchKind, protocolA: Bool, x: AbsAxis, y: AbsAxis, time: Timestamp) {
            (self.kind, self.protocolA, self.x, self.y, self.time) = (kind, protocolA, x, y, time)
        }

        /// One frame: `fingers` (fractions of the width and height) down, the rest lifted.
        mutating func frame(_ fingers: [(Double, Double)]) {
            let fingers = kind == .singleTouch ? Array(fingers.prefix(1)) : fingers
            for (slot, (fx, fy)) in fingers.enumerated() {
                let px = Self.position(fx, x), py = Self.position(fy, y)
                switch (kind, protocolA) {
                case (.singleTouch, _):
                    if down == 0 { for (code, v) in landing { add(Evdev.EV_ABS, code, v) } }
                    add(Evdev.EV_ABS, Evdev.ABS_X, px)
                    add(Evdev.EV_ABS, Evdev.ABS_Y, py)
                case (.multitouch, true):
                    for (code, v) in landing { add(Evdev.EV_ABS, code, v) }
                    add(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, px)
                    add(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, py)
                    add(Evdev.EV_SYN, Evdev.SYN_MT_REPORT, 0)
                case (.multitouch, false):
                    add(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(slot))
                    if slot >= down {
                        add(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, nextID)
                        nextID += 1
                        for (code, v) in landing { add(Evdev.EV_ABS, code, v) }
                    }
                    add(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, px)
                    add(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, py)
                }
            }
            if kind == .multitouch && !protocolA {
                for slot in fingers.count..<max(down, fingers.count) {
                    add(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(slot))
                    add(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
                }
            }
            if protocolA && fingers.isEmpty { add(Evdev.EV_SYN, Evdev.SYN_MT_REPORT, 0) }
            if (down == 0) != fingers.isEmpty { add(Evdev.EV_KEY, Evdev.BTN_TOUCH, fingers.isEmpty ? 0 : 1) }
            add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
            down = fingers.count
            time = Timestamp(nanoseconds: time.nanoseconds + RehearsalStroke.frameNanoseconds)
        }

        private mutating func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: time, type: type, code: code, value: value))
        }

        /// `fraction` of the way along `axis`, inside its range.
        static func position(_ fraction: Double, _ axis: AbsAxis) -> Int32 {
            let span = Double(axis.maximum) - Double(axis.minimum)
            let v = Double(axis.minimum) + (span * fraction).rounded()
            return Int32(max(Double(axis.minimum), min(Double(axis.maximum), v)))
        }
    }
}
