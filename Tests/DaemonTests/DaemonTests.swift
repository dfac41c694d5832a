import CLinux
import Foundation
import GestureConfig
import GestureEngine
import GestureProtocol
import Pipeline
import Testing
import TestSupport
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// A recording that starts with `idle` seconds of nothing (one empty frame, then the fixture's
/// events), so a test can subscribe or set regions before the first touch.
func delayed(_ fixture: String, by idle: Double, in dir: String) throws -> String {
    let r = try Evemu.parse(try String(contentsOfFile: fixture, encoding: .utf8), file: fixture)
    let shift = Int64(idle * 1e9)
    var events = [InputEvent(time: .zero, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0)]
    events += r.events.map { InputEvent(time: Timestamp(nanoseconds: $0.time.nanoseconds + shift), type: $0.type, code: $0.code, value: $0.value) }
    let path = dir + "/" + (fixture as NSString).lastPathComponent
    try Evemu.format(Recording(description: r.description, events: events)).write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

func offlineLines(_ path: String, config: Configuration = .standard) throws -> [String] {
    let r = try Evemu.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
    return try DevicePipeline.lines(r, description: r.description!, configuration: config).split(separator: "\n").map(String.init)
}

@Suite(.serialized, .waitsOnProcesses) struct DaemonProtocolTests {
    @Test func hello_thenGestureLines_equalTouchgesturectlReplay() throws {
        let d = try DaemonUnderTest(["--replay", Root.tour, "--wait-for-clients", "1", "--exit-after-replay", "--speed", "8"])
        let c = try TestClient(d.socket)
        let hello = try #require(c.json())
        #expect(hello["type"] == .string("hello") && hello["protocol"] == .number(1))
        #expect(hello["screen"]?["width"] == .number(1920))
        var gestures: [String] = []
        var sawDevice = false
        while let l = c.line(seconds: 15) {
            if l.contains(#""type":"gesture""#) { gestures.append(l) }
            if l.contains(#""type":"device""#) && l.contains(#""action":"added""#) { sawDevice = true }
        }
        #expect(sawDevice)
        #expect(gestures == (try offlineLines(Root.tour)))
        #expect(d.stop() == 0)
    }

    @Test func subscribeFilters_kindsTouchesDevices() throws {
        let d = try DaemonUnderTest(["--replay", Root.tour, "--wait-for-clients", "3", "--exit-after-replay", "--speed", "8"])
        let swipes = try TestClient(d.socket)
        let touches = try TestClient(d.socket)
        let nobody = try TestClient(d.socket)
        #expect(swipes.call(#"{"op":"subscribe","id":1,"gestures":["swipe","tap"]}"#)?["ok"] == .bool(true))
        #expect(touches.call(#"{"op":"subscribe","id":"t","gestures":false,"touches":true}"#)?["id"] == .string("t"))
        #expect(nobody.call(#"{"op":"subscribe","id":3,"devices":[99]}"#)?["ok"] == .bool(true))
        func drain(_ c: TestClient) -> [JSONValue] {
            var out: [JSONValue] = []
            while let l = c.line(seconds: 15) { if let v = try? parseJSON(Array(l.utf8)) { out.append(v) } }
            return out
        }
        let a = drain(swipes), b = drain(touches), n = drain(nobody)
        let kinds = Set(a.filter { $0["type"] == .string("gesture") }.compactMap { $0["gesture"]?.string })
        #expect(kinds == ["swipe", "tap"])
        #expect(!b.contains { $0["type"] == .string("gesture") })
        #expect(b.filter { $0["type"] == .string("touch") }.count > 100)
        #expect(b.first { $0["type"] == .string("touch") }?["contacts"] != nil)
        #expect(!n.contains { $0["type"] == .string("gesture") || $0["type"] == .string("touch") })
    }

    /// With no client taking gesture lines the daemon counts gestures but does not format them;
    /// a client that subscribes later gets whole lines from then on.
    @Test func gestureLines_noSubscriberThenOne_linesFlowOnceSomeoneListens() throws {
        let d = try DaemonUnderTest(["--replay", Root.tour, "--loop", "--speed", "8"])
        let touches = try TestClient(d.socket)
        #expect(touches.call(#"{"op":"subscribe","id":1,"gestures":false,"touches":true}"#)?["ok"] == .bool(true))
        #expect(touches.stat("gesture_lines", reaches: 1, within: 10) > 0, "gestures are counted with no gesture subscriber")
        let listener = try TestClient(d.socket)
        let gesture = try #require(listener.next("gesture", seconds: 15))
        #expect(gesture["phase"] != nil && gesture["id"] != nil)
        #expect(d.stop() == 0)
    }

    @Test func clientRegions_setHitAndRemovedOnDisconnect() throws {
        let dir = scratch()
        let tap = try delayed(Root.fixtures + "/tap.events", by: 0.5, in: dir)
        let d = try DaemonUnderTest(["--replay", tap, "--wait-for-clients", "1"], dir: dir)
        let owner = try TestClient(d.socket)
        // `gestures`: the spelling of the JavaScript module and the Python client (`gesture`, the
        // file's, is taken too; both at once are refused).
        let both = owner.call(#"{"op":"set_regions","id":6,"regions":[{"name":"button","gesture":[{"kind":"tap"}],"gestures":[{"kind":"tap"}]}]}"#)
        #expect(both?["code"] == .string("invalid_regions") && both?["message"]?.string?.contains("not both") == true)
        let reply = owner.call(#"{"op":"set_regions","id":7,"regions":[{"name":"button","rect":[900,500,120,80],"gestures":[{"kind":"tap","name":"press"}]}]}"#)
        #expect(reply?["ok"] == .bool(true), "\(String(describing: reply))")
        #expect(reply?["regions"] == .array([.string("button")]))
        let line = try #require(owner.next("gesture"))
        #expect(line["region"] == .string("button"))
        #expect(line["name"] == .string("press"))
        // Another client sees the region in get_config, owned by the first; gone when it leaves.
        let other = try TestClient(d.socket)
        let config = try #require(other.call(#"{"op":"get_config","id":1}"#))
        guard case .array(let regions)? = config["regions"] else { throw HarnessError("no regions") }
        #expect(regions.contains { $0["name"] == .string("button") && $0["owner"]?.string?.hasPrefix("client #") == true })
        #expect(regions.contains { $0["name"] == .string("button") && $0["parent"] == .string("screen") })
        #expect(config["shapes"] == .array([.string("circle")]), "the built-in shape")
        // Strokes: of the configuration's shapes, 16 in all clients' regions at most.
        func strokes(_ n: Int, shape: String) -> String {
            let list = (0..<n).map { #"{"kind":"stroke","name":"s\#($0)","shapes":["\#(shape)"]}"# }.joined(separator: ",")
            return #"{"op":"set_regions","id":9,"regions":[{"name":"pad","rect":[0,0,100,100],"gestures":[\#(list)]}]}"#
        }
        let unknown = other.call(strokes(1, shape: "z"))
        #expect(unknown?["code"] == .string("invalid_regions") && unknown?["message"]?.string?.contains("no shape 'z'") == true, "\(String(describing: unknown))")
        let many = other.call(strokes(17, shape: "circle"))
        #expect(many?["message"]?.string?.contains("16 strokes at most") == true, "\(String(describing: many))")
        #expect(other.call(strokes(16, shape: "circle"))?["ok"] == .bool(true))
        #expect(other.call(#"{"op":"clear_regions","id":10}"#)?["ok"] == .bool(true))
        owner.hangUp()
        var gone = false
        for _ in 0..<50 where !gone {
            if case .array(let r)? = other.call(#"{"op":"get_config","id":2}"#)?["regions"] {
                gone = !r.contains { $0["name"] == .string("button") }
            }
        }
        #expect(gone)
        // A name clash with a region already there is refused.
        let clash = other.call(#"{"op":"set_regions","id":3,"regions":[{"name":"screen","gesture":[{"kind":"tap"}]}]}"#)
        #expect(clash?["code"] == .string("invalid_regions"))
        #expect(clash?["message"]?.string?.contains("region 'screen' is defined twice") == true)
    }

    @Test func clientRegions_sideBySide_recognizeIndependently() throws {
        // Two buttons of a client, each with a tap that waits for its double tap: "select, then
        // confirm" 100 ms apart gives both taps (one sequence each), not a lost first tap.
        let dir = scratch()
        let taps = try delayed(Root.fixtures + "/select-then-confirm.events", by: 0.5, in: dir)
        let d = try DaemonUnderTest(["--replay", taps, "--wait-for-clients", "1"], dir: dir)
        let c = try TestClient(d.socket)
        let button = { (name: String, x: Int) in
            #"{"name":"\#(name)","rect":[\#(x),300,400,400],"gesture":[{"kind":"tap","name":"twice","count":2},{"kind":"tap","requires_failure_of":["twice"]}]}"#
        }
        let reply = c.call(#"{"op":"set_regions","id":1,"regions":["# + button("select", 200) + "," + button("confirm", 1300) + "]}")
        #expect(reply?["ok"] == .bool(true), "\(String(describing: reply))")
        let first = try #require(c.next("gesture"))
        let second = try #require(c.next("gesture"))
        #expect([first, second].map { $0["region"] } == [.string("select"), .string("confirm")])
        #expect([first, second].allSatisfy { $0["gesture"] == .string("tap") && $0["name"] == nil })
        #expect(first["sequence"] != second["sequence"])
    }

    @Test func clientRegions_canBeForbiddenByConfig() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nset_regions = \"none\"\n")
        let c = try TestClient(d.socket)
        _ = c.json()
        let r = c.call(#"{"op":"set_regions","id":1,"regions":[{"name":"b","gesture":[{"kind":"tap"}]}]}"#)
        #expect(r?["code"] == .string("forbidden"))
        #expect(c.call(#"{"op":"ping","id":2}"#)?["ok"] == .bool(true))
    }

    static let badInput: [(String, [UInt8], String)] = [
        ("malformed JSON", Array(#"{"op":"ping""#.utf8), "parse_error"),
        ("not an object", Array("[1,2,3]".utf8), "not_an_object"),
        ("a bare string", Array(#""ping""#.utf8), "not_an_object"),
        ("no op", Array(#"{"id":1}"#.utf8), "missing_op"),
        ("unknown op", Array(#"{"op":"reboot"}"#.utf8), "unknown_op"),
        ("op of the wrong type", Array(#"{"op":5}"#.utf8), "invalid_field"),
        ("id of the wrong type", Array(#"{"op":"ping","id":{"a":1}}"#.utf8), "invalid_field"),
        ("touches of the wrong type", Array(#"{"op":"subscribe","touches":"yes"}"#.utf8), "invalid_field"),
        ("unknown field", Array(#"{"op":"ping","colour":1}"#.utf8), "invalid_field"),
        ("a huge number", Array(#"{"op":"subscribe","devices":[1e999]}"#.utf8), "parse_error"),
        ("a negative device", Array(#"{"op":"subscribe","devices":[-1]}"#.utf8), "invalid_field"),
        ("invalid UTF-8", [0x7B, 0x22, 0x6F, 0x70, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D], "invalid_utf8"),
        ("nested too deeply", Array((String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).utf8), "parse_error"),
        ("regions not an array", Array(#"{"op":"set_regions","regions":{}}"#.utf8), "invalid_field"),
        ("an empty region", Array(#"{"op":"set_regions","regions":[{"name":"e","rect":[0,0,0,0]}]}"#.utf8), "invalid_regions"),
        ("a negative region", Array(#"{"op":"set_regions","regions":[{"name":"n","rect":[0,0,-5,10]}]}"#.utf8), "invalid_regions"),
        ("a region with null", Array(#"{"op":"set_regions","regions":[{"name":null}]}"#.utf8), "invalid_regions"),
        ("a region without a name", Array(#"{"op":"set_regions","regions":[{"rect":[0,0,5,5]}]}"#.utf8), "invalid_regions"),
        ("an unknown gesture kind", Array(#"{"op":"set_regions","regions":[{"name":"k","gesture":[{"kind":"wiggle"}]}]}"#.utf8), "invalid_regions"),
        ("a rule naming nothing", Array(#"{"op":"set_regions","regions":[{"name":"r","gesture":[{"kind":"tap","requires_failure_of":["x"]}]}]}"#.utf8), "invalid_regions"),
        ("two regions of one name", Array(#"{"op":"set_regions","regions":[{"name":"twin"},{"name":"twin"}]}"#.utf8), "invalid_regions"),
    ]

    @Test func badInput_getsAnErrorLine_andTheConnectionLivesOn() throws {
        let d = try DaemonUnderTest([])
        let c = try TestClient(d.socket)
        _ = c.json()
        for (i, (what, bytes, code)) in Self.badInput.enumerated() {
            c.sendBytes(bytes + [0x0A])
            let e = c.json()
            #expect(e?["type"] == .string("error"), "\(what): \(String(describing: e))")
            #expect(e?["code"] == .string(code), "\(what): \(String(describing: e))")
            #expect(e?["message"]?.string?.isEmpty == false)
            let pong = c.call(#"{"op":"ping","id":\#(i)}"#)
            #expect(pong?["ok"] == .bool(true) && pong?["id"] == .number(Double(i)), "ping after \(what)")
        }
        #expect(d.process.isRunning)
    }

    @Test func tooLongALine_getsAnError_andTheConnectionIsClosed_theDaemonLivesOn() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nmax_line_bytes = 1024\n")
        let c = try TestClient(d.socket)
        _ = c.json()
        c.sendBytes([UInt8](repeating: UInt8(ascii: "x"), count: 5000))
        let e = c.json()
        #expect(e?["code"] == .string("line_too_long"))
        #expect(c.isClosed())
        let next = try TestClient(d.socket)
        _ = next.json()
        #expect(next.call(#"{"op":"ping","id":1}"#)?["ok"] == .bool(true))
    }

    /// `max_line_bytes` counts the newline: a line of exactly that many bytes is answered, one
    /// byte more is refused.
    @Test func aLineOfMaxLineBytes_newlineIncluded_isTheLongestTaken() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nmax_line_bytes = 1024\n")
        let ping = Array(#"{"op":"ping","id":1}"#.utf8)
        let c = try TestClient(d.socket)
        _ = c.json()
        c.sendBytes(ping + [UInt8](repeating: UInt8(ascii: " "), count: 1023 - ping.count) + [0x0A])
        #expect(c.json()?["ok"] == .bool(true))
        c.sendBytes(ping + [UInt8](repeating: UInt8(ascii: " "), count: 1024 - ping.count) + [0x0A])
        #expect(c.json()?["code"] == .string("line_too_long"))
        #expect(d.stop() == 0)
    }

    @Test func clientLimit_turnsExtraClientsAway() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nmax_clients = 2\n")
        let a = try TestClient(d.socket), b = try TestClient(d.socket)
        _ = a.json()
        _ = b.json()
        let c = try TestClient(d.socket)
        #expect(c.json()?["code"] == .string("too_many_clients"))
        #expect(c.isClosed())
        #expect(a.call(#"{"op":"stats","id":1}"#)?["clients_refused"] == .number(1))
    }

    @Test func stalledClient_isDropped_whileTenReadersGetEveryLine() throws {
        let d = try DaemonUnderTest(
            ["--replay", Root.tour, "--loop", "--speed", "20", "--wait-for-clients", "11"],
            config: "[daemon]\noutput_buffer_bytes = 8192\n")
        let staller = try TestClient(d.socket)
        staller.send(#"{"op":"subscribe","touches":true}"#)
        let rssAtStart = d.rssKB()
        var readers: [TestClient] = []
        for _ in 0..<10 { readers.append(try TestClient(d.socket)) }
        // The readers read side by side until each has 150 gesture lines (about four passes).
        var seen = [[String]](repeating: [], count: readers.count)
        let end = Date().addingTimeInterval(30)
        while seen.contains(where: { $0.count < 150 }) && Date() < end {
            var fds = readers.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            for (i, r) in readers.enumerated() {
                r.pump()
                seen[i] += r.takeLines().filter { $0.contains(#""type":"gesture""#) }
            }
        }
        seen = seen.map { Array($0.prefix(150)) }
        #expect(seen.allSatisfy { $0.count == 150 })
        #expect(seen.allSatisfy { $0 == seen[0] })
        let probe = try TestClient(d.socket)
        #expect(probe.stat("clients_dropped_slow", reaches: 1, within: 10) == 1)
        #expect(d.rssKB() - rssAtStart < 8_000, "RSS grew from \(rssAtStart) to \(d.rssKB()) kB")
        _ = d.stop()
        #expect(d.log.contains("stopped reading"))
    }

    @Test func hundredClients_connectSubscribeLeave_noFileDescriptorLeaks() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nmax_clients = 128\n")
        let settle = try TestClient(d.socket)
        _ = settle.call(#"{"op":"ping","id":0}"#)
        let before = d.openFDs()
        for _ in 0..<3 {
            var clients: [TestClient] = []
            for _ in 0..<100 {
                let c = try TestClient(d.socket)
                c.send(#"{"op":"subscribe","touches":true}"#)
                clients.append(c)
            }
            for c in clients { _ = c.next("reply") }
            clients.removeAll()
        }
        var after = -1
        eventually(within: 2.5) {
            after = d.openFDs()
            return after == before
        }
        #expect(after == before, "fds before \(before), after \(after): \(d.fdList())")
    }
}
