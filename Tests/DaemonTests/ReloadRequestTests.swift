import Foundation
import GestureProtocol
import GestureEngine
import TestSupport
import Testing
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// `reload`: what SIGHUP does, asked over the socket (touchgesturectl calibrate signals no pid a
/// server names), for root and the socket's group only; its answer says whether it took.
@Suite(.serialized, .waitsOnProcesses) struct ReloadRequestTests {
    static func code(_ v: JSONValue?) -> String? { if case .string(let s)? = v?["code"] { s } else { nil } }

    /// What `c` reads up to the reply (or error) to request `id`, that line included.
    static func lines(_ c: TestClient, upTo id: Double) -> [JSONValue] {
        var seen: [JSONValue] = []
        while let v = c.json(seconds: 5) {
            seen.append(v)
            if v["id"] == .number(id) { break }
        }
        return seen
    }

    @Test func aReload_isAnsweredWithTheFile_orWithWhyNot_andTheDaemonLivesOn() throws {
        let d = try DaemonUnderTest([], config: "[screen]\nwidth = 1280\nheight = 800\n")
        let c = try TestClient(d.socket)
        _ = c.json()
        let done = c.call(#"{"op":"reload","id":1}"#)
        #expect(done?["type"] == .string("reply") && done?["source"] == .string(d.configPath), "\(String(describing: done))")
        try "[screen]\nwidth = \"wide\"\n".write(toFile: d.configPath, atomically: true, encoding: .utf8)
        // One change a second: asked again at once, the reload waits its turn.
        let soon = c.call(#"{"op":"reload","id":9}"#)
        #expect(Self.code(soon) == "reload_refused" && soon?["message"]?.string?.contains("once a second at most") == true, "\(String(describing: soon))")
        usleep(1_050_000)
        let refused = c.call(#"{"op":"reload","id":2}"#)
        #expect(Self.code(refused) == "reload_refused", "\(String(describing: refused))")
        #expect(refused?["message"]?.string?.contains("touchgestured.toml:2:") == true, "\(String(describing: refused))")
        #expect(c.call(#"{"op":"get_config","id":3}"#)?["screen"]?["width"] == .number(1280), "the old configuration stays")
        #expect(d.stop() == 0)
    }

    @Test func aDaemonWithoutAFile_hasNothingToReload() throws {
        let d = try DaemonUnderTest([])
        let c = try TestClient(d.socket)
        _ = c.json()
        let r = c.call(#"{"op":"reload","id":1}"#)
        #expect(Self.code(r) == "reload_refused" && r?["message"]?.string?.contains("built-in configuration") == true, "\(String(describing: r))")
        #expect(d.stop() == 0)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to connect as a second user"))
    func aUserOutsideTheSocketsGroup_mayNotReload() throws {
        let d = try DaemonUnderTest([], config: "")
        chmod(d.dir, 0o755)
        chmod(d.socket, 0o666)
        let answer = try FairShareTests.requestAsNobody(d.socket, #"{"op":"reload","id":1}"#)
        #expect(answer.contains(#""code":"forbidden""#) && answer.contains("reloading the configuration needs the socket's group"), "\(answer)")
        #expect(d.stop() == 0)
        #expect(!d.log.contains("asks for a reload"))
    }

    /// A client's region chained to the file's sheet: a reload that takes the sheet away drops
    /// the client's regions with the reason, rather than letting the list pan alone unsaid.
    @Test func aReloadThatTakesAChainsTarget_dropsTheClientsRegions_withTheReason() throws {
        let sheet = """
            [[region]]
            name = "sheet"
            rect = [0, 280, 1920, 800]
            [[region.gesture]]
            kind = "pan"
            name = "drag"
            axis = "vertical"
            [region.drag.y]
            min = 0
            max = 600

            """
        let d = try DaemonUnderTest([], config: sheet)
        let c = try TestClient(d.socket)
        _ = c.json()
        let list = #"{"name":"page-list","rect":[0,360,1920,720],"gesture":[{"kind":"pan","name":"scroll","axis":"vertical"}],"drag":{"chain":"sheet","y":{"min":-2000,"max":0}}}"#
        let set = c.call(#"{"op":"set_regions","id":1,"regions":[\#(list)]}"#)
        #expect(set?["type"] == .string("reply"), "\(String(describing: set))")
        try "".write(toFile: d.configPath, atomically: true, encoding: .utf8)
        c.send(#"{"op":"reload","id":2}"#)
        let seen = Self.lines(c, upTo: 2)
        let dropped = seen.first { Self.code($0) == "regions_dropped" }
        #expect(dropped?["message"]?.string?.contains("chains to 'sheet', which is no region") == true, "\(seen)")
        #expect(seen.last?["type"] == .string("reply"), "the reload itself took")
        #expect(d.stop() == 0)
    }

    /// A reload asked by one client that drops another's regions (a name the file now takes):
    /// the notice goes to the owner alone, naming the region; the asker gets its reply alone.
    @Test func aClashAtAReload_isToldToTheOwnerAlone_notInTheAskersReply() throws {
        let d = try DaemonUnderTest([], config: "")
        let owner = try TestClient(d.socket), asker = try TestClient(d.socket)
        _ = owner.json()
        _ = asker.json()
        let foo = #"{"name":"foo","rect":[10,10,100,100],"gesture":[{"kind":"tap"}]}"#
        #expect(owner.call(#"{"op":"set_regions","id":1,"regions":[\#(foo)]}"#)?["type"] == .string("reply"))
        try "[[region]]\nname = \"foo\"\nrect = [500, 500, 100, 100]\n".write(toFile: d.configPath, atomically: true, encoding: .utf8)
        asker.send(#"{"op":"reload","id":2}"#)
        let seen = Self.lines(asker, upTo: 2)
        #expect(seen.count == 1 && seen.last?["type"] == .string("reply"), "the asker's lines: \(seen)")
        let told = owner.json(seconds: 5)
        #expect(Self.code(told) == "regions_dropped" && told?["message"]?.string?.contains("'foo'") == true, "\(String(describing: told))")
        #expect(d.stop() == 0)
    }

    /// A reload reads the clients' regions again as set_regions would take them now (a probe
    /// of reloads found each kept): an excluded half of a screen made smaller covered all of
    /// it, and every gesture stopped; set_regions = "none" left a client's regions in force; a
    /// rule naming a gesture the file no longer has went quiet.
    @Test(arguments: [
        (#"{"name":"kbd","rect":[0,0,1920,540],"exclude":true}"#, "[screen]\nwidth = 800\nheight = 480\n", "excluded regions may cover 50 % of the screen at most"),
        (#"{"name":"mine","rect":[0,0,100,100],"gesture":[{"kind":"tap"}]}"#, "[daemon]\nset_regions = \"none\"\n", "does not take regions from uid"),
        (
            #"{"name":"mine","rect":[0,0,100,100],"gesture":[{"kind":"tap","requires_failure_of":["held/hold"]}]}"#, "",
            "'held/hold'"
        ),
    ])
    func aReload_readsTheClientsRegionsAgain_andDropsWhatNoLongerFits(region: String, next: String, reason: String) throws {
        let held = "[[region]]\nname = \"held\"\nrect = [1000, 600, 200, 200]\n[[region.gesture]]\nkind = \"long_press\"\nname = \"hold\"\n"
        let d = try DaemonUnderTest([], config: held)
        let c = try TestClient(d.socket)
        _ = c.json()
        let set = c.call(#"{"op":"set_regions","id":1,"regions":[\#(region)]}"#)
        #expect(set?["type"] == .string("reply"), "\(String(describing: set))")
        try next.write(toFile: d.configPath, atomically: true, encoding: .utf8)
        c.send(#"{"op":"reload","id":2}"#)
        let seen = Self.lines(c, upTo: 2)
        let dropped = seen.first { Self.code($0) == "regions_dropped" }
        #expect(dropped?["message"]?.string?.contains("do not fit the reloaded configuration") == true, "\(seen)")
        #expect(dropped?["message"]?.string?.contains(reason) == true, "\(seen)")
        let config = c.call(#"{"op":"get_config","id":3}"#)
        #expect(!(config.map { "\($0)" } ?? "").contains("client #"), "no client region left: \(String(describing: config))")
        #expect(d.stop() == 0)
    }

    /// A reload that turns the panel applies from its next touch sequence: the pan under way
    /// ends as it began (not cancelled and begun again under the new mapping), and the next
    /// gesture's id and sequence go on from its (they restarted at 1).
    @Test func aReloadOfTheGeometry_waitsForTheSequenceUnderWay_andTheNumberingGoesOn() throws {
        let d = try DaemonUnderTest(
            ["--replay", Root.fixtures + "/bottom-sheet-chain.events", "--wait-for-clients", "1", "--speed", "0.5", "--exit-after-replay"],
            config: "")
        let c = try TestClient(d.socket)
        _ = c.json()
        var seen: [JSONValue] = []
        while let v = c.json(seconds: 5) {
            seen.append(v)
            if v["type"] == .string("gesture") && v["phase"] == .string("began") { break }
        }
        try "[device]\nrotation = 180\n".write(toFile: d.configPath, atomically: true, encoding: .utf8)
        c.send(#"{"op":"reload","id":2}"#)
        while let v = c.json(seconds: 5) { seen.append(v) }
        let gestures = seen.filter { $0["type"] == .string("gesture") }
        #expect(!gestures.contains { $0["phase"] == .string("cancelled") }, "\(gestures)")
        let ids = gestures.compactMap { v -> Double? in if case .number(let n)? = v["id"] { n } else { nil } }
        let sequences = gestures.compactMap { v -> Double? in if case .number(let n)? = v["sequence"] { n } else { nil } }
        #expect(ids == ids.sorted() && sequences == sequences.sorted(), "ids \(ids), sequences \(sequences)")
        #expect(Set(sequences).count == 2, "two strokes: \(sequences)")
        #expect(seen.contains { $0["id"] == .number(2) && $0["type"] == .string("reply") })
        _ = d.stop()
    }

    /// A contact that never lifts (a stuck one, no stuck filter set) held a reload's new
    /// geometry back for good: it applies 10 s (of the panel's clock) after the reload at the
    /// latest, the long press under way ending cancelled, and the next tap turned.
    @Test func aReloadOfTheGeometry_waitsTenSecondsAtMost_forATouchThatNeverLifts() throws {
        let dir = NSTemporaryDirectory() + "reload-stuck-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Frames by their time (ms), each its events in order (written in time order below).
        var frames: [Int64: [(UInt16, UInt16, Int32)]] = [:]
        func ev(_ ms: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) { frames[ms, default: []].append((type, code, value)) }
        func syn(_ ms: Int64) { ev(ms, Evdev.EV_SYN, Evdev.SYN_REPORT, 0) }
        func touch(_ ms: Int64, slot: Int32, id: Int32, at p: (Int32, Int32)?) {
            ev(ms, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot)
            if id != 0 { ev(ms, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, id) }
            if let p {
                ev(ms, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, p.0)
                ev(ms, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, p.1)
            }
        }
        // Held from 0.1 s to 20 s at (400, 300), wavering by a unit every 50 ms (a finger the new
        // engine must not take for a new landing); a tap beside it at 15 s, once the new geometry
        // applies (about 10.5 s); then a tap at (100, 100) of the panel.
        touch(100, slot: 0, id: 1, at: (400, 300))
        ev(100, Evdev.EV_KEY, Evdev.BTN_TOUCH, 1)
        syn(100)
        for t in stride(from: Int64(150), to: 20_000, by: 50) {
            touch(t, slot: 0, id: 0, at: (400 + Int32(t / 50 % 2), 300))
            syn(t)
        }
        touch(15_010, slot: 1, id: 3, at: (1000, 500))
        syn(15_010)
        touch(15_070, slot: 1, id: -1, at: nil)
        syn(15_070)
        for (t, id, down) in [(Int64(20_000), Int32(-1), Int32(0)), (20_500, 2, 1), (20_560, -1, 0)] {
            touch(t, slot: 0, id: id, at: id > 0 ? (100, 100) : nil)
            ev(t, Evdev.EV_KEY, Evdev.BTN_TOUCH, down)
            syn(t)
        }
        let events = frames.keys.sorted().flatMap { ms in
            frames[ms, default: []].map { InputEvent(time: Timestamp(nanoseconds: ms * 1_000_000), type: $0.0, code: $0.1, value: $0.2) }
        }
        let panel = DeviceDescription.multitouchPanel(name: "held panel", maxX: 1919, maxY: 1079, slots: 10, resolution: 0)
        let path = dir + "/held.events"
        try Evemu.format(Recording(description: panel, events: events)).write(toFile: path, atomically: true, encoding: .utf8)
        let config = "[[region]]\nname = \"s\"\nrect = [0, 0, 1920, 1080]\n[[region.gesture]]\nkind = \"long_press\"\n[[region.gesture]]\nkind = \"tap\"\n"
        let d = try DaemonUnderTest(["--replay", path, "--wait-for-clients", "1", "--speed", "10", "--exit-after-replay"], config: config)
        let c = try TestClient(d.socket)
        _ = c.json()
        var seen: [JSONValue] = []
        while let v = c.json(seconds: 5) {
            seen.append(v)
            if v["gesture"] == .string("long_press") && v["phase"] == .string("began") { break }
        }
        try (config + "[device]\nrotation = 180\n").write(toFile: d.configPath, atomically: true, encoding: .utf8)
        c.send(#"{"op":"reload","id":2}"#)
        while let v = c.json(seconds: 5) { seen.append(v) }
        let press = seen.filter { $0["gesture"] == .string("long_press") }.compactMap(\.["phase"]?.string).filter { $0 != "changed" }
        #expect(press == ["began", "cancelled"], "\(seen)")
        // The held finger is passed over until it lifts (no second long press, no tap at its
        // lift), and the tap beside it is a tap (a review found the whole panel silenced).
        let taps = seen.filter { $0["gesture"] == .string("tap") }.map { [$0["x"]?.number ?? 0, $0["y"]?.number ?? 0] }
        #expect(taps == [[920, 580], [1820, 980]], "turned: \(seen)")
        #expect(d.log.contains("apply now"), "\(d.log)")
        _ = d.stop()
    }

    /// A reload that changes [screen] tells each client (the hello gave the old one).
    @Test func aReloadOfTheScreen_isToldToTheClients() throws {
        let d = try DaemonUnderTest([], config: "")
        let c = try TestClient(d.socket)
        _ = c.json()
        try "[screen]\nwidth = 1280\nheight = 800\n".write(toFile: d.configPath, atomically: true, encoding: .utf8)
        c.send(#"{"op":"reload","id":2}"#)
        let seen = Self.lines(c, upTo: 2)
        let told = seen.first { $0["type"] == .string("screen") }
        #expect(told?["screen"]?["width"] == .number(1280) && told?["screen"]?["height"] == .number(800), "\(seen)")
        #expect(d.stop() == 0)
    }

    /// A client's rule naming another client's gesture, that other dropped by the same reload
    /// (its region off a smaller screen): read again, and dropped too (it went quiet).
    @Test func aRuleNamingARegionDroppedByTheSameReload_isDroppedToo() throws {
        let d = try DaemonUnderTest([], config: "")
        // `a` first in connection order: read before `b`, whose region it names, is dropped.
        let a = try TestClient(d.socket), b = try TestClient(d.socket)
        _ = a.json()
        _ = b.json()
        let far = #"{"name":"far","rect":[1500,900,100,100],"gesture":[{"kind":"tap","name":"x"}]}"#
        #expect(b.call(#"{"op":"set_regions","id":1,"regions":[\#(far)]}"#)?["type"] == .string("reply"))
        let mine = #"{"name":"mine","rect":[0,0,100,100],"gesture":[{"kind":"tap","requires_failure_of":["far/x"]}]}"#
        #expect(a.call(#"{"op":"set_regions","id":1,"regions":[\#(mine)]}"#)?["type"] == .string("reply"))
        try "[screen]\nwidth = 800\nheight = 480\n".write(toFile: d.configPath, atomically: true, encoding: .utf8)
        a.send(#"{"op":"reload","id":2}"#)
        let seen = Self.lines(a, upTo: 2)
        #expect(seen.contains { Self.code($0) == "regions_dropped" && $0["message"]?.string?.contains("far/x") == true }, "\(seen)")
        #expect(Self.code(b.json(seconds: 5)) == "regions_dropped")
        #expect(d.stop() == 0)
    }
}
