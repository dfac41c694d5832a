import Testing

@testable import Daemon
import GestureEngine

/// The latency ring behind `stats`' histograms: the last 4096 samples for the percentiles, and
/// power-of-two microsecond buckets of every sample since the start.
@Suite struct LatencyRingTests {
    @Test func samples_givePercentiles_andPowerOfTwoBuckets() {
        var ring = LatencyRing()
        for us: Int64 in [0, 1, 3, 3, 1000] { ring.add(us * 1000) }
        let h = ring.snapshot
        #expect(h.count == 5 && h.max == 1000 && h.p50 == 3 && h.sumMicroseconds == 1007)
        #expect(h.buckets == [.init(below: 1, count: 1), .init(below: 2, count: 1), .init(below: 4, count: 2), .init(below: 1024, count: 1)])
    }

    @Test func percentiles_readTheLast4096_andTheBucketsEverySample() {
        var ring = LatencyRing()
        for _ in 0..<4096 { ring.add(10_000_000_000) }  // 10 s: the last, open bucket
        for _ in 0..<4096 { ring.add(2_000) }  // 2 µs
        let h = ring.snapshot
        #expect(h.count == 8192 && h.p50 == 2 && h.p99 == 2 && h.max == 10_000_000)
        #expect(h.buckets == [.init(below: 4, count: 4096), .init(below: nil, count: 4096)])
    }

    /// Every kind and phase has a counter of its own in `GestureCounts`' fixed storage, and the
    /// snapshot reads each back under its own names.
    @Test func gestureCounts_everyKindAndPhase_countsApart() {
        let phases: [GesturePhase] = [.began, .changed, .ended, .cancelled, .recognized]
        #expect(GestureKind.allCases.count * phases.count <= GestureCounts.slots)
        var counts = GestureCounts()
        for (k, kind) in GestureKind.allCases.enumerated() {
            for (p, phase) in phases.enumerated() {
                for _ in 0..<(k * phases.count + p + 1) { counts.add(kind, phase) }
            }
        }
        let seen = counts.snapshot
        #expect(seen.count == GestureKind.allCases.count * phases.count)
        for (k, kind) in GestureKind.allCases.enumerated() {
            for (p, phase) in phases.enumerated() {
                #expect(seen.first { $0.kind == kind.rawValue && $0.phase == phase.rawValue }?.count == k * phases.count + p + 1)
            }
        }
    }
}
