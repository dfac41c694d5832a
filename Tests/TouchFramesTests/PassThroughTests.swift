import GestureEngine
import Testing
import TouchFrames

/// What a panel's mirror has been told, and the frames that leave it clean (pass-through mode).
@Suite struct PassThroughTests {
    private static func k(_ type: UInt16, _ code: UInt16, _ value: Int32) -> KernelInputEvent {
        KernelInputEvent(seconds: 1, microseconds: 0, type: type, code: code, value: value)
    }

    private static func note(_ p: inout PassThrough, _ events: [KernelInputEvent]) {
        p.note(events.span)
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

    @Test func seed_givesTheNewMirrorThePanelsPositions_andItsSelectedSlot() {
        var p = PassThrough(slots: 4)
        // The panel's slots 0 and 2 had touches before (slot 2 last); 1 and 3 never did.
        let past: [Int32] = [100, 200, 0, 0, 300, 400, 0, 0]
        #expect(Self.shown(p.seed(positions: past, slot: 2)) == ["3:53=100", "3:54=200", "3:47=2", "3:53=300", "3:54=400", "0:0=0"])
        // The panel's next touch comes with no ABS_MT_SLOT (its slot is selected already): the
        // mirror's is too, so it lands in slot 2 on both.
        Self.note(&p, [Self.k(3, Evdev.ABS_MT_TRACKING_ID, 9), Self.k(0, Evdev.SYN_REPORT, 0)])
        #expect(p.touches == 1)
        #expect(Self.shown(p.liftAll()) == ["3:47=2", "3:57=-1", "0:0=0"])
    }

    @Test func seed_aPanelWithNoPast_isNothing_butItsSlot() {
        var p = PassThrough(slots: 4)
        #expect(p.seed(positions: [Int32](repeating: 0, count: 8), slot: 0).isEmpty)
        var q = PassThrough(slots: 4)
        #expect(Self.shown(q.seed(positions: [Int32](repeating: 0, count: 8), slot: 3)) == ["3:47=3", "0:0=0"])
        #expect(!q.filtering, "a seed leaves nothing to filter")
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
        let out = p.resync(to: state.span)
        let reports = out.enumerated().filter { $0.element.type == Evdev.EV_SYN }.map(\.offset)
        #expect(reports.count == 2, "a lift frame, then the state frame")
        let lift = out[..<(reports[0] + 1)].map { "\($0.type):\($0.code)=\($0.value)" }
        #expect(lift == ["3:47=0", "3:57=-1", "3:47=2", "3:57=-1", "1:330=0", "1:333=0", "0:0=0"])
        #expect(Array(out[(reports[0] + 1)...]).map(\.value) == state.map(\.value))
        #expect(p.touches == 1, "the mirror now holds the kernel's one touch")
    }

    private static func shown(_ events: [KernelInputEvent]) -> [String] { events.map { "\($0.type):\($0.code)=\($0.value)" } }

    /// A system gesture takes the touch in slot 2 (the slot selected last): it is cancelled (palm, then lifted, the tool
    /// key following the one touch left), its motion held back, and when it lifts on the panel
    /// the slot's tool type goes back to finger; the other touch passes all along.
    @Test func cancel_palmThenLift_holdsTheTouchBack_untilItLifts() {
        var p = PassThrough(slots: 4, keys: [Evdev.BTN_TOUCH, 0x145, 0x14d], cancel: .palm)
        Self.note(&p, Self.twoDown())
        let cancel = p.cancel([2])
        #expect(Self.shown(cancel) == ["3:55=2", "0:0=0", "3:57=-1", "1:325=1", "1:333=0", "0:0=0"])
        #expect(p.filtering && p.touches == 1)
        #expect(p.cancel([2]).isEmpty, "a touch is cancelled once")

        let move = [Self.k(3, Evdev.ABS_MT_SLOT, 0), Self.k(3, Evdev.ABS_MT_POSITION_X, 11), Self.k(3, Evdev.ABS_MT_SLOT, 2),
            Self.k(3, Evdev.ABS_MT_POSITION_X, 21), Self.k(3, Evdev.ABS_X, 11), Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(p.filter(move.span)) == ["3:47=0", "3:53=11", "0:0=0"])

        let lift = [Self.k(3, Evdev.ABS_MT_SLOT, 2), Self.k(3, Evdev.ABS_MT_TRACKING_ID, -1), Self.k(1, 0x14d, 0), Self.k(1, 0x145, 1),
            Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(p.filter(lift.span)) == ["3:47=2", "3:55=0", "0:0=0"])
        #expect(p.filtering, "nothing held back, but the slot's position is stale until its next touch")
        #expect(p.touches == 1)
    }

    /// The default (`[device] cancel = "lift"`): the taken touch is lifted without a palm frame
    /// (cage, sway 1.7 and weston 10 drop libinput's cancel), held back the same way, and its
    /// slot's tool type is never touched.
    @Test func cancel_lift_endsTheTouchAsALift_andHoldsItBack() {
        var p = PassThrough(slots: 4, keys: [Evdev.BTN_TOUCH, 0x145, 0x14d])
        Self.note(&p, Self.twoDown())
        #expect(Self.shown(p.cancel([2])) == ["3:57=-1", "1:325=1", "1:333=0", "0:0=0"])
        #expect(p.filtering && p.touches == 1)
        let move = [Self.k(3, Evdev.ABS_MT_SLOT, 2), Self.k(3, Evdev.ABS_MT_POSITION_X, 21), Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(p.filter(move.span)) == ["0:0=0"], "the taken touch's motion is held back")
        let lift = [Self.k(3, Evdev.ABS_MT_SLOT, 2), Self.k(3, Evdev.ABS_MT_TRACKING_ID, -1), Self.k(1, 0x14d, 0), Self.k(1, 0x145, 1),
            Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(p.filter(lift.span)) == ["0:0=0"], "no tool type set back: none was changed")
        #expect(p.filtering && p.touches == 1, "the slot's position is stale until its next touch")
    }

    /// The panel's current slot is implicit in its stream: after a cancel moved the mirror's,
    /// the next event of the panel's slot selects it again.
    @Test func filter_selectsThePanelsSlot_beforeItsEvents() {
        var p = PassThrough(slots: 4)
        Self.note(&p, Self.twoDown())  // the panel's slot is 2 now
        _ = p.cancel([0])
        let move = [Self.k(3, Evdev.ABS_MT_POSITION_X, 25), Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(p.filter(move.span)) == ["3:47=2", "3:53=25", "0:0=0"])
    }

    /// Touch to wake: the touch that lands after `swallowNewTouches` never reaches the mirror,
    /// and once the panel has no touch left, reads pass as they are again.
    @Test func swallowedTouch_neverReachesTheMirror() {
        var p = PassThrough(slots: 4)
        p.swallowNewTouches()
        #expect(p.filtering)
        let tap = [Self.k(3, Evdev.ABS_MT_SLOT, 0), Self.k(3, Evdev.ABS_MT_TRACKING_ID, 5), Self.k(3, Evdev.ABS_MT_POSITION_X, 10),
            Self.k(1, Evdev.BTN_TOUCH, 1), Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(p.filter(tap.span)) == ["0:0=0"])
        #expect(p.touches == 0 && p.filtering)
        let lift = [Self.k(3, Evdev.ABS_MT_TRACKING_ID, -1), Self.k(1, Evdev.BTN_TOUCH, 0), Self.k(0, Evdev.SYN_REPORT, 0)]
        _ = p.filter(lift.span)
        #expect(p.touches == 0)
        // The wake touch is over; its slot's position is stale on the mirror until the slot's next
        // touch, which lands where the wake touch was: the kernel sends no position for it, and
        // the mirror is given the panel's.
        let again = [Self.k(3, Evdev.ABS_MT_TRACKING_ID, 6), Self.k(1, Evdev.BTN_TOUCH, 1), Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(p.filter(again.span)) == ["3:57=6", "3:53=10", "3:54=0", "1:330=1", "0:0=0"])
        #expect(!p.filtering, "nothing stale: reads pass as they are again")
    }

    /// A taken touch's motion is not shown; the slot's next touch, landing where the taken one
    /// lifted (no position from the kernel), is shown there, not where the mirror last had it.
    @Test func takenTouch_nextTouchInItsSlot_landsWhereThePanelsIs() {
        var p = PassThrough(slots: 4)
        Self.note(&p, Self.twoDown())
        _ = p.cancel([2])
        let move = [Self.k(3, Evdev.ABS_MT_SLOT, 2), Self.k(3, Evdev.ABS_MT_POSITION_X, 90), Self.k(3, Evdev.ABS_MT_POSITION_Y, 40),
            Self.k(0, Evdev.SYN_REPORT, 0)]
        _ = p.filter(move.span)
        let lift = [Self.k(3, Evdev.ABS_MT_TRACKING_ID, -1), Self.k(0, Evdev.SYN_REPORT, 0)]
        _ = p.filter(lift.span)
        #expect(p.filtering, "the slot is stale")
        let again = [Self.k(3, Evdev.ABS_MT_TRACKING_ID, 9), Self.k(0, Evdev.SYN_REPORT, 0)]
        let shown = Self.shown(p.filter(again.span))
        #expect(shown.starts(with: ["3:57=9", "3:53=90", "3:54=40"]))
        #expect(!p.filtering)
    }

    /// A touch held back and then dropped (its delaying gesture began): where it went is the
    /// slot's position for its next touch.
    @Test func droppedHeldTouch_nextTouchInItsSlot_landsWhereThePanelsIs() {
        var p = PassThrough(slots: 4)
        _ = p.update(cancel: [], hold: [0], bound: 150_000_000, now: 1_000)
        _ = p.filter(Self.landing(0, id: 3, x: 70).span)
        _ = p.update(cancel: [0], hold: [], bound: 150_000_000, now: 2_000)
        let lift = [Self.k(3, Evdev.ABS_MT_TRACKING_ID, -1), Self.k(1, Evdev.BTN_TOUCH, 0), Self.k(0, Evdev.SYN_REPORT, 0)]
        _ = p.filter(lift.span)
        let again = [Self.k(3, Evdev.ABS_MT_TRACKING_ID, 4), Self.k(1, Evdev.BTN_TOUCH, 1), Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(p.filter(again.span)).starts(with: ["3:57=4", "3:53=70"]))
        #expect(!p.filtering)
    }

    private static func landing(_ slot: Int32, id: Int32, x: Int32) -> [KernelInputEvent] {
        [Self.k(3, Evdev.ABS_MT_SLOT, slot), Self.k(3, Evdev.ABS_MT_TRACKING_ID, id), Self.k(3, Evdev.ABS_MT_POSITION_X, x),
            Self.k(1, Evdev.BTN_TOUCH, 1), Self.k(0, Evdev.SYN_REPORT, 0)]
    }

    /// delays_touches_began: a touch a gesture may still take is held back; when the gesture
    /// fails its frames are replayed at once, in order, and it passes from then on.
    @Test func heldTouch_isReplayedInOrder_whenTheGestureFails() {
        var p = PassThrough(slots: 4)
        #expect(p.update(cancel: [], hold: [0], bound: 150_000_000, now: 1_000).isEmpty)
        #expect(p.filtering && p.releaseDue == 150_001_000)
        let land = Self.landing(0, id: 7, x: 10)
        #expect(Self.shown(p.filter(land.span)) == ["0:0=0"], "held: an empty frame only")
        let move = [Self.k(3, Evdev.ABS_MT_POSITION_X, 12), Self.k(0, Evdev.SYN_REPORT, 0)]
        _ = p.filter(move.span)
        // The gesture failed: the two frames, then the touch passes.
        let replay = p.update(cancel: [], hold: [], bound: 0, now: 2_000)
        #expect(Self.shown(replay) == ["3:57=7", "3:53=10", "1:330=1", "0:0=0", "3:53=12", "0:0=0"])
        #expect(!p.filtering && p.touches == 1)
    }

    /// When the gesture begins, what was held back is dropped: the app never sees the touch,
    /// and the rest of it is held back until it lifts.
    @Test func heldTouch_isNeverShown_whenTheGestureTakesIt() {
        var p = PassThrough(slots: 4)
        _ = p.update(cancel: [], hold: [0], bound: 150_000_000, now: 0)
        _ = p.filter(Self.landing(0, id: 7, x: 10).span)
        #expect(p.update(cancel: [0], hold: [], bound: 0, now: 1).isEmpty, "nothing to cancel on the mirror")
        let move = [Self.k(3, Evdev.ABS_MT_POSITION_X, 30), Self.k(0, Evdev.SYN_REPORT, 0)]
        #expect(Self.shown(p.filter(move.span)) == ["0:0=0"])
        let lift = [Self.k(3, Evdev.ABS_MT_TRACKING_ID, -1), Self.k(1, Evdev.BTN_TOUCH, 0), Self.k(0, Evdev.SYN_REPORT, 0)]
        _ = p.filter(lift.span)
        #expect(p.filtering && p.touches == 0)  // stale until the slot's next touch
    }

    /// Past the bound a held touch is replayed even though the gesture is still possible.
    @Test func heldTouch_isReplayed_afterTheBound() {
        var p = PassThrough(slots: 4)
        _ = p.update(cancel: [], hold: [1], bound: 100, now: 0)
        _ = p.filter(Self.landing(1, id: 3, x: 5).span)
        #expect(p.update(cancel: [], hold: [1], bound: 100, now: 99).isEmpty)
        #expect(!p.update(cancel: [], hold: [1], bound: 100, now: 100).isEmpty)
        #expect(p.touches == 1 && !p.filtering)
    }

    /// A touch taken before the mirror saw it land (a pointer region's, with the pipeline run
    /// first): its landing in the same read is held back too, and so is the rest of it, until it
    /// lifts; the next touch in that slot passes.
    @Test func touchTakenBeforeItsLanding_isNeverShown() {
        var p = PassThrough(slots: 4)
        #expect(p.update(cancel: [0], hold: [], bound: 0, now: 0).isEmpty, "nothing on the mirror to cancel")
        #expect(Self.shown(p.filter(Self.landing(0, id: 7, x: 10).span)) == ["0:0=0"])
        let lift = [Self.k(3, Evdev.ABS_MT_TRACKING_ID, -1), Self.k(1, Evdev.BTN_TOUCH, 0), Self.k(0, Evdev.SYN_REPORT, 0)]
        _ = p.filter(lift.span)
        #expect(p.filtering && p.touches == 0)  // stale until the slot's next touch
        let next = Self.landing(0, id: 8, x: 20)
        p.note(next.span)
        #expect(p.touches == 1, "the next touch passes")
    }
}
