import Foundation
import GestureConfig
import GestureEngine
import TestSupport
import Testing

/// Strokes as a kiosk admin meets them: `[[stroke]]` and `[strokes] include` read or refused
/// with their file and line, `touchgesturectl strokes learn/test/trace` on recordings, and the
/// example configuration replayed.
@Suite struct StrokeCommandTests {
    static let strokes = Paths.examples + "/recordings/strokes"

    func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try Command.run(Paths.binary, args)
    }

    func refusal(_ text: String) -> String? {
        do {
            _ = try ConfigLoader.parse(text, file: "k.toml")
            return nil
        } catch {
            return error.description
        }
    }

    static let z = try! StrokeFile.read(Paths.examples + "/strokes/z.toml")[0]
    static var zPoints: String { "points = [" + z.vector.map { String($0) }.joined(separator: ", ") + "]" }

    @Test func strokeTables_areRead_andBadOnesRefusedWithTheirLine() throws {
        let c = try ConfigLoader.parse("[[stroke]]\nname = \"z\"\n\(Self.zPoints)\n[[region]]\nname = \"r\"\n[[region.gesture]]\nkind = \"stroke\"\nshapes = [\"z\", \"circle\"]\n", file: "k.toml")
        #expect(c.engine.strokes.map(\.name) == ["z"])
        #expect(c.engine.regions[0].gestures[0].shapes == ["z", "circle"])
        let bad: [(String, String)] = [
            ("[[stroke]]\nname = \"z\"\npoints = [1, 2]\n", "k.toml:3: 'points' must hold 64 numbers, found 2"),
            ("[[stroke]]\nname = \"z\"\npoints = [\(Array(repeating: "0.125", count: 64).joined(separator: ","))]\n", "k.toml:3: 'points' is no normalized path"),
            ("[[stroke]]\n\(Self.zPoints)\n", "k.toml:1: a [[stroke]] needs a 'name'"),
            ("[[region]]\nname = \"r\"\n[[region.gesture]]\nkind = \"stroke\"\nshapes = [\"zz\"]\n", "k.toml:5: no shape 'zz' (shapes: circle;"),
            ("[[region]]\nname = \"r\"\n[[region.gesture]]\nkind = \"tap\"\nshapes = [\"circle\"]\n", "'shapes' does not apply to a tap"),
            ("[[action]]\nname = \"a\"\ngesture = \"tap\"\nshape = \"circle\"\nkeys = \"KEY_A\"\n", "'shape' is for strokes, and 'tap' is no stroke"),
            ("[[region]]\nname = \"r\"\n[[region.gesture]]\nkind = \"stroke\"\nshapes = [\"circle\"]\n[[action]]\nname = \"a\"\ngesture = \"stroke\"\nshape = \"z\"\nkeys = \"KEY_A\"\n",
             "no 'stroke' stroke takes the shape 'z' (it takes: circle)"),
            ("[thresholds]\nstroke_min_score = 0.2\n", "'stroke_min_score' must be"),
        ]
        for (text, reason) in bad {
            let why = refusal(text)
            #expect(why?.contains(reason) == true, "\(text)\n→ \(why ?? "accepted")")
        }
    }

    @Test func include_readsATemplateFile_fromTheConfigsFolder_andRefusesAnythingElseInIt() throws {
        let dir = Scratch.directory("strokes-include")
        try "[[stroke]]\nname = \"z\"\n\(Self.zPoints)\n".write(toFile: dir + "/shapes.toml", atomically: true, encoding: .utf8)
        try "[strokes]\ninclude = [\"shapes.toml\"]\n".write(toFile: dir + "/k.toml", atomically: true, encoding: .utf8)
        let c = try ConfigLoader.load(path: dir + "/k.toml")
        #expect(c.engine.strokes.map(\.name) == ["z"])
        #expect(c.files.contains(dir + "/shapes.toml"))
        try "[[stroke]]\nname = \"z\"\n\(Self.zPoints)\n[[region]]\nname = \"sneaked\"\n".write(toFile: dir + "/shapes.toml", atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try ConfigLoader.load(path: dir + "/k.toml") }
        // Twice, too many, or a file anyone could rewrite (a shape can fire an action): refused.
        try "[[stroke]]\nname = \"z\"\n\(Self.zPoints)\n".write(toFile: dir + "/shapes.toml", atomically: true, encoding: .utf8)
        for (list, reason) in [
            ("\"shapes.toml\", \"./shapes.toml\"", "twice"), ("\"shapes.toml\", \"\(dir)/shapes.toml\"", "twice"),
            ((1...17).map { "\"s\($0).toml\"" }.joined(separator: ", "), "17 files; 16 at most"),
        ] {
            try "[strokes]\ninclude = [\(list)]\n".write(toFile: dir + "/k.toml", atomically: true, encoding: .utf8)
            do {
                _ = try ConfigLoader.load(path: dir + "/k.toml")
                Issue.record("accepted: \(list)")
            } catch {
                #expect(error.reason.contains(reason), "\(error)")
            }
        }
        _ = chmod(dir + "/shapes.toml", 0o666)
        try "[strokes]\ninclude = [\"shapes.toml\"]\n".write(toFile: dir + "/k.toml", atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try ConfigLoader.load(path: dir + "/k.toml") }
        _ = chmod(dir + "/shapes.toml", 0o644)
        try "[strokes]\ninclude = [\"missing.toml\"]\n".write(toFile: dir + "/k.toml", atomically: true, encoding: .utf8)
        do {
            _ = try ConfigLoader.load(path: dir + "/k.toml")
            Issue.record("a missing template file was accepted")
        } catch {
            // Named at the line that includes it, with why, and no note of sizes.
            #expect(error.file == dir + "/k.toml" && error.line == 2, "\(error)")
            #expect(error.reason.contains("\(dir)/missing.toml cannot be read") && !error.reason.contains("bytes"), "\(error)")
        }
    }

    @Test func learnThenTest_asAUserRunsThem() throws {
        let file = Scratch.directory("strokes-learn") + "/strokes.toml"
        let learn = try run(["strokes", "learn", "--name", "z", "-o", file] + (1...3).map { "\(Self.strokes)/z-\($0).events" })
        #expect(learn.status == 0, "\(learn.err)")
        #expect(try StrokeFile.read(file).count == 3)
        // Another shape added keeps the Z; a drawing more adds to it; --replace starts it again.
        #expect(try run(["strokes", "learn", "--name", "c", "--either-direction", "-o", file, "\(Self.strokes)/circle.events"]).status == 0)
        #expect(try run(["strokes", "learn", "--name", "z", "-o", file, "\(Self.strokes)/z-1.events"]).status == 0)
        #expect(try StrokeFile.read(file).map(\.name).sorted() == ["c", "z", "z", "z", "z"])
        #expect(try run(["strokes", "learn", "--name", "z", "--replace", "-o", file, "\(Self.strokes)/z-1.events"]).status == 0)
        #expect(try StrokeFile.read(file).map(\.name).sorted() == ["c", "z"])
        let test = try run(["strokes", "test", "--json", "--templates", file, "\(Self.strokes)/two-finger-z.events", "\(Self.strokes)/scroll.events"])
        #expect(test.status == 0, "\(test.err)")
        let lines = test.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("{\"recording\":\"\(Self.strokes)/two-finger-z.events\",\"name\":\"z\",\"score\":0.9"), "\(lines)")
        #expect(lines[1].contains("\"name\":null"), "\(lines)")
        let svg = Scratch.directory("strokes-learn") + "/z.svg"
        let trace = try run(["strokes", "trace", "--templates", file, "-o", svg, "\(Self.strokes)/two-finger-z.events"])
        #expect(trace.status == 0, "\(trace.err)")
        #expect(try String(contentsOfFile: svg, encoding: .utf8).contains("<polyline"))
        // A recording that cannot be read is a line of its own, the others still tested; the run fails.
        let empty = Scratch.directory("strokes-learn") + "/empty.events"
        try "".write(toFile: empty, atomically: true, encoding: .utf8)
        let mixed = try run(["strokes", "test", "--json", "--templates", file, "\(Self.strokes)/z-2.events", empty, "\(Self.strokes)/z-3.events"])
        let mixedLines = mixed.out.split(separator: "\n")
        #expect(mixed.status != 0 && mixedLines.count == 3, "\(mixed.out)")
        #expect(mixedLines.count == 3 && mixedLines[1].contains("\"name\":null,\"score\":null,\"reason\":\"cannot be read"), "\(mixed.out)")
        #expect(mixedLines.count == 3 && mixedLines[2].contains("\"name\":\"z\""), "\(mixed.out)")
        // A template file kept private stays private.
        _ = chmod(file, 0o600)
        #expect(try run(["strokes", "learn", "--name", "z", "-o", file, "\(Self.strokes)/z-2.events"]).status == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        // A recording with no stroke to learn from, and a bad name, are refused.
        let tap = try run(["strokes", "learn", "--name", "t", "-o", file, Paths.fixtures + "/tap.events"])
        #expect(tap.status != 0 && tap.err.contains("stroke_min_size"), "\(tap.err)")
        #expect(try run(["strokes", "learn", "--name", "a/b", "-o", file, "\(Self.strokes)/z-1.events"]).status != 0)
    }

    /// A drawing added to a template file keeps what an admin wrote in it (comments, its
    /// layout); they were dropped, the file written anew. `--replace` writes it anew, as said.
    @Test func learn_addsAfterTheFilesComments() throws {
        let file = Scratch.directory("strokes-comments") + "/strokes.toml"
        #expect(try run(["strokes", "learn", "--name", "z", "-o", file, "\(Self.strokes)/z-1.events"]).status == 0)
        let annotated = "# The museum's shapes: Z opens the staff menu (ask Ana before changing it).\n" + (try String(contentsOfFile: file, encoding: .utf8))
            + "# end of the Z"
        try annotated.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try run(["strokes", "learn", "--name", "c", "-o", file, "\(Self.strokes)/circle.events"]).status == 0)
        let after = try String(contentsOfFile: file, encoding: .utf8)
        #expect(after.hasPrefix(annotated + "\n"), "\(after)")
        #expect(try StrokeFile.read(file).map(\.name) == ["z", "c"])
        #expect(try run(["strokes", "learn", "--name", "z", "--replace", "-o", file, "\(Self.strokes)/z-2.events"]).status == 0)
        #expect(try StrokeFile.read(file).map(\.name) == ["c", "z"])
    }

    /// `strokes test` and the daemon's replay score the same recording alike.
    @Test func strokesTest_andReplay_giveOneScore() throws {
        let dir = Scratch.directory("strokes-agree")
        try "[strokes]\ninclude = [\"\(Paths.examples)/strokes/z.toml\"]\n[[region]]\nname = \"r\"\n[[region.gesture]]\nkind = \"stroke\"\nmax_fingers = 5\n"
            .write(toFile: dir + "/k.toml", atomically: true, encoding: .utf8)
        for recording in ["two-finger-z", "one-finger-z", "z-1", "z-2"] {
            let path = "\(Self.strokes)/\(recording).events"
            let replay = try run(["replay", "--config", dir + "/k.toml", path])
            let test = try run(["strokes", "test", "--json", "--config", dir + "/k.toml", path])
            let score = { (text: String) in text.split(separator: "\"score\":").dropFirst().first?.prefix(5) }
            #expect(replay.status == 0 && test.status == 0 && score(replay.out) != nil, "\(replay.err)\(test.err)")
            #expect(score(replay.out) == score(test.out), "\(recording): \(replay.out) \(test.out)")
        }
        let check = try run(["check-config", dir + "/k.toml"])
        #expect(check.out.contains("shapes: z (3 templates)\n"), "\(check.out)")
    }

    @Test func anAction_firesOnlyForItsShape() {
        let a = Action(name: "a", gesture: "stroke", shape: "z", phase: .recognized, effect: .exec(["/bin/true"]))
        let e = GestureEvent(kind: .stroke, phase: .recognized, time: Timestamp(seconds: 1), position: .zero)
        #expect(a.fires(for: e, shapeName: "z"))
        #expect(!a.fires(for: e, shapeName: "circle"))
        #expect(!a.fires(for: e, shapeName: nil))
    }

    @Test func theExample_recognizesTheZAndTheCircle_andKeepsTheScroll() throws {
        let config = Paths.examples + "/strokes.toml"
        let z = try run(["replay", "--config", config, "--actions", "\(Self.strokes)/two-finger-z.events"])
        #expect(z.out.contains("\"action\":\"admin_menu\"") && z.out.contains("\"shape\":\"z\""), "\(z.out)\(z.err)")
        let circle = try run(["replay", "--config", config, "\(Self.strokes)/circle.events"])
        #expect(circle.out.contains("\"shape\":\"circle\""), "\(circle.out)")
        let scroll = try run(["replay", "--config", config, "\(Self.strokes)/scroll.events"])
        #expect(scroll.out.contains("\"gesture\":\"pan\"") && !scroll.out.contains("stroke"), "\(scroll.out)")
        let pan = try run(["replay", "--config", config, "\(Self.strokes)/two-finger-pan.events"])
        #expect(!pan.out.contains("stroke"), "\(pan.out)")
    }
}
