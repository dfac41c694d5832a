import GestureEngine
import Testing

@testable import TouchFrames

/// A young contact (the ghost filter) whose lift comes as it comes of age: on the panel of
/// `ContactFilterTests`.
@Suite struct FilterLiftAgeTests {
    typealias F = ContactFilterTests

    /// A 25 Hz panel with `ghost_under` 40 ms (its interval learnt from a first touch): a tap of
    /// one report, its lift the next report 40 or 41 ms on, is a touch: its coming of age waited
    /// 2 ms for that report, which was its lift. Shown at its lift and lifted after (with the
    /// chatter filter, its hold; without, the filters' next frame). Lifting at 39 ms it is a
    /// ghost, never shown, its held lift's end no coming of age.
    @Test(arguments: [(0.040, true), (0.041, true), (0.039, false)], [true, false])
    func aOneReportTapAt25Hz(lift: (Double, Bool), chatter: Bool) throws {
        var d = try F.decoder { f in
            f.ghostNs = 40_000_000
            f.dejitter = .init(minCutoff: 1)
            if chatter { f.chatterNs = 35_000_000 }
        }
        F.feed(&d, at: 0, F.land(0, id: 9, 100, 250))
        for k in 1...5 { F.feed(&d, at: 0.04 * Double(k), F.at(0, 100 + 10 * Int32(k), 250)) }
        F.feed(&d, at: 0.24, TimedFilterTests.lift(0))
        while let due = d.nextTick { _ = d.tick(at: due) }
        let before = d.filterCounts.ghosts
        F.feed(&d, at: 1, F.land(0, id: 1, 500, 250))
        #expect(d.frame.contacts.isEmpty && d.nextTick == Timestamp(nanoseconds: 1_042_000_000), "young, its age 2 ms late")
        F.feed(&d, at: 1 + lift.0, TimedFilterTests.lift(0))
        var shown = d.frame.contacts.count
        #expect(!lift.1 || (shown == 1 && d.landed && d.frame.contacts.first?.isLifted == false), "shown down at its lift")
        var frames = 0
        while let due = d.nextTick, frames < 10 {
            _ = d.tick(at: due)
            shown = max(shown, d.frame.contacts.count)
            frames += 1
        }
        #expect(d.frame.contacts.isEmpty && d.nextTick == nil, "lifted")
        #expect(shown == (lift.1 ? 1 : 0) && d.filterCounts.ghosts - before == (lift.1 ? 0 : 1), "shown \(shown)")
    }

    /// A contact lifting before `ghost_under` is a ghost however its reports fall: one reported
    /// 1.5 ms before its age by a 50 Hz panel, lifting 0.7 ms later in a frame of its own (a
    /// burst, or a driver that sends a frame a contact), is never shown, though a report so
    /// close to the age would spare a frame of the filters' own 1.5 ms on (a review showed a
    /// 39 ms ghost become a tap when such a report showed it early). Still down at its age, it
    /// is shown by that frame.
    @Test(arguments: [true, false])
    func aReportJustBeforeItsAge_showsNothingYet(lifts: Bool) throws {
        var d = try F.decoder { f in
            f.ghostNs = 40_000_000
            f.dejitter = .init(minCutoff: 1)
        }
        F.feed(&d, at: 0, F.land(0, id: 9, 100, 250))
        for k in 1...5 { F.feed(&d, at: 0.02 * Double(k), F.at(0, 100 + 10 * Int32(k), 250)) }
        F.feed(&d, at: 0.12, TimedFilterTests.lift(0))
        while let due = d.nextTick { _ = d.tick(at: due) }
        F.feed(&d, at: 1, F.land(0, id: 1, 500, 250))
        F.feed(&d, at: 1.02, F.at(0, 501, 250))
        F.feed(&d, at: 1.0385, F.at(0, 502, 250))
        #expect(d.frame.contacts.isEmpty && d.nextTick == Timestamp(nanoseconds: 1_040_000_000), "young until 40 ms")
        var shown = 0
        if lifts { F.feed(&d, at: 1.0392, TimedFilterTests.lift(0)) }
        while let due = d.nextTick {
            _ = d.tick(at: due)
            shown = max(shown, d.frame.contacts.count)
        }
        #expect(shown == (lifts ? 0 : 1) && d.filterCounts.ghosts == (lifts ? 1 : 0))
    }
}
