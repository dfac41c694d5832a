import GestureProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// What `stats` reports: counters the daemon's parts bump, the latency and lateness rings, the
/// process's RSS. Written as the reply's fields (docs/PROTOCOL.md, `stats`).
struct Stats {
    let startedAt = monotonicNanoseconds()
    var requests = 0
    var errors = 0
    var reloads = 0
    var reloadFailures = 0
    /// Error replies by code (requests refused, and why).
    var errorsByCode: [ErrorCode: Int] = [:]
    /// How late the deadline timer fired (long press, double-tap window).
    var lateness = LatencyRing()

    /// The `stats` reply, as values (`StatsSnapshot` writes it; `touchgesturectl metrics`
    /// reads the same fields back).
    func snapshot(
        clients: Int, devices: Int, panels: [PanelHealth], frames: Int, anomalies: Int, server: Server, fanout: borrowing Fanout,
        actions: ActionRunner, wakeups: Int, idle: (idles: Int, wakes: Int, asleep: Bool), pointer: (ops: Int, failures: Int)
    ) -> StatsSnapshot {
        let now = monotonicNanoseconds()
        var s = StatsSnapshot()
        s.uptime = Double(now - startedAt) / 1e9
        (s.counters.clients, s.counters.devices, s.counters.frames) = (clients, devices, frames)
        // The fan-out's, the server's and the daemon's own counters.
        (s.counters.gestureLines, s.counters.touchLines, s.counters.clientsDroppedSlow, s.counters.clientWrites) =
            (fanout.gestureLines, fanout.touchLines, fanout.droppedSlow, fanout.writes)
        (s.counters.clientsAccepted, s.counters.clientsRefused) = (server.accepted, server.refused)
        s.counters.timeSharePauses = server.timeSharePauses
        (s.counters.requests, s.counters.errors, s.counters.reloads, s.counters.reloadFailures) =
            (requests, errors, reloads, reloadFailures)
        // Impossible (state, input) pairs and arena decisions asked twice, over all devices.
        s.counters.engineAnomalies = anomalies
        (s.counters.actionsRun, s.counters.actionsSkipped, s.counters.actionsFailed, s.counters.actionsRunning) =
            (actions.started, actions.skipped, actions.failed, actions.running)
        s.counters.wakeups = wakeups
        s.counters.rssKilobytes = Self.residentKilobytes()
        (s.counters.idles, s.counters.wakes, s.counters.asleep) = (idle.idles, idle.wakes, idle.asleep ? 1 : 0)
        (s.counters.pointerOps, s.counters.pointerWriteFailures) = pointer
        s.counters.realtimePriority = Posix.realtimePriority()
        s.counters.logLinesDropped = LogOutput.standardError.dropped
        s.panels = panels.map { $0.snapshot(now: now) }
        s.gestures = fanout.gestures.snapshot
        // The server's own refusals (the connection, not a request, is turned away) count too.
        var codes = errorsByCode
        if server.refused > 0 { codes[.tooManyClients, default: 0] += server.refused }
        if server.tooLongLines > 0 { codes[.lineTooLong, default: 0] += server.tooLongLines }
        if server.closedIdle > 0 { codes[.idleTimeout, default: 0] += server.closedIdle }
        s.errorsByCode = codes.sorted { $0.key.rawValue < $1.key.rawValue }.map { .init(code: $0.key.rawValue, count: $0.value) }
        s.latency = fanout.latencies.snapshot
        s.deadlineLateness = lateness.snapshot
        return s
    }

    /// VmRSS from /proc/self/status.
    static func residentKilobytes() -> Int {
        guard case .success(let file) = Posix.open("/proc/self/status", O_RDONLY) else { return 0 }
        var buf = [UInt8](repeating: 0, count: 8192)
        guard case .done(let n) = Posix.read(file.raw, into: &buf), n > 0 else { return 0 }
        for line in String(decoding: buf[0..<n], as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}

/// Input-to-write latencies (or deadline lateness) for `stats`: the last 4096 samples, whose
/// percentiles are computed on request, and a histogram of every sample since the start in
/// power-of-two microsecond buckets (bucket k holds [2^(k-1), 2^k) µs; bucket 0 is under 1 µs).
/// Adding a sample allocates nothing.
struct LatencyRing {
    private static let capacity = 4096
    private static let bucketCount = 24  // (the inline array below holds as many)
    /// The last `capacity` samples (ns): one array write a sample.
    private var storage = [Int64](repeating: 0, count: LatencyRing.capacity)
    /// The counts per bucket (the last also holds everything slower, 2^23 µs ≈ 8 s and up), kept
    /// inline: a count is written with no uniqueness check.
    private var counts = InlineArray<24, Int64>(repeating: 0)
    private var next = 0
    private(set) var count = 0
    private(set) var max: Int64 = 0
    /// Every sample since the start, added up (ns).
    private(set) var sum: Int64 = 0

    /// Counts per bucket.
    var buckets: [Int64] { (0..<Self.bucketCount).map { counts[$0] } }

    @inline(__always)  // from `Fanout.write` alone, once a written turn
    mutating func add(_ ns: Int64) {
        let us = UInt64(Swift.max(0, ns / 1000))
        let bucket = Swift.min(Self.bucketCount - 1, 64 - us.leadingZeroBitCount)
        let at = next
        storage[at] = ns
        counts[bucket] &+= 1
        next = at == Self.capacity - 1 ? 0 : at + 1
        count += 1
        sum &+= Swift.max(0, ns)
        if ns > max { max = ns }
    }

    /// The exclusive upper bound (µs) of bucket `k`.
    static func bucketBound(_ k: Int) -> Int { 1 << k }

    /// The ring as `stats` reports it.
    var snapshot: StatsSnapshot.Histogram {
        var h = StatsSnapshot.Histogram()
        h.count = count
        h.sumMicroseconds = Double(sum) / 1e3
        h.p50 = Double(percentile(0.5)) / 1e3
        h.p99 = Double(percentile(0.99)) / 1e3
        h.max = Double(max) / 1e3
        h.buckets = buckets.enumerated().filter { $0.element > 0 }.map {
            .init(below: $0.offset < Self.bucketCount - 1 ? Self.bucketBound($0.offset) : nil, count: Int($0.element))
        }
        return h
    }

    func percentile(_ p: Double) -> Int64 {
        let n = Swift.min(count, Self.capacity)
        guard n > 0 else { return 0 }
        let sorted = storage[0..<n].sorted()
        return sorted[Swift.min(n - 1, Int(Double(n - 1) * p))]
    }
}
