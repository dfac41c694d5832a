/// The daemon's `stats` reply in the Prometheus text exposition format (version 0.0.4), for
/// `touchgesturectl metrics` and node_exporter's textfile collector (docs/PROTOCOL.md, "Metrics").
/// The daemon only counts; the exposition is made here, in the client tool, so the daemon links no
/// metrics library and stays within its memory and start-up goals.
public enum PrometheusText {
    /// The exposition for a `stats` reply; nil (the daemon could not be reached) gives only
    /// `touchgestured_up 0`, so an alert can tell "daemon down" from "no data".
    public static func render(_ stats: StatsSnapshot?) -> String {
        var out = Output()
        out.metric("touchgestured_up", "gauge", "1 when touchgesturectl read the daemon's stats, 0 when it could not reach it.")
        out.sample("touchgestured_up", [], stats == nil ? 0 : 1)
        guard let s = stats else { return out.text }
        let c = s.counters
        out.single("touchgestured_uptime_seconds", "gauge", "Seconds since the daemon started.", s.uptime)
        out.single("touchgestured_clients", "gauge", "Clients connected to the stream socket now (not the request socket's one-shot ones: not this scrape).", c.clients)
        out.single("touchgestured_devices", "gauge", "Touch devices read now.", c.devices)
        out.single("touchgestured_resident_memory_bytes", "gauge", "The daemon's resident memory.", c.rssKilobytes * 1024)
        out.single("touchgestured_frames_total", "counter", "Touch frames read, all devices.", c.frames)
        out.single("touchgestured_gesture_events_total", "counter", "Gesture events made, all kinds and phases.", c.gestureLines)
        out.single("touchgestured_touch_lines_total", "counter", "Touch lines sent to clients.", c.touchLines)
        out.single("touchgestured_requests_total", "counter", "Client request lines.", c.requests)
        out.single("touchgestured_clients_accepted_total", "counter", "Connections accepted.", c.clientsAccepted)
        out.single("touchgestured_clients_refused_total", "counter", "Connections turned away (too many clients, or out of fds).", c.clientsRefused)
        out.single("touchgestured_clients_dropped_slow_total", "counter", "Clients disconnected for not reading.", c.clientsDroppedSlow)
        out.single(
            "touchgestured_time_share_pauses_total", "counter",
            "Times a connection was left unread: its user's requests had taken their share of the daemon's time (request_ms_per_user).",
            c.timeSharePauses)
        out.single("touchgestured_reloads_total", "counter", "Configuration reloads applied (SIGHUP).", c.reloads)
        out.single("touchgestured_reload_failures_total", "counter", "Configuration reloads refused (the old configuration stayed).", c.reloadFailures)
        out.single("touchgestured_engine_anomalies_total", "counter", "Impossible recognizer inputs and double arena decisions (a bug if not 0).", c.engineAnomalies)
        out.single("touchgestured_wakeups_total", "counter", "Event-loop wake-ups.", c.wakeups)
        out.single("touchgestured_client_writes_total", "counter", "write(2) calls to clients (lines coalesced per coalesce_ms).", c.clientWrites)
        out.single("touchgestured_actions_run_total", "counter", "[[action]]s run: chords pressed, commands started.", c.actionsRun)
        out.single("touchgestured_actions_skipped_total", "counter", "Commands not started: max_action_children were running.", c.actionsSkipped)
        out.single("touchgestured_actions_failed_total", "counter", "Actions that failed (no keyboard, a command that could not start, exited non-zero or was killed).", c.actionsFailed)
        out.single("touchgestured_actions_running", "gauge", "Action commands running now.", c.actionsRunning)
        out.single("touchgestured_idle_total", "counter", "Times the kiosk went idle ([idle] after).", c.idles)
        out.single("touchgestured_wakes_total", "counter", "Times a touch woke the kiosk (its sequence swallowed).", c.wakes)
        out.single("touchgestured_asleep", "gauge", "1 while the kiosk is idle.", c.asleep)
        out.single(
            "touchgestured_realtime_priority", "gauge", "The event loop's real-time priority (SCHED_FIFO or SCHED_RR); 0 at the normal policy.",
            c.realtimePriority)
        out.single("touchgestured_pointer_ops_total", "counter", "Ops written to the virtual pointer (moves, buttons, wheel turns).", c.pointerOps)
        out.single("touchgestured_pointer_write_failures_total", "counter", "Writes to the virtual pointer that failed.", c.pointerWriteFailures)
        out.single("touchgestured_log_lines_dropped_total", "counter", "Log lines dropped: the journal did not read them in time.", c.logLinesDropped)

        // Every code from 0 on (a series that appears with its first error hides it from
        // `increase()`); then any code the daemon sent that this build does not know.
        out.metric("touchgestured_request_errors_total", "counter", "Error replies and refusals, by code.")
        for code in ErrorCode.allCases {
            let n = s.errorsByCode.first { $0.code == code.rawValue }?.count ?? 0
            out.sample("touchgestured_request_errors_total", [("code", code.rawValue)], Double(n))
        }
        for e in s.errorsByCode where ErrorCode(rawValue: e.code) == nil {
            out.sample("touchgestured_request_errors_total", [("code", e.code)], Double(e.count))
        }
        out.metric("touchgestured_gestures_total", "counter", "Gesture events by kind and phase.")
        for g in s.gestures {
            out.sample("touchgestured_gestures_total", [("gesture", g.kind), ("phase", g.phase)], Double(g.count))
        }
        if !s.panels.isEmpty { out.panels(s.panels) }
        out.histogram(s.latency, "touchgestured_client_latency_seconds", "From reading a touch frame to writing the line it made to a client.")
        out.histogram(s.deadlineLateness, "touchgestured_deadline_lateness_seconds", "How late a gesture deadline (long press, double-tap window) fired.")
        return out.text
    }

    struct Output {
        var text = ""

        mutating func metric(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(escapeHelp(help))\n# TYPE \(name) \(type)\n"
        }

        mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
            text += name
            if !labels.isEmpty {
                text += "{" + labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " " + format(value) + "\n"
        }

        /// One sample without labels, under its own HELP and TYPE.
        mutating func single(_ name: String, _ type: String, _ help: String, _ value: Double) {
            metric(name, type, help)
            sample(name, [], value)
        }

        mutating func single(_ name: String, _ type: String, _ help: String, _ value: Int) {
            single(name, type, help, Double(value))
        }

        mutating func panels(_ panels: [StatsSnapshot.Panel]) {
            func labels(_ p: StatsSnapshot.Panel) -> [(String, String)] {
                [("name", p.name), ("vendor_product", p.vendor + ":" + p.product), ("node", p.node)]
            }
            metric("touchgestured_device_up", "gauge", "1 while the touch panel is present; 0 once it went (kept so a missing panel can be alerted on).")
            for p in panels { sample("touchgestured_device_up", labels(p), p.up ? 1 : 0) }
            metric("touchgestured_device_last_frame_age_seconds", "gauge", "Seconds since the panel's last touch frame (absent until it has had one).")
            for p in panels {
                if let age = p.lastFrameAge { sample("touchgestured_device_last_frame_age_seconds", labels(p), age) }
            }
            let series: [(String, String, KeyPath<StatsSnapshot.PanelCounters, Int>)] = [
                ("touchgestured_device_frames_total", "Touch frames read from the panel.", \.frames),
                ("touchgestured_device_events_total", "evdev events read from the panel.", \.events),
                ("touchgestured_device_resyncs_total", "Events lost (SYN_DROPPED) and the panel's state read again.", \.resyncs),
                ("touchgestured_device_errors_total", "Failed reads from the panel.", \.errors),
                ("touchgestured_device_removals_total", "Times the panel went away (unplugged).", \.removals),
            ]
            for (name, help, path) in series {
                metric(name, "counter", help)
                for p in panels { sample(name, labels(p), Double(p.counters[keyPath: path])) }
            }
            let reasons: [(String, KeyPath<StatsSnapshot.PanelCounters, Int>)] = [
                ("ghost", \.filteredGhosts), ("chatter", \.filteredChatter), ("stuck", \.filteredStuck), ("dead_zone", \.filteredDeadZone),
                ("contact_limit", \.filteredContactLimit),
            ]
            metric(
                "touchgestured_device_filtered_total", "counter",
                "Contacts the panel's filters caught, by reason: ghost, chatter, stuck, dead_zone, contact_limit (kept from the app by a region's max_contacts).")
            for p in panels {
                for (reason, path) in reasons { sample("touchgestured_device_filtered_total", labels(p) + [("reason", reason)], Double(p.counters[keyPath: path])) }
            }
        }

        /// The daemon's power-of-two µs buckets (each sample once, since the start) as a
        /// cumulative Prometheus histogram in seconds.
        mutating func histogram(_ h: StatsSnapshot.Histogram, _ name: String, _ help: String) {
            metric(name, "histogram", help)
            var below: [Int: Int] = [:]
            for b in h.buckets { if let bound = b.below { below[bound] = b.count } }
            // Every bound from 1 µs to 2^23 µs, so the series set does not change between scrapes.
            var cumulative = 0
            for k in 0..<24 {
                cumulative += below[1 << k] ?? 0
                sample(name + "_bucket", [("le", format(Double(1 << k) / 1e6))], Double(cumulative))
            }
            sample(name + "_bucket", [("le", "+Inf")], Double(h.count))
            sample(name + "_sum", [], h.sumMicroseconds / 1e6)
            sample(name + "_count", [], Double(h.count))
        }
    }

    static func format(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    /// A label value: backslash, double quote and newline escaped (the exposition format).
    static func escapeLabel(_ s: String) -> String { escaped(s, quotes: true) }

    /// A HELP text: backslash and newline escaped (a double quote stays as it is there).
    static func escapeHelp(_ s: String) -> String { escaped(s, quotes: false) }

    private static func escaped(_ s: String, quotes: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            if c == "\\" {
                out += "\\\\"
            } else if c == "\n" {
                out += "\\n"
            } else if quotes && c == "\"" {
                out += "\\\""
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
