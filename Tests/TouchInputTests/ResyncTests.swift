import GestureEngine
import Testing
import TouchFrames

@testable import TouchInput

/// After SYN_DROPPED the reader queries the kernel's state and hands on one frame built by
/// `EvdevDevice.stateEvents`; fed to the decoder, it must leave exactly the kernel's contacts.
@Suite struct ResyncStateTests {
    /// 4 slots, 0…999 × 0…499, a pixel a unit.
    static func decoder() -> FrameDecoder {
        let d = DeviceDescription.multitouchPanel(name: "panel", maxX: 999, maxY: 499, slots: 4)
        var g = GeometryConfiguration()
        g.screenWidth = 1000
        g.screenHeight = 500
        return FrameDecoder(description: d, geometry: g)!
    }

    static func feed(_ d: inout FrameDecoder, _ events: [InputEvent]) -> TouchFrame? {
        var last: TouchFrame?
        for e in events { if let f = d.feed(e) { last = f } }
        return last
    }

    @Test func stateFrame_liftsTheGone_keepsTheSame_beginsTheNew() throws {
        var d = Self.decoder()
        let t = Timestamp(nanoseconds: 1_000_000)
        func ev(_ type: UInt16, _ code: UInt16, _ v: Int32) -> InputEvent { InputEvent(time: t, type: type, code: code, value: v) }
        // Before the drop: id 10 in slot 0, id 11 in slot 1.
        let before = try #require(
            Self.feed(&d, [
                ev(3, Evdev.ABS_MT_SLOT, 0), ev(3, Evdev.ABS_MT_TRACKING_ID, 10), ev(3, Evdev.ABS_MT_POSITION_X, 100),
                ev(3, Evdev.ABS_MT_POSITION_Y, 100), ev(3, Evdev.ABS_MT_SLOT, 1), ev(3, Evdev.ABS_MT_TRACKING_ID, 11),
                ev(3, Evdev.ABS_MT_POSITION_X, 200), ev(3, Evdev.ABS_MT_POSITION_Y, 200), ev(1, Evdev.BTN_TOUCH, 1),
                ev(0, Evdev.SYN_REPORT, 0),
            ]))
        #expect(before.contacts.count == 2)
        let kept = before.contacts[1].id
        // The kernel now: slot 0 lifted, slot 1 still id 11 (moved), slot 3 a new id 12 (a palm).
        let mt: [Int32] = [-1, 11, -1, 12, /* x */ 0, 250, 0, 900, /* y */ 0, 260, 0, 400, /* tool */ 0, 0, 0, Evdev.MT_TOOL_PALM]
        let st: [Int32] = [250, 260, 1, 3]
        d.markDiscontinuity()
        let after = try #require(Self.feed(&d, EvdevDevice.stateEvents(slots: 4, mt: mt, st: st, time: t)))
        #expect(after.discontinuity)
        #expect(after.contacts.count == 2)
        #expect(after.contacts[0].id == kept)
        #expect(abs(after.contacts[0].position.x - 250) < 0.01 && abs(after.contacts[0].position.y - 260) < 0.01)
        #expect(after.contacts[1].id != kept && after.contacts[1].id != before.contacts[0].id)
        #expect(abs(after.contacts[1].position.x - 900) < 0.01 && abs(after.contacts[1].position.y - 400) < 0.01)
        #expect(after.contacts[1].isPalm)
        #expect(d.activeContacts == 2)
    }

    /// `touchgesturectl record` writes a resync as SYN_DROPPED, SYN_REPORT, then the state frame:
    /// replayed, it ends with the kernel's contacts (a phantom of the dropped stretch would stay
    /// if the state frame were swallowed by the drop).
    @Test func recordedResync_replaysToTheKernelsContacts() throws {
        var d = Self.decoder()
        let t = Timestamp(nanoseconds: 1_000_000)
        func ev(_ type: UInt16, _ code: UInt16, _ v: Int32) -> InputEvent { InputEvent(time: t, type: type, code: code, value: v) }
        _ = Self.feed(&d, [
            ev(3, Evdev.ABS_MT_TRACKING_ID, 5), ev(3, Evdev.ABS_MT_POSITION_X, 1), ev(3, Evdev.ABS_MT_POSITION_Y, 1),
            ev(0, Evdev.SYN_REPORT, 0),
        ])
        let mt: [Int32] = [-1, 8, -1, -1, /* x */ 0, 300, 0, 0, /* y */ 0, 200, 0, 0, /* tool */ 0, 0, 0, 0]
        let recorded = [ev(0, Evdev.SYN_DROPPED, 0), ev(0, Evdev.SYN_REPORT, 0)]
            + EvdevDevice.stateEvents(slots: 4, mt: mt, st: [300, 200, 1, 1], time: t)
        let last = try #require(Self.feed(&d, recorded))
        #expect(last.contacts.count == 1)
        #expect(abs(last.contacts[0].position.x - 300) < 0.01)
        #expect(d.activeContacts == 1)
    }

    @Test func stateFrame_everythingLifted_leavesNoContact() throws {
        var d = Self.decoder()
        let t = Timestamp(nanoseconds: 1_000_000)
        _ = Self.feed(&d, [
            InputEvent(time: t, type: 3, code: Evdev.ABS_MT_TRACKING_ID, value: 5),
            InputEvent(time: t, type: 3, code: Evdev.ABS_MT_POSITION_X, value: 1),
            InputEvent(time: t, type: 3, code: Evdev.ABS_MT_POSITION_Y, value: 1),
            InputEvent(time: t, type: 0, code: Evdev.SYN_REPORT, value: 0),
        ])
        let mt = [Int32](repeating: -1, count: 4) + [Int32](repeating: 0, count: 12)
        let after = try #require(Self.feed(&d, EvdevDevice.stateEvents(slots: 4, mt: mt, st: [0, 0, 0, 0], time: t)))
        #expect(after.contacts.isEmpty)
        #expect(d.activeContacts == 0)
    }

    /// A live read is decoded unscanned: the decoder stops at a SYN_DROPPED in the middle of it
    /// (`lostEvents`, the stale rest not read), counts it once, and the resync's state frame that
    /// follows is decoded whole (not dropped as the rest of the lost stretch).
    @Test func liveRead_stopsAtSynDropped_thenTheStateFrameIsDecoded() throws {
        var d = Self.decoder()
        func k(_ type: UInt16, _ code: UInt16, _ v: Int32) -> KernelInputEvent {
            KernelInputEvent(seconds: 1, microseconds: 0, type: type, code: code, value: v)
        }
        let read = [
            k(3, Evdev.ABS_MT_TRACKING_ID, 5), k(3, Evdev.ABS_MT_POSITION_X, 10), k(3, Evdev.ABS_MT_POSITION_Y, 10), k(0, Evdev.SYN_REPORT, 0),
            k(0, Evdev.SYN_DROPPED, 0), k(3, Evdev.ABS_MT_POSITION_X, 999), k(0, Evdev.SYN_REPORT, 0),
        ]
        var frames = 0
        var i = 0
        while i < read.count {
            if d.feed(read.span, from: &i) {
                frames += 1
            } else if d.lostEvents {
                break
            }
        }
        #expect(frames == 1)
        #expect(i == 5)  // just past the SYN_DROPPED: the stale rest is not read
        #expect(d.lostEvents)
        #expect(d.droppedCount == 1)
        let t = Timestamp(nanoseconds: 2_000_000_000)
        let mt: [Int32] = [5, -1, -1, -1, /* x */ 40, 0, 0, 0, /* y */ 50, 0, 0, 0, /* tool */ 0, 0, 0, 0]
        d.markDiscontinuity()
        let after = try #require(Self.feed(&d, EvdevDevice.stateEvents(slots: 4, mt: mt, st: [40, 50, 1, 0], time: t)))
        #expect(after.discontinuity)
        #expect(after.contacts.count == 1)
        #expect(abs(after.contacts[0].position.x - 40) < 0.01)
        #expect(d.droppedCount == 1)
    }
}
