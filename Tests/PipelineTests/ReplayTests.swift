import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import TestSupport
import Testing
import TouchFrames

/// Paths relative to the package root (tests read files in place, no bundle resources).
enum Paths {
    static let root = Repository.root
    static let fixtures = Repository.fixtures
    static let examples = root + "/examples"
    /// The shared real-panel recordings, beside the checkout (CI has them there).
    static let shared = root + "/../shared/recordings"
    static var sharedPresent: Bool { FileManager.default.fileExists(atPath: shared + "/README.md") }
    static let binary = root + "/.build/debug/touchgesturectl"
}

func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

func configuration(_ file: String?) throws -> Configuration {
    guard let file else { return .standard }
    let path = Paths.examples + "/" + file
    return try ConfigLoader.parse(try read(path), file: path)
}

/// Set UPDATE_FIXTURES=1 to rewrite the fixtures and golden outputs after a deliberate change.
let updating = ProcessInfo.processInfo.environment["UPDATE_FIXTURES"] == "1"

struct Line: Decodable, Equatable {
    var type: String
    var gesture: String
    var phase: String
    var fingers: Int
    var name: String?
    var direction: String?
    var count: Int?
    var dx: Double?
    var dy: Double?
    var edge: String?
    var offset: Point?
    var target: Point?
    struct Point: Decodable, Equatable { var x: Double, y: Double }
    var offsetY: Double? { offset?.y }
    var targetY: Double? { target?.y }
}

func lines(_ ndjson: String) throws -> [Line] {
    try ndjson.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
}

@Suite struct GoldenReplayTests {
    @Test(arguments: Scenarios.all.map(\.name))
    func syntheticRecording_replaysToItsGoldenOutput(name: String) throws {
        let scenario = Scenarios.all.first { $0.name == name }!
        var synth = Synth()
        scenario.build(&synth)
        let eventsPath = "\(Paths.fixtures)/\(name).events"
        let goldenPath = "\(Paths.fixtures)/\(name).ndjson"
        let output = try DevicePipeline.lines(synth.recording, description: Synth.panel, configuration: try configuration(scenario.config))
        if updating {
            try FileManager.default.createDirectory(atPath: Paths.fixtures, withIntermediateDirectories: true)
            try synth.text.write(toFile: eventsPath, atomically: true, encoding: .utf8)
            try output.write(toFile: goldenPath, atomically: true, encoding: .utf8)
        }
        // The committed recording is what the generator makes (the fixtures cannot drift)...
        #expect(try read(eventsPath) == synth.text)
        // ...and replaying the committed file gives the golden lines, byte for byte.
        let recording = try Evemu.parse(try read(eventsPath), file: eventsPath)
        let replayed = try DevicePipeline.lines(recording, description: recording.description!, configuration: try configuration(scenario.config))
        #expect(replayed == (try read(goldenPath)))
        #expect(!replayed.isEmpty)
    }

    /// `libinput record`'s file of the same touches (YAML: its header, the HID descriptor,
    /// udev's properties and comments around the events) replays to the same golden lines.
    @Test func aLibinputRecordFile_replaysAsItsEvemuTwin() throws {
        let path = "\(Paths.fixtures)/pinch-out-and-turn.libinput.yml"
        let recording = try Evemu.parse(try read(path), file: path)
        let replayed = try DevicePipeline.lines(recording, description: recording.description!, configuration: try configuration(nil))
        #expect(replayed == (try read("\(Paths.fixtures)/pinch-out-and-turn.ndjson")))
        #expect(recording.description?.name == "touchgestured virtual panel" && recording.description?.slotCount == 10)
    }

    @Test func tourRecording_isTheDemo() throws {
        let path = Paths.examples + "/recordings/tour.events"
        let synth = Scenarios.tour()
        if updating {
            try FileManager.default.createDirectory(atPath: Paths.examples + "/recordings", withIntermediateDirectories: true)
            try synth.text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(try read(path) == synth.text)
        let out = try lines(try DevicePipeline.lines(synth.recording, description: Synth.panel, configuration: .standard))
        let kinds = Set(out.map(\.gesture))
        #expect(kinds == ["tap", "long_press", "pan", "swipe", "pinch", "edge_swipe"])
    }

    @Test func goldenScenarios_sayWhatTheirNamesSay() throws {
        func run(_ name: String) throws -> [Line] { try lines(try read("\(Paths.fixtures)/\(name).ndjson")) }
        #expect(try run("tap").map(\.gesture) == ["tap"])
        #expect(try run("double-tap").map { $0.name ?? $0.gesture } == ["double_tap"])
        let press = try run("long-press-then-move")
        #expect(press.first?.gesture == "long_press" && press.first?.phase == "began")
        #expect(!press.contains { $0.gesture == "pan" })
        let fling = try run("fling-left")
        #expect(fling.contains { $0.gesture == "swipe" && $0.direction == "left" })
        let pinch = try run("pinch-out-and-turn")
        #expect(pinch.first?.gesture == "pinch" && !pinch.contains { $0.gesture == "pan" })
        let four = try run("four-finger-drag-down")
        #expect(four.last?.gesture == "pan" || four.last?.gesture == "swipe")
        #expect(four.filter { $0.gesture == "pan" }.last?.fingers == 4)
        #expect(four.filter { $0.gesture == "pan" }.last.map { ($0.dy ?? 0) > 390 } == true)
        let edge = try run("edge-swipe-from-left")
        #expect(edge.first?.gesture == "edge_swipe" && edge.first?.edge == "left")
        let dropped = try run("syn-dropped-mid-pan")
        #expect(dropped.filter { $0.gesture == "pan" }.last?.phase == "cancelled")
        #expect(dropped.last?.gesture == "tap")  // the next sequence works
        #expect(try run("palm-cancels-pan").last?.phase == "cancelled")
        #expect(try run("bottom-sheet-handle").allSatisfy { $0.name == "drag" })
        // The list is chained to the sheet (examples/bottom-sheet.toml): on the open sheet an
        // upward stroke scrolls the list; the sheet's lines say it stayed open.
        let content = try run("bottom-sheet-content")
        #expect(Set(content.map(\.name)) == ["scroll", "drag"])
        #expect(content.filter { $0.name == "drag" }.allSatisfy { $0.offsetY == 0 })
        #expect(content.last { $0.name == "scroll" }?.offsetY == -200)
        // Up, then down on the list: the list scrolls; the list back to its top, then the sheet
        // pulled down in the same stroke, which snaps half open.
        let chain = try run("bottom-sheet-chain")
        let ends = chain.filter { $0.phase == "ended" }.map { "\($0.name ?? "") \($0.offsetY ?? .nan) \($0.targetY ?? .nan)" }
        #expect(ends == ["scroll -300.0 -300.0", "drag 0.0 0.0", "scroll 0.0 0.0", "drag 200.0 300.0"])
        let flick = try run("bottom-sheet-flick")
        // Open, at the list's top, a flick down: the list cannot move, the sheet is flung (its
        // 80 px and 150 ms of its speed: past 150, to half open).
        #expect(flick.last { $0.name == "drag" }?.targetY == 300, "a flick at the list's top flings the sheet")
        #expect(flick.last { $0.name == "scroll" }?.targetY == 0)
        #expect(try run("swipeable-row").allSatisfy { $0.name == "slide" })
        let list = try run("swipeable-row-scrolls-list")
        #expect(list.contains { $0.name == "scroll" } && list.contains { $0.name == "fling" })
        #expect(!list.contains { $0.name == "slide" })
        let photo = try run("photo-select-and-move")
        #expect(photo.first?.name == "select" && photo.contains { $0.name == "move" })
        #expect(photo.last?.name == "zoom")
    }
}

/// The real panels' recordings live in ../shared/recordings, beside the checkout (CI has them):
/// where they are absent, these tests show as skipped, with the reason.
@Suite(.enabled(if: Paths.sharedPresent, "the real-panel recordings (../shared/recordings) are absent"))
struct RealPanelTests {
    func replay(_ file: String, device: String? = nil) throws -> [Line] {
        let recording = try Evemu.parse(try read("\(Paths.shared)/\(file)"), file: file)
        let description: DeviceDescription
        if let device {
            description = try Evemu.parse(try read("\(Paths.shared)/\(device)"), file: device).description!
        } else {
            description = recording.description!
        }
        return try lines(try DevicePipeline.lines(recording, description: description, configuration: .standard))
    }

    /// EP0430M09 is mounted upside down: its "down" recordings move up the screen without a calibration.
    @Test(arguments: [
        ("ep0430m09.1-finger-drag-up-down.events", 1), ("ep0430m09.2-finger-scroll-down.events", 2),
        ("ep0430m09.4-finger-drag-down.events", 4),
    ])
    func ep0430m09_drags_arePansWithTheirFingerCount_andNoTaps(file: String, fingers: Int) throws {
        let out = try replay(file)
        let pans = out.filter { $0.gesture == "pan" }
        #expect(pans.first?.phase == "began")
        #expect(pans.last?.phase == "ended")
        #expect(pans.last?.fingers == fingers)
        #expect(!out.contains { $0.gesture == "tap" || $0.gesture == "long_press" || $0.gesture == "pinch" })
        if fingers > 1 {
            // "down" as labelled is up on screen (dy < 0), and mostly vertical.
            #expect((pans.last?.dy ?? 0) < -200)
            #expect(abs(pans.last?.dx ?? 0) < abs(pans.last?.dy ?? 0) / 3)
        }
    }

    @Test func ep0430m09_withTheFlipCalibration_downIsDown() throws {
        let path = "\(Paths.shared)/ep0430m09.4-finger-drag-down.events"
        let recording = try Evemu.parse(try read(path), file: path)
        let config = try ConfigLoader.parse("[device]\ncalibration = [1, 0, 0, 0, -1, 1]\n", file: "flip.toml")
        let out = try lines(try DevicePipeline.lines(recording, description: recording.description!, configuration: config))
        #expect((out.filter { $0.gesture == "pan" }.last?.dy ?? 0) > 200)
    }

    @Test func ep0430m09_twoFingersTouchAndRelease_makeNoMovementGesture() throws {
        let out = try replay("ep0430m09.2-fingers-touch-release.events")
        #expect(!out.contains { ["pan", "swipe", "pinch", "edge_swipe"].contains($0.gesture) })
    }

    @Test(arguments: ["quanta-optical.events", "quanta-optical.touch-hover.events", "quanta-optical.touch-on-left.events"])
    func quanta_eventsOnly_withTheDescription_replayBalanced(file: String) throws {
        let out = try replay(file, device: "quanta-optical.desc")
        #expect(!out.isEmpty)
        // Every continuous gesture that began also ended.
        #expect(out.filter { $0.phase == "began" }.count == out.filter { $0.phase == "ended" || $0.phase == "cancelled" }.count)
    }
}

/// The real binary, as a user runs it.
@Suite struct CommandLineTests {
    func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        #expect(FileManager.default.isExecutableFile(atPath: Paths.binary), "build first: swift build")
        return try Command.run(Paths.binary, args)
    }

    @Test func replay_printsTheGoldenLines_deterministically() throws {
        let fixture = "\(Paths.fixtures)/fling-left.events"
        let a = try run(["replay", fixture])
        let b = try run(["replay", fixture])
        #expect(a.status == 0)
        #expect(a.out == (try read("\(Paths.fixtures)/fling-left.ndjson")))
        #expect(a.out == b.out)
    }

    /// `replay --mirror` as a user runs it: the recording it writes replays to the same gestures.
    @Test func replay_mirror_writesARecordingThatReplaysTheSame() throws {
        let out = Scratch.directory("mirror") + "/mirror.events"
        let recording = "\(Paths.fixtures)/pinch-out-and-turn.events"
        let filtered = try run(["replay", "--config", Paths.examples + "/noisy-panel.toml", "--mirror", out, recording])
        let filteredText = try read(out)
        #expect(filtered.status == 0 && filteredText.hasPrefix("# EVEMU 1.3\n"), "\(filtered.err)")
        let r = try run(["replay", "--mirror", out, recording])
        #expect(r.status == 0, "\(r.err)")
        let text = try read(out)
        #expect(text.contains("(touchgestured)"))
        let panel = try run(["replay", "--pretty", recording]), mirrored = try run(["replay", "--pretty", out])
        #expect(mirrored.out == panel.out && !panel.out.isEmpty)
        // A protocol A panel's mirror is a protocol B touchscreen with the same gestures.
        let a = Paths.examples + "/recordings/protocol-a.events"
        let aMirror = try run(["replay", "--mirror", out, a])
        let mirroredA = try read(out)
        #expect(aMirror.status == 0 && mirroredA.contains("A: 2f 0 9 "), "slots 0-9")
        #expect(try run(["replay", "--pretty", out]).out == (try run(["replay", "--pretty", a])).out)
        let refused = try run(["replay", "--mirror", out, "--pretty", recording])
        #expect(refused.status != 0 && refused.err.contains("--mirror writes a recording"))
    }

    /// Dead zones over the whole panel, which only the panel's size shows: `replay` says so, as
    /// the daemon logs it when such a panel opens, with and without `--mirror`, and `trace` too.
    @Test func deadZonesOverTheWholePanel_areSaid() throws {
        let dir = Scratch.directory("dead-zones")
        let config = dir + "/c.toml", out = dir + "/mirror.events"
        try "[device.filters]\ndead_zones = [[0, 0, 4000, 4000]]\n".write(toFile: config, atomically: false, encoding: .utf8)
        let recording = "\(Paths.fixtures)/tap.events"
        for args in [["--mirror", out, recording], [recording]] {
            let r = try run(["replay", "--config", config] + args)
            #expect(r.status == 0 && r.err.contains("covers the whole panel"), "\(args): \(r.err)")
        }
        let traced = try run(["trace", "--config", config, "-o", dir + "/t.svg", recording])
        #expect(traced.status == 0 && traced.err.contains("covers the whole panel"), "\(traced.err)")
    }

    /// `--mirror` never writes over an input of the replay (the recording, `--config`,
    /// `--device`), through a hard link either; each file is left as it was.
    @Test func replay_mirrorOntoAnInput_isRefused_andTheInputKept() throws {
        let dir = Scratch.directory("mirror-input")
        let recording = dir + "/tap.events", config = dir + "/c.toml", hard = dir + "/same.events"
        try read("\(Paths.fixtures)/tap.events").write(toFile: recording, atomically: false, encoding: .utf8)
        try "[daemon]\n".write(toFile: config, atomically: false, encoding: .utf8)
        try FileManager.default.linkItem(atPath: recording, toPath: hard)
        let before = try read(recording)
        for (out, args) in [(recording, [recording]), (hard, [recording]), (config, ["--config", config, recording])] {
            let r = try run(["replay", "--mirror", out] + args)
            #expect(r.status != 0 && r.err.contains("an input of this replay"), "\(out): \(r.err)")
        }
        #expect(try read(recording) == before && (try read(config)) == "[daemon]\n")
    }

    /// A file the CLI writes (`replay --mirror`, `record -o`, `trace -o`) is never written
    /// through a link: one planted where it writes (sudo in a shared folder) is refused, and the
    /// file it points at is left as it was.
    @Test func anOutputThatIsALink_isRefused_andItsTargetKept() throws {
        let dir = Scratch.directory("link-out")
        let victim = dir + "/victim.txt", link = dir + "/mirror.events"
        try "keep me\n".write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        let r = try run(["replay", "--mirror", link, "\(Paths.fixtures)/tap.events"])
        #expect(r.status != 0 && r.err.contains("symbolic link"), "\(r.err)")
        #expect(try read(victim) == "keep me\n")
        let trace = try run(["trace", "-o", dir + "/t.svg", "\(Paths.fixtures)/tap.events"])
        let svg = try read(dir + "/t.svg")
        #expect(trace.status == 0 && svg.contains("<svg"), "a plain file is still written: \(trace.err)")
    }

    @Test func replay_withAConfig() throws {
        let r = try run(["replay", "--config", Paths.examples + "/bottom-sheet.toml", "\(Paths.fixtures)/bottom-sheet-handle.events"])
        #expect(r.status == 0)
        #expect(r.out == (try read("\(Paths.fixtures)/bottom-sheet-handle.ndjson")))
    }

    @Test(.enabled(if: Paths.sharedPresent, "the real-panel recordings (../shared/recordings) are absent"))
    func replay_eventsOnly_withTheirDevice() throws {
        let q = try run(["replay", "--device", Paths.shared + "/quanta-optical.desc", Paths.shared + "/quanta-optical.touch-on-left.events"])
        #expect(q.status == 0 && q.out.contains("\"long_press\""))
    }

    @Test func replay_malformedRecording_exitsWithFileLineReason() throws {
        let path = Scratch.root + "/broken.events"
        try "N: x\nA: 35 0 100 0 0 0\nE: 0.1 0003 0035 12\nE: 0.2 zz 0 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = try run(["replay", path])
        #expect(r.status != 0)
        #expect(r.err.contains("\(path):4: bad event type 'zz'"))
        #expect(r.out.isEmpty)
    }

    @Test(.enabled(if: Paths.sharedPresent, "the real-panel recordings (../shared/recordings) are absent"))
    func replay_eventsOnlyWithoutDevice_saysSo() throws {
        let r = try run(["replay", Paths.shared + "/quanta-optical.events"])
        #expect(r.status != 0 && r.err.contains("--device"))
    }

    @Test func badConfig_isRefusedWithFileLineReason() throws {
        let path = Scratch.root + "/bad.toml"
        try "[screen]\nwidth = 1920\n\n[thresholds]\ntap_slop = -2\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = try run(["replay", "--config", path, "\(Paths.fixtures)/tap.events"])
        #expect(r.status != 0)
        #expect(r.err.contains("\(path):5: 'tap_slop' must be from 0 to 100 mm"))
        let c = try run(["check-config", path])
        #expect(c.status != 0 && c.err.contains("\(path):5:"))
    }

    @Test func verbose_logsRecognizerTransitions() throws {
        let r = try run(["replay", "--verbose", "\(Paths.fixtures)/double-tap.events"])
        #expect(r.status == 0)
        #expect(r.err.contains("screen/double_tap#0 pressing --contactEnded--> waitingForNextTap"))
        #expect(r.err.contains("screen/tap#1 ready --rejected--> failed (lost to gesture #0)"))
    }

    @Test func trace_ofARecordingSpanningYears_isASmallPicture() throws {
        // A tap, and another 1.7e9 s later: the strip's span overflowed (a trap), and at 7e8 s
        // its ticks every 600 s made a 188 MB SVG.
        let tap = try read("\(Paths.fixtures)/tap.events")
        let late = tap.split(separator: "\n").map { line -> String in
            guard line.hasPrefix("E: "), let dot = line.firstIndex(of: ".") else { return String(line) }
            let seconds = Int(line[line.index(line.startIndex, offsetBy: 3)..<dot]) ?? 0
            return "E: \(seconds + 1_700_000_000)" + line[dot...]
        }
        let path = Scratch.root + "/years.events"
        try (tap + late.filter { $0.hasPrefix("E: ") }.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let svg = Scratch.root + "/years.svg"
        let r = try run(["trace", path, "-o", svg])
        #expect(r.status == 0, "\(r.err)")
        let size = (try? FileManager.default.attributesOfItem(atPath: svg)[.size] as? Int) ?? Int.max
        #expect(size < 200_000, "\(size) bytes")
    }

    @Test func diagrams_matchTheCommittedDocument() throws {
        let r = try run(["diagrams"])
        #expect(r.status == 0)
        if updating { try r.out.write(toFile: Paths.root + "/docs/STATE-MACHINES.md", atomically: true, encoding: .utf8) }
        #expect(r.out == (try read(Paths.root + "/docs/STATE-MACHINES.md")), "regenerate: touchgesturectl diagrams > docs/STATE-MACHINES.md")
    }
}
