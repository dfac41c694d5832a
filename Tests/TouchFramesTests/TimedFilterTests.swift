import Foundation
import GestureEngine
import Testing
import TouchFrames

/// Chatter and ghosts: the filters that make frames of their own (`FrameDecoder.tick`).
@Suite struct TimedFilterTests {
    typealias F = ContactFilterTests

    static func lift(_ slot: Int32) -> [(UInt16, UInt16, Int32)] { [(3, Evdev.ABS_MT_SLOT, slot), (3, Evdev.ABS_MT_TRACKING_ID, -1)] }

    @Test func chatter_aLiftAndALandingCloseBy_areOneContact() throws {
        var d = try F.decoder { $0.chatterNs = 30_000_000 }
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        let id = try #require(d.frame.contacts.first?.id)
        F.feed(&d, at: 0.1, Self.lift(0))
        #expect(d.frame.contacts.map(\.id) == [id], "the lift is held")
        #expect(d.nextTick == Timestamp(nanoseconds: 130_000_000))
        F.feed(&d, at: 0.116, F.land(0, id: 2, 503, 251))
        #expect(d.frame.contacts.map(\.id) == [id] && !d.landed, "landing again close by: the same contact")
        F.feed(&d, at: 0.2, Self.lift(0))
        #expect(d.frame.contacts.map(\.id) == [id])
        let early = d.tick(at: Timestamp(nanoseconds: 229_000_000))
        #expect(!early, "not due yet")
        let due = d.tick(at: Timestamp(nanoseconds: 230_000_000))
        #expect(due)
        #expect(d.frame.contacts.isEmpty && d.nextTick == nil, "the window passed: lifted")
        F.feed(&d, at: 0.3, F.land(0, id: 3, 500, 250))
        F.feed(&d, at: 0.31, Self.lift(0))
        F.feed(&d, at: 0.32, F.land(0, id: 4, 900, 450))
        #expect(d.frame.contacts.count == 1 && d.landed && d.frame.contacts[0].id != id, "far away: a new contact, the held one lifted")
        #expect(d.filterCounts.chatter == 1, "one bounce merged")
    }

    /// A bounce with no frame between: the panel lifts the contact and lands a new id in its
    /// slot in one report (or sends the new id with no lift at all). The same contact, close by;
    /// a new one, held lift then ended, far away.
    @Test(arguments: [true, false])
    func chatter_aNewIdInTheSameFrame_isTheSameContact(withLift: Bool) throws {
        var d = try F.decoder { $0.chatterNs = 30_000_000 }
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        F.feed(&d, at: 0.016, F.at(0, 501, 250))
        let id = try #require(d.frame.contacts.first?.id)
        let replace = (withLift ? [(UInt16(3), Evdev.ABS_MT_TRACKING_ID, Int32(-1))] : []) + [(3, Evdev.ABS_MT_TRACKING_ID, 2), (3, Evdev.ABS_MT_POSITION_X, 504)]
        F.feed(&d, at: 0.033, [(3, Evdev.ABS_MT_SLOT, 0)] + replace)
        #expect(d.frame.contacts.map(\.id) == [id] && !d.landed, "one contact through the new id")
        #expect(d.filterCounts.chatter == 1)
        F.feed(&d, at: 0.05, [(3, Evdev.ABS_MT_SLOT, 0), (3, Evdev.ABS_MT_TRACKING_ID, 3), (3, Evdev.ABS_MT_POSITION_X, 1500)])
        #expect(d.frame.contacts.count == 1 && d.landed && d.frame.contacts[0].id != id, "far away: a new contact")
    }

    /// A contact replaced by a far new id before any frame of it followed its landing (its raw
    /// path empty: a recording's first frame at 0 s, a reload's adopted contact) is a new contact:
    /// the lift is measured from where it was, not from the new landing.
    @Test func chatter_aFarNewIdBeforeAnyFrameFollowed_isANewContact() throws {
        var d = try F.decoder { $0.chatterNs = 30_000_000 }
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        let id = try #require(d.frame.contacts.first?.id)
        F.feed(&d, at: 0.01, [(3, Evdev.ABS_MT_SLOT, 0), (3, Evdev.ABS_MT_TRACKING_ID, 2), (3, Evdev.ABS_MT_POSITION_X, 3000), (3, Evdev.ABS_MT_POSITION_Y, 1800)])
        #expect(d.frame.contacts.count == 1 && d.landed && d.frame.contacts[0].id != id, "far away: a new contact")
        #expect(d.filterCounts.chatter == 0)
    }

    /// A bounce that lands a few millimetres away moves nothing: the contact goes on from where
    /// it was held, by the finger's own motion after it, and stays on the panel.
    @Test func chatter_aBounceLandingAway_movesNothing_thenFollowsTheFinger() throws {
        var d = try F.decoder { $0.chatterNs = 30_000_000 }
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        F.feed(&d, at: 0.01, Self.lift(0))
        F.feed(&d, at: 0.02, F.land(0, id: 2, 512, 244))  // 4 mm to the right, 2 mm up
        #expect(d.panel.map(\.x) == [500] && d.panel.map(\.y) == [250], "the bounce moved nothing")
        F.feed(&d, at: 0.03, F.at(0, 522, 244))
        #expect(d.panel.map(\.x) == [510] && d.panel.map(\.y) == [250], "then the finger's own 10 units")
        F.feed(&d, at: 0.04, F.at(0, 0, 0))
        #expect(d.panel.map(\.x) == [0] && d.panel.map(\.y) == [6], "kept on the panel, not past its edge")
    }

    @Test func ghosts_areShownToTheGesturesOnlyOnceTheyLasted_theMirrorAtOnce() throws {
        var f = ContactFilterSettings()
        f.ghostNs = 30_000_000
        f.ghostOnMirror = false
        var d = try F.decoder(f)
        var mirrorShown = 0
        d.keepsPanel = true
        // A ghost: one frame down.
        let batch = F.land(0, id: 1, 500, 250)
        var i = 0
        let events = (batch + [(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)]).map { KernelInputEvent(seconds: 0, microseconds: 0, type: $0.0, code: $0.1, value: $0.2) }
        while i < events.count { _ = d.feed(events.span, from: &i) }
        #expect(d.frame.contacts.isEmpty && !d.landed)
        mirrorShown += d.panel.count
        #expect(mirrorShown == 1, "the virtual touchscreen shows it (ghost_on_mirror is off)")
        F.feed(&d, at: 0.016, Self.lift(0))
        #expect(d.frame.contacts.isEmpty && d.nextTick == nil, "it never reached the gestures")
        #expect(d.filterCounts.ghosts == 1)
        // A touch: shown when it has lasted 30 ms, by a frame of the filter's own.
        F.feed(&d, at: 1, F.land(0, id: 2, 500, 250), agree: false)
        #expect(d.frame.contacts.isEmpty && d.nextTick == Timestamp(nanoseconds: 1_030_000_000))
        let shown = d.tick(at: Timestamp(nanoseconds: 1_030_000_000))
        #expect(shown)
        #expect(d.frame.contacts.count == 1 && d.landed, "it lands for the gestures now")
    }

    @Test func ghostsOnTheMirror_areHiddenThereToo() throws {
        var f = ContactFilterSettings()
        f.ghostNs = 30_000_000
        #expect(f.ghostOnMirror, "by default")
        var d = try F.decoder(f)
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        #expect(d.panel.isEmpty && d.frame.contacts.isEmpty)
        let shown = d.tick(at: Timestamp(nanoseconds: 30_000_000))
        #expect(shown)
        #expect(d.panel.count == 1 && d.frame.contacts.count == 1)
    }
}
