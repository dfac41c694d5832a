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

    /// A 50 Hz panel's report up to 2 ms before a young contact comes of age (a live panel's
    /// jitter) shows it: no frame of the filters' own follows a fraction of a millisecond later,
    /// and its next report, its lift at the earliest, comes past its age. One 2.1 ms before is
    /// young still, shown by a frame of the filters' own at its age.
    @Test(arguments: [(0.0395, true), (0.038, true), (0.0379, false)])
    func aReportJustBeforeItsAge(at: (Double, shows: Bool)) throws {
        var d = try F.decoder { f in
            f.ghostNs = 40_000_000
            f.dejitter = .init(minCutoff: 1)
        }
        F.feed(&d, at: 0, F.land(0, id: 9, 100, 250))
        for k in 1...5 { F.feed(&d, at: 0.02 * Double(k), F.at(0, 100 + 10 * Int32(k), 250)) }
        F.feed(&d, at: 0.12, TimedFilterTests.lift(0))
        while let due = d.nextTick { _ = d.tick(at: due) }
        F.feed(&d, at: 1, F.land(0, id: 1, 500, 250))
        F.feed(&d, at: 1.02, F.at(0, 510, 250))
        F.feed(&d, at: 1 + at.0, F.at(0, 520, 250))
        #expect((d.frame.contacts.count == 1 && d.landed) == at.shows, "shown by the report")
        #expect(d.nextTick == (at.shows ? nil : Timestamp(nanoseconds: 1_040_000_000)))
        F.feed(&d, at: 1.06, TimedFilterTests.lift(0))
        #expect(d.filterCounts.ghosts == 0, "a touch: lifted past its age")
    }
}
