import Foundation
import GestureEngine
import TouchFrames
import Testing
import TestSupport

@testable import GestureConfig

/// A saved calibration is whole or nothing (hardening round 4): what reaches the disk is what
/// the daemon's own loader took, matrix as written and comments escaped, so a save can never
/// leave a file that stops the next start.
@Suite struct SavedCalibrationTests {
    func scratchFile(_ name: String = "calibration.toml") -> String {
        Scratch.directory("saved") + "/" + name
    }

    /// Any fit the calibrator accepts, near the edge of folding too, is a file the loader takes:
    /// the fit checks the matrix as rounded for the file, by the loader's rule.
    @Test func everyAcceptedFit_isAFileTheLoaderTakes() throws {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let output = PixelRect(x: 0, y: 0, width: 1920, height: 1080)
        var accepted = 0, nearTheEdge = 0
        for _ in 0..<400 {
            // A nearly folded matrix with large numbers: rounding to six decimals moves its
            // determinant by up to ~1e-3, across the loader's bound.
            let a = 200 + random() * 800, b = 200 + random() * 800, d = 200 + random() * 800
            let det = 0.0005 + random() * 0.002
            let m = [a, b, random(), d, (det + b * d) / a, random()]
            let points = (0..<4).map { _ -> CalibrationFit.Point in
                let (u, v) = (random() * 1e-4, random() * 1e-4)
                return CalibrationFit.Point(
                    u: u, v: v, target: PixelPoint(x: (m[0] * u + m[1] * v + m[2]) * 1920, y: (m[3] * u + m[4] * v + m[5]) * 1080))
            }
            guard let fit = try? CalibrationFit(points, output: output, rotation: 0, sizeMM: (300, 200), limitMM: 100) else { continue }
            accepted += 1
            let k = fit.matrix
            if abs(k[0] * k[4] - k[1] * k[3]) < 0.002 { nearTheEdge += 1 }
            #expect(CalibrationFit.problem(k) == nil, "\(k)")
            var file = CalibrationFile()
            file.set("0eef:0001", k, note: "p")
            #expect(throws: Never.self) { _ = try file.checkedBytes(for: "calibration.toml") }
        }
        #expect(accepted > 20 && nearTheEdge > 0, "accepted \(accepted), near the edge \(nearTheEdge)")
    }

    @Test func aFitBeyondTheLargestNumber_isRefusedAsSuch_notAsFolding() {
        let output = PixelRect(x: 0, y: 0, width: 1920, height: 1080)
        // The touches span a sliver of the panel (0.05 %) for the whole screen: × 2000.
        let points = CalibrationFit.targets(output: output).map { t in
            CalibrationFit.Point(u: 0.5 + t.x / 1920 * 0.0005, v: 0.5 + t.y / 1080 * 0.0005, target: t)
        }
        #expect(throws: CalibrationFit.Refusal.tooLarge) { try CalibrationFit(points, output: output, rotation: 0, sizeMM: (300, 200)) }
        #expect(CalibrationFit.Refusal.tooLarge.description.contains("beyond ±1000"))
    }

    @Test func aNoteWithControlCharacters_isEscaped_andTheFileLoads() throws {
        var file = CalibrationFile()
        let name = "Panel\u{7F}\u{01}\r\n[daemon]\u{9B}\u{202E}"
        file.set("0eef:0001", [1, 0, 0, 0, 1, 0], note: name)
        let text = String(decoding: try file.checkedBytes(for: "calibration.toml"), as: UTF8.self)
        #expect(text.contains(#"# Panel\u007f\u0001\u000d\u000a[daemon]\u009b\u202e"#), "\(text)")
        #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) })
        #expect(try parseTOML(bytes: Array(text.utf8))["panel"] != nil)
    }

    @Test func aNameWithAPatternsCharacter_andNoVendor_isMatchedByItsNode() throws {
        for name in ["Touch\\Panel", "Panel [2]", "Panel*", "Panel?", "/dev/weird panel", "0eef:0001"] {
            let match = CalibrationFile.match(for: .standard, node: "/dev/input/event5", name: name, vendor: 0, product: 0)
            #expect(match == "/dev/input/event5", "\(name)")
            var file = CalibrationFile()
            file.set(match, [1, 0, 0, 0, 1, 0], note: "")
            let panel = CalibrationFile.PanelIdentity(node: "/dev/input/event5", name: name, vendor: 0, product: 0)
            #expect(throws: Never.self) { _ = try file.checkedBytes(for: "c.toml", entry: (match, panel)) }
        }
        #expect(CalibrationFile.match(for: .standard, node: "/dev/input/event5", name: "Plain Panel", vendor: 0, product: 0) == "Plain Panel")
    }

    /// An entry its panel would not take (shadowed by an earlier one, or matching something
    /// else) is refused before anything is written.
    @Test func anEntryItsPanelWouldNotTake_isNotWritten() throws {
        let path = scratchFile()
        var file = CalibrationFile()
        file.set("*Touch*", [1, 0, 0, 0, 1, 0], note: "")
        file.set("0eef:0001", [1, 0, 0.01, 0, 1, 0], note: "")
        let panel = CalibrationFile.PanelIdentity(node: "/dev/input/event3", name: "eGalax Touch", vendor: 0x0EEF, product: 1)
        #expect(throws: CalibrationFile.Refusal.self) { try file.write(to: path, entry: ("0eef:0001", panel)) }
        #expect(!FileManager.default.fileExists(atPath: path))
        try file.write(to: path, entry: ("*Touch*", panel))
        #expect(try ConfigLoader.parse(try String(contentsOfFile: path, encoding: .utf8), file: path).panels.count == 2)
    }

    @Test func aFileThatIsNotTOML_isRefusedInWords() throws {
        let path = scratchFile()
        try "[[panel]]\nmatch = \"x\"\ncalibration = [1, 0,\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try CalibrationFile(readingFrom: path)
        } throws: { error in
            let text = "\(error)"
            return text.contains("\(path): line 4:") && !text.contains("TOMLError")
        }
    }

    @Test func theLoaderAndTheFit_refuseAMatrixForTheSameReasons() {
        for (k, problem) in [
            ([2000.0, 0, 0, 0, 1, 0], CalibrationFit.Refusal.tooLarge), ([1, 0, 0, 0, 0.0009, 0], .foldsThePanel(determinant: 0.0009)),
        ] {
            #expect(CalibrationFit.problem(k) == problem)
            let text = "[device]\ncalibration = [\(k.map { "\($0)" }.joined(separator: ", "))]\n"
            #expect(throws: ConfigError.self) { _ = try ConfigLoader.parse(text, file: "k.toml") }
        }
        #expect(CalibrationFit.problem([1, 0, 0, 0, 0.001, 0]) == nil)
    }

    /// A save is checked against the caps too: a file's own (a 65th panel) and the whole
    /// configuration's with the file in place (panels over every file).
    @Test func aSavePastACap_isNotWritten() throws {
        var file = CalibrationFile()
        for i in 0..<64 { file.set("p\(i)", [1, 0, 0, 0, 1, 0], note: "") }
        #expect(throws: Never.self) { _ = try file.checkedBytes(for: "c.toml") }
        file.set("p64", [1, 0, 0, 0, 1, 0], note: "")
        #expect {
            _ = try file.checkedBytes(for: "c.toml")
        } throws: { "\($0)".contains("more than 64 [[panel]]s in one file") }
        // 4 drop-ins of 60 panels: a calibration file of 20 more passes the 256 in all.
        let dir = Scratch.directory("merged")
        try FileManager.default.createDirectory(atPath: dir + "/kiosk.d", withIntermediateDirectories: true)
        try "".write(toFile: dir + "/kiosk.toml", atomically: true, encoding: .utf8)
        for k in 0..<4 {
            let text = (0..<60).map { "[[panel]]\nmatch = \"d\(k)-\($0)\"\n" }.joined()
            try text.write(toFile: dir + "/kiosk.d/\(k).toml", atomically: true, encoding: .utf8)
        }
        var more = CalibrationFile()
        for i in 0..<20 { more.set("q\(i)", [1, 0, 0, 0, 1, 0], note: "") }
        let path = dir + "/kiosk.d/calibration.toml"
        #expect {
            try more.write(to: path, within: (dir + "/kiosk.toml", nil))
        } throws: { "\($0)".contains("more than 256 [[panel]]s in the configuration") }
        #expect(!FileManager.default.fileExists(atPath: path))
        var fewer = CalibrationFile()
        fewer.set("q0", [1, 0, 0, 0, 1, 0], note: "")
        try fewer.write(to: path, within: (dir + "/kiosk.toml", nil))
        #expect(try ConfigLoader.load(path: dir + "/kiosk.toml").panels.count == 241)
    }

    /// A damaged file's numbers never trap a save: the file is refused as the loader refuses it.
    @Test func aFileOfAbsurdNumbers_isRefused_notTrappedOn() throws {
        #expect(calibrationNumber(1e20) == "1e+20" && calibrationNumber(-.infinity) == "-inf" && calibrationNumber(.nan) == "nan")
        let path = scratchFile()
        try "[[panel]]\nmatch = \"x\"\ncalibration = [1e20, 0, 0, 0, 1, 0]\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try CalibrationFile(readingFrom: path)
        } throws: { "\($0)".contains("line 3: 'calibration' numbers must lie within ±1000") }
    }
}
