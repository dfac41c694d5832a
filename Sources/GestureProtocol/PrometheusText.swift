/// The daemon's `stats` reply in the Prometheus text exposition format (version 0.0.4), for
/// `touchgesturectl metrics` and node_exporter's textfile collector (docs/PROTOCOL.md, "Metrics").
/// The daemon only counts; the exposition is made here, in the client tool, so the daemon links no
/// metrics library and stays within its memory and start-up goals.
public enum PrometheusText {
    /// The exposition for a `stats` reply; nil (the daemon could not be reached) gives only
    /// `touchgestured_up 0`, so an alert can tell "daemon down" from "no data".
    public static func render(_ stats: JSONValue?) -> String {
        var out = Output()
        out.metric("touchgestured_up", "gauge", "1 when touchgesturectl read the daemon's stats, 0 when it could not reach it.")
        out.sample("touchgestured_up", [], stats == nil ? 0 : 1)
        guard let s = stats else { return out.text }

        out.gauge(s, "uptime", "touchgestured_uptime_seconds", "Seconds since the daemon started.")
        out.gauge(s, "clients", "touchgestured_clients", "Clients connected now.")
        out.gauge(s, "devices", "touchgestured_devices", "Touch devices read now.")
        out.gauge(s, "rss_kb", "touchgestured_resident_memory_bytes", "The daemon's resident memory.", scale: 1024)
        out.counter(s, "frames", "touchgestured_frames_total", "Touch frames read, all devices.")
        out.counter(s, "gesture_lines", "touchgestured_gesture_events_total", "Gesture events made, all kinds and phases.")
        out.counter(s, "touch_lines", "touchgestured_touch_lines_total", "Touch lines sent to clients.")
        out.counter(s, "requests", "touchgestured_requests_total", "Client request lines.")
        out.counter(s, "clients_accepted", "touchgestured_clients_accepted_total", "Connections accepted.")
        out.counter(s, "clients_refused", "touchgestured_clients_refused_total", "Connections turned away (too many clients, or out of fds).")
        out.counter(s, "clients_dropped_slow", "touchgestured_clients_dropped_slow_total", "Clients disconnected for not reading.")
        out.counter(s, "reloads", "touchgestured_reloads_total", "Configuration reloads applied (SIGHUP).")
        out.counter(s, "reload_failures", "touchgestured_reload_failures_total", "Configuration reloads refused (the old configuration stayed).")
        out.counter(s, "engine_anomalies", "touchgestured_engine_anomalies_total", "Impossible recognizer inputs and double arena decisions (a bug if not 0).")
        out.counter(s, "wakeups", "touchgestured_wakeups_total", "Event-loop wake-ups.")
        out.counter(s, "client_writes", "touchgestured_client_writes_total", "write(2) calls to clients (lines coalesced per coalesce_ms).")
        out.counter(s, "actions_run", "touchgestured_actions_run_total", "[[action]]s run: chords pressed, commands started.")
        out.counter(s, "actions_skipped", "touchgestured_actions_skipped_total", "Commands not started: max_action_children were running.")
        out.counter(s, "actions_failed", "touchgestured_actions_failed_total", "Actions that failed (no keyboard, a command that could not start, exited non-zero or was killed).")
        out.gauge(s, "actions_running", "touchgestured_actions_running", "Action commands running now.")

        if case .object(let byCode)? = s["errors_by_code"], !byCode.isEmpty {
            out.metric("touchgestured_request_errors_total", "counter", "Error replies and refusals, by code.")
            for (code, n) in byCode { out.sample("touchgestured_request_errors_total", [("code", code)], n.doubleValue ?? 0) }
        }
        if case .object(let kinds)? = s["gestures"], !kinds.isEmpty {
            out.metric("touchgestured_gestures_total", "counter", "Gesture events by kind and phase.")
            for (kind, phases) in kinds {
                guard case .object(let byPhase) = phases else { continue }
                for (phase, n) in byPhase {
                    out.sample("touchgestured_gestures_total", [("gesture", kind), ("phase", phase)], n.doubleValue ?? 0)
                }
            }
        }
        if case .array(let panels)? = s["panels"], !panels.isEmpty {
            func labels(_ p: JSONValue) -> [(String, String)] {
                let vendor = p["vendor"]?.stringValue ?? ""
                let product = p["product"]?.stringValue ?? ""
                let name = p["name"]?.stringValue ?? ""
                let node = p["node"]?.stringValue ?? ""
                return [("name", name), ("vendor_product", vendor + ":" + product), ("node", node)]
            }
            out.metric("touchgestured_device_up", "gauge", "1 while the touch panel is present; 0 once it went (kept so a missing panel can be alerted on).")
            for p in panels { out.sample("touchgestured_device_up", labels(p), p["up"] == .bool(true) ? 1 : 0) }
            out.metric("touchgestured_device_last_frame_age_seconds", "gauge", "Seconds since the panel's last touch frame (absent until it has had one).")
            for p in panels {
                if case .number(let age)? = p["last_frame_age_s"] { out.sample("touchgestured_device_last_frame_age_seconds", labels(p), age) }
            }
            for (key, name, help) in [
                ("frames", "touchgestured_device_frames_total", "Touch frames read from the panel."),
                ("events", "touchgestured_device_events_total", "evdev events read from the panel."),
                ("resyncs", "touchgestured_device_resyncs_total", "Events lost (SYN_DROPPED) and the panel's state read again."),
                ("errors", "touchgestured_device_errors_total", "Failed reads from the panel."),
                ("removals", "touchgestured_device_removals_total", "Times the panel went away (unplugged)."),
            ] {
                out.metric(name, "counter", help)
                for p in panels { out.sample(name, labels(p), p[key]?.doubleValue ?? 0) }
            }
        }
        out.histogram(s, "latency_us", "touchgestured_client_latency_seconds", "From reading a touch frame to writing the line it made to a client.")
        out.histogram(s, "deadline_late_us", "touchgestured_deadline_lateness_seconds", "How late a gesture deadline (long press, double-tap window) fired.")
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

        mutating func gauge(_ s: JSONValue, _ key: String, _ name: String, _ help: String, scale: Double = 1) {
            guard let v = s[key]?.doubleValue else { return }
            metric(name, "gauge", help)
            sample(name, [], v * scale)
        }

        mutating func counter(_ s: JSONValue, _ key: String, _ name: String, _ help: String) {
            guard let v = s[key]?.doubleValue else { return }
            metric(name, "counter", help)
            sample(name, [], v)
        }

        /// The daemon's power-of-two µs buckets (each sample once, since the start) as a
        /// cumulative Prometheus histogram in seconds.
        mutating func histogram(_ s: JSONValue, _ key: String, _ name: String, _ help: String) {
            guard let h = s[key], let count = h["count"]?.doubleValue else { return }
            metric(name, "histogram", help)
            var cumulative = 0.0
            var below: [Double: Double] = [:]
            if case .array(let buckets)? = h["histogram"] {
                for b in buckets {
                    if let bound = b["below"]?.doubleValue { below[bound] = b["count"]?.doubleValue ?? 0 }
                }
            }
            // Every bound from 1 µs to 2^23 µs, so the series set does not change between scrapes.
            for k in 0..<24 {
                let bound = Double(1 << k)
                cumulative += below[bound] ?? 0
                sample(name + "_bucket", [("le", format(bound / 1e6))], cumulative)
            }
            sample(name + "_bucket", [("le", "+Inf")], count)
            sample(name + "_sum", [], (h["sum_us"]?.doubleValue ?? 0) / 1e6)
            sample(name + "_count", [], count)
        }
    }

    static func format(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    static func escapeLabel(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func escapeHelp(_ s: String) -> String {
        s.replacingBackslashesAndNewlines
    }
}

extension String {
    fileprivate var replacingBackslashesAndNewlines: String {
        var out = ""
        for c in unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

extension JSONValue {
    fileprivate var doubleValue: Double? {
        if case .number(let d) = self { return d }
        return nil
    }

    fileprivate var stringValue: String? {
        if case .string(let v) = self { return v }
        return nil
    }
}
