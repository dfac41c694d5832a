import GestureEngine
import Testing

@testable import TouchFrames

/// The chatter window on a slow panel (`ContactFilter.chatterWindow`): a lift is held at least
/// 1.25 of the panel's report intervals, so a one-report bounce at 30 Hz (33 ms and its jitter)
/// is one contact under the example's 35 ms window; at 60 Hz the window is as configured. On the
/// panel of `ContactFilterTests`.
@Suite struct FilterWindowTests {
    typealias F = ContactFilterTests

    /// A finger resting from 1 s (flickering a unit, so each report is sent) at `rate` Hz for
    /// ten reports, lifted at the next; the decoder and the lift's time.
    static func rest(rate: Double, dejitter: Bool) throws -> (FrameDecoder, Double) {
        var d = try F.decoder { f in
            f.chatterNs = 35_000_000
            if dejitter { f.dejitter = .init(minCutoff: 1) }
        }
        F.feed(&d, at: 1, F.land(0, id: 1, 500, 250))
        for k in 1...10 { F.feed(&d, at: 1 + Double(k) / rate, F.at(0, 500 + Int32(k % 2), 250)) }
        let lift = 1 + 11 / rate
        F.feed(&d, at: lift, TimedFilterTests.lift(0))
        return (d, lift)
    }

    @Test(arguments: [false, true])
    func aBounceAt30Hz_38msAfterItsLift_isTheSameContact(dejitter: Bool) throws {
        var (d, lift) = try Self.rest(rate: 30, dejitter: dejitter)
        let id = try #require(d.panel.first?.id)
        F.feed(&d, at: lift + 0.038, F.land(0, id: 2, 501, 250))
        #expect(d.panel.map(\.id) == [id] && d.filterCounts.chatter == 1, "one contact: \(d.panel.map(\.id))")
    }

    /// Held 1.25 intervals (41.7 ms) at 30 Hz, not longer: no landing, the lift is shown then.
    @Test func aLiftAt30Hz_isHeld42ms() throws {
        var (d, lift) = try Self.rest(rate: 30, dejitter: true)
        _ = d.tick(at: Timestamp(nanoseconds: Int64((lift + 0.040) * 1e9)))
        #expect(d.panel.count == 1, "still held at 40 ms")
        _ = d.tick(at: Timestamp(nanoseconds: Int64((lift + 0.042) * 1e9)))
        #expect(d.panel.isEmpty, "lifted at 41.7 ms")
    }

    @Test func at60Hz_theWindowIsAsConfigured() throws {
        var (d, lift) = try Self.rest(rate: 60, dejitter: true)
        let id = try #require(d.panel.first?.id)
        F.feed(&d, at: lift + 0.038, F.land(0, id: 2, 501, 250))
        #expect(d.panel.map(\.id) != [id] && d.filterCounts.chatter == 0)
    }

    /// Frames at `times` (s) on a decoder with the example's chatter and dejitter filters, fresh
    /// from a start, with the filters' own frames between them as the daemon makes them (a held
    /// lift ends at its time): `events[k]` at `times[k]`.
    static func fresh(_ frames: [(Double, [(UInt16, UInt16, Int32)])], ghost: Bool = false) throws -> FrameDecoder {
        var d = try F.decoder { f in
            (f.chatterNs, f.chatterDistanceMM) = (35_000_000, 8)
            f.dejitter = .init(minCutoff: 0.5)
            if ghost { f.ghostNs = 40_000_000 }
        }
        for (t, events) in frames {
            let now = Timestamp(nanoseconds: Int64(t * 1e9))
            if let due = d.nextTick, due < now { _ = d.tick(at: due) }
            F.feed(&d, at: t, events)
        }
        return d
    }

    /// The first touch after a start on a 25 Hz panel, lifting after one report and landing again
    /// at the next (40 ms): nothing taught the interval but the lift's own spacing, one contact.
    @Test func aFirstTouchsBounceAt25Hz_afterOneReport_isTheSameContact() throws {
        let d = try Self.fresh([(1, F.land(0, id: 1, 500, 250)), (1.04, TimedFilterTests.lift(0)), (1.08, F.land(0, id: 2, 501, 250))])
        #expect(d.panel.map(\.id) == [1] && d.filterCounts.chatter == 1, "one contact: \(d.panel.map(\.id))")
    }

    /// The first spacings of a jittery 25 Hz panel, 30 then 45 and 40 ms: the interval is their
    /// mean (38 ms), not the first alone (a 40 ms window), and a bounce 46 ms after the lift is
    /// the same contact.
    @Test func aFirstTouchsBounce_afterAShortFirstSpacing_isTheSameContact() throws {
        let d = try Self.fresh([
            (1, F.land(0, id: 1, 500, 250)), (1.030, F.at(0, 501, 250)), (1.075, F.at(0, 500, 251)), (1.115, F.at(0, 501, 251)),
            (1.155, TimedFilterTests.lift(0)), (1.201, F.land(0, id: 2, 501, 250)),
        ])
        #expect(d.panel.map(\.id) == [1] && d.filterCounts.chatter == 1, "one contact: \(d.panel.map(\.id))")
    }

    /// A 60 Hz panel whose first touch rested still 45 ms before its lift (the kernel sent
    /// nothing): that lift is held 50 ms at most, and the next touch's reports bring the window
    /// back to the configured 35 ms.
    @Test func aStillFirstTouch_holdsItsLiftOnce() throws {
        var frames: [(Double, [(UInt16, UInt16, Int32)])] = [(1, F.land(0, id: 1, 500, 250)), (1.045, TimedFilterTests.lift(0))]
        frames.append((1.5, F.land(0, id: 2, 700, 300)))
        for k in 1...12 { frames.append((1.5 + Double(k) / 60, F.at(0, 700 + Int32(k % 2), 300))) }
        frames.append((1.5 + 13.0 / 60, TimedFilterTests.lift(0)))
        var d = try Self.fresh(frames)
        let lift = 1.5 + 13.0 / 60
        #expect(d.nextTick == Timestamp(nanoseconds: Int64(Int(lift * 1e6)) * 1_000 + 35_000_000), "held as configured after a moving touch")
        _ = d.tick(at: Timestamp(nanoseconds: Int64((lift + 0.036) * 1e9)))
        #expect(d.panel.isEmpty)
    }

    /// The filters' own frames teach nothing of the panel's interval: at 30 Hz a young contact
    /// comes of age by a frame of the filters' own 40 ms after it landed, 6.7 ms after the
    /// report before, and the lift is still held 1.25 reports (41.7 ms), not less.
    @Test func theFiltersOwnFrames_teachNoInterval() throws {
        var frames: [(Double, [(UInt16, UInt16, Int32)])] = [(1, F.land(0, id: 1, 500, 250))]
        for k in 1...6 { frames.append((1 + Double(k) / 30, F.at(0, 500 + Int32(k % 2), 250))) }
        frames.append((1 + 7.0 / 30, TimedFilterTests.lift(0)))
        let d = try Self.fresh(frames, ghost: true)
        let held = try #require(d.nextTick).nanoseconds - Int64(Int((1 + 7.0 / 30) * 1e6)) * 1_000
        #expect(abs(held - 41_666_666) < 100_000, "held \(held) ns")
    }

    /// A 25 Hz panel's late reports (55 and 58 ms apart, its jitter) teach its interval too: left
    /// out, it came out short (37 ms) and a bounce 48 ms after the lift was a second contact.
    @Test func aSlowPanelsLateReports_teachItsInterval() throws {
        var frames: [(Double, [(UInt16, UInt16, Int32)])] = [(1, F.land(0, id: 1, 500, 250))]
        var t = 1.0
        for (k, gap) in [0.030, 0.055, 0.035, 0.058, 0.032].enumerated() {
            t += gap
            frames.append((t, F.at(0, 500 + Int32(k % 2), 250)))
        }
        frames.append((t + 0.050, TimedFilterTests.lift(0)))
        frames.append((t + 0.098, F.land(0, id: 2, 501, 250)))
        let d = try Self.fresh(frames)
        #expect(d.panel.map(\.id) == [1] && d.filterCounts.chatter == 1, "one contact: \(d.panel.map(\.id))")
    }
}

/// The interval on a quiet panel (`ReportInterval`): the kernel sends no report whose values all
/// repeat, so a finger that rests between reports leaves spacings of 2 and 3 intervals.
@Suite struct FilterQuietIntervalTests {
    typealias F = ContactFilterTests

    /// A touch of 20 reports at 60 Hz from 1 s (flickering a unit), lifted at the next: it
    /// teaches 16.7 ms. Its frames, and its last report's time.
    static func sixtyHertzTouch() -> ([(Double, [(UInt16, UInt16, Int32)])], Double) {
        var frames: [(Double, [(UInt16, UInt16, Int32)])] = [(1, F.land(0, id: 1, 500, 250))]
        var t = 1.0
        for k in 0..<20 {
            t += 1.0 / 60
            frames.append((t, F.at(0, 500 + Int32(k % 2), 250)))
        }
        frames.append((t + 1.0 / 60, TimedFilterTests.lift(0)))
        return (frames, t)
    }

    /// A 45 Hz panel's touch of 60 reports, spaced 1, 2, 1, 3, 2, 1 intervals over and over
    /// (or mostly 2: a finger resting more often than not), then a second finger 40 ms after the
    /// lift (a quick double tap): the interval is learnt as the panel's 22 ms, not the spacings'
    /// mean of 37 or 44 (a 46-50 ms hold merged the two taps), and the lift is held the
    /// configured 35 ms.
    @Test(arguments: [[1, 2, 1, 3, 2, 1], [2, 1, 2, 3, 2, 2]])
    func aQuietPanelsLongSpacings_teachNoLongerHold(spacings: [Int]) throws {
        let step = 1.0 / 45
        var frames: [(Double, [(UInt16, UInt16, Int32)])] = [(1, F.land(0, id: 1, 500, 250))]
        var t = 1.0
        for k in 0..<60 {
            t += step * Double(spacings[k % 6])
            frames.append((t, F.at(0, 500 + Int32(k % 2), 250)))
        }
        let lift = t + step
        frames.append((lift, TimedFilterTests.lift(0)))
        var d = try FilterWindowTests.fresh(frames)
        let held = try #require(d.nextTick).nanoseconds - Int64(Int(lift * 1e6)) * 1_000
        #expect(held == 35_000_000, "held \(held) ns")
        F.feed(&d, at: lift + 0.040, F.land(0, id: 2, 503, 250))
        #expect(d.panel.map(\.id) != [1] && d.filterCounts.chatter == 0, "a second contact: \(d.panel.map(\.id))")
    }

    /// A panel that slows down: a touch of 20 reports at 60 Hz teaches 16.7 ms, then touches at
    /// 25 Hz (40 ms apart: over 1.5 of it, which a quiet panel's resting finger would be) do, eight
    /// in a row, so a lift is then held 50 ms and a bounce of one report (landing again 40 ms after
    /// the lift) is the same contact, not a double tap.
    @Test func aPanelThatSlowsDown_isLearntAgain() throws {
        var (frames, t) = Self.sixtyHertzTouch()
        t += 1
        frames.append((t, F.land(0, id: 2, 800, 250)))
        for k in 0..<9 {
            t += 0.040
            frames.append((t, F.at(0, 800 + Int32(k % 2), 250)))
        }
        let lift = t + 0.040
        frames.append((lift, TimedFilterTests.lift(0)))
        var d = try FilterWindowTests.fresh(frames)
        let held = try #require(d.nextTick).nanoseconds - Int64(Int(lift * 1e6)) * 1_000
        #expect(held == 50_000_000, "held \(held) ns")
        F.feed(&d, at: lift + 0.040, F.land(0, id: 3, 803, 250))
        #expect(d.panel.map(\.id) == [2] && d.filterCounts.chatter == 1, "the same contact: \(d.panel.map(\.id))")
    }
}
