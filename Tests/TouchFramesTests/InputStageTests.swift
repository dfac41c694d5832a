import GestureEngine
import Testing
import TouchFrames

/// The input stage's view of the panel beside the engine's: each contact's panel values, what
/// landed, the events that are no contact's, a past to start from, a new mapping mid-touch.
@Suite struct InputStageTests {
    static let panel = DeviceDescription.multitouchPanel(name: "p", maxX: 999, maxY: 499, slots: 4)

    static func feed(_ d: inout FrameDecoder, _ events: [(UInt16, UInt16, Int32)]) -> Bool {
        let batch = (events + [(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)]).map { KernelInputEvent(seconds: 0, microseconds: 0, type: $0.0, code: $0.1, value: $0.2) }
        var i = 0, made = false
        while i < batch.count { made = d.feed(batch.span, from: &i) || made }
        return made
    }

    @Test func panelContacts_carryTheirSlotAndAxes_andLandedSaysWhenOneLands() throws {
        var d = try #require(FrameDecoder(description: Self.panel, geometry: GeometryConfiguration()))
        d.keepsPanel = true
        _ = Self.feed(&d, [(3, Evdev.ABS_MT_SLOT, 2), (3, Evdev.ABS_MT_TRACKING_ID, 9), (3, Evdev.ABS_MT_POSITION_X, 10), (3, Evdev.ABS_MT_POSITION_Y, 20), (3, Evdev.ABS_MT_PRESSURE, 70)])
        #expect(d.landed)
        #expect(d.panel.map { "\($0.slot) \($0.x) \($0.y) \($0.axes[Evdev.ABS_MT_PRESSURE])" } == ["2 10 20 70"])
        _ = Self.feed(&d, [(3, Evdev.ABS_MT_POSITION_X, 11), (1, 125, 1)])
        #expect(!d.landed)
        #expect(d.others.map { "\($0.type):\($0.code)=\($0.value)" } == ["1:125=1"], "a key that is no touch key, for the mirror")
        #expect(d.hadContacts)
    }

    /// A decoder that feeds the mirror alone (`feedsEngine` off: the input thread's) makes no
    /// engine contacts on a multitouch panel, and agrees with one that does on all the mirror and
    /// the thread read: the panel's contacts, landings, the contacts before, time, lost events.
    @Test func aDecoderForTheMirrorAlone_agreesOnWhatTheMirrorReads() throws {
        var full = try #require(FrameDecoder(description: Self.panel, geometry: GeometryConfiguration()))
        full.keepsPanel = true
        var mirrorOnly = full
        mirrorOnly.feedsEngine = false
        // Two fingers land one after the other, move, one lifts, then the other; a lost stretch.
        var batch: [KernelInputEvent] = []
        for e in RehearsalStroke.events(for: Self.panel, from: Timestamp(nanoseconds: 1_000_000)) {
            let us = Int(e.time.nanoseconds / 1000)
            batch.append(KernelInputEvent(seconds: us / 1_000_000, microseconds: us % 1_000_000, type: e.type, code: e.code, value: e.value))
        }
        let lost: [(UInt16, UInt16, Int32)] = [
            (Evdev.EV_SYN, Evdev.SYN_DROPPED, 0), (Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 40), (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 5),
            (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, 6), (Evdev.EV_SYN, Evdev.SYN_REPORT, 0),
        ]
        for e in lost { batch.append(KernelInputEvent(seconds: 9, microseconds: 10, type: e.0, code: e.1, value: e.2)) }
        var i = 0, j = 0, frames = 0, withContacts = 0
        while i < batch.count {
            let a = full.feed(batch.span, from: &i), b = mirrorOnly.feed(batch.span, from: &j)
            #expect(a == b && i == j)
            guard a else { continue }
            frames += 1
            if !full.frame.contacts.isEmpty { withContacts += 1 }
            #expect(mirrorOnly.frame.contacts.isEmpty, "no engine contacts made")
            #expect(Array(mirrorOnly.panel) == Array(full.panel) && mirrorOnly.landed == full.landed && mirrorOnly.hadContacts == full.hadContacts)
            #expect(mirrorOnly.frame.time == full.frame.time && mirrorOnly.frame.discontinuity == full.frame.discontinuity)
        }
        #expect(frames > 10 && withContacts > 5 && full.frame.discontinuity)
    }

    @Test func aFrameThatNeverEnds_keepsAtMostItsCapOfOtherEvents() throws {
        var d = try #require(FrameDecoder(description: Self.panel, geometry: GeometryConfiguration()))
        d.keepsPanel = true
        let flood = [(UInt16, UInt16, Int32)](repeating: (Evdev.EV_MSC, 5, 1), count: 10_000)
        _ = Self.feed(&d, flood)
        #expect(d.others.count == PanelEvent.mostInAFrame)
    }

    @Test func aSeededPanel_landsATouchWithNoPositionWhereItsSlotWas() throws {
        var d = try #require(FrameDecoder(description: Self.panel, geometry: GeometryConfiguration()))
        d.seed(positions: [0, 0, 500, 250, 0, 0, 0, 0], slot: 1)
        // The kernel sends no ABS_MT_SLOT (slot 1 is selected) and no position (the same as before).
        _ = Self.feed(&d, [(3, Evdev.ABS_MT_TRACKING_ID, 3)])
        #expect(d.frame.contacts.count == 1)
    }

    @Test func aSeededPanel_landsAFirstTouchAtTheEdgeWhereZeroIs() throws {
        var d = try #require(FrameDecoder(description: Self.panel, geometry: GeometryConfiguration()))
        d.seed(positions: [0, 0, 0, 0, 0, 0, 0, 0], slot: 0)
        // A first touch on the left edge: x is the slot's 0, so the kernel sends only y.
        _ = Self.feed(&d, [(3, Evdev.ABS_MT_TRACKING_ID, 3), (3, Evdev.ABS_MT_POSITION_Y, 250)])
        let p = try #require(d.frame.contacts.first?.position, "shown as it lands")
        #expect(p.x == 0)
        #expect(p.y > 0)
    }

    /// A landing with no position at all in a never-used slot is not placed at the corner (a
    /// driver that sends the tracking id a frame before the position): it waits for one.
    @Test func aSeededPanel_landsNoTouchWithNoPositionAtTheCorner() throws {
        var d = try #require(FrameDecoder(description: Self.panel, geometry: GeometryConfiguration()))
        d.seed(positions: [0, 0, 0, 0, 0, 0, 0, 0], slot: 0)
        _ = Self.feed(&d, [(3, Evdev.ABS_MT_TRACKING_ID, 3)])
        #expect(d.frame.contacts.isEmpty)
        _ = Self.feed(&d, [(3, Evdev.ABS_MT_POSITION_X, 400), (3, Evdev.ABS_MT_POSITION_Y, 250)])
        let p = try #require(d.frame.contacts.first?.position)
        #expect(p.x > 0 && p.y > 0)
    }

    @Test func aSeededPanelWithoutZero_waitsForAPosition() throws {
        var description = Self.panel
        description.axes[Evdev.ABS_MT_POSITION_X] = AbsAxis(minimum: 100, maximum: 999)
        var d = try #require(FrameDecoder(description: description, geometry: GeometryConfiguration()))
        d.seed(positions: [0, 0, 0, 0, 0, 0, 0, 0], slot: 0)
        // 0 is no x of this panel's: a touch always sends one, so none yet is no place.
        _ = Self.feed(&d, [(3, Evdev.ABS_MT_TRACKING_ID, 3), (3, Evdev.ABS_MT_POSITION_Y, 250)])
        #expect(d.frame.contacts.isEmpty)
        _ = Self.feed(&d, [(3, Evdev.ABS_MT_POSITION_X, 100)])
        #expect(d.frame.contacts.count == 1)
    }

    @Test func aSeededSingleTouchPanel_landsATouchWithNoPositionWhereTheLastWas() throws {
        var d = try #require(FrameDecoder(description: RehearsalStrokeTests.singleTouch(), geometry: GeometryConfiguration()))
        d.seed(positions: [1000, 2000], slot: -1)
        // The same place as the touch before the daemon opened the panel: the kernel sends no axis.
        _ = Self.feed(&d, [(Evdev.EV_KEY, Evdev.BTN_TOUCH, 1)])
        #expect(d.frame.contacts.count == 1)
    }

    @Test func aNewMapping_goesOnFromTheOldDecodersContacts() throws {
        var old = try #require(FrameDecoder(description: Self.panel, geometry: GeometryConfiguration()))
        _ = Self.feed(&old, [(3, Evdev.ABS_MT_TRACKING_ID, 3), (3, Evdev.ABS_MT_POSITION_X, 100), (3, Evdev.ABS_MT_POSITION_Y, 100)])
        let id = try #require(old.frame.contacts.first?.id)
        var g = GeometryConfiguration()
        g.rotation = 180
        var next = try #require(FrameDecoder(description: Self.panel, geometry: g))
        next.continueFrom(old)
        _ = Self.feed(&next, [(3, Evdev.ABS_MT_POSITION_X, 110)])
        #expect(next.frame.contacts.map(\.id) == [id], "the same contact, no lift")
        let p = try #require(next.frame.contacts.first?.position)
        let before = try #require(old.frame.contacts.first?.position)
        #expect(p.x > before.x, "mapped by the new rotation (x flipped: 110 on the panel is far right)")
    }
}
