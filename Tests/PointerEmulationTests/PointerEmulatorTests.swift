import GestureEngine
import Testing

@testable import PointerEmulation

/// The mappings one gesture at a time: what a mouse would have done for each.
@Suite struct PointerEmulatorTests {
    var emulator = PointerEmulator(mappings: [PointerMapping()], scale: .identity)
    var ops: [PointerOp] = []

    static func at(_ ms: Int64) -> Timestamp { Timestamp(nanoseconds: ms * 1_000_000) }

    static func event(
        _ kind: GestureKind, _ phase: GesturePhase, id: UInt64 = 1, at ms: Int64, _ x: Double, _ y: Double
    ) -> GestureEvent {
        var e = GestureEvent(kind: kind, phase: phase, time: at(ms), position: PixelPoint(x: x, y: y))
        e.id = id
        return e
    }

    /// The ops' kinds, in order.
    var kinds: [PointerOp.Kind] { ops.map(\.kind) }

    mutating func send(_ e: GestureEvent, _ role: PointerRole?) { emulator.handle(e, role: role, region: 0, into: &ops) }

    @Test mutating func tap_movesThere_andClicksLeft() {
        send(Self.event(.tap, .recognized, at: 100, 300, 400), .tap)
        #expect(kinds == [.move(PixelPoint(x: 300, y: 400)), .press(.left), .release(.left)])
        #expect(ops.allSatisfy { $0.time == Self.at(100) })
    }

    @Test mutating func landing_bringsThePointerThere_unlessAGestureHoldsIt() {
        #expect(!emulator.touchDown(inRegion: 0, at: PixelPoint(x: 30, y: 40), time: Self.at(50), into: &ops))
        #expect(kinds == [.move(PixelPoint(x: 30, y: 40))])
        #expect(ops[0].time == Self.at(50) && ops[0].region == 0)
        var m = PointerMapping()
        m.longPress = .drag
        emulator = PointerEmulator(mappings: [m], scale: .identity)
        ops = []
        send(Self.event(.longPress, .began, at: 600, 10, 20), .longPress)
        _ = emulator.touchDown(inRegion: 0, at: PixelPoint(x: 500, y: 500), time: Self.at(650), into: &ops)  // a drag holds it
        #expect(kinds == [.move(PixelPoint(x: 10, y: 20)), .press(.left)])
    }

    @Test mutating func secondTap_soonAndClose_clicksWhereTheFirstDid() {
        send(Self.event(.tap, .recognized, id: 1, at: 100, 300, 400), .tap)
        send(Self.event(.tap, .recognized, id: 2, at: 350, 306, 396), .tap)
        #expect(kinds[3] == .move(PixelPoint(x: 300, y: 400)))
    }

    @Test mutating func secondTap_tooLate_orTooFar_clicksWhereItIs() {
        send(Self.event(.tap, .recognized, id: 1, at: 100, 300, 400), .tap)
        send(Self.event(.tap, .recognized, id: 2, at: 401, 306, 396), .tap)  // 301 ms > 300 ms
        #expect(kinds[3] == .move(PixelPoint(x: 306, y: 396)))
        send(Self.event(.tap, .recognized, id: 3, at: 450, 318, 396), .tap)  // 12 mm > 10 mm
        #expect(kinds[6] == .move(PixelPoint(x: 318, y: 396)))
    }

    @Test mutating func twoFingerTap_clicksMiddle_orWhatTheKeySays() {
        send(Self.event(.tap, .recognized, at: 100, 50, 60), .twoFingerTap)
        #expect(kinds == [.move(PixelPoint(x: 50, y: 60)), .press(.middle), .release(.middle)])
        var m = PointerMapping()
        m.twoFingerTap = .right
        emulator = PointerEmulator(mappings: [m], scale: .identity)
        ops = []
        send(Self.event(.tap, .recognized, at: 100, 50, 60), .twoFingerTap)
        #expect(kinds == [.move(PixelPoint(x: 50, y: 60)), .press(.right), .release(.right)])
    }

    @Test mutating func longPress_rightClicksWhenRecognized_notAtTheLift() {
        send(Self.event(.longPress, .began, at: 600, 10, 20), .longPress)
        #expect(kinds == [.move(PixelPoint(x: 10, y: 20)), .press(.right), .release(.right)])
        send(Self.event(.longPress, .changed, at: 700, 40, 20), .longPress)
        send(Self.event(.longPress, .ended, at: 800, 40, 20), .longPress)
        #expect(ops.count == 3)
    }

    @Test mutating func longPressDrag_holdsLeft_followsTheFinger_releasesAtTheLift() {
        var m = PointerMapping()
        m.longPress = .drag
        emulator = PointerEmulator(mappings: [m], scale: .identity)
        send(Self.event(.longPress, .began, at: 600, 10, 20), .longPress)
        send(Self.event(.longPress, .changed, at: 700, 40, 20), .longPress)
        send(Self.event(.tap, .recognized, id: 9, at: 710, 500, 500), .tap)  // the pointer is held: no click
        send(Self.event(.longPress, .ended, at: 800, 50, 20), .longPress)
        #expect(
            kinds == [
                .move(PixelPoint(x: 10, y: 20)), .press(.left), .move(PixelPoint(x: 40, y: 20)),
                .move(PixelPoint(x: 50, y: 20)), .release(.left),
            ])
        #expect(emulator.isIdle)
    }

    /// The wheel units a list of ops turns, added up (vertical, horizontal, notches).
    static func total(_ ops: [PointerOp]) -> (v: Int, h: Int, vn: Int, hn: Int) {
        var t = (v: 0, h: 0, vn: 0, hn: 0)
        for case .wheel(let w) in ops.map(\.kind) {
            t.v += Int(w.vertical)
            t.h += Int(w.horizontal)
            t.vn += Int(w.verticalNotches)
            t.hn += Int(w.horizontalNotches)
        }
        return t
    }

    @Test mutating func pan_scrollsFromWhereItLanded_inExactUnits() {
        var e = Self.event(.pan, .began, at: 100, 100, 110)
        e.translation = PixelPoint(x: 0, y: 10)
        send(e, .pan)
        #expect(kinds.first == .move(PixelPoint(x: 100, y: 100)))
        // 37 px then 173 px down, 50 px a notch: 88.8 then 415.2 units, never more than the travel.
        for (ms, y) in [(Int64(116), 37.0), (132, 120.0), (148, 173.0)] {
            e = Self.event(.pan, .changed, at: ms, 100, 100 + y)
            e.translation = PixelPoint(x: 0, y: y)
            send(e, .pan)
        }
        e.phase = .ended
        e.velocity = .zero
        send(e, .pan)
        let t = Self.total(ops)
        #expect(t.v == 415 && t.h == 0)
        #expect(t.vn == 3)
        #expect(emulator.isIdle)
    }

    @Test mutating func pan_horizontal_scrollsTheOtherWay() {
        var e = Self.event(.pan, .began, at: 100, 100, 100)
        e.translation = PixelPoint(x: -100, y: 0)
        send(e, .pan)
        e.phase = .ended
        send(e, .pan)
        #expect(Self.total(ops).h == 240)  // finger left: the view scrolls right
        #expect(Self.total(ops).hn == 2)
    }

    @Test mutating func pinch_zoomsWithCtrlAndWheelSteps() {
        send(Self.event(.pinch, .began, at: 100, 500, 500), .pinch)
        var e = Self.event(.pinch, .changed, at: 120, 500, 500)
        e.scale = 1.6  // 1.25² = 1.5625: two steps in
        send(e, .pinch)
        e.scale = 1.3  // back under 1.5625 only past 1.25: still... one step out at 1.25
        send(e, .pinch)
        e.scale = 1.2
        send(e, .pinch)
        let wheels = ops.compactMap { op -> Int32? in if case .wheel(let w) = op.kind { return w.vertical } else { return nil } }
        #expect(wheels == [120, 120, -120])
        #expect(kinds.filter { $0 == .ctrl(pressed: true) }.count == 2)
        #expect(kinds.last == .ctrl(pressed: false))
    }

    /// A jump past the 16 notches an event sends: the rest follow at the pinch's end (a
    /// cancelled pinch sends none).
    @Test mutating func pinch_endsWithTheNotchesAnEventHeldBack() {
        send(Self.event(.pinch, .began, at: 100, 500, 500), .pinch)
        var e = Self.event(.pinch, .changed, at: 120, 500, 500)
        e.scale = 95  // 1.25^20 = 86.7: 20 steps
        send(e, .pinch)
        e.phase = .ended
        send(e, .pinch)
        var notches: Int { ops.filter { if case .wheel = $0.kind { return true } else { return false } }.count }
        #expect(notches == 20)
        ops = []
        send(Self.event(.pinch, .began, id: 2, at: 200, 500, 500), .pinch)
        var c = Self.event(.pinch, .changed, id: 2, at: 220, 500, 500)
        c.scale = 95
        send(c, .pinch)
        c.phase = .cancelled
        send(c, .pinch)
        #expect(notches == 16)
    }

    @Test func zoomSteps_followPowersOfTheStep() {
        #expect(PointerEmulator.zoomSteps(scale: 1.24, from: 0, step: 1.25) == 0)
        #expect(PointerEmulator.zoomSteps(scale: 1.25, from: 0, step: 1.25) == 1)
        #expect(PointerEmulator.zoomSteps(scale: 0.5, from: 0, step: 1.25) == -3)  // 0.8³ = 0.512
        #expect(PointerEmulator.zoomSteps(scale: 1.1, from: 1, step: 1.25) == 1)
        #expect(PointerEmulator.zoomSteps(scale: 1.0, from: 1, step: 1.25) == 0)
    }

    /// A step of 1.000001 once spun the loop (millions of powers a frame) and 1.0001 sent 8,123
    /// notches for one pinch: an event moves at most `maxNotchesPerEvent`, a pinch stands for at
    /// most `maxZoomSteps`, and a scale that is no number moves nothing.
    @Test func zoomSteps_areBounded_whateverTheScaleOrStep() {
        let cap = PointerEmulator.maxNotchesPerEvent
        #expect(PointerEmulator.zoomSteps(scale: 2, from: 0, step: 1.000001) == cap)
        #expect(PointerEmulator.zoomSteps(scale: 1e300, from: 0, step: 1.25) == cap)
        #expect(PointerEmulator.zoomSteps(scale: 1e-300, from: 0, step: 1.25) == -cap)
        #expect(PointerEmulator.zoomSteps(scale: 1e300, from: PointerEmulator.maxZoomSteps, step: 1.25) == PointerEmulator.maxZoomSteps)
        #expect(PointerEmulator.zoomSteps(scale: .nan, from: 3, step: 1.25) == 3)
        #expect(PointerEmulator.zoomSteps(scale: .infinity, from: 3, step: 1.25) == 3)
        #expect(PointerEmulator.zoomSteps(scale: 0, from: 3, step: 1.25) == 3)
    }

    /// pixels_per_notch = 1e-15 trapped converting the travel to wheel units: the units are kept
    /// within ±2^40 whatever the travel and the notch.
    @Test func wheelUnits_stayWithinBounds_forAnyNotch() {
        #expect(WheelAccumulator.units(300, 1e-15) == Int64(WheelAccumulator.maxUnits))
        #expect(WheelAccumulator.units(-300, Double.leastNonzeroMagnitude) == -Int64(WheelAccumulator.maxUnits))
        #expect(WheelAccumulator.units(.nan, 50) == 0)
        #expect(WheelAccumulator.units(50, 50) == 120)
        var wheel = WheelAccumulator(pixelsPerNotch: 1e-15)
        let w = wheel.turn(to: PixelPoint(x: 0, y: 400))
        #expect(w?.vertical == Int32.max)
    }

    @Test mutating func noneMappings_doNothing() {
        var m = PointerMapping()
        m.tap = nil
        m.longPress = .none
        m.pan = .none
        m.pinch = .none
        emulator = PointerEmulator(mappings: [m], scale: .identity)
        send(Self.event(.tap, .recognized, at: 100, 1, 1), .tap)
        send(Self.event(.longPress, .began, at: 700, 1, 1), .longPress)
        send(Self.event(.pan, .began, id: 2, at: 800, 1, 1), .pan)
        send(Self.event(.pinch, .began, id: 3, at: 900, 1, 1), .pinch)
        #expect(ops.isEmpty)
    }
}
