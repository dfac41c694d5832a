import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `touchgesturectl metrics` against the real daemon, read by Prometheus's own text parser and
/// scraped through a real node_exporter's textfile collector.
@Suite(.serialized, .waitsOnProcesses) struct MetricsTests {
    static let python = "/usr/bin/python3"
    static let nodeExporter = "/usr/bin/prometheus-node-exporter"

    static func run(_ path: String, _ args: [String]) throws -> (Int32, String) { try runProgram(path, args) }

    /// The samples of an exposition as Prometheus's parser reads them: "name{labels} value" lines.
    static func parsed(_ file: String) throws -> [String: Double] {
        let script = """
            import sys
            from prometheus_client.parser import text_string_to_metric_families
            for f in text_string_to_metric_families(open(sys.argv[1]).read()):
                for s in f.samples:
                    labels = ",".join(f'{k}={v}' for k, v in sorted(s.labels.items()))
                    print(f"{s.name}{{{labels}}} {s.value!r}")
            """
        let (status, out) = try run(python, ["-c", script, file])
        #expect(status == 0, "the parser refused the exposition: \(out)")
        var samples: [String: Double] = [:]
        for line in out.split(separator: "\n") {
            guard let space = line.lastIndex(of: " "), let v = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = v
        }
        return samples
    }

    /// python3-prometheus-client, which scripts/install-deps installs (CI fails on a skipped test).
    static let haveParser: Bool =
        FileManager.default.isExecutableFile(atPath: python) && (try? run(python, ["-c", "import prometheus_client"]).0) == 0
    static let haveExporter = FileManager.default.isExecutableFile(atPath: nodeExporter)

    @Test(.enabled(if: haveParser, "python3-prometheus-client is not installed"))
    func theExposition_parses_andItsCountersMoveAsARecordingPlays() throws {
        let d = try DaemonUnderTest(["--replay", Root.tour, "--speed", "4"])
        let file = d.dir + "/touchgestured.prom"
        func scrape() throws -> [String: Double] {
            let (status, out) = try Self.run(Root.ctl, ["metrics", "--socket", d.socket, "--output", file])
            #expect(status == 0, "\(out)")
            return try Self.parsed(file)
        }
        let first = try scrape()
        // The tour lasts about 12 s at its pace: 3 s at 4×.
        var last = first
        try eventually(within: 6) {
            last = try scrape()
            return (last["touchgestured_gestures_total{gesture=tap,phase=recognized}"] ?? 0) > 0
                && (last["touchgestured_frames_total{}"] ?? 0) >= 100
        }
        #expect(first["touchgestured_up{}"] == 1 && last["touchgestured_up{}"] == 1)
        #expect((last["touchgestured_frames_total{}"] ?? 0) > (first["touchgestured_frames_total{}"] ?? 0))
        #expect((last["touchgestured_gestures_total{gesture=tap,phase=recognized}"] ?? 0) >= 1)
        let panel = "name=touchgestured virtual panel,node=replay:\(Root.tour),vendor_product=7467:0001"
        #expect(last["touchgestured_device_up{\(panel)}"] == 1)
        #expect((last["touchgestured_device_frames_total{\(panel)}"] ?? 0) > 0)
        #expect(last["touchgestured_device_last_frame_age_seconds{\(panel)}"] != nil)
        #expect(last["touchgestured_client_latency_seconds_count{}"] != nil)
        #expect(d.stop() == 0)
        // Without a daemon: up 0, and nothing else.
        let (status, _) = try Self.run(Root.ctl, ["metrics", "--socket", d.socket, "--output", file])
        #expect(status == 0)
        #expect(try Self.parsed(file) == ["touchgestured_up{}": 0])
    }

    @Test(
        .enabled(if: haveParser, "python3-prometheus-client is not installed"),
        .enabled(if: haveExporter, "prometheus-node-exporter is not installed"))
    func nodeExportersTextfileCollector_servesTheSeries_andNeverAHalfWrittenFile() throws {
        let d = try DaemonUnderTest(["--replay", Root.tour, "--speed", "4"])
        let textfiles = d.dir + "/textfile"
        try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: true)
        let port = 19_100 + Int(getpid() % 500)
        let exporter = Process()
        exporter.executableURL = URL(fileURLWithPath: Self.nodeExporter)
        exporter.arguments = [
            "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults", "--collector.textfile",
            "--collector.textfile.directory=\(textfiles)",
        ]
        exporter.standardOutput = FileHandle.nullDevice
        exporter.standardError = FileHandle.nullDevice
        try exporter.run()
        defer {
            exporter.terminate()
            exporter.waitUntilExit()
        }
        func scrape() throws -> String {
            try Self.run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/metrics"]).1
        }
        let up = eventually(within: 5) { (try? scrape())?.contains("node_textfile_scrape_error") ?? false }
        #expect(up, "node_exporter did not answer on 127.0.0.1:\(port)")
        // Writes and scrapes at once: every scrape sees a whole file (no scrape error) or the one before.
        let file = textfiles + "/touchgestured.prom"
        var scrapes: [String] = []
        for _ in 0..<20 {
            _ = try Self.run(Root.ctl, ["metrics", "--socket", d.socket, "--output", file])
            scrapes.append(try scrape())
        }
        #expect(d.stop() == 0)
        let last = try #require(scrapes.last)
        #expect(last.contains("touchgestured_up 1"))
        #expect(last.contains("touchgestured_device_up{name=\"touchgestured virtual panel\""))
        #expect(last.contains("touchgestured_frames_total "))
        for s in scrapes { #expect(s.contains("node_textfile_scrape_error 0"), "\(s.suffix(400))") }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: textfiles).filter { $0 != "touchgestured.prom" }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }
}
