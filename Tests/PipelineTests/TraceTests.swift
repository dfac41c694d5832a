import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import Testing
import Trace
import TouchFrames
import TestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `touchgesturectl trace`: golden SVGs, well-formed XML, PNG size, every shared recording.
@Suite struct TraceTests {
    static let goldens: [(name: String, fixture: String, config: String?)] = [
        ("tap-vs-double-tap", "double-tap", nil),
        ("single-tap-waits", "tap", nil),
        ("row-slides", "swipeable-row", "swipeable-rows.toml"),
        ("row-vs-scroll", "swipeable-row-scrolls-list", "swipeable-rows.toml"),
        ("sheet-snaps", "bottom-sheet-handle", "bottom-sheet.toml"),
        ("sheet-chains", "bottom-sheet-chain", "bottom-sheet.toml"),
        ("photo-select-move-zoom", "photo-select-and-move", "photo-viewer.toml"),
        ("two-visitors", "two-visitors", "museum-table.toml"),
    ]

    static func svg(fixture: String, config: String?) throws -> String {
        let path = "\(Paths.fixtures)/\(fixture).events"
        let recording = try Evemu.parse(try read(path), file: path)
        let trace = try TraceRecording.record(recording, description: recording.description!, configuration: try configuration(config))
        return TraceSVG.render(trace)
    }

    static func wellFormed(_ svg: String) -> Bool {
        let parser = XMLParser(data: Data(svg.utf8))
        return parser.parse()
    }

    /// A filtered panel's trace draws the panel's own contacts beneath the filtered ones: a
    /// bounce that the filters made one contact is two there, a ghost one more.
    @Test func aFilteredPanel_showsItsRawPathsToo() throws {
        let path = "\(Paths.fixtures)/double-tap.events"
        let recording = try Evemu.parse(try read(path), file: path)
        // A dead zone over the whole panel: no filtered path, every raw one.
        var c = try configuration(nil)
        c.geometry.filters.deadZones = [ContactFilterSettings.DeadZone(x: 0, y: 0, width: 2000, height: 2000)]
        let plain = try TraceRecording.record(recording, description: recording.description!, configuration: try configuration(nil))
        let filtered = try TraceRecording.record(recording, description: recording.description!, configuration: c)
        #expect(plain.rawPaths.isEmpty)
        #expect(filtered.rawPaths.count == plain.paths.count && !filtered.rawPaths.isEmpty && filtered.paths.isEmpty)
        #expect(TraceSVG.render(filtered).contains("before its filters"))
        #expect(!TraceSVG.render(plain).contains("before its filters"))
    }

    @Test(arguments: goldens.map(\.name))
    func golden(name: String) throws {
        let g = Self.goldens.first { $0.name == name }!
        let out = try Self.svg(fixture: g.fixture, config: g.config)
        let path = "\(Paths.fixtures)/trace/\(name).svg"
        if updating {
            try FileManager.default.createDirectory(atPath: "\(Paths.fixtures)/trace", withIntermediateDirectories: true)
            try out.write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(out == (try read(path)), "regenerate with UPDATE_FIXTURES=1 after a deliberate change, and look at it")
        #expect(Self.wellFormed(out))
        // Deterministic.
        #expect(out == (try Self.svg(fixture: g.fixture, config: g.config)))
    }

    @Test func picture_explainsTheArenasDecisions() throws {
        // Tap vs double tap: the single tap waited (ready) and lost to the double tap.
        let dt = try Self.svg(fixture: "double-tap", config: nil)
        #expect(dt.contains("double_tap ×2 · 1 finger"))
        #expect(dt.contains("<title>tap failed: lost to double_tap</title>"))
        #expect(dt.contains("<title>tap ready "))  // the wait is drawn as a segment
        // Axis lock: the row's pan failed because the drag went along the other axis.
        let rows = try Self.svg(fixture: "swipeable-row-scrolls-list", config: "swipeable-rows.toml")
        #expect(rows.contains("row/slide: moved along the other axis"))
        #expect(rows.contains("list/scroll ended"))
        // The sheet: where it comes to rest.
        let sheet = try Self.svg(fixture: "bottom-sheet-handle", config: "bottom-sheet.toml")
        #expect(sheet.contains("→ rests at (0, 300)"))
        // Regions are drawn with their names.
        #expect(sheet.contains(">sheet</text>") && sheet.contains(">content</text>"))
    }

    @Test(
        .enabled(if: Paths.sharedPresent, "the real-panel recordings (../shared/recordings) are absent"),
        arguments: [
        ("ep0430m09.1-finger-drag-up-down.events", nil), ("ep0430m09.2-finger-scroll-down.events", nil),
        ("ep0430m09.2-fingers-touch-release.events", nil), ("ep0430m09.4-finger-drag-down.events", nil),
        ("quanta-optical.events", "quanta-optical.desc"), ("quanta-optical.touch-hover.events", "quanta-optical.desc"),
        ("quanta-optical.touch-on-left.events", "quanta-optical.desc"),
    ] as [(String, String?)])
    func everySharedRecording_draws(file: String, device: String?) throws {
        let recording = try Evemu.parse(try read("\(Paths.shared)/\(file)"), file: file)
        let description = try device.map { try Evemu.parse(try read("\(Paths.shared)/\($0)"), file: $0).description! }
            ?? recording.description!
        let trace = try TraceRecording.record(recording, description: description, configuration: .standard)
        let svg = TraceSVG.render(trace)
        #expect(Self.wellFormed(svg))
        #expect(svg.contains(description.name))
        #expect(!trace.paths.isEmpty && !trace.sequences.isEmpty)
    }

    static let hasRenderer = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].contains {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// CI installs librsvg2-bin (scripts/install-deps), and fails on a skipped test.
    @Test(.enabled(if: hasRenderer, "rsvg-convert is not installed (apt-get install librsvg2-bin)"))
    func png_rendersAtTheSVGsSize() throws {
        let out = Scratch.root + "/trace.png"
        let r = try CommandLineTests().run(["trace", "-o", out, "\(Paths.fixtures)/double-tap.events"])
        #expect(r.status == 0, "\(r.err)")
        let png = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        func be32(_ at: Int) -> Int { png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let svg = try Self.svg(fixture: "double-tap", config: nil)
        let width = Int(svg.firstMatch(of: /width="(\d+)\.0"/)!.1)!
        let height = Int(svg.firstMatch(of: /height="(\d+)\.\d"/)!.1)!
        #expect(be32(16) == width)
        #expect(be32(20) == height)
    }

    /// A trace too tall for a PNG (600 taps: rsvg-convert draws at most 32,767 px) fails with
    /// what to do instead, and leaves a file already at the output's name as it was.
    @Test(.enabled(if: hasRenderer, "rsvg-convert is not installed (apt-get install librsvg2-bin)"))
    func aPNGTooTall_failsWithTheWayOut_andKeepsTheOldFile() throws {
        let tap = try Evemu.parse(String(contentsOfFile: "\(Paths.fixtures)/tap.events", encoding: .utf8), file: "tap.events")
        var events: [InputEvent] = []
        for k in 0..<600 {
            events += tap.events.map { InputEvent(time: Timestamp(nanoseconds: $0.time.nanoseconds + Int64(k) * 1_000_000_000), type: $0.type, code: $0.code, value: $0.value) }
        }
        let dir = Scratch.directory("trace-tall")
        try Evemu.format(Recording(description: tap.description, events: events)).write(toFile: dir + "/taps.events", atomically: true, encoding: .utf8)
        try "kept".write(toFile: dir + "/out.png", atomically: true, encoding: .utf8)
        let r = try CommandLineTests().run(["trace", "-o", dir + "/out.png", dir + "/taps.events"])
        #expect(r.status == 1 && r.err.contains("32,767") && r.err.contains("-o OUT.svg"), "\(r.err)")
        #expect(try String(contentsOfFile: dir + "/out.png", encoding: .utf8) == "kept")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.png.png.tmp") && !FileManager.default.fileExists(atPath: dir + "/out.png.svg.tmp"))
    }

    /// A link planted at the PNG's temporary name (a shared folder) is refused, not written
    /// through: its target stays as it was.
    @Test(.enabled(if: hasRenderer, "rsvg-convert is not installed (apt-get install librsvg2-bin)"))
    func aLinkAtThePNGsTemporaryName_isRefused() throws {
        let dir = Scratch.directory("trace-link")
        try "safe".write(toFile: dir + "/victim", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/out.png.png.tmp", withDestinationPath: dir + "/victim")
        let r = try CommandLineTests().run(["trace", "-o", dir + "/out.png", "\(Paths.fixtures)/tap.events"])
        #expect(r.status == 1 && r.err.contains("symbolic link"), "\(r.err)")
        #expect(try String(contentsOfFile: dir + "/victim", encoding: .utf8) == "safe")
    }

    /// The tour's crowded middle (eight gestures end within 200 px): no gesture label covers
    /// another, and the strip cuts no reason short: one it has no room for is a numbered note.
    @Test func labelsDoNotOverlap_andNoReasonIsCut() throws {
        let path = Paths.root + "/examples/recordings/tour.events"
        let recording = try Evemu.parse(try read(path), file: path)
        let svg = TraceSVG.render(try TraceRecording.record(recording, description: recording.description!, configuration: try configuration(nil)))
        let boxes = svg.matches(of: /<rect x="([\d.-]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)" fill="#ffffffd9"\/>/).map {
            (x: Double($0.1)!, y: Double($0.2)!, w: Double($0.3)!, h: Double($0.4)!)
        }
        #expect(boxes.count == 12)
        for (i, a) in boxes.enumerated() {
            for b in boxes[(i + 1)...] {
                #expect(!(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h), "labels overlap: \(a) \(b)")
            }
        }
        #expect(!svg.contains("…"))
        #expect(svg.contains(">(1)</text>") && svg.contains("(1) next tap too late"))
        #expect(Self.wellFormed(svg))
    }

    @Test func svgOutput_fromTheCLI_equalsTheLibrary() throws {
        let out = Scratch.root + "/trace.svg"
        let r = try CommandLineTests().run(["trace", "--config", Paths.examples + "/bottom-sheet.toml", "-o", out, "\(Paths.fixtures)/bottom-sheet-handle.events"])
        #expect(r.status == 0)
        #expect(try read(out) == (try Self.svg(fixture: "bottom-sheet-handle", config: "bottom-sheet.toml")))
    }

    @Test func readmePicture_isCurrent() throws {
        // docs/trace-photo-viewer.png is `trace --config examples/photo-viewer.toml
        // Fixtures/photo-select-and-move.events`: its size must be the current layout's.
        let png = try Data(contentsOf: URL(fileURLWithPath: Paths.root + "/docs/trace-photo-viewer.png"))
        func be32(_ at: Int) -> Int { png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let svg = try read("\(Paths.fixtures)/trace/photo-select-move-zoom.svg")
        let height = Double(svg.firstMatch(of: /height="([\d.]+)"/)!.1)!
        #expect(be32(16) == 1200)
        #expect(be32(20) == Int(height.rounded()))
        // README's picture is `trace examples/recordings/tour.events -o docs/trace-tour.png`.
        let tourPNG = try Data(contentsOf: URL(fileURLWithPath: Paths.root + "/docs/trace-tour.png"))
        let tourPath = Paths.root + "/examples/recordings/tour.events"
        let tour = try Evemu.parse(try read(tourPath), file: tourPath)
        let tourSVG = TraceSVG.render(try TraceRecording.record(tour, description: tour.description!, configuration: try configuration(nil)))
        let tourHeight = Double(tourSVG.firstMatch(of: /height="([\d.]+)"/)!.1)!
        #expect(tourPNG[16..<20].reduce(0) { $0 << 8 | Int($1) } == 1200)
        #expect(tourPNG[20..<24].reduce(0) { $0 << 8 | Int($1) } == Int(tourHeight.rounded()))
    }
}
