import GestureEngine
import Testing

@testable import TouchFrames

/// A bounce at rest settling (ContactFilterSettle.swift): where it goes on from is worked out
/// over the reports after its landing, on the panel of `ContactFilterTests` (0.344 mm a unit),
/// with the example's dejitter and chatter filters.
@Suite struct FilterSettleTests {
    typealias F = ContactFilterTests

    static var filters: ContactFilterSettings {
        var f = ContactFilterSettings()
        f.dejitter = .init(minCutoff: 0.5)
        f.dejitter?.restSpeed = 50
        f.chatterNs = 35_000_000
        f.chatterDistanceMM = 5
        return f
    }

    /// A finger resting at (500, 250) from `t0` to `t1`, a report each 10 ms, ±2 units of noise.
    static func rest(_ d: inout FrameDecoder, from t0: Double, to t1: Double, x: Int32 = 500) {
        let noise: [Int32] = [2, -1, -2, 1, 0, -2, 2, -1]
        var k = 0
        while t0 + Double(k) * 0.01 < t1 - 1e-9 {
            F.feed(&d, at: t0 + Double(k) * 0.01, F.at(0, x + noise[k % 8], 250 + noise[(k + 3) % 8]))
            k += 1
        }
    }

    /// A bounce whose landing report lies 4.1 mm off a resting finger goes on from where the
    /// finger rests, not from that report: the virtual touchscreen's resting place stays within
    /// half a millimetre of the one before the bounce (it moved by the 4.1 mm before).
    @Test func aRestingBounce_whoseLandingReportIsOff_goesOnWhereTheFingerRests() throws {
        var d = try F.decoder(Self.filters)
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        Self.rest(&d, from: 0.01, to: 1)
        let before = try #require(d.panel.first)
        let id = before.id
        F.feed(&d, at: 1, TimedFilterTests.lift(0))
        F.feed(&d, at: 1.02, F.land(0, id: 2, 512, 251))
        #expect(d.panel.map(\.id) == [id], "a bounce: the same contact")
        Self.rest(&d, from: 1.03, to: 1.6)
        let after = try #require(d.panel.first)
        #expect(after.id == id)
        #expect(abs(after.x - before.x) <= 1 && abs(after.y - before.y) <= 1, "before \(before), after \(after)")
        #expect(d.filterCounts.chatter == 1)
    }

    /// A finger that starts to drag right after a bounce at rest: once its reports slope, the
    /// bounce goes on from the start of their line, so the drag is not held back by the mean of
    /// its first reports (about 20 units, 7 mm, with the mean alone).
    @Test func aDragRightAfterARestingBounce_isNotHeldBack() throws {
        var d = try F.decoder(Self.filters)
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        for k in 1..<100 { F.feed(&d, at: Double(k) * 0.01, F.at(0, 500, 250 + Int32(k % 2))) }
        F.feed(&d, at: 1, TimedFilterTests.lift(0))
        F.feed(&d, at: 1.02, F.land(0, id: 2, 500, 250))
        for k in 1...20 { F.feed(&d, at: 1.02 + Double(k) * 0.01, F.at(0, 500 + 3 * Int32(k), 250 + Int32(k % 2))) }
        for k in 1...60 { F.feed(&d, at: 1.22 + Double(k) * 0.01, F.at(0, 560, 250 + Int32(k % 2))) }
        let end = try #require(d.panel.first)
        #expect(abs(end.x - 560) <= 2, "\(end)")
    }

    /// A drag starting late in the settling time on a quiet panel, which sends nothing while the
    /// finger rests: the mean of its few reports is all drag, and the two halves' means lie far
    /// apart: it goes on from its landing report, not 2 mm behind the finger.
    @Test func aLateSlowDragOnAQuietPanel_goesOnFromItsLandingReport() throws {
        var d = try F.decoder(Self.filters)
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        F.feed(&d, at: 0.5, F.at(0, 500, 251))
        F.feed(&d, at: 1, TimedFilterTests.lift(0))
        F.feed(&d, at: 1.01, F.land(0, id: 2, 500, 251))
        // Nothing until 1.11 (the finger still), then 100 mm/s: a unit every 3.4 ms, a report each 5 ms.
        for k in 0..<60 { F.feed(&d, at: 1.11 + Double(k) * 0.005, F.at(0, 501 + Int32(Double(k) * 1.45), 251)) }
        let last = 501 + Int32(59 * 1.45)
        for k in 1...60 { F.feed(&d, at: 1.41 + Double(k) * 0.01, F.at(0, last, 251 + Int32(k % 2))) }
        let end = try #require(d.panel.first)
        #expect(abs(end.x - last) <= 1, "\(end) against \(last)")
    }

    /// One report far off (an outlier of the panel's, 30 mm) while a bounce settles is passed
    /// over: the resting place stays where the finger rests.
    @Test func anOutlierWhileSettling_isPassedOver() throws {
        var d = try F.decoder(Self.filters)
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        Self.rest(&d, from: 0.01, to: 1)
        let before = try #require(d.panel.first)
        F.feed(&d, at: 1, TimedFilterTests.lift(0))
        F.feed(&d, at: 1.02, F.land(0, id: 2, 500, 250))
        Self.rest(&d, from: 1.03, to: 1.06)
        F.feed(&d, at: 1.06, F.at(0, 587, 250))
        Self.rest(&d, from: 1.07, to: 1.8)
        let after = try #require(d.panel.first)
        #expect(abs(after.x - before.x) <= 1 && abs(after.y - before.y) <= 1, "before \(before), after \(after)")
    }

    /// Without the dejitter filter there is no smoothed rest to go on from: a bounce goes on
    /// from where the finger left, as before, and nothing settles.
    @Test func withoutDejitter_aRestingBounceGoesOnFromTheLift() throws {
        var f = Self.filters
        f.dejitter = nil
        var d = try F.decoder(f)
        F.feed(&d, at: 0, F.land(0, id: 1, 500, 250))
        F.feed(&d, at: 0.5, F.at(0, 501, 250))
        F.feed(&d, at: 1, TimedFilterTests.lift(0))
        F.feed(&d, at: 1.02, F.land(0, id: 2, 510, 250))
        F.feed(&d, at: 1.03, F.at(0, 500, 250))
        #expect(d.panel.first?.x == 491, "the jump (9 units) kept as the offset: \(d.panel)")
    }
}
