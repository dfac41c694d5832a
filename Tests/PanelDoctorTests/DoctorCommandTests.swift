import Foundation
import GestureProtocol
import TestSupport
import Testing
import TouchFrames

/// `touchgesturectl doctor` as an admin runs it, on recordings of a known rate and noise.
@Suite struct DoctorCommandTests {
    static let binary = Repository.root + "/.build/debug/touchgesturectl"

    func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build")
        return try Command.run(Self.binary, args)
    }

    @Test func json_givesTheRateAndNoiseOfTheRecording() throws {
        var sim = PanelSimulator(rate: 75, noise: 1.2, seed: 3)
        sim.script()
        let path = Scratch.directory("doctor") + "/panel.events"
        try Evemu.format(Recording(description: PanelSimulator.panel, events: sim.events)).write(toFile: path, atomically: true, encoding: .utf8)
        let r = try run(["doctor", "--recording", path, "--json"])
        #expect(r.status == 0, "\(r.err)")
        let v = try parseJSON(Array(r.out.utf8))
        guard case .number(let rate) = v["report_rate_hz"], case .number(let noise) = v["noise_mm"] else {
            Issue.record("no report_rate_hz or noise_mm: \(r.out)")
            return
        }
        #expect(abs(rate - 75) <= 7.5 && abs(noise - 1.2) <= 0.12, "\(rate) Hz, \(noise) mm")
        let text = try run(["doctor", "--recording", path])
        #expect(text.status == 0 && text.out.contains("[[panel]]") && text.out.contains("dejitter_min_cutoff"))
    }

    @Test func badArguments_areRefusedWithAReason() throws {
        let bad = try run(["doctor", "--recording", "/nonexistent.events"])
        #expect(bad.status != 0 && bad.err.contains("/nonexistent.events"))
        let both = try run(["doctor", "/dev/input/event0", "--recording", "x.events"])
        #expect(both.status != 0 && both.err.contains("not both"))
        let short = try run(["doctor", "--duration", "1"])
        #expect(short.status != 0 && short.err.contains("10-600"))
        let half = try run(["doctor", "--recording", "x", "--width-mm", "300"])
        #expect(half.status != 0 && half.err.contains("together"))
        // A recording whose header has no position axes: the file named, not only the device.
        let axisless = Scratch.directory("doctor") + "/axisless.events"
        try "N: probe panel\nI: 0003 0001 0002 0001\nE: 0.000000 0000 0000 0000\n".write(toFile: axisless, atomically: true, encoding: .utf8)
        let none = try run(["doctor", "--recording", axisless])
        #expect(none.status != 0 && none.err.contains(axisless) && none.err.contains("no position axes"), "\(none.err)")
    }
}
