/// A `stats` reply as values (docs/PROTOCOL.md, `stats`): the daemon fills one and writes it as
/// the reply's fields; `touchgesturectl metrics` reads one back and renders it
/// (`PrometheusText`). Both sides go through the fields named here, so a series the renderer
/// reads and the daemon does not write is a compile error, not a silent 0.
public struct StatsSnapshot: Equatable, Sendable {
    public var uptime = 0.0
    public var counters = Counters()
    public var panels: [Panel] = []
    /// Gesture lines by kind and phase, in the daemon's order.
    public var gestures: [GestureCount] = []
    /// Error replies and refusals by code.
    public var errorsByCode: [CodeCount] = []
    /// Input-to-write latency, and how late deadlines fired.
    public var latency = Histogram()
    public var deadlineLateness = Histogram()

    public init() {}

    /// The whole-number fields, in the reply's order.
    public struct Counters: Equatable, Sendable {
        public var clients = 0, devices = 0, frames = 0, gestureLines = 0, touchLines = 0
        public var requests = 0, errors = 0
        public var clientsAccepted = 0, clientsRefused = 0, clientsDroppedSlow = 0, clientWrites = 0
        /// Times a connection was left unread because its user had spent its share of the daemon's time.
        public var timeSharePauses = 0
        public var reloads = 0, reloadFailures = 0, engineAnomalies = 0
        public var actionsRun = 0, actionsSkipped = 0, actionsFailed = 0, actionsRunning = 0
        public var wakeups = 0, rssKilobytes = 0
        /// Touch to wake: times the kiosk went idle, times a touch woke it, and whether it is idle now (0 or 1).
        public var idles = 0, wakes = 0, asleep = 0
        /// Pointer emulation: ops written to the virtual pointer, writes that failed.
        public var pointerOps = 0, pointerWriteFailures = 0
        /// The event loop's real-time priority (SCHED_FIFO or SCHED_RR), 0 at the normal policy.
        public var realtimePriority = 0
        /// Log lines dropped: the journal did not read them in time (the loop never waits for it).
        public var logLinesDropped = 0
        public init() {}

        /// Each field's key in the reply: the one place a key is spelled.
        static var keys: [(StaticString, WritableKeyPath<Counters, Int>)] {[
            ("clients", \.clients), ("devices", \.devices), ("frames", \.frames), ("gesture_lines", \.gestureLines),
            ("touch_lines", \.touchLines), ("requests", \.requests), ("errors", \.errors),
            ("clients_accepted", \.clientsAccepted), ("clients_refused", \.clientsRefused),
            ("clients_dropped_slow", \.clientsDroppedSlow), ("time_share_pauses", \.timeSharePauses),
            ("client_writes", \.clientWrites), ("reloads", \.reloads),
            ("reload_failures", \.reloadFailures), ("engine_anomalies", \.engineAnomalies), ("actions_run", \.actionsRun),
            ("actions_skipped", \.actionsSkipped), ("actions_failed", \.actionsFailed), ("actions_running", \.actionsRunning),
            ("wakeups", \.wakeups), ("rss_kb", \.rssKilobytes), ("idles", \.idles), ("wakes", \.wakes), ("asleep", \.asleep),
            ("pointer_ops", \.pointerOps), ("pointer_write_failures", \.pointerWriteFailures),
            ("realtime_priority", \.realtimePriority), ("log_lines_dropped", \.logLinesDropped),
        ]}
    }

    /// One touch panel's health (kept after it went: `up` false).
    public struct Panel: Equatable, Sendable {
        public var name = "", vendor = "", product = "", node = ""
        public var up = false
        /// Seconds since its last frame; nil before its first.
        public var lastFrameAge: Double?
        public var counters = PanelCounters()
        public init() {}
    }

    public struct PanelCounters: Equatable, Sendable {
        public var frames = 0, events = 0, resyncs = 0, errors = 0, removals = 0
        /// What the panel's filters did, by reason (docs/CONFIG.md, "Filters").
        public var filteredGhosts = 0, filteredChatter = 0, filteredStuck = 0, filteredDeadZone = 0, filteredContactLimit = 0
        public init() {}
        static var keys: [(StaticString, WritableKeyPath<PanelCounters, Int>)] {[
            ("frames", \.frames), ("events", \.events), ("resyncs", \.resyncs), ("errors", \.errors), ("removals", \.removals),
            ("filtered_ghosts", \.filteredGhosts), ("filtered_chatter", \.filteredChatter), ("filtered_stuck", \.filteredStuck),
            ("filtered_dead_zone", \.filteredDeadZone), ("filtered_contact_limit", \.filteredContactLimit),
        ]}
    }

    public struct GestureCount: Equatable, Sendable {
        public var kind: String, phase: String, count: Int
        public init(kind: String, phase: String, count: Int) { (self.kind, self.phase, self.count) = (kind, phase, count) }
    }

    public struct CodeCount: Equatable, Sendable {
        public var code: String, count: Int
        public init(code: String, count: Int) { (self.code, self.count) = (code, count) }
    }

    /// Samples in power-of-two µs buckets since the start (bucket k holds [2^(k-1), 2^k) µs; the
    /// last has no bound), and percentiles of the recent ones.
    public struct Histogram: Equatable, Sendable {
        public var count = 0
        public var sumMicroseconds = 0.0
        public var p50 = 0.0, p99 = 0.0, max = 0.0
        /// (upper bound in µs, nil for the last bucket; samples), non-empty buckets only.
        public var buckets: [Bucket] = []
        public init() {}

        public struct Bucket: Equatable, Sendable {
            public var below: Int?
            public var count: Int
            public init(below: Int?, count: Int) { (self.below, self.count) = (below, count) }
        }
    }
}

// MARK: - Written by the daemon

extension StatsSnapshot {
    /// The reply's fields (after `"op":"stats"`), in the documented order.
    public func write(into w: inout JSONLineWriter) {
        w.field("uptime", uptime, decimals: 3)
        for (key, path) in Counters.keys { w.field(key, counters[keyPath: path]) }
        w.key("panels")
        w.beginArray()
        for p in panels {
            w.elementSeparator()
            p.write(into: &w)
        }
        w.endArray()
        w.key("gestures")
        w.beginObject()
        var i = 0
        while i < gestures.count {
            let kind = gestures[i].kind
            w.key(dynamic: kind)
            w.beginObject()
            while i < gestures.count && gestures[i].kind == kind {
                w.key(dynamic: gestures[i].phase)
                w.integer(Int64(gestures[i].count))
                i += 1
            }
            w.endObject()
        }
        w.endObject()
        w.key("errors_by_code")
        w.beginObject()
        for c in errorsByCode {
            w.key(dynamic: c.code)
            w.integer(Int64(c.count))
        }
        w.endObject()
        w.key("latency_us")
        latency.write(into: &w)
        w.key("deadline_late_us")
        deadlineLateness.write(into: &w)
    }
}

extension StatsSnapshot.Panel {
    func write(into w: inout JSONLineWriter) {
        w.beginObject()
        w.field("name", name)
        w.field("vendor", vendor)
        w.field("product", product)
        w.field("node", node)
        w.field("up", up)
        w.key("last_frame_age_s")
        if let lastFrameAge { w.fixed(lastFrameAge, decimals: 3) } else { w.raw("null") }
        for (key, path) in StatsSnapshot.PanelCounters.keys { w.field(key, counters[keyPath: path]) }
        w.endObject()
    }
}

extension StatsSnapshot.Histogram {
    func write(into w: inout JSONLineWriter) {
        w.beginObject()
        w.field("count", count)
        w.field("sum_us", sumMicroseconds, decimals: 1)
        w.field("p50", p50, decimals: 1)
        w.field("p99", p99, decimals: 1)
        w.field("max", max, decimals: 1)
        w.key("histogram")
        w.beginArray()
        for b in buckets {
            w.elementSeparator()
            w.beginObject()
            if let below = b.below { w.field("below", below) }
            w.field("count", b.count)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }
}

// MARK: - Read by the client tool

extension StatsSnapshot {
    /// A `stats` reply read back. A field the daemon did not send (an older daemon) reads as 0 or
    /// empty; a reply that is not an object is refused.
    public init?(reply v: JSONValue) {
        guard case .object = v else { return nil }
        self.init()
        uptime = v["uptime"]?.number ?? 0
        for (key, path) in Counters.keys { counters[keyPath: path] = v[key.description]?.integer ?? 0 }
        if case .array(let items)? = v["panels"] { panels = items.map(Panel.init(json:)) }
        if case .object(let kinds)? = v["gestures"] {
            for (kind, phases) in kinds {
                guard case .object(let byPhase) = phases else { continue }
                for (phase, n) in byPhase { gestures.append(GestureCount(kind: kind, phase: phase, count: n.integer ?? 0)) }
            }
        }
        if case .object(let codes)? = v["errors_by_code"] {
            errorsByCode = codes.map { CodeCount(code: $0.0, count: $0.1.integer ?? 0) }
        }
        latency = Histogram(json: v["latency_us"])
        deadlineLateness = Histogram(json: v["deadline_late_us"])
    }
}

extension StatsSnapshot.Panel {
    init(json p: JSONValue) {
        self.init()
        name = p["name"]?.string ?? ""
        vendor = p["vendor"]?.string ?? ""
        product = p["product"]?.string ?? ""
        node = p["node"]?.string ?? ""
        up = p["up"] == .bool(true)
        lastFrameAge = p["last_frame_age_s"]?.number
        for (key, path) in StatsSnapshot.PanelCounters.keys { counters[keyPath: path] = p[key.description]?.integer ?? 0 }
    }
}

extension StatsSnapshot.Histogram {
    init(json h: JSONValue?) {
        self.init()
        guard let h, let n = h["count"]?.integer else { return }
        count = n
        sumMicroseconds = h["sum_us"]?.number ?? 0
        p50 = h["p50"]?.number ?? 0
        p99 = h["p99"]?.number ?? 0
        max = h["max"]?.number ?? 0
        if case .array(let items)? = h["histogram"] {
            buckets = items.map { Bucket(below: $0["below"]?.integer, count: $0["count"]?.integer ?? 0) }
        }
    }
}

extension JSONValue {
    fileprivate var number: Double? {
        if case .number(let d) = self { return d }
        return nil
    }

    fileprivate var integer: Int? { number.flatMap { $0.isFinite && abs($0) < 9e15 ? Int($0) : nil } }

    fileprivate var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}
