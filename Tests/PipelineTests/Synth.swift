import GestureEngine
import TouchFrames

/// Writes the project's own synthetic recordings: a virtual 11.6-inch panel (3840 × 2160 units,
/// 15 units/mm = 256 × 144 mm) on a 1920 × 1080 screen, driven in screen pixels and milliseconds.
struct Synth {
    static var panel: DeviceDescription {
        var d = DeviceDescription.multitouchPanel(
            name: "touchgestured virtual panel", maxX: 3839, maxY: 2159, slots: 10, resolution: 15)
        d.bustype = 0x06  // BUS_VIRTUAL
        d.vendor = 0x7467
        d.product = 0x0001
        d.version = 1
        d.codes[Evdev.EV_SYN] = [0, 1, 2, 3]
        return d
    }

    var events: [InputEvent] = []
    var microseconds: Int64 = 0
    var positions: [Int32: (Double, Double)] = [:]
    var nextTrackingID: Int32 = 100
    var slot: Int32 = -1
    var touching = false

    var recording: Recording { Recording(description: Self.panel, events: events) }
    var text: String { Evemu.format(recording) }

    mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: Timestamp(nanoseconds: microseconds * 1000), type: type, code: code, value: value))
    }

    mutating func select(_ s: Int32) {
        if slot != s {
            emit(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, s)
            slot = s
        }
    }

    static func units(_ px: Double) -> Int32 { Int32((px * 2).rounded()) }

    mutating func down(_ s: Int32, _ p: (Double, Double)) {
        select(s)
        emit(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, nextTrackingID)
        nextTrackingID += 1
        emit(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, Self.units(p.0))
        emit(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, Self.units(p.1))
        positions[s] = p
    }

    mutating func move(_ s: Int32, _ p: (Double, Double)) {
        guard let old = positions[s] else { return }
        select(s)
        if Self.units(old.0) != Self.units(p.0) { emit(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, Self.units(p.0)) }
        if Self.units(old.1) != Self.units(p.1) { emit(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, Self.units(p.1)) }
        positions[s] = p
    }

    mutating func up(_ s: Int32) {
        select(s)
        emit(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
        positions[s] = nil
    }

    mutating func palm(_ s: Int32) {
        select(s)
        emit(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM)
    }

    /// Ends the frame (BTN_TOUCH and the single-touch axes follow the first contact, as drivers do).
    mutating func sync() {
        let down = !positions.isEmpty
        if down != touching {
            emit(Evdev.EV_KEY, Evdev.BTN_TOUCH, down ? 1 : 0)
            touching = down
        }
        if let first = positions.keys.min(), let p = positions[first] {
            emit(Evdev.EV_ABS, Evdev.ABS_X, Self.units(p.0))
            emit(Evdev.EV_ABS, Evdev.ABS_Y, Self.units(p.1))
        }
        emit(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
    }

    mutating func wait(_ ms: Double) { microseconds += Int64(ms * 1000) }

    /// Moves the given slots together by `d` px over `ms`, one frame every `every` ms.
    mutating func drag(_ slots: [Int32], by d: (Double, Double), over ms: Double, every: Double = 10) {
        let steps = max(1, Int(ms / every))
        for _ in 0..<steps {
            wait(ms / Double(steps))
            for s in slots {
                if let p = positions[s] { move(s, (p.0 + d.0 / Double(steps), p.1 + d.1 / Double(steps))) }
            }
            sync()
        }
    }

    mutating func tap(_ p: (Double, Double), hold: Double = 70) {
        down(0, p)
        sync()
        wait(hold)
        up(0)
        sync()
    }
}

/// The synthetic scenarios: name, the config they run under (a file in examples/, or nil for
/// the built-in default), and the hand's script.
enum Scenarios {
    static let all: [(name: String, config: String?, build: @Sendable (inout Synth) -> Void)] = [
        ("tap", nil, { s in s.tap((960, 540)) }),
        ("double-tap", nil, { s in
            s.tap((960, 540))
            s.wait(120)
            s.tap((966, 544))
        }),
        ("long-press-then-move", nil, { s in
            s.down(0, (700, 500))
            s.sync()
            s.wait(650)
            s.drag([0], by: (120, 0), over: 200)
            s.up(0)
            s.sync()
        }),
        ("fling-left", nil, { s in
            s.down(0, (1200, 600))
            s.sync()
            s.drag([0], by: (-420, 10), over: 120)
            s.up(0)
            s.sync()
        }),
        ("pinch-out-and-turn", nil, { s in
            s.down(0, (860, 540))
            s.down(1, (1060, 540))
            s.sync()
            for i in 1...20 {
                s.wait(12)
                let spread = 100 + Double(i) * 6
                let a = Double(i) * 1.5 * Double.pi / 180
                s.move(0, (960 - spread * cosine(a), 540 - spread * sine(a)))
                s.move(1, (960 + spread * cosine(a), 540 + spread * sine(a)))
                s.sync()
            }
            s.up(0)
            s.up(1)
            s.sync()
        }),
        ("four-finger-drag-down", nil, { s in
            for i in 0..<4 {
                s.down(Int32(i), (780 + Double(i) * 120, 300))
                s.sync()
                s.wait(36)
            }
            s.drag([0, 1, 2, 3], by: (0, 400), over: 300)
            for i in 0..<4 {
                s.up(Int32(i))
                s.sync()
                s.wait(8)
            }
        }),
        ("edge-swipe-from-left", nil, { s in
            s.down(0, (12, 500))
            s.sync()
            s.drag([0], by: (400, 0), over: 300)
            s.up(0)
            s.sync()
        }),
        ("syn-dropped-mid-pan", nil, { s in
            s.down(0, (800, 500))
            s.sync()
            s.drag([0], by: (0, 200), over: 200)
            s.emit(Evdev.EV_SYN, Evdev.SYN_DROPPED, 0)
            s.move(0, (800, 900))
            s.sync()
            s.drag([0], by: (0, 50), over: 50)
            s.up(0)
            s.sync()
            s.wait(400)
            s.tap((500, 500))
        }),
        ("palm-cancels-pan", nil, { s in
            s.down(0, (800, 500))
            s.sync()
            s.drag([0], by: (200, 0), over: 200)
            s.down(1, (1400, 700))
            s.palm(1)
            s.sync()
            s.drag([0], by: (50, 0), over: 50)
            s.up(0)
            s.up(1)
            s.sync()
        }),
        // Two visitors at once: a tap on the left half while a swipe crosses the right half.
        ("two-visitors", "museum-table.toml", { s in
            s.down(0, (400, 500))
            s.down(1, (1500, 600))
            s.sync()
            s.wait(10)
            s.move(1, (1480, 600))
            s.sync()
            s.wait(40)
            s.up(0)
            s.drag([1], by: (-260, -30), over: 100)
            s.up(1)
            s.sync()
        }),
        // "Select, then confirm": two buttons tapped 100 ms apart (the daemon's client regions test).
        ("select-then-confirm", nil, { s in
            s.tap((400, 500))
            s.wait(100)
            s.tap((1500, 500))
        }),
        ("bottom-sheet-handle", "bottom-sheet.toml", { s in
            s.down(0, (960, 310))
            s.sync()
            s.drag([0], by: (0, 220), over: 400)
            s.wait(120)
            s.up(0)
            s.sync()
        }),
        ("bottom-sheet-content", "bottom-sheet.toml", { s in
            s.down(0, (960, 800))
            s.sync()
            s.drag([0], by: (0, -200), over: 300)
            s.up(0)
            s.sync()
        }),
        // The sheet fully open: one stroke up on the list (it scrolls 300 px), put down; then one
        // stroke down (the list back to its top, then the same stroke pulls the sheet down 200),
        // put down (the sheet snaps to half open).
        ("bottom-sheet-chain", "bottom-sheet.toml", { s in
            s.down(0, (960, 900))
            s.sync()
            s.drag([0], by: (0, -300), over: 600)
            s.wait(200)
            s.up(0)
            s.sync()
            s.wait(600)
            s.down(1, (960, 500))
            s.sync()
            s.drag([1], by: (0, 500), over: 800)
            s.wait(200)
            s.up(1)
            s.sync()
        }),
        // The sheet open, a flick down at the list's top: the list cannot move, the sheet takes the fling.
        ("bottom-sheet-flick", "bottom-sheet.toml", { s in
            s.down(0, (960, 600))
            s.sync()
            s.drag([0], by: (0, 80), over: 60)
            s.up(0)
            s.sync()
        }),
        ("swipeable-row", "swipeable-rows.toml", { s in
            s.down(0, (900, 480))
            s.sync()
            s.drag([0], by: (-300, 20), over: 300)
            s.wait(100)
            s.up(0)
            s.sync()
        }),
        ("swipeable-row-scrolls-list", "swipeable-rows.toml", { s in
            s.down(0, (900, 480))
            s.sync()
            s.drag([0], by: (20, -600), over: 150)
            s.up(0)
            s.sync()
        }),
        ("photo-select-and-move", "photo-viewer.toml", { s in
            s.down(0, (900, 500))
            s.sync()
            s.wait(450)
            s.drag([0], by: (200, 100), over: 300)
            s.up(0)
            s.sync()
            s.wait(300)
            s.tap((600, 600))
            s.wait(100)
            s.tap((604, 600))
        }),
    ]

    /// All scenarios one after another with pauses: the bundled demo recording.
    static func tour() -> Synth {
        var s = Synth()
        for (name, config, build) in all where config == nil && name != "syn-dropped-mid-pan" {
            build(&s)
            s.wait(900)
        }
        return s
    }
}

// sin/cos without Foundation, so the fixtures are identical wherever they are generated.
func sine(_ x: Double) -> Double {
    var term = x, sum = x
    for n in stride(from: 3.0, through: 25, by: 2) {
        term *= -x * x / ((n - 1) * n)
        sum += term
    }
    return sum
}

func cosine(_ x: Double) -> Double { sine(x + Double.pi / 2) }
