import GestureEngine
import Testing
import TouchFrames

/// The mirror's events on a rotated panel: every position rewritten, both axes of a slot given
/// once a frame, before its slot changes or the frame ends; nothing else touched.
@Suite struct MirrorMappingTests {
    static func k(_ type: UInt16, _ code: UInt16, _ value: Int32) -> KernelInputEvent {
        KernelInputEvent(seconds: 1, microseconds: 0, type: type, code: code, value: value)
    }
    static func shown(_ events: [KernelInputEvent]) -> [String] { events.map { "\($0.type):\($0.code)=\($0.value)" } }

    /// The project's virtual panel, turned a quarter clockwise: the mirror's X is 2160 − y (at
    /// most 2159), its Y is x.
    static func quarterTurn() throws -> MirrorMapping {
        let g = try #require(
            MirrorGeometry(
                x: AbsAxis(minimum: 0, maximum: 3839, resolution: 15), y: AbsAxis(minimum: 0, maximum: 2159, resolution: 15),
                calibration: [], rotation: 90))
        return MirrorMapping(g, slots: 4)
    }

    @Test func aLanding_getsBothMirrorAxes_beforeItsFrameEnds() throws {
        var m = try Self.quarterTurn()
        let down = [
            Self.k(3, Evdev.ABS_MT_SLOT, 0), Self.k(3, Evdev.ABS_MT_TRACKING_ID, 5), Self.k(3, Evdev.ABS_MT_POSITION_X, 0),
            Self.k(3, Evdev.ABS_MT_POSITION_Y, 0), Self.k(1, Evdev.BTN_TOUCH, 1), Self.k(0, Evdev.SYN_REPORT, 0),
        ]
        #expect(Self.shown(m.map(down.span)) == ["3:47=0", "3:57=5", "1:330=1", "3:53=2159", "3:54=0", "0:0=0"])
        // Only X moves on the panel: on the mirror, turned, that is Y (X is given again: the
        // kernel drops a value equal to the last).
        let move = [Self.k(3, Evdev.ABS_MT_POSITION_X, 3839), Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(m.map(move.span)) == ["3:53=2159", "3:54=3839", "0:0=0"])
    }

    @Test func twoSlotsInOneFrame_eachGetsItsPosition_whileItIsSelected() throws {
        var m = try Self.quarterTurn()
        let frame = [
            Self.k(3, Evdev.ABS_MT_SLOT, 0), Self.k(3, Evdev.ABS_MT_POSITION_Y, 2159),
            Self.k(3, Evdev.ABS_MT_SLOT, 1), Self.k(3, Evdev.ABS_MT_TRACKING_ID, 6), Self.k(3, Evdev.ABS_MT_POSITION_X, 3839),
            Self.k(0, Evdev.SYN_REPORT, 0),
        ]
        #expect(
            Self.shown(m.map(frame.span)) == [
                "3:47=0", "3:53=1", "3:54=0", "3:47=1", "3:57=6", "3:53=2159", "3:54=3839", "0:0=0",
            ])
    }

    @Test func aSlotOutsideThePanels_isLeftAlone_andSingleTouchAxesAreMappedToo() throws {
        var m = try Self.quarterTurn()
        let frame = [
            Self.k(3, Evdev.ABS_MT_SLOT, 9), Self.k(3, Evdev.ABS_MT_POSITION_X, 100),
            Self.k(3, Evdev.ABS_X, 3839), Self.k(3, Evdev.ABS_Y, 2159), Self.k(4, 4, 77), Self.k(0, Evdev.SYN_REPORT, 0),
        ]
        #expect(Self.shown(m.map(frame.span)) == ["3:47=9", "4:4=77", "3:0=1", "3:1=3839", "0:0=0"])
    }
}
