import Foundation
import GestureEngine
import TouchFrames
import Testing

@testable import GestureConfig

/// `touchgestured.d/*.toml`: read after the main file, in name order, merged as CONFIG.md says;
/// an error names the drop-in and its line.
@Suite struct DropInTests {
    /// A main file and its drop-ins in a folder of their own; the loaded configuration.
    func load(_ main: String, _ dropIns: [(String, String)]) throws(ConfigError) -> Configuration {
        let dir = NSTemporaryDirectory() + "touchgestured-dropins-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
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
