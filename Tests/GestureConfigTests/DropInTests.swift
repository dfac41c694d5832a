import Foundation
import GestureEngine
import TouchFrames
import Testing
import TestSupport

@testable import GestureConfig

/// `touchgestured.d/*.toml`: read after the main file, in name order, merged as CONFIG.md says;
/// an error names the drop-in and its line.
@Suite struct DropInTests {
    /// A main file and its drop-ins in a folder of their own; the loaded configuration.
    func load(_ main: String, _ dropIns: [(String, String)]) throws(ConfigError) -> Configuration {
        let dir = Scratch.directory("dropins")
        try? FileManager.default.createDirectory(atPath: dir + "/kiosk.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try? main.write(toFile: dir + "/kiosk.toml", atomically: true, encoding: .utf8)
        for (name, text) in dropIns { try? text.write(toFile: dir + "/kiosk.d/" + name, atomically: true, encoding: .utf8) }
        return try ConfigLoader.load(path: dir + "/kiosk.toml")
    }

    let main = """
        [screen]
        width = 1920
        height = 1080
        [device]
        rotation = 180
        [[panel]]
        match = "222a:0001"
        output = [0, 0, 960, 1080]
        """

    @Test func aDropIn_replacesKeys_andMergesThePanelOfTheSameMatch() throws {
        let c = try load(main, [
            ("calibration.toml", "[[panel]]\nmatch = \"222a:0001\"\ncalibration = [1.1, 0, -0.05, 0, 0.9, 0.05]\n"),
            ("other.toml", "[device]\npalm_size = 40\n[[panel]]\nmatch = \"ILITEK*\"\nrotation = 90\n"),
        ])
        #expect(c.files.count == 3)
        #expect(c.files[1].hasSuffix("kiosk.d/calibration.toml") && c.files[2].hasSuffix("kiosk.d/other.toml"))
        #expect(c.panels.count == 2)
        let first = c.panels[0]
        #expect(first.match == "222a:0001")
        #expect(first.geometry.calibration == [1.1, 0, -0.05, 0, 0.9, 0.05])
        #expect(first.geometry.output == PixelRect(x: 0, y: 0, width: 960, height: 1080))  // kept
        #expect(c.panels[1].match == "ILITEK*" && c.panels[1].geometry.rotation == 90)
        #expect(c.geometry.rotation == 180 && c.geometry.palmSize == 40)
    }

    /// A main file emptied by accident reloads as the built-in configuration: said, unless a
    /// drop-in holds the settings (an admin's way), and not for a file with any setting.
    @Test func anEmptyFile_withoutDropIns_isAWarning() throws {
        let empty = try load("# all comments\n\n", [])
        #expect(empty.notices.first?.hasSuffix("kiosk.toml:1: no setting in the file or its drop-ins: the built-in configuration applies (a 1920 × 1080 screen, one full-screen region with the standard gestures)") == true, "\(empty.notices)")
        #expect(try load("", [("a.toml", "[screen]\nwidth = 800\n")]).notices.isEmpty)
        #expect(try load("[screen]\nwidth = 800\n", []).notices.isEmpty)
        // A saved calibration is the daemon's, not the admin's setting: still said.
        let dir = Scratch.directory("empty-calibrated")
        try "".write(toFile: dir + "/kiosk.toml", atomically: true, encoding: .utf8)
        try "[[panel]]\nmatch = \"222a:0001\"\ncalibration = [1, 0, 0, 0, 1, 0]\n".write(toFile: dir + "/calibration.toml", atomically: true, encoding: .utf8)
        let calibrated = try ConfigLoader.load(path: dir + "/kiosk.toml", calibrations: dir + "/calibration.toml")
        #expect(calibrated.notices.first?.contains("no setting in the file or its drop-ins") == true, "\(calibrated.notices)")
    }

    @Test func dropIns_areReadInNameOrder_theLastWinning() throws {
        let c = try load(main, [("20-b.toml", "[device]\nrotation = 90\n"), ("10-a.toml", "[device]\nrotation = 270\n")])
        #expect(c.geometry.rotation == 90)
    }

    @Test func onlyTomlFiles_notHidden_areRead() throws {
        let c = try load(main, [("notes.txt", "not toml"), (".hidden.toml", "[device]\nrotation = 90\n")])
        #expect(c.files.count == 1 && c.geometry.rotation == 180)
    }

    @Test func regionsOfADropIn_areAdded() throws {
        let c = try load(main + "\n[[region]]\nname = \"a\"\nrect = [0, 0, 100, 100]\n[[region.gesture]]\nkind = \"tap\"\n", [
            ("b.toml", "[[region]]\nname = \"b\"\nrect = [200, 0, 100, 100]\n[[region.gesture]]\nkind = \"tap\"\n")
        ])
        #expect(c.engine.regions.map(\.name) == ["a", "b"])
    }

    /// TOML's other spelling of an array of tables, `key = [{ ... }]`, adds and merges as
    /// `[[key]]` does, in a drop-in and in the main file.
    @Test func inlineArraysOfTables_areAddedAndMergedAsTheirDoubleBracketsAre() throws {
        let region = "\n[[region]]\nname = \"a\"\nrect = [0, 0, 100, 100]\n[[region.gesture]]\nkind = \"tap\"\n"
        let action = "[[action]]\nname = \"one\"\ngesture = \"tap\"\nkeys = \"KEY_A\"\n"
        let c = try load(main + region + action, [
            ("10.toml", "action = [{ name = \"two\", gesture = \"tap\", keys = \"KEY_B\" }]\n"),
            ("20.toml", "region = [{ name = \"b\", rect = [200, 0, 100, 100], standard_gestures = true }]\n"),
            ("30.toml", "panel = [{ match = \"222a:0001\", rotation = 90 }]\n"),
        ])
        #expect(c.actions.map(\.name) == ["one", "two"])
        #expect(c.engine.regions.map(\.name) == ["a", "b"])
        #expect(c.panels.count == 1)
        #expect(c.panels[0].geometry.rotation == 90)
        #expect(c.panels[0].geometry.output == PixelRect(x: 0, y: 0, width: 960, height: 1080), "the main file's panel, merged")
        // And the main file's inline list takes a drop-in's [[action]] after it.
        let d = try load("action = [{ name = \"one\", gesture = \"tap\", keys = \"KEY_A\" }]\n" + main + region, [("10.toml", action.replacingOccurrences(of: "one", with: "two"))])
        #expect(d.actions.map(\.name) == ["one", "two"])
    }

    /// One `[action]` table is a list of one, in the file and in a drop-in (added, as
    /// `[[action]]` is); an empty `action = []` in a drop-in empties the list before it.
    @Test func aSingleTable_isAListOfOne_andAnEmptyListEmptiesTheList() throws {
        let region = "\n[[region]]\nname = \"a\"\nrect = [0, 0, 100, 100]\n[[region.gesture]]\nkind = \"tap\"\n"
        let one = try load(main + region + "[[action]]\nname = \"one\"\ngesture = \"tap\"\nkeys = \"KEY_A\"\n", [
            ("10.toml", "[action]\nname = \"two\"\ngesture = \"tap\"\nkeys = \"KEY_B\"\n"),
            ("20.toml", "[region]\nname = \"b\"\nstandard_gestures = true\n"),
        ])
        #expect(one.actions.map(\.name) == ["one", "two"])
        #expect(one.engine.regions.map(\.name) == ["a", "b"])
        let none = try load(main + region + "[[action]]\nname = \"one\"\ngesture = \"tap\"\nkeys = \"KEY_A\"\n", [("10.toml", "action = []\n")])
        #expect(none.actions.isEmpty)
        let gesture = try ConfigLoader.parse("[[region]]\nname = \"r\"\n[region.gesture]\nkind = \"tap\"\n", file: "k.toml")
        #expect(gesture.engine.regions.first?.gestures.map(\.kind) == [.tap])
    }

    @Test func anErrorInADropIn_namesItsFileAndLine() {
        for (text, line, reason) in [
            ("[device]\n\nrotation = 45\n", 3, "rotation"),
            ("[[panel]]\nmatch = \"222a:0001\"\ncalibration = [0, 0, 0, 0, 0, 0]\n", 3, "calibration"),
            ("[device\n", 1, "table header"),
            ("[[region]]\nname = \"b\"\n[[region.gesture]]\nkind = \"tap\"\nname = \"t\"\nrequires_failure_of = [\"t\"]\n", 6, "names itself"),
        ] {
            do {
                _ = try load(main, [("bad.toml", text)])
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.file.hasSuffix("kiosk.d/bad.toml"), "\(error)")
                #expect(error.line == line, "\(error)")
                #expect(error.reason.contains(reason), "\(error)")
            }
        }
    }

    /// The clients' worst-case memory, past its bound by a drop-in's key: named there.
    @Test func theClientsMemoryBound_namesTheKeySetLast() {
        do {
            _ = try load("[daemon]\noutput_buffer_bytes = 8192\n", [("10.toml", "\n[daemon]\nmax_clients = 1024\n")])
            Issue.record("1024 clients of 72 KiB each were taken")
        } catch {
            #expect(error.file.hasSuffix("kiosk.d/10.toml") && error.line == 3, "\(error)")
        }
    }

    /// A drop-in turning a filter off that a key of the main file tunes: both places named.
    @Test func aFilterADropInTurnsOff_namesTheDropInsLine() {
        do {
            _ = try load("[device.filters]\nchatter_window = 0.02\nchatter_distance = 5\n", [("50.toml", "\n[device.filters]\nchatter_window = 0\n")])
            Issue.record("a chatter_distance with no chatter filter was taken")
        } catch {
            #expect(error.file.hasSuffix("kiosk.toml") && error.line == 3)
            #expect(error.reason.contains("'chatter_distance' tunes the chatter filter, which 'chatter_window' = 0 turns off ("), "\(error.reason)")
            #expect(error.reason.hasSuffix("kiosk.d/50.toml:3)"), "\(error.reason)")
        }
    }

    /// Warnings name their place: a region off the screen, a max_contacts with no mirror.
    @Test func regionWarnings_nameTheirFileAndLine() throws {
        let c = try load(main, [("10.toml", "[[region]]\nname = \"far\"\nrect = [5000, 5000, 10, 10]\nmax_contacts = 1\nstandard_gestures = true\n")])
        #expect(c.notices.count == 2, "\(c.notices)")
        #expect(c.notices.first?.hasSuffix("kiosk.d/10.toml:3: region 'far' lies off the screen (1920×1080 px): no touch reaches it") == true, "\(c.notices)")
        #expect(c.notices.last?.hasSuffix("kiosk.d/10.toml:4: region 'far': max_contacts limits what the virtual touchscreen shows, which only [device] mode = \"passthrough\" makes") == true)
    }

    /// A region wholly inside an excluded one: its gestures never see a touch, said at its rect.
    /// One that reaches out of it, or has no gesture, is not named.
    @Test func aRegionInsideAnExcludedOne_isNamed() throws {
        let regions = "[[region]]\nname = \"keys\"\nrect = [0, 600, 1920, 480]\nexclude = true\n"
            + "[[region]]\nname = \"inside\"\nrect = [100, 700, 200, 100]\nstandard_gestures = true\n"
            + "[[region]]\nname = \"across\"\nrect = [100, 500, 200, 200]\nstandard_gestures = true\n"
            + "[[region]]\nname = \"empty\"\nrect = [100, 700, 50, 50]\n"
            + "[[region]]\nname = \"hangs_off\"\nrect = [400, 700, 200, 1000]\nstandard_gestures = true\n"
        let c = try load(main, [("10.toml", regions)])
        #expect(c.notices.count == 2, "\(c.notices)")
        #expect(c.notices.first?.hasSuffix("kiosk.d/10.toml:7: region 'inside' lies wholly in excluded region 'keys' (exclude = true) on the screen: no touch landing there reaches its gestures or counts in its max_contacts") == true, "\(c.notices)")
        #expect(c.notices.last?.contains("region 'hangs_off' lies wholly in excluded region 'keys'") == true, "\(c.notices)")
    }

    @Test func anErrorInTheMainFile_stillNamesTheMainFile() {
        do {
            _ = try load("[device]\nrotation = 45\n", [("ok.toml", "[device]\npalm_size = 40\n")])
            Issue.record("accepted")
        } catch {
            #expect(error.file.hasSuffix("/kiosk.toml") && error.line == 2, "\(error)")
        }
    }

    @Test func theFolder_isTheFilesNameWithoutToml_plusD() {
        #expect(ConfigLoader.dropInFolder(of: "/etc/touchgestured/touchgestured.toml") == "/etc/touchgestured/touchgestured.d")
    }
}

/// The caps that keep a reload within CONFIG.md's time (hardening round 4): panels per file and
/// in all, drop-ins, bytes in all; a drop-in whose name is not UTF-8 is skipped with a notice.
@Suite struct DropInCapTests {
    func folder(_ main: String, _ dropIns: [(String, String)]) -> String {
        let dir = Scratch.directory("caps")
        try? FileManager.default.createDirectory(atPath: dir + "/kiosk.d", withIntermediateDirectories: true)
        try? main.write(toFile: dir + "/kiosk.toml", atomically: true, encoding: .utf8)
        for (name, text) in dropIns { try? text.write(toFile: dir + "/kiosk.d/" + name, atomically: true, encoding: .utf8) }
        return dir
    }

    func panels(_ range: Range<Int>) -> String {
        range.map { "[[panel]]\nmatch = \"p\($0)\"\ncalibration = [1, 0, 0, 0, 1, 0]\n" }.joined()
    }

    func refusal(_ dir: String) -> ConfigError? {
        do {
            _ = try ConfigLoader.load(path: dir + "/kiosk.toml")
            return nil
        } catch { return error }
    }

    @Test func panels_areCappedPerFile_andInAll_withTheirLine() throws {
        let one = refusal(folder(panels(0..<65), []))
        #expect(one?.reason == "more than 64 [[panel]]s in one file" && one?.line == 193, "\(String(describing: one))")
        let spread = (0..<5).map { ("\($0).toml", panels($0 * 60..<$0 * 60 + 60)) }
        let all = refusal(folder("", spread))
        #expect(all?.reason == "more than 256 [[panel]]s in the configuration (the file and its drop-ins together)", "\(String(describing: all))")
        #expect(all?.file.hasSuffix("kiosk.d/4.toml") == true)
        // The same match in every drop-in is one panel (merged by key), however many files.
        let merged = try ConfigLoader.load(path: folder(panels(0..<64), (0..<8).map { ("\($0).toml", panels(0..<64)) }) + "/kiosk.toml")
        #expect(merged.panels.count == 64)
    }

    @Test func dropIns_andTheirBytes_areCapped() throws {
        let many = refusal(folder("", (0..<257).map { (String(format: "%03d.toml", $0), "") }))
        #expect(many?.reason.hasPrefix("more than 256 drop-ins in ") == true && many?.file.hasSuffix("kiosk.d/256.toml") == true, "\(String(describing: many))")
        let big = "# " + String(repeating: "x", count: 900_000) + "\n"
        let heavy = refusal(folder(big, [("a.toml", big), ("b.toml", big)]))
        #expect(heavy?.file.hasSuffix("kiosk.d/b.toml") == true && heavy?.reason.contains("2097152 at most") == true, "\(String(describing: heavy))")
    }

    @Test func aDropInWhoseNameIsNotUTF8_isSkippedWithANotice() throws {
        let dir = folder("", [("a.toml", "[device]\nrotation = 90\n")])
        let bad = Array((dir + "/kiosk.d/").utf8) + [0xFF, 0x2E, 0x74, 0x6F, 0x6D, 0x6C]
        // Made by its raw bytes: no String can name it.
        var cPath = bad.map { CChar(bitPattern: $0) } + [0]
        let made = creat(&cPath, 0o644)
        #expect(made >= 0)
        close(made)
        let c = try ConfigLoader.load(path: dir + "/kiosk.toml")
        #expect(c.geometry.rotation == 90)
        #expect(c.notices == ["\(dir)/kiosk.d/\\xff.toml: skipped, its name is not UTF-8 (rename it to read it)"], "\(c.notices)")
    }

    /// The largest configuration the caps accept: every region, gesture, panel and drop-in the
    /// caps allow at once. It is accepted; CONFIG.md's time for it is measured by
    /// scripts/largest-config (release build), not asserted here.
    @Test func theLargestAcceptedConfiguration_loads() throws {
        let regions = (0..<1024).map { "[[region]]\nname = 'r\($0)'\nrect = [\($0 % 32 * 50), \($0 / 32 * 30), 40, 20]\n[[region.gesture]]\nkind = 'tap'\n" }.joined()
        let dropIns = (0..<256).map { i in (String(format: "%03d.toml", i), i < 4 ? panels(i * 64..<i * 64 + 64) : "[device]\npalm_size = \(20 + i % 10)\n") }
        let c = try ConfigLoader.load(path: folder(regions, dropIns) + "/kiosk.toml")
        #expect(c.panels.count == 256 && c.engine.regions.count == 1024 && c.files.count == 257)
    }
}
