import GestureEngine
import Testing

@testable import TouchFrames

/// The made-up stroke a new panel's route is rehearsed on: in the panel's own protocol and
/// units, read by the decoder as a drag of one finger, then a pinch of two, every contact
/// lifted at the end.
@Suite struct RehearsalStrokeTests {
    /// A single-touch panel: ABS_X/ABS_Y and BTN_TOUCH, no multitouch axes.
    static func singleTouch(min: Int32 = 0, max: Int32 = 4095) -> DeviceDescription {
        var d = DeviceDescription(name: "single")
        d.properties = [Evdev.INPUT_PROP_DIRECT]
        d.codes[Evdev.EV_KEY] = [Evdev.BTN_TOUCH]
        d.axes[Evdev.ABS_X] = AbsAxis(minimum: min, maximum: max)
        d.axes[Evdev.ABS_Y] = AbsAxis(minimum: min, maximum: max)
        d.codes[Evdev.EV_ABS] = Set(d.axes.keys)
        return d
    }

    /// The contacts down in each frame the decoder made of the stroke.
    static func counts(_ d: DeviceDescription) -> [Int] {
        var f = Feeder(d)
        for e in RehearsalStroke.events(for: d, from: Timestamp(nanoseconds: 1_000_000_000)) {
            f.send(e.type, e.code, e.value)
        }
        return f.frames.map(\.contacts.count)
    }

    /// The counts, runs of equal ones merged: [1, 0, 2, 0] is a drag, a lift, a pinch, a lift.
    static func runs(_ counts: [Int]) -> [Int] {
        counts.reduce(into: []) { r, c in if r.last != c { r.append(c) } }
    }

    @Test func protocolB_isADrag_thenAPinch_allLifted() {
        let counts = Self.counts(panel())
        #expect(Self.runs(counts) == [1, 0, 2, 0])
        #expect(counts.count == RehearsalStroke.dragFrames + RehearsalStroke.pinchFrames + 4)
    }

    @Test func protocolA_isADrag_thenAPinch_allLifted() {
        #expect(Self.runs(Self.counts(ProtocolATests.panelA())) == [1, 0, 2, 0])
    }

    @Test func singleTouch_isTwoDrags_ofOneFinger() {
        #expect(Self.runs(Self.counts(Self.singleTouch())) == [1, 0, 1, 0])
    }

    /// Every position inside its axis, whatever the range: negative, tiny, or one value.
    @Test func positions_stayInsideTheAxes() {
        for (lo, hi) in [(Int32(-2048), Int32(2047)), (0, 1), (7, 7), (Int32.min, Int32.max)] {
            var d = panel()
            d.axes[Evdev.ABS_MT_POSITION_X] = AbsAxis(minimum: lo, maximum: hi)
            d.axes[Evdev.ABS_MT_POSITION_Y] = AbsAxis(minimum: lo, maximum: hi)
            for t in [d, Self.singleTouch(min: lo, max: hi)] {
                let positions = RehearsalStroke.events(for: t, from: .zero).filter {
                    $0.type == Evdev.EV_ABS && [Evdev.ABS_X, Evdev.ABS_Y, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y].contains($0.code)
                }
                #expect(!positions.isEmpty)
                #expect(positions.allSatisfy { $0.value >= lo && $0.value <= hi }, "\(lo)...\(hi)")
            }
        }
    }

    /// Frames 8 ms apart, in order, from the start given.
    @Test func frames_are8msApart() {
        let reports = RehearsalStroke.events(for: panel(), from: Timestamp(nanoseconds: 5)).filter {
            $0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_REPORT
        }
        #expect(reports.first?.time.nanoseconds == 5)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $1.time.nanoseconds - $0.time.nanoseconds == 8_000_000 })
    }

    @Test func aDeviceWithoutPositions_getsNoStroke() {
        var d = DeviceDescription(name: "keys")
        d.codes[Evdev.EV_KEY] = [Evdev.BTN_TOUCH]
        #expect(RehearsalStroke.events(for: d, from: .zero).isEmpty)
    }
}
