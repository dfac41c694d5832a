import GestureProtocol

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

    func write(
        into writer: inout JSONLineWriter, clients: Int, devices: Int, panels: [PanelHealth], frames: Int, anomalies: Int, server: Server,
        actions: ActionRunner, wakeups: Int
    ) {
        let now = monotonicNanoseconds()
        writer.field("uptime", Double(monotonicNanoseconds() - startedAt) / 1e9, decimals: 3)
        writer.field("clients", clients)
        writer.field("devices", devices)
        writer.field("frames", frames)
        writer.field("gesture_lines", server.fanout.gestureLines)
        writer.field("touch_lines", server.fanout.touchLines)
        writer.field("requests", requests)
        writer.field("errors", errors)
        writer.field("clients_accepted", server.accepted)
        writer.field("clients_refused", server.refused)
        writer.field("clients_dropped_slow", server.fanout.droppedSlow)
        writer.field("client_writes", server.fanout.writes)
        writer.field("reloads", reloads)
        writer.field("reload_failures", reloadFailures)
        // Impossible (state, input) pairs and arena decisions asked twice, over all devices.
        writer.field("engine_anomalies", anomalies)
        writer.field("actions_run", actions.started)
        writer.field("actions_skipped", actions.skipped)
        writer.field("actions_failed", actions.failed)
        writer.field("actions_running", actions.running)
        writer.field("wakeups", wakeups)
        writer.field("rss_kb", Self.residentKilobytes())
        writer.key("panels")
        writer.beginArray()
        for p in panels {
            writer.elementSeparator()
            p.write(into: &writer, now: now)
        }
        writer.endArray()
        writer.key("gestures")
        server.fanout.gestures.write(into: &writer)
        writer.key("errors_by_code")
        writer.beginObject()
        // The server's own refusals (the connection, not a request, is turned away) count too.
        var codes = errorsByCode
        if server.refused > 0 { codes[.tooManyClients, default: 0] += server.refused }
        if server.tooLongLines > 0 { codes[.lineTooLong, default: 0] += server.tooLongLines }
        if server.closedIdle > 0 { codes[.idleTimeout, default: 0] += server.closedIdle }
        for (code, n) in codes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            writer.key(dynamic: code.rawValue)
            writer.integer(Int64(n))
        }
        writer.endObject()
        Self.write(&writer, "latency_us", server.fanout.latencies)
        Self.write(&writer, "deadline_late_us", lateness)
    }

    private static func write(_ writer: inout JSONLineWriter, _ key: StaticString, _ ring: LatencyRing) {
        writer.key(key)
        writer.beginObject()
        writer.field("count", ring.count)
        writer.field("sum_us", Double(ring.sum) / 1e3, decimals: 1)
        writer.field("p50", Double(ring.percentile(0.5)) / 1e3, decimals: 1)
        writer.field("p99", Double(ring.percentile(0.99)) / 1e3, decimals: 1)
        writer.field("max", Double(ring.max) / 1e3, decimals: 1)
        writer.key("histogram")
        writer.beginArray()
        for (k, n) in ring.buckets.enumerated() where n > 0 {
            writer.elementSeparator()
            writer.beginObject()
            if k < ring.buckets.count - 1 { writer.field("below", LatencyRing.bucketBound(k)) }
            writer.field("count", n)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    /// VmRSS from /proc/self/status.
    static func residentKilobytes() -> Int {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 8192)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return 0 }
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
    private var samples = [Int64](repeating: 0, count: 4096)
    private var next = 0
    private(set) var count = 0
    private(set) var max: Int64 = 0
    /// Every sample since the start, added up (ns).
    private(set) var sum: Int64 = 0
    /// Counts per bucket; the last bucket also holds everything slower (2^23 µs ≈ 8 s and up).
    private(set) var buckets = [Int](repeating: 0, count: 24)

    mutating func add(_ ns: Int64) {
        samples[next] = ns
        next = (next + 1) % samples.count
        count += 1
        sum &+= Swift.max(0, ns)
        if ns > max { max = ns }
        let us = UInt64(Swift.max(0, ns / 1000))
        buckets[Swift.min(buckets.count - 1, 64 - us.leadingZeroBitCount)] += 1
    }

    /// The exclusive upper bound (µs) of bucket `k`.
    static func bucketBound(_ k: Int) -> Int { 1 << k }

    func percentile(_ p: Double) -> Int64 {
        let n = Swift.min(count, samples.count)
        guard n > 0 else { return 0 }
        let sorted = samples[0..<n].sorted()
        return sorted[Swift.min(n - 1, Int(Double(n - 1) * p))]
    }
}
