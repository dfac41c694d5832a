import GestureEngine
import Testing

@testable import TouchFrames

/// The report interval: a pause ending a run of long spacings (`ReportInterval.pause`), and a
/// recording's time 0 (`ContactFilter.Tally.report`): a held lift's length on the panel of
/// `ContactFilterTests`, with the example's chatter and dejitter filters.
@Suite struct FilterReportTests {
    typealias F = ContactFilterTests

    /// How long the lift at `lift` (s) is held, the frames before it fed.
    static func held(_ frames: [(Double, [(UInt16, UInt16, Int32)])], lift: Double) throws -> Int64 {
        let d = try FilterWindowTests.fresh(frames + [(lift, TimedFilterTests.lift(0))])
        return try #require(d.nextTick).nanoseconds - Int64(Int(lift * 1e6)) * 1_000
    }

    /// A 60 Hz touch teaches 16.7 ms; then still taps (a landing, a lift 50 ms later: one spacing
    /// of 50 ms each, over 1.5 of it) 1.5 s apart, eight of them: a pause of the panel between
    /// each, so they are no panel that slowed down, and a quick tap's lift after them is held the
    /// configured 35 ms (a run across the pauses relearnt 50 ms and merged a double tap's halves).
    @Test func stillTapsSecondsApart_teachNoSlowerPanel() throws {
        var (frames, t) = FilterQuietIntervalTests.sixtyHertzTouch()
        for k in 0..<8 {
            t += 1.5
            frames.append((t, F.land(0, id: Int32(2 + k), 800, 250)))
            frames.append((t + 0.05, TimedFilterTests.lift(0)))
        }
        t += 1.5
        frames.append((t, F.land(0, id: 10, 800, 250)))
        let held = try Self.held(frames, lift: t + 0.05)
        #expect(held == 35_000_000, "held \(held) ns")
    }

    /// A recording starts at time 0 (`touchgesturectl record` writes it so): its first touch, a
    /// 25 Hz one-report tap, teaches the interval as one at 1 s does, and its bounce at the next
    /// report is the same contact (0 once meant "no report yet": a double tap).
    @Test func aFirstTouchAtTimeZero_teachesTheInterval() throws {
        let d = try FilterWindowTests.fresh([(0, F.land(0, id: 1, 500, 250)), (0.04, TimedFilterTests.lift(0)), (0.08, F.land(0, id: 2, 501, 250))])
        #expect(d.panel.map(\.id) == [1] && d.filterCounts.chatter == 1, "one contact: \(d.panel.map(\.id))")
    }
}
