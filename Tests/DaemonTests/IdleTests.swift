import Foundation
import GestureEngine
import GestureProtocol
import Testing
import TestSupport
import TouchFrames

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// Touch to wake (`[idle] after`): idle once after the quiet time, the next touch wakes the
/// kiosk and is swallowed, the touch after it is a gesture again; the moments' actions run.
@Suite(.serialized, .waitsOnProcesses) struct IdleTests {
    /// A tap at each of `times` (s), after an empty first frame at 0.
    static func taps(at times: [Double], in dir: String) throws -> String { try recording([], taps: times, in: dir) }

    /// The tap fixture's panel with `events` ((s, type, code, value); the frames' SYN_REPORTs
    /// written in), then a tap at each of `taps` (s).
    static func recording(_ events: [(Double, UInt16, UInt16, Int32)], taps: [Double], in dir: String) throws -> String {
        let fixture = Root.fixtures + "/tap.events"
        let r = try Evemu.parse(try String(contentsOfFile: fixture, encoding: .utf8), file: fixture)
        let start = r.events.first?.time.nanoseconds ?? 0
        var list = [InputEvent(time: .zero, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0)]
        list += events.map { InputEvent(time: Timestamp(nanoseconds: Int64($0.0 * 1e9)), type: $0.1, code: $0.2, value: $0.3) }
        for t in taps {
            let shift = Int64(t * 1e9) - start
            list += r.events.map { InputEvent(time: Timestamp(nanoseconds: $0.time.nanoseconds + shift), type: $0.type, code: $0.code, value: $0.value) }
        }
        // In time order (a recording's events run forward), each time's events as given.
        list = list.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        let path = dir + "/made.events"
        try Evemu.format(Recording(description: r.description, events: list)).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A contact landing at `t` at (x, y).
    static func land(_ t: Double, _ x: Int32, _ y: Int32) -> [(Double, UInt16, UInt16, Int32)] {
        [(t, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0), (t, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 100), (t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, x),
         (t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, y), (t, Evdev.EV_KEY, Evdev.BTN_TOUCH, 1), (t, Evdev.EV_ABS, Evdev.ABS_X, x),
         (t, Evdev.EV_ABS, Evdev.ABS_Y, y), (t, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)]
    }
    static func moveX(_ t: Double, _ x: Int32) -> [(Double, UInt16, UInt16, Int32)] {
        [(t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, x), (t, Evdev.EV_ABS, Evdev.ABS_X, x), (t, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)]
    }
    static func lift(_ t: Double) -> [(Double, UInt16, UInt16, Int32)] {
        [(t, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1), (t, Evdev.EV_KEY, Evdev.BTN_TOUCH, 0), (t, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)]
    }

    /// A finger held still sends nothing while it rests: the kiosk is in use all the same, and
    /// the tap after its lift is a tap, not a wake.
    @Test func aFingerHeldStill_keepsTheKioskAwake() throws {
        let dir = scratch()
        let held = Self.land(0.2, 1000, 800) + Self.moveX(1.9, 1010) + Self.lift(2.0)
        let d = try DaemonUnderTest(["--replay", try Self.recording(held, taps: [2.3], in: dir), "--wait-for-clients", "1"], config: "[idle]\nafter = 0.6\n", dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()  // hello
        let seen = DisplayWakeTests.heard(c)
        #expect(!seen.contains("idle") && seen.last == "tap recognized", "\(seen)")
        #expect(d.stop() == 0)
    }

    /// A contact the panel holds down and never reports (a phantom, a hung controller) holds
    /// idle off, said once after ten idle times: going idle under it, the touch that woke the
    /// kiosk would be swallowed until every contact lifted, which that one never does. A tap
    /// beside it (another region) is a tap.
    @Test func aContactHeldDownSilently_holdsIdleOff_andTheKioskStaysUsable() throws {
        let dir = scratch()
        var phantom = Self.land(0.2, 100, 800)
        phantom = phantom.map { $0.2 == Evdev.ABS_MT_SLOT ? ($0.0, $0.1, $0.2, 1) : $0.2 == Evdev.ABS_MT_TRACKING_ID ? ($0.0, $0.1, $0.2, 200) : $0 }
        phantom += [(20, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 1)] + Self.moveX(20, 101)
        let config = """
            [idle]
            after = 0.5
            [[region]]
            name = "left"
            rect = [0, 0, 400, 1080]
            standard_gestures = true
            [[region]]
            name = "right"
            rect = [400, 0, 1520, 1080]
            standard_gestures = true
            """
        let d = try DaemonUnderTest(["--replay", try Self.recording(phantom, taps: [6.5], in: dir), "--wait-for-clients", "1"], config: config, dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()  // hello
        let seen = DisplayWakeTests.heard(c)
        #expect(!seen.contains("idle") && seen.last == "tap recognized", "\(seen)")
        #expect(d.stop() == 0)
        #expect(d.log.components(separatedBy: "the kiosk does not go idle under it").count == 2, "said once: \(d.log)")
    }

    /// A contact landing while the kiosk is idle and staying down, silent (a drop of water), wakes
    /// it and goes to no one; so does a tap within half a second of it (the waking hand's), but a
    /// tap after that is a tap: the kiosk is usable while the drop stays.
    @Test func aWakingContactThatStaysDown_keepsNoOneOut() throws {
        let dir = scratch()
        let drop = Self.land(1.0, 100, 800).map {
            $0.2 == Evdev.ABS_MT_SLOT ? ($0.0, $0.1, $0.2, 1) : $0.2 == Evdev.ABS_MT_TRACKING_ID ? ($0.0, $0.1, $0.2, 200) : $0
        }
        let d = try DaemonUnderTest(["--replay", try Self.recording(drop, taps: [1.2, 2.5], in: dir), "--wait-for-clients", "1"], config: "[idle]\nafter = 0.5\n", dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()  // hello
        var taps: [Double] = []
        while let v = c.json(seconds: 4) {
            if v["type"] == .string("gesture"), v["gesture"] == .string("tap"), let t = v["time"]?.number { taps.append(t) }
            if !taps.isEmpty { break }
        }
        #expect(taps.count == 1 && taps[0] > 2.4, "the tap at 1.2 s is the waking hand's, the one at 2.5 s a tap: \(taps)")
        #expect(d.stop() == 0)
        #expect(d.log.contains("wake: a touch"), "\(d.log)")
    }

    /// With the ghost filter: a second finger landing at the waking touch's last moment, still
    /// young when the first lifts, is the waking touch's when the filter shows it: no tap.
    @Test func aYoungWakingFinger_shownAfterTheWindow_isPassedOver() throws {
        let dir = scratch()
        typealias E = (Double, UInt16, UInt16, Int32)
        func slot(_ t: Double, _ s: Int32, _ id: Int32?, _ x: Int32, _ y: Int32) -> [E] {
            [(t, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, s)] + (id.map { [(t, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, $0)] } ?? [])
                + [(t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, x), (t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, y)]
        }
        let sync: (Double) -> [E] = { [($0, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)] }
        var events = slot(1.0, 0, 100, 100, 800) + [(1.0, Evdev.EV_KEY, Evdev.BTN_TOUCH, 1)] + sync(1.0)
        events += slot(1.53, 1, 101, 900, 500) + sync(1.53)
        events += [(1.55, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0), (1.55, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)] + sync(1.55)
        events += slot(1.6, 1, nil, 901, 500) + sync(1.6)
        events += [(1.65, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 1), (1.65, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1), (1.65, Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)] + sync(1.65)
        let config = "[idle]\nafter = 0.5\n[device.filters]\nghost_under = 0.04\n"
        let d = try DaemonUnderTest(["--replay", try Self.recording(events, taps: [], in: dir), "--wait-for-clients", "1"], config: config, dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()  // hello
        var gestures: [String] = []
        while let v = c.json(seconds: 2.5) {
            if v["type"] == .string("gesture") { gestures.append(v["gesture"]?.string ?? "") }
        }
        #expect(gestures.isEmpty, "\(gestures)")
        #expect(d.stop() == 0)
        #expect(d.log.contains("wake: a touch"), "\(d.log)")
    }

    /// A contact the stuck filter ended, flickering on, touches no one: the kiosk goes idle, and
    /// the panel's last touch is the stuck one's end.
    @Test func aStuckContactTheFiltersEnded_letsTheKioskGoIdle() throws {
        let dir = scratch()
        var stuck = Self.land(0.1, 1000, 800)
        for k in 1...60 { stuck += Self.moveX(0.1 + Double(k) * 0.05, 1000 + Int32(k % 2)) }
        let d = try DaemonUnderTest(
            ["--replay", try Self.recording(stuck, taps: [3.4, 3.8], in: dir), "--wait-for-clients", "1"],
            config: "[idle]\nafter = 0.6\n[device.filters]\nstuck_after = 1\n", dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()  // hello
        let seen = DisplayWakeTests.heard(c)
        #expect(seen.contains("idle") && seen.contains("wake") && seen.last == "tap recognized", "\(seen)")
        #expect(d.stop() == 0)
    }

    /// `[idle] after` turned off by a reload while the kiosk is idle wakes it: clients hear
    /// `wake`, with no device, and the wake action of the file before it runs (the new one, with
    /// no `[idle]`, may not hold one: the undim that goes with the dim that ran).
    @Test func idleTurnedOffWhileIdle_wakesTheKiosk() throws {
        let dir = scratch()
        let record = try DaemonActionTests.script(dir, "moment.sh", "echo \"$TOUCHGESTURED_EVENT\" >> \(dir)/moments.txt")
        let undim = "[[action]]\nname = \"undim\"\non = \"wake\"\nexec = [\"\(record)\"]\n"
        let d = try DaemonUnderTest([], config: "[idle]\nafter = 0.5\n" + undim, dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()  // hello
        #expect(c.next("idle") != nil)
        try "[[region]]\nname = \"page\"\nstandard_gestures = true\n".write(toFile: d.configPath, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        let wake = c.next("wake")
        #expect(wake != nil && wake?["device"] == nil, "\(String(describing: wake))")
        _ = eventually(within: 10) { ((try? String(contentsOfFile: dir + "/moments.txt", encoding: .utf8)) ?? "").contains("wake") }
        #expect(((try? String(contentsOfFile: dir + "/moments.txt", encoding: .utf8)) ?? "").contains("wake"))
        #expect(d.stop() == 0)
    }

    @Test func idleThenWake_theWakingTapIsSwallowed_theNextIsATap() throws {
        let dir = scratch()
        let record = try DaemonActionTests.script(dir, "moment.sh", "echo \"$TOUCHGESTURED_EVENT $TOUCHGESTURED_DEVICE\" >> \(dir)/moments.txt")
        let config = """
            [idle]
            after = 0.6
            [[action]]
            name = "dim"
            on = "idle"
            exec = ["\(record)"]
            [[action]]
            name = "undim"
            on = "wake"
            exec = ["\(record)"]
            """
        // Quiet for 1.2 s (idle at 0.6 s), a tap that wakes, a tap 0.3 s later (before the next idle).
        let recording = try Self.taps(at: [1.2, 1.5], in: dir)
        let d = try DaemonUnderTest(["--replay", recording, "--wait-for-clients", "1"], config: config, dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()  // hello
        let seen = DisplayWakeTests.heard(c, withDevice: true)
        #expect(seen == ["idle", "wake 1", "tap recognized"], "the first tap woke the kiosk and went to no one")
        let stats = try #require(c.call(#"{"op":"stats","id":1}"#))
        // (It may be idle again by now: only the wake is certain to be one.)
        #expect((stats["idles"]?.number ?? 0) >= 1 && stats["wakes"] == .number(1) && stats["asleep"] != nil)
        #expect(d.stop() == 0)
        let moments = (try? String(contentsOfFile: dir + "/moments.txt", encoding: .utf8)) ?? ""
        #expect(moments.contains("idle ") && moments.contains("wake 1"), "\(moments)")
        #expect(d.log.contains("idle: no touch for 0.6 s") && d.log.contains("wake: a touch on device 1"))
    }
}
