import GestureEngine
import Testing

@testable import PointerEmulation

/// Kinetic scrolling: a tail after a lift while moving decays, travels what its velocity and
/// the deceleration give, ends under one unit or at its limit, and stops at a touch down.
@Suite struct KineticTailTests {
    static func at(_ ms: Int64) -> Timestamp { Timestamp(nanoseconds: ms * 1_000_000) }

    /// A vertical scroll of `travel` px lifted at 1 s moving `velocity` px/s, in region 0.
    static func flung(velocity: Double, travel: Double = 100, mapping: PointerMapping = PointerMapping()) -> (PointerEmulator, [PointerOp]) {
        var emulator = PointerEmulator(mappings: [mapping], scale: .identity)
        var ops: [PointerOp] = []
        var e = GestureEvent(kind: .pan, phase: .began, time: at(900), position: PixelPoint(x: 100, y: 100 + travel))
        e.id = 1
        e.translation = PixelPoint(x: 0, y: travel)
        emulator.handle(e, role: .pan, region: 0, into: &ops)
        e.phase = .ended
        e.time = at(1000)
        e.velocity = PixelPoint(x: 0, y: velocity)
        emulator.handle(e, role: .pan, region: 0, into: &ops)
        ops.removeAll()
        return (emulator, ops)
    }

    static func wheels(_ ops: [PointerOp]) -> [Int32] {
        ops.compactMap { op -> Int32? in if case .wheel(let w) = op.kind { return w.vertical } else { return nil } }
    }

    @Test func fling_turnsTheWheelOnAfterTheLift_decaying() {
        var (emulator, ops) = Self.flung(velocity: 2000)
        #expect(emulator.nextDeadline == Self.at(1010))
        emulator.advance(to: Self.at(1200), into: &ops)
        let w = Self.wheels(ops)
        #expect(w.count == 20)  // one a tick, every 10 ms
        #expect(ops.first?.time == Self.at(1010))
        // Never growing, and shrinking over any 5 ticks (rounding may repeat a value).
        #expect(zip(w, w.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(zip(w, w.dropFirst(5)).allSatisfy { $0 > $1 })
        #expect(w.allSatisfy { $0 > 0 })  // the finger went down: the content keeps moving down
    }

    @Test func fling_travelsWhatVelocityAndDecelerationGive() {
        var (emulator, ops) = Self.flung(velocity: 2000)
        emulator.advance(to: .distantFuture, into: &ops)
        #expect(emulator.isIdle && emulator.nextDeadline == nil)
        // v·dt·q/(1 − q), q = 0.998^10: 989.2 px; the tail ends when a tick carries under one
        // unit (50/120 px), which leaves out at most that tick's geometric rest, q/(1 − q) of it:
        // under 21 px.
        var q = 1.0
        for _ in 0..<10 { q *= 0.998 }
        let whole = 2000 * 0.01 * q / (1 - q)
        let travelled = Double(Self.wheels(ops).reduce(0, +)) * 50 / 120
        #expect(travelled <= whole + 1)
        #expect(travelled >= whole - 21)
        // The last tick is where a step fell under one unit: 2000·qⁿ·0.01 < 0.4167.
        let ticks = Double((ops.last!.time.nanoseconds - Self.at(1000).nanoseconds) / 10_000_000)
        #expect(ticks < 200)
    }

    @Test func fasterDeceleration_travelsLess() {
        var m = PointerMapping()
        m.deceleration = 0.99
        var (a, opsA) = Self.flung(velocity: 2000, mapping: m)
        var (b, opsB) = Self.flung(velocity: 2000)
        a.advance(to: .distantFuture, into: &opsA)
        b.advance(to: .distantFuture, into: &opsB)
        #expect(Self.wheels(opsA).reduce(0, +) < Self.wheels(opsB).reduce(0, +) / 3)
    }

    @Test func tailThatWouldCarryUnderOneUnit_neverStarts() {
        var m = PointerMapping()
        m.kineticMinSpeed = 0
        let (emulator, _) = Self.flung(velocity: 42, mapping: m)  // 0.41 px the first tick: under one unit (0.42 px)
        #expect(emulator.isIdle)
        let (moving, _) = Self.flung(velocity: 43, mapping: m)  // 0.42 px
        #expect(!moving.isIdle)
    }

    /// A drag put down slower than `kinetic_min_speed` (100 mm/s; a pixel is a millimetre here)
    /// rests where the finger left it; at that speed it coasts.
    @Test func liftSlowerThanTheLeastFlingSpeed_rests() {
        let (slow, _) = Self.flung(velocity: 99)
        #expect(slow.isIdle)
        let (fling, _) = Self.flung(velocity: 100)
        #expect(!fling.isIdle)
    }

    @Test func tail_endsAtItsLimit() {
        var m = PointerMapping()
        m.deceleration = 1  // never slows down
        m.kineticLimit = .milliseconds(500)
        var (emulator, ops) = Self.flung(velocity: 1000, mapping: m)
        emulator.advance(to: .distantFuture, into: &ops)
        #expect(Self.wheels(ops).count == 50)
        #expect(ops.last?.time == Self.at(1500))
    }

    @Test func touchDown_inTheRegion_stopsTheTailAtOnce() {
        var (emulator, ops) = Self.flung(velocity: 3000)
        emulator.advance(to: Self.at(1050), into: &ops)
        let landing = PixelPoint(x: 70, y: 80)
        #expect(emulator.touchDown(inRegion: 0, at: landing, time: Self.at(1070), into: &ops))
        #expect(emulator.isIdle && emulator.nextDeadline == nil)
        #expect(ops.last?.kind == .move(landing))
        let before = ops.count
        emulator.advance(to: .distantFuture, into: &ops)
        #expect(ops.count == before)
    }

    /// There is one pointer: a finger landing in another pointer region brings it there, and a
    /// tail turning on would scroll what lies under it. It stops, but it was not this region's.
    @Test func touchDown_inAnotherRegion_stopsTheTailToo() {
        var m = PointerMapping()
        m.deceleration = 1
        var (emulator, ops) = Self.flung(velocity: 3000, mapping: m)
        emulator.advance(to: Self.at(1050), into: &ops)
        #expect(!emulator.touchDown(inRegion: 1, at: PixelPoint(x: 900, y: 80), time: Self.at(1060), into: &ops))
        #expect(emulator.isIdle)
        var again = Self.flung(velocity: 3000, mapping: m)
        again.0.stopTail()  // a finger outside every pointer region
        #expect(again.0.isIdle)
    }

    /// A limit shorter than a tick's interval: no tick at all.
    @Test(arguments: [0, 5, 9]) func aLimitUnderOneTick_sendsNoTick(ms: Int) {
        var m = PointerMapping()
        m.kineticLimit = .milliseconds(ms)
        var (emulator, ops) = Self.flung(velocity: 3000, mapping: m)
        let before = ops.count
        emulator.advance(to: .distantFuture, into: &ops)
        #expect(emulator.isIdle && ops.count == before)
    }

    @Test func kineticOff_noTail() {
        var m = PointerMapping()
        m.kinetic = false
        let (emulator, _) = Self.flung(velocity: 3000, mapping: m)
        #expect(emulator.isIdle)
    }

    @Test func wholeScroll_pan_thenTail_staysExact() {
        // The tail goes on from the pan's units: pan and tail add up to their travel, rounded once.
        var (emulator, ops) = Self.flung(velocity: 600, travel: 101)
        emulator.advance(to: .distantFuture, into: &ops)
        let tailUnits = Self.wheels(ops).reduce(0, +)
        #expect(tailUnits > 0)
        let sent = Double(242 + tailUnits) * 50 / 120
        let travelled = 101 + Double(tailUnits) * 50 / 120
        #expect(abs(sent - travelled) < 1)
    }
}
