import GestureEngine
import Testing

@testable import TouchFrames

/// How the filters first show a young contact (the ghost filter), hold a young contact's bounce
/// (with chatter), and show a fast contact's held lift (with the dejitter filter): on the
/// panel of `ContactFilterTests` (0-999 × 0-499, no resolution: 0.344 mm a unit).
@Suite struct FilterYouthTests {
    typealias F = ContactFilterTests

    static var noisy: ContactFilterSettings {
        var f = ContactFilterSettings()
        f.dejitter = .init(minCutoff: 1)
        f.chatterNs = 35_000_000
        f.ghostNs = 40_000_000
        return f
    }

    static func withoutGhosts() throws -> FrameDecoder {
        var f = noisy
        f.ghostNs = nil
        return try F.decoder(f)
    }

    /// A finger landing at x = 100 at `t`, then swiping at 500 mm/s (15 units a 10 ms frame) to
    /// 250, still down.
    static func swipe(_ d: inout FrameDecoder, id: Int32, at t: Double) {
        F.feed(&d, at: t, F.land(0, id: id, 100, 250))
        for k in 1...10 { F.feed(&d, at: t + Double(k) * 0.01, F.at(0, 100 + Int32(k) * 15, 250)) }
    }

    /// A young contact whose panel's next report is due about when it comes of age (here 40 ms
    /// at 50 Hz) waits 2 ms for it: the report (1 ms late, as a live read may be) shows it with
    /// its new position, and no frame of the filter's own comes before it. A still finger (no
    /// report due then) is shown by a frame of its own at its age, so a still touch lifting just
    /// past `ghost_under` is a touch, not a ghost.
    @Test func aReportDueAsAContactComesOfAge_showsIt_withoutAFrameOfItsOwn() throws {
        var d = try F.decoder(Self.noisy)
        // A touch first, so the filters know the panel's interval (20 ms).
        F.feed(&d, at: 0, F.land(0, id: 9, 100, 250))
        for k in 1...4 { F.feed(&d, at: 0.02 * Double(k), F.at(0, 100 + 10 * Int32(k), 250)) }
        F.feed(&d, at: 0.1, TimedFilterTests.lift(0))
        _ = d.tick(at: Timestamp(nanoseconds: 200_000_000))
        #expect(d.frame.contacts.isEmpty && d.nextTick == nil)
        F.feed(&d, at: 1, F.land(0, id: 1, 100, 250))
        F.feed(&d, at: 1.02, F.at(0, 115, 250))
        #expect(d.frame.contacts.isEmpty && d.nextTick == Timestamp(nanoseconds: 1_042_000_000))
        let early = d.tick(at: Timestamp(nanoseconds: 1_040_500_000))
        #expect(!early, "not yet due")
        F.feed(&d, at: 1.041, F.at(0, 130, 250))
        #expect(d.frame.contacts.count == 1 && d.landed && d.nextTick == nil, "shown by the report")
        // A still finger: no report is due at its age, so its own frame shows it then.
        F.feed(&d, at: 2, F.land(1, id: 2, 600, 250))
        #expect(d.frame.contacts.count == 1 && d.nextTick == Timestamp(nanoseconds: 2_040_000_000))
        let own = d.tick(at: Timestamp(nanoseconds: 2_040_000_000))
        #expect(own)
        #expect(d.frame.contacts.count == 2 && d.landed)
        F.feed(&d, at: 2.0405, TimedFilterTests.lift(1))
        #expect(d.frame.contacts.count == 2 && d.filterCounts.ghosts == 0, "lifted 40.5 ms on: a touch, its lift held")
    }

    /// A tap that bounces, each half shorter than `ghost_under`, is one contact, shown once it
    /// has been on the glass that long; one that never lands again was a ghost, and so is a
    /// one-frame blink (too short a stretch to be held).
    @Test func aBouncingTap_whoseHalvesAreEachYoung_isOneContact() throws {
        var d = try F.decoder(Self.noisy)
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        F.feed(&d, at: 0.02, F.at(0, 501, 250))
        F.feed(&d, at: 0.03, TimedFilterTests.lift(0))
        #expect(d.frame.contacts.isEmpty && d.panel.isEmpty, "young and lifted: held, unseen")
        F.feed(&d, at: 0.045, F.land(0, id: 2, 505, 251))
        #expect(d.frame.contacts.isEmpty, "30 ms on the glass: still young")
        F.feed(&d, at: 0.055, F.at(0, 505, 251))
        #expect(d.frame.contacts.count == 1 && d.landed, "40 ms on the glass (the 15 ms off not counted): shown")
        let id = try #require(d.frame.contacts.first?.id)
        F.feed(&d, at: 0.06, F.at(0, 504, 251))
        F.feed(&d, at: 0.07, TimedFilterTests.lift(0))
        #expect(d.frame.contacts.map(\.id) == [id], "its lift is held as any")
        let ended = d.tick(at: Timestamp(nanoseconds: 105_000_000))
        #expect(ended)
        #expect(d.frame.contacts.isEmpty)
        #expect(d.filterCounts.chatter == 1 && d.filterCounts.ghosts == 0)
        // A ghost that bounces and does not land again: no touch, counted once its lift ends.
        F.feed(&d, at: 1, F.land(0, id: 3, 500, 250))
        F.feed(&d, at: 1.015, F.at(0, 501, 250))
        F.feed(&d, at: 1.025, TimedFilterTests.lift(0))
        #expect(d.filterCounts.ghosts == 0, "not yet: it may land again")
        let ofAge = d.tick(at: Timestamp(nanoseconds: 1_040_000_000))
        #expect(!ofAge, "never shown: no frame of its coming of age")
        _ = d.tick(at: Timestamp(nanoseconds: 1_060_000_000))
        #expect(d.frame.contacts.isEmpty && d.panel.isEmpty && d.filterCounts.ghosts == 1)
        // A blink of 5 ms (under half of 40): no hold, a ghost at once.
        F.feed(&d, at: 2, F.land(0, id: 4, 500, 250))
        F.feed(&d, at: 2.005, TimedFilterTests.lift(0))
        #expect(d.filterCounts.ghosts == 2 && d.nextTick == nil)
    }

    /// Each bounce is measured from where the finger left, raw: a tap bouncing twice, 4 mm on
    /// each time, is one contact, and the path goes on from the raw lift (each jump at most
    /// `chatter_distance`), whatever the smoothed position lagged.
    @Test func aTapBouncingTwice_eachFromWhereTheFingerLeft_isOneContact() throws {
        var f = Self.noisy
        f.ghostNs = nil
        var d = try F.decoder(f)
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        let id = try #require(d.frame.contacts.first?.id)
        F.feed(&d, at: 0.03, TimedFilterTests.lift(0))
        F.feed(&d, at: 0.04, F.land(0, id: 2, 512, 250))  // 4.1 mm on
        F.feed(&d, at: 0.07, TimedFilterTests.lift(0))
        F.feed(&d, at: 0.08, F.land(0, id: 3, 524, 250))  // 4.1 mm on from the raw 512
        #expect(d.frame.contacts.map(\.id) == [id] && d.filterCounts.chatter == 2)
        for k in 1...50 { F.feed(&d, at: 0.08 + Double(k) * 0.01, F.at(0, 524 + Int32(k % 2), 250)) }
        let x = try #require(d.panel.first?.x)
        #expect(abs(x - 500) <= 1, "the raw path went on from the lifts: \(x) stays at the first landing")
    }

    /// A young held lift whose slot a far landing takes was a ghost: counted as one.
    @Test func aYoungHeldLift_replacedInItsSlot_isCountedAGhost() throws {
        var d = try F.decoder(Self.noisy)
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        F.feed(&d, at: 0.015, F.at(0, 501, 250))
        F.feed(&d, at: 0.025, TimedFilterTests.lift(0))
        #expect(d.filterCounts.ghosts == 0, "held: it may land again")
        F.feed(&d, at: 0.03, F.land(0, id: 2, 900, 450))
        #expect(d.filterCounts.ghosts == 1 && d.filterCounts.chatter == 0)
    }

    /// A ghost blinking a frame on, a frame off, on a 30 Hz panel, with `ghost_under` above two of
    /// its reports as CONFIG.md says (80 ms), is six ghosts, never a touch.
    @Test func aGhostBlinkingAt30Hz_neverComesOfAge() throws {
        var f = Self.noisy
        f.ghostNs = 80_000_000
        var d = try F.decoder(f)
        for k in 0..<6 {  // a late report now and then: 35 ms on, 32 off
            F.feed(&d, at: Double(k) * 0.067, F.land(0, id: Int32(k + 1), 500, 250))
            F.feed(&d, at: Double(k) * 0.067 + 0.035, TimedFilterTests.lift(0))
            #expect(d.frame.contacts.isEmpty && d.panel.isEmpty)
        }
        #expect(d.filterCounts.ghosts == 6 && d.filterCounts.chatter == 0 && d.nextTick == nil)
    }

    /// A rest whose landing sample was an outlier (9 mm off) is still a rest: shown at the mean.
    @Test func aRestWhoseLandingWasAnOutlier_isShownAtItsMean() throws {
        var d = try F.decoder(Self.noisy)
        F.feed(&d, at: 0, F.land(0, id: 1, 526, 250))
        for (k, x) in [500, 498, 501, 500].enumerated() { F.feed(&d, at: Double(k + 1) * 0.01, F.at(0, Int32(x), 250)) }
        #expect(d.panel.map(\.x) == [505], "the mean of 526, 500, 498, 501, 500")
    }

    /// A finger landing at rest is first shown at the mean of its young positions, not at its
    /// landing sample; a moving one at its landing, then close behind the finger.
    @Test func aRestingLanding_isShownAtItsMean_aMovingOneWhereItLanded() throws {
        var d = try F.decoder(Self.noisy)
        F.feed(&d, at: 0, F.land(0, id: 1, 515, 250))  // the first sample 15 units (5 mm) off
        F.feed(&d, at: 0.01, F.at(0, 497, 250))
        F.feed(&d, at: 0.02, F.at(0, 494, 250))
        F.feed(&d, at: 0.03, F.at(0, 497, 250))
        F.feed(&d, at: 0.04, F.at(0, 497, 250))
        #expect(d.panel.map(\.x) == [500], "the mean of 515, 497, 494, 497, 497")
        F.feed(&d, at: 0.05, TimedFilterTests.lift(0))
        _ = d.tick(at: Timestamp(nanoseconds: 85_000_000))
        // A flick at 1 m/s along X (3 units a ms): shown where it landed, then following fast.
        F.feed(&d, at: 1, F.land(0, id: 2, 100, 250))
        for k in 1...4 { F.feed(&d, at: 1 + Double(k) * 0.01, F.at(0, 100 + Int32(k) * 29, 250)) }
        #expect(d.panel.map(\.x) == [100], "where it landed, 116 units (40 mm) behind the finger")
        F.feed(&d, at: 1.05, F.at(0, 245, 250))
        let next = try #require(d.panel.first?.x)
        #expect(next > 200, "the filter knows its speed: \(next) is close behind 245")
    }

    /// A fast contact's held lift is shown where the finger lifted; a resting one's where the
    /// filter held it (its lift does not jump by the noise).
    @Test func aFastContactsHeldLift_isShownWhereItLifted_aRestingOnesWhereItWas() throws {
        var d = try Self.withoutGhosts()
        Self.swipe(&d, id: 1, at: 0)
        let lagging = try #require(d.panel.first?.x)
        #expect(lagging < 245, "the filter lags the finger at 250: \(lagging)")
        F.feed(&d, at: 0.11, TimedFilterTests.lift(0))
        #expect(d.panel.map(\.x) == [250], "the held lift, where the finger lifted")
        _ = d.tick(at: Timestamp(nanoseconds: 145_000_000))
        F.feed(&d, at: 1, F.land(0, id: 2, 500, 250))
        for k in 1...50 { F.feed(&d, at: 1 + Double(k) * 0.01, F.at(0, 500 + Int32(k % 3) * 4 - 4, 250)) }
        let held = try #require(d.panel.first?.x)
        F.feed(&d, at: 1.51, TimedFilterTests.lift(0))
        #expect(d.panel.map(\.x) == [held], "at rest: where it was smoothed")
    }

    /// A finger that drops out for a frame mid-swipe (500 mm/s) lands again 10 mm on, along its
    /// path: the same contact (measured from where it would be by now), shown close to it (not
    /// trailing it by the 10 mm); a resting one's bounce is measured from where it left.
    @Test func aFastContactsDropout_landsOnAlongItsPath_asTheSameContact() throws {
        var d = try Self.withoutGhosts()
        Self.swipe(&d, id: 1, at: 0)
        let id = try #require(d.panel.first?.id)
        F.feed(&d, at: 0.11, TimedFilterTests.lift(0))
        F.feed(&d, at: 0.12, F.land(0, id: 2, 280, 250))  // 30 units (10 mm) past the lift at 250
        #expect(d.panel.map(\.id) == [id] && d.filterCounts.chatter == 1, "one contact: \(d.panel.map(\.id))")
        for k in 1...3 { F.feed(&d, at: 0.12 + Double(k) * 0.01, F.at(0, 280 + Int32(k) * 15, 250)) }
        let shown = try #require(d.panel.first?.x)
        #expect(abs(Int(shown) - 325) <= 10, "close behind the finger at 325: \(shown)")
        // At rest, the same jump is no bounce: a new contact.
        F.feed(&d, at: 0.16, TimedFilterTests.lift(0))
        _ = d.tick(at: Timestamp(nanoseconds: 200_000_000))
        F.feed(&d, at: 1, F.land(0, id: 3, 500, 250))
        for k in 1...20 { F.feed(&d, at: 1 + Double(k) * 0.01, F.at(0, 500 + Int32(k % 2), 250)) }
        let resting = try #require(d.panel.first?.id)
        F.feed(&d, at: 1.21, TimedFilterTests.lift(0))
        F.feed(&d, at: 1.22, F.land(0, id: 4, 530, 250))
        #expect(d.panel.first?.id != resting && d.filterCounts.chatter == 1)
        // A swipe that stopped dead (a quiet panel then sends nothing) and bounces in place: the
        // speed it had is no more, the bounce measured from where it left.
        F.feed(&d, at: 1.26, TimedFilterTests.lift(0))
        _ = d.tick(at: Timestamp(nanoseconds: 1_300_000_000))
        Self.swipe(&d, id: 5, at: 2)
        let stopped = try #require(d.panel.first?.id)
        F.feed(&d, at: 2.5, TimedFilterTests.lift(0))
        F.feed(&d, at: 2.52, F.land(0, id: 6, 251, 250))
        #expect(d.panel.first?.id == stopped && d.filterCounts.chatter == 2, "the same contact")
    }
    /// A swipe first shown as a rest (it had moved 5.5 mm when it came of age, accelerating) that
    /// drops out a frame later, the filter's speed estimate still behind it: its raw path says it
    /// moves, so it lands again along its path as the same contact, and the bounce's offset
    /// closes as it goes on, its lift shown where the finger lifted.
    @Test func aSwipeDroppingOutAsItSetsOff_isOneContact_endingWhereItLifted() throws {
        var d = try F.decoder(Self.noisy)
        F.feed(&d, at: 0, F.land(0, id: 1, 100, 250))
        F.feed(&d, at: 1.0 / 60, F.at(0, 103, 250))
        F.feed(&d, at: 2.0 / 60, F.at(0, 116, 250))
        _ = d.tick(at: Timestamp(nanoseconds: 40_000_000))
        let id = try #require(d.panel.first?.id)
        F.feed(&d, at: 3.0 / 60, F.at(0, 140, 250))
        F.feed(&d, at: 4.0 / 60, TimedFilterTests.lift(0))
        F.feed(&d, at: 5.0 / 60, F.land(0, id: 2, 183, 250))  // 15 mm past the lift, 2 mm past its path
        #expect(d.panel.map(\.id) == [id] && d.filterCounts.chatter == 1, "one contact: \(d.panel.map(\.id))")
        for k in 1...3 { F.feed(&d, at: Double(5 + k) / 60, F.at(0, 183 + Int32(k) * 27, 250)) }
        F.feed(&d, at: 9.0 / 60, TimedFilterTests.lift(0))
        #expect(d.panel.map(\.x) == [264], "the held lift where the finger lifted, no offset left")
    }

    /// A swipe still speeding up when it drops out, two reports after landing at 60 Hz (7 mm in
    /// 33 ms, not yet a move for the filter's speed nor 8 mm from its landing), lands again 20 mm
    /// on, where its raw path points: the same contact. One landing as far off to the side of
    /// that path is another finger. Also from a recording's time 0, where the raw path's first
    /// report is one like any (0 once meant "no report yet": the path one report short, the
    /// landing another touch).
    @Test(arguments: [0.0, 1.0])
    func aSwipeSpeedingUpAsItDropsOut_landsAgainAlongItsWay_asTheSameContact(from t0: Double) throws {
        for (side, same) in [(Int32(0), true), (Int32(58), false)] {
            var d = try F.decoder(Self.noisy)
            F.feed(&d, at: t0, F.land(0, id: 1, 100, 200))
            F.feed(&d, at: t0 + 1.0 / 60, F.at(0, 106, 200))
            F.feed(&d, at: t0 + 2.0 / 60, F.at(0, 121, 200))
            _ = d.tick(at: Timestamp(nanoseconds: Int64(t0 * 1e9) + 40_000_000))
            let id = try #require(d.panel.first?.id)
            F.feed(&d, at: t0 + 3.0 / 60, TimedFilterTests.lift(0))
            F.feed(&d, at: t0 + 4.0 / 60, F.land(0, id: 2, 179, 200 + side))  // 58 units (20 mm) on
            #expect((d.panel.map(\.id) == [id]) == same, "from \(t0) s, side \(side): \(d.panel.map(\.id)) against \(id)")
            #expect(d.filterCounts.chatter == (same ? 1 : 0))
            for k in 1...3 { F.feed(&d, at: t0 + Double(4 + k) / 60, F.at(0, 179 + Int32(k) * 60, 200 + side)) }
            #expect(d.panel.count == 1 && (d.panel.first?.id == id) == same)
        }
    }

    /// The same landing 20 mm on along the path is another touch when another finger is down
    /// (a pinch's or a two-finger swipe's fingers land on each other's lines), when it lands in
    /// a dead zone, when the contact set off longer than 100 ms before it lifted (a swipe
    /// ending, a second finger tapping ahead of it), or when it rested before it moved (a tap
    /// rolling off as it lifts, the next key's finger landing ahead).
    @Test(arguments: ["another finger", "dead zone", "set off long before", "rested first"])
    func aLandingAlongThePath_isAnotherTouch(when: String) throws {
        var settings = Self.noisy
        if when == "dead zone" { settings.deadZones = [.init(x: 55, y: 60, width: 15, height: 20)] }
        var d = try F.decoder(settings)
        F.feed(&d, at: 1, F.land(0, id: 1, 100, 200) + (when == "another finger" ? F.land(1, id: 9, 800, 400) : []))
        let rest = when == "set off long before" ? 6 : when == "rested first" ? 2 : 0
        for k in 0..<rest { F.feed(&d, at: 1 + Double(k + 1) / 60, F.at(0, 100 + Int32(k % 2), 200)) }
        F.feed(&d, at: 1 + Double(rest + 1) / 60, F.at(0, 106, 200))
        F.feed(&d, at: 1 + Double(rest + 2) / 60, F.at(0, 121, 200))
        _ = d.tick(at: Timestamp(nanoseconds: 1_040_000_000 + Int64(rest) * 16_666_667))
        let id = try #require(d.panel.first { $0.id != 9 }?.id)
        F.feed(&d, at: 1 + Double(rest + 3) / 60, TimedFilterTests.lift(0))
        F.feed(&d, at: 1 + Double(rest + 4) / 60, F.land(0, id: 2, 179, 200))
        #expect(!d.panel.contains { $0.id == id } || d.panel.contains { $0.id != id && $0.id != 9 }, "\(when): \(d.panel.map(\.id))")
        #expect(d.filterCounts.chatter == 0, "\(when)")
    }

    /// A swipe's lift reported late (1.6 report intervals after its last position: a jittered
    /// panel at 120 Hz) is still a moving finger's: its bounce 5 ms later, 9 mm on along its
    /// path, is the same contact.
    @Test func aSwipesLateLiftReport_stillPredictsItsBounce() throws {
        var d = try Self.withoutGhosts()
        let interval = 1.0 / 120
        for k in 0..<12 {
            F.feed(&d, at: Double(k) * interval, k == 0 ? F.land(0, id: 1, 100, 250) : F.at(0, 100 + Int32(k) * 12, 250))
        }
        let id = try #require(d.panel.first?.id)
        F.feed(&d, at: 11 * interval + 0.013, TimedFilterTests.lift(0))
        F.feed(&d, at: 11 * interval + 0.018, F.land(0, id: 2, 258, 250))  // 26 units (9 mm) past the lift at 232
        #expect(d.panel.map(\.id) == [id] && d.filterCounts.chatter == 1, "one contact: \(d.panel.map(\.id))")
    }

    /// One outlying report just before a resting finger lifts (9 mm off, so 500 mm/s over the
    /// last reports) is no move: the held lift stays where the rest was smoothed, and a bounce
    /// landing back at the rest is the same contact.
    @Test func aLoneOutlierBeforeALift_isNoMove() throws {
        var d = try Self.withoutGhosts()
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        for k in 1...9 { F.feed(&d, at: Double(k) / 60, F.at(0, 500 + Int32(k % 2), 250)) }
        let id = try #require(d.panel.first?.id)
        F.feed(&d, at: 10.0 / 60, F.at(0, 525, 250))
        F.feed(&d, at: 11.0 / 60, TimedFilterTests.lift(0))
        let held = try #require(d.panel.first?.x)
        #expect(held < 510, "the held lift where the rest was smoothed (the outlier in it), not at 525: \(held)")
        F.feed(&d, at: 12.0 / 60, F.land(0, id: 2, 501, 250))
        #expect(d.panel.map(\.id) == [id] && d.filterCounts.chatter == 1, "one contact: \(d.panel.map(\.id))")
    }

    /// A single-touch (resistive) panel through the same filters: its contact shown once it is
    /// old enough, a bounce the same contact, its lift held and then shown.
    @Test func aSingleTouchPanel_isFilteredToo() throws {
        var desc = DeviceDescription(name: "resistive")
        desc.codes[Evdev.EV_KEY] = [Evdev.BTN_TOUCH]
        desc.axes[Evdev.ABS_X] = AbsAxis(minimum: 0, maximum: 999)
        desc.axes[Evdev.ABS_Y] = AbsAxis(minimum: 0, maximum: 499)
        var g = GeometryConfiguration()
        g.filters = Self.noisy
        var d = try #require(FrameDecoder(description: desc, geometry: g))
        d.keepsPanel = true
        func at(_ x: Int32, _ y: Int32, touch: Int32? = nil) -> [(UInt16, UInt16, Int32)] {
            [(3, Evdev.ABS_X, x), (3, Evdev.ABS_Y, y)] + (touch.map { [(Evdev.EV_KEY, Evdev.BTN_TOUCH, $0)] } ?? [])
        }
        let up: [(UInt16, UInt16, Int32)] = [(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)]
        F.feed(&d, at: 0, at(500, 250, touch: 1))
        #expect(d.frame.contacts.isEmpty, "young")
        F.feed(&d, at: 0.05, at(501, 250))
        let id = try #require(d.frame.contacts.first?.id)
        #expect(d.frame.contacts.count == 1 && d.landed)
        F.feed(&d, at: 0.2, up)
        #expect(d.frame.contacts.map(\.id) == [id], "its lift held")
        F.feed(&d, at: 0.21, at(502, 250, touch: 1))
        #expect(d.frame.contacts.map(\.id) == [id] && !d.landed, "a bounce: the same contact")
        F.feed(&d, at: 0.3, up)
        // Held 1.25 of the panel's interval, up to 50 ms: its one spacing, 50 ms from its start
        // at time 0 (a time like any other).
        let early = d.tick(at: Timestamp(nanoseconds: 349_000_000))
        #expect(!early)
        let ended = d.tick(at: Timestamp(nanoseconds: 350_000_000))
        #expect(ended)
        #expect(d.frame.contacts.isEmpty && d.filterCounts.chatter == 1)
    }
}
