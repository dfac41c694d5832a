import GestureEngine
import Testing
import TouchFrames

/// What a panel's mirror has been told, and the frames that leave it clean (pass-through mode).
@Suite struct PassThroughTests {
    private static func k(_ type: UInt16, _ code: UInt16, _ value: Int32) -> KernelInputEvent {
        KernelInputEvent(seconds: 1, microseconds: 0, type: type, code: code, value: value)
    }

    private static func note(_ p: inout PassThrough, _ events: [KernelInputEvent]) {
        events.withUnsafeBufferPointer { p.note($0) }
    }

    /// Two fingers down (slots 0 and 2) with BTN_TOUCH and BTN_TOOL_DOUBLETAP.
    private static func twoDown() -> [KernelInputEvent] {
        [
            k(3, Evdev.ABS_MT_SLOT, 0), k(3, Evdev.ABS_MT_TRACKING_ID, 7), k(3, Evdev.ABS_MT_POSITION_X, 10),
            k(3, Evdev.ABS_MT_SLOT, 2), k(3, Evdev.ABS_MT_TRACKING_ID, 8), k(3, Evdev.ABS_MT_POSITION_X, 20),
            k(1, Evdev.BTN_TOUCH, 1), k(1, 0x14d, 1), k(0, Evdev.SYN_REPORT, 0),
        ]
    }

    @Test func liftAll_liftsEverySlotAndKeyHeld_inOneFrame() {
        var p = PassThrough(slots: 4)
        Self.note(&p, Self.twoDown())
        #expect(p.touches == 2)
        let lift = p.liftAll()
        let shown = lift.map { "\($0.type):\($0.code)=\($0.value)" }
        #expect(shown == ["3:47=0", "3:57=-1", "3:47=2", "3:57=-1", "1:330=0", "1:333=0", "0:0=0"])
        #expect(p.touches == 0)
        #expect(p.liftAll().isEmpty, "nothing left to lift: no empty frame")
    }

    @Test func liftedTouches_areNotLiftedAgain() {
        var p = PassThrough(slots: 4)
        Self.note(&p, Self.twoDown())
        Self.note(&p, [
            Self.k(3, Evdev.ABS_MT_SLOT, 0), Self.k(3, Evdev.ABS_MT_TRACKING_ID, -1), Self.k(1, 0x14d, 0), Self.k(1, 0x145, 1),
            Self.k(0, Evdev.SYN_REPORT, 0),
        ])
        #expect(p.touches == 1)
        let shown = p.liftAll().map { "\($0.type):\($0.code)=\($0.value)" }
        #expect(shown == ["3:47=2", "3:57=-1", "1:330=0", "1:325=0", "0:0=0"])
    }

    /// After SYN_DROPPED: what the mirror held is lifted in a frame of its own, then the kernel's
    /// state follows; a touch still down comes back as a new touch, never as a tracking id that
    /// changed without a lift.
    @Test func resync_liftsFirst_thenTheKernelsState() {
        var p = PassThrough(slots: 4)
        Self.note(&p, Self.twoDown())
        let t = Timestamp.zero
        let state: [InputEvent] = [
            InputEvent(time: t, type: 3, code: Evdev.ABS_MT_SLOT, value: 0), InputEvent(time: t, type: 3, code: Evdev.ABS_MT_TRACKING_ID, value: -1),
            InputEvent(time: t, type: 3, code: Evdev.ABS_MT_SLOT, value: 2), InputEvent(time: t, type: 3, code: Evdev.ABS_MT_TRACKING_ID, value: 9),
            InputEvent(time: t, type: 3, code: Evdev.ABS_MT_POSITION_X, value: 30), InputEvent(time: t, type: 1, code: Evdev.BTN_TOUCH, value: 1),
            InputEvent(time: t, type: 0, code: Evdev.SYN_REPORT, value: 0),
        ]
        let out = state.withUnsafeBufferPointer { p.resync(to: $0) }
        let reports = out.enumerated().filter { $0.element.type == Evdev.EV_SYN }.map(\.offset)
        #expect(reports.count == 2, "a lift frame, then the state frame")
        let lift = out[..<(reports[0] + 1)].map { "\($0.type):\($0.code)=\($0.value)" }
        #expect(lift == ["3:47=0", "3:57=-1", "3:47=2", "3:57=-1", "1:330=0", "1:333=0", "0:0=0"])
        #expect(Array(out[(reports[0] + 1)...]).map(\.value) == state.map(\.value))
        #expect(p.touches == 1, "the mirror now holds the kernel's one touch")
    }
}
