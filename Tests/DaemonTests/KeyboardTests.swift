import Foundation
import GestureProtocol
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The on-screen keyboard: examples/keyboard.toml's actions, `touchgesturectl keyboard` running a
/// stand-in keyboard (a script that logs the signals wvkbd takes), and the daemon's excluded
/// region while it is shown.
@Suite(.serialized, .waitsOnProcesses) struct KeyboardTests {
    /// A keyboard that logs "start", "show" (SIGUSR2), "hide" (SIGUSR1) and "stop" (SIGTERM) into
    /// `log`, as wvkbd shows and hides itself.
    static func keyboard(_ dir: String, log: String) throws -> String {
        try DaemonActionTests.script(
            dir, "keyboard.sh",
            """
            trap 'echo hide >> \(log)' USR1
            trap 'echo show >> \(log)' USR2
            trap 'echo stop >> \(log); exit 0' TERM
            echo start >> \(log)
            while :; do sleep 0.05; done
            """)
    }

    static func helper(_ d: DaemonUnderTest, _ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Root.ctl)
        p.arguments = ["keyboard", "--socket", d.socket] + args
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let err = d.dir + "/helper.log"
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        p.standardError = FileHandle(forWritingAtPath: err)
        try p.run()
        return p
    }

    static let example = Root.path + "/examples/keyboard.toml"

    @Test func theActionsShowAndHideIt_andItsAreaIsNoGesturesWhileShown() throws {
        let dir = scratch()
        let log = dir + "/keyboard.txt"
        let kb = try Self.keyboard(dir, log: log)
        let config = try String(contentsOfFile: Self.example, encoding: .utf8)
        let recording = Root.path + "/examples/recordings/keyboard.events"
        let d = try DaemonUnderTest(["--replay", recording, "--wait-for-clients", "2", "--exit-after-replay"], config: config, dir: dir)
        let helper = try Self.helper(d, ["--height", "300", "--", kb])
        let c = try TestClient(d.socket)
        var taps: [JSONValue] = [], keyboardLines: [String] = []
        while let v = c.json(seconds: 20) {
            if v["gesture"] == .string("tap") { taps.append(v) }
            if v["type"] == .string("keyboard"), case .string(let k)? = v["keyboard"] { keyboardLines.append(k) }
        }
        #expect(d.exit(within: 10) == 0)
        #expect(keyboardLines == ["show", "hide"], "every gesture subscriber hears the actions")
        // Shown: the two taps on its area (y 975 and 950 px) are no one's; the tap above it is a
        // tap. Hidden again: the tap on the same place is one.
        #expect(taps.map { $0["y"]?.number ?? 0 } == [300, 975], "\(taps)")
        helper.terminate()
        helper.waitUntilExit()
        #expect(helper.terminationStatus == 0, "a stop signal ends the keyboard and the helper cleanly")
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(said == "start\nshow\nhide\nstop\n", "\(said)")
        #expect(d.log.contains("action 'keyboard-show': keyboard show") && d.log.contains("set regions: keyboard"))
    }

    @Test func whenTheKeyboardExits_theHelperExitsWithIt_andTheAreaIsFree() throws {
        let dir = scratch()
        let d = try DaemonUnderTest([], config: try String(contentsOfFile: Self.example, encoding: .utf8), dir: dir)
        let kb = try DaemonActionTests.script(dir, "dies.sh", "trap 'true' USR1 USR2; sleep 0.5; kill -USR2 $PPID; sleep 1; exit 3")
        let helper = try Self.helper(d, ["--", kb])
        helper.waitUntilExit()
        #expect(helper.terminationStatus == 3, "the keyboard's status")
        let c = try TestClient(d.socket)
        let regions = c.call(#"{"op":"get_config","id":1}"#)?["regions"]
        let logged = (try? String(contentsOfFile: d.logPath, encoding: .utf8)) ?? ""
        #expect(logged.contains("set regions: keyboard"), "shown, its area was excluded: \(logged)")
        #expect(regions.map { "\($0)" }?.contains("keyboard") == false, "the connection's region went with it")
        let said = (try? String(contentsOfFile: d.dir + "/helper.log", encoding: .utf8)) ?? ""
        #expect(said.contains("the keyboard exited (status 3)"), "\(said)")
        #expect(d.stop() == 0)
    }

    @Test func aRefusedArea_hidesTheKeyboardAgain() throws {
        // 1000 of the screen's 1080 px: over the bound, so its keys would stay gestures.
        let dir = scratch()
        let log = dir + "/keyboard.txt"
        let d = try DaemonUnderTest([], config: try String(contentsOfFile: Self.example, encoding: .utf8), dir: dir)
        let helper = try Self.helper(d, ["--height", "1000", "--", try Self.keyboard(dir, log: log)])
        let said = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        let logged = { (try? String(contentsOfFile: d.logPath, encoding: .utf8)) ?? "" }
        _ = eventually(within: 10) { said().hasPrefix("start\n") && logged().contains("connected to the request socket") }
        kill(helper.processIdentifier, SIGUSR2)  // shown as by a `keyboard` action
        _ = eventually(within: 10) { said().contains("hide\n") }
        #expect(said() == "start\nshow\nhide\n", "\(said())")
        helper.terminate()
        helper.waitUntilExit()
        let out = (try? String(contentsOfFile: dir + "/helper.log", encoding: .utf8)) ?? ""
        #expect(out.contains("may cover 50 % of the screen at most"), "\(out)")
        #expect(out.contains("the keyboard is hidden (its area could not be excluded)"), "\(out)")
        #expect(d.stop() == 0)
    }

    /// A reload that changes the screen moves the shown keyboard's area with it (it stayed
    /// where the old screen's bottom edge was: the new one's keys were gestures), also where the
    /// old area lies off the new screen (the reload dropped it, and the keyboard was hidden).
    @Test(arguments: [
        ("width = 1280\nheight = 800", [0.0, 500, 1280, 300], "start\nshow\n"),
        ("width = 1920\nheight = 720", [0.0, 420, 1920, 300], "start\nshow\nhide\nshow\n"),
    ])
    func aReloadedScreen_movesTheKeyboardsArea(screen: String, moved: [Double], signals: String) throws {
        let dir = scratch()
        let log = dir + "/keyboard.txt"
        let example = try String(contentsOfFile: Self.example, encoding: .utf8)
        let d = try DaemonUnderTest([], config: example, dir: dir)
        let helper = try Self.helper(d, ["--height", "300", "--", try Self.keyboard(dir, log: log)])
        let said = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        let logged = { (try? String(contentsOfFile: d.logPath, encoding: .utf8)) ?? "" }
        _ = eventually(within: 10) { said().hasPrefix("start\n") && logged().contains("connected to the request socket") }
        kill(helper.processIdentifier, SIGUSR2)  // shown as by a `keyboard` action
        let c = try TestClient(d.socket)
        _ = c.json()
        let area = { (id: Int) -> [Double]? in
            guard case .array(let regions)? = c.call(#"{"op":"get_config","id":\#(id)}"#)?["regions"] else { return nil }
            for r in regions where r["exclude"] == .bool(true) {
                if case .array(let rect)? = r["rect"] { return rect.compactMap(\.number) }
            }
            return nil
        }
        #expect(eventually(within: 10) { area(1) == [0, 780, 1920, 300] }, "\(String(describing: area(1)))")
        let smaller = example.replacingOccurrences(of: "width = 1920\nheight = 1080", with: screen)
        #expect(smaller != example)
        try smaller.write(toFile: d.configPath, atomically: true, encoding: .utf8)
        #expect(c.call(#"{"op":"reload","id":2}"#)?["type"] == .string("reply"))
        #expect(eventually(within: 10) { area(3) == moved }, "\(String(describing: area(3)))")
        // (The stand-in keyboard takes a signal between its sleeps: up to 50 ms later.)
        #expect(eventually(within: 5) { said() == signals }, "\(said())")
        helper.terminate()
        helper.waitUntilExit()
        #expect(d.stop() == 0)
    }

    @Test func aKeyboardActionNoClientTakes_isAWarning() throws {
        let recording = Root.path + "/examples/recordings/keyboard.events"
        let d = try DaemonUnderTest(
            ["--replay", recording, "--exit-after-replay", "--speed", "4"], config: try String(contentsOfFile: Self.example, encoding: .utf8))
        #expect(d.exit(within: 20) == 0)
        #expect(d.log.contains("action 'keyboard-show': keyboard show, but no client takes it (is touchgesturectl keyboard running?)"), "\(d.log)")
    }

    @Test func excludedRegions_areBounded_andShownInTheConfig() throws {
        let d = try DaemonUnderTest([], config: try String(contentsOfFile: Self.example, encoding: .utf8))
        let c = try TestClient(d.socket)
        _ = c.json()
        let big = c.call(#"{"op":"set_regions","id":1,"regions":[{"name":"k","rect":[0,0,1920,700],"exclude":true}]}"#)
        #expect(big?["code"] == .string("invalid_regions"), "over half the screen: \(String(describing: big))")
        let withGestures = c.call(#"{"op":"set_regions","id":2,"regions":[{"name":"k","rect":[0,780,1920,300],"exclude":true,"gestures":[{"kind":"tap"}]}]}"#)
        #expect(withGestures?["code"] == .string("invalid_regions"))
        // Said as the client wrote it (`gestures`, not the file's `gesture`).
        #expect(withGestures?["message"]?.string?.contains("it takes no gestures") == true, "\(String(describing: withGestures))")
        let ok = c.call(#"{"op":"set_regions","id":3,"regions":[{"name":"k","rect":[0,780,1920,300],"exclude":true}]}"#)
        #expect(ok?["type"] == .string("reply"))
        // A second client's area counts with the first's against the bound.
        let other = try TestClient(d.socket)
        _ = other.json()
        let more = other.call(#"{"op":"set_regions","id":1,"regions":[{"name":"k2","rect":[0,0,1920,300],"exclude":true}]}"#)
        #expect(more?["code"] == .string("invalid_regions"), "\(String(describing: more))")
        let config = c.call(#"{"op":"get_config","id":4}"#)
        #expect(config.map { "\($0)" }?.contains("exclude") == true)
        #expect(d.stop() == 0)
    }
}
