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
}
