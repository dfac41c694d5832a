import Testing

@testable import GestureProtocol

/// `touchgesturectl metrics`: the stats reply as Prometheus text.
@Suite struct PrometheusTextTests {
    static let stats = try! parseJSON(Array(#"""
        {"type":"reply","id":1,"op":"stats","uptime":12.5,"clients":2,"devices":1,"frames":300,"gesture_lines":40,
         "touch_lines":0,"requests":3,"errors":1,"clients_accepted":2,"clients_refused":0,"clients_dropped_slow":0,"time_share_pauses":2,
         "reloads":1,"reload_failures":0,"engine_anomalies":0,"actions_run":2,"actions_skipped":0,"actions_failed":0,
         "actions_running":0,"wakeups":350,"rss_kb":11000,
         "panels":[{"name":"ILITEK \"Multi\"","vendor":"222a","product":"0001","node":"/dev/input/event3","up":true,
                    "last_frame_age_s":2.5,"frames":300,"events":1200,"resyncs":1,"errors":0,"removals":0,"filtered_ghosts":4,
                    "filtered_chatter":2,"filtered_stuck":1,"filtered_dead_zone":0},
                   {"name":"eGalax","vendor":"0eef","product":"0001","node":"/dev/input/event4","up":false,
                    "last_frame_age_s":null,"frames":0,"events":0,"resyncs":0,"errors":2,"removals":1}],
         "gestures":{"tap":{"recognized":3},"pan":{"began":1,"changed":30,"ended":1}},
         "errors_by_code":{"invalid_json":1},
         "latency_us":{"count":5,"sum_us":100.0,"p50":20.0,"p99":40.0,"max":40.0,
                       "histogram":[{"below":16,"count":1},{"below":32,"count":3},{"below":64,"count":1}]},
         "deadline_late_us":{"count":0,"sum_us":0.0,"p50":0.0,"p99":0.0,"max":0.0,"histogram":[]}}
        """#.utf8))

    @Test func aStatsReply_becomesTheExposition() {
        let text = PrometheusText.render(StatsSnapshot(reply: Self.stats))
        let lines = Set(text.split(separator: "\n").map(String.init))
        for expected in [
            "touchgestured_up 1",
            "touchgestured_frames_total 300",
            "touchgestured_time_share_pauses_total 2",
            "touchgestured_resident_memory_bytes 11264000",
            #"touchgestured_device_up{name="ILITEK \"Multi\"",vendor_product="222a:0001",node="/dev/input/event3"} 1"#,
            #"touchgestured_device_up{name="eGalax",vendor_product="0eef:0001",node="/dev/input/event4"} 0"#,
            #"touchgestured_device_last_frame_age_seconds{name="ILITEK \"Multi\"",vendor_product="222a:0001",node="/dev/input/event3"} 2.5"#,
            #"touchgestured_device_resyncs_total{name="ILITEK \"Multi\"",vendor_product="222a:0001",node="/dev/input/event3"} 1"#,
            #"touchgestured_device_errors_total{name="eGalax",vendor_product="0eef:0001",node="/dev/input/event4"} 2"#,
            #"touchgestured_device_filtered_total{name="ILITEK \"Multi\"",vendor_product="222a:0001",node="/dev/input/event3",reason="ghost"} 4"#,
            #"touchgestured_device_filtered_total{name="ILITEK \"Multi\"",vendor_product="222a:0001",node="/dev/input/event3",reason="stuck"} 1"#,
            #"touchgestured_device_filtered_total{name="eGalax",vendor_product="0eef:0001",node="/dev/input/event4",reason="dead_zone"} 0"#,
            #"touchgestured_gestures_total{gesture="pan",phase="changed"} 30"#,
            #"touchgestured_request_errors_total{code="invalid_json"} 1"#,
            // Every code from 0 on: a first error shows in `increase()`.
            #"touchgestured_request_errors_total{code="parse_error"} 0"#,
            #"touchgestured_request_errors_total{code="forbidden"} 0"#,
            #"touchgestured_client_latency_seconds_bucket{le="1.6e-05"} 1"#,
            #"touchgestured_client_latency_seconds_bucket{le="3.2e-05"} 4"#,
            #"touchgestured_client_latency_seconds_bucket{le="6.4e-05"} 5"#,
            #"touchgestured_client_latency_seconds_bucket{le="+Inf"} 5"#,
            "touchgestured_client_latency_seconds_sum 0.0001",
            "touchgestured_client_latency_seconds_count 5",
            "# TYPE touchgestured_client_latency_seconds histogram",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
        // A panel that never had a frame has no age sample (absent, not 0).
        #expect(!text.contains(#"touchgestured_device_last_frame_age_seconds{name="eGalax""#))
        // Every metric has its HELP and TYPE once.
        let types = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
        #expect(Set(types).count == types.count)
    }

    /// What the daemon writes reads back as the same values (so the renderer sees every field
    /// the daemon sends, by the one name both sides use).
    @Test func aSnapshot_writtenAndReadBack_isTheSame() throws {
        let read = try #require(StatsSnapshot(reply: Self.stats))
        var w = JSONLineWriter(capacity: 4096)
        w.beginObject()
        w.field("type", "reply")
        read.write(into: &w)
        w.endObject()
        let again = try #require(StatsSnapshot(reply: try parseJSON(w.bytes)))
        #expect(again == read)
        #expect(read.counters.rssKilobytes == 11000 && read.panels.count == 2 && read.panels[1].lastFrameAge == nil)
        #expect(read.gestures.count == 4 && read.latency.buckets.count == 3)
    }

    @Test func noDaemon_isUpZero_only() {
        #expect(PrometheusText.render(nil) == "# HELP touchgestured_up 1 when touchgesturectl read the daemon's stats, 0 when it could not reach it.\n# TYPE touchgestured_up gauge\ntouchgestured_up 0\n")
    }
}
