import Foundation
import GestureEngine
import GestureProtocol
import Testing
import TouchFrames

@testable import Daemon

/// `[idle] display`: a touch landing while the displays are dark (as sysfs says, here a test's
/// tree named by `[idle] sysfs`) wakes the kiosk whoever darkened them, with no `[idle] after`.
@Suite(.serialized, .waitsOnProcesses) struct DisplayWakeTests {
    /// A sysfs tree with one HDMI connector (connected, `dpms` as given) and, optionally, a
    /// backlight.
    static func sysfs(in dir: String, dpms: String, backlight: (power: String, brightness: String)? = nil) throws -> String {
        let root = dir + "/sys"
        let connector = root + "/class/drm/card0-HDMI-A-1"
        try FileManager.default.createDirectory(atPath: connector, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/class/drm/card0", withIntermediateDirectories: true)
        try "connected\n".write(toFile: connector + "/status", atomically: true, encoding: .utf8)
        try "enabled\n".write(toFile: connector + "/enabled", atomically: true, encoding: .utf8)
        try (dpms + "\n").write(toFile: connector + "/dpms", atomically: true, encoding: .utf8)
        if let backlight {
            let b = root + "/class/backlight/panel"
            try FileManager.default.createDirectory(atPath: b, withIntermediateDirectories: true)
            try (backlight.power + "\n").write(toFile: b + "/bl_power", atomically: true, encoding: .utf8)
            try (backlight.brightness + "\n").write(toFile: b + "/brightness", atomically: true, encoding: .utf8)
        }
        return root
    }

    /// Darkens (or lights) the tree's display: the connector's `dpms`, the backlight's state.
    static func set(_ root: String, dpms: String? = nil, backlight: (power: String, brightness: String)? = nil) throws {
        if let dpms { try (dpms + "\n").write(toFile: root + "/class/drm/card0-HDMI-A-1/dpms", atomically: true, encoding: .utf8) }
        if let backlight {
            try (backlight.power + "\n").write(toFile: root + "/class/backlight/panel/bl_power", atomically: true, encoding: .utf8)
            try (backlight.brightness + "\n").write(toFile: root + "/class/backlight/panel/brightness", atomically: true, encoding: .utf8)
        }
    }

    /// What a new client of `d` hears until the first tap (or the replay's end).
    static func heard(_ d: DaemonUnderTest) throws -> [String] {
        let c = try TestClient(d.socket)
        _ = c.json()  // hello
        return heard(c)
    }

    /// What `c` hears until the first tap (or the replay's end): idle, wake (with the device
    /// touched, `withDevice`) and gestures.
    static func heard(_ c: TestClient, withDevice: Bool = false) -> [String] {
        var seen: [String] = []
        while seen.filter({ $0.hasPrefix("tap") }).isEmpty, let v = c.json(seconds: 10) {
            switch v["type"] {
            case .string("idle"): seen.append("idle")
            case .string("wake"): seen.append(withDevice ? "wake \(v["device"]?.number.map { Int($0) } ?? -1)" : "wake")
            case .string("gesture"): seen.append("\(v["gesture"]?.string ?? "") \(v["phase"]?.string ?? "")")
            default: break
            }
        }
        return seen
    }

    @Test func aTapOnADarkDisplay_wakes_itsWakeActionLightsIt_andTheNextTapIsATap() throws {
        let dir = scratch()
        // Lit when the daemon starts; darkened (by whatever: swayidle, a timer) before the tap.
        let root = try Self.sysfs(in: dir, dpms: "On")
        let light = try DaemonActionTests.script(dir, "light.sh", "echo On > \(root)/class/drm/card0-HDMI-A-1/dpms")
        let config = """
            [idle]
            sysfs = "\(root)"
            [[action]]
            name = "light"
            on = "wake"
            exec = ["\(light)"]
            """
        // The first tap after a pause (2.5 s after the recording's first, empty, frame), the
        // second 1 s after it.
        let recording = try IdleTests.taps(at: [2.5, 3.5], in: dir)
        let d = try DaemonUnderTest(["--replay", recording, "--wait-for-clients", "1"], config: config, dir: dir)
        try Self.set(root, dpms: "Off")
        #expect(try Self.heard(d) == ["wake", "tap recognized"], "the tap on the dark display woke it and went to no one")
        #expect(d.stop() == 0)
        #expect(d.log.contains("wake: a touch on device 1 (") && d.log.contains(") on a dark display"))
        #expect((try? String(contentsOfFile: root + "/class/drm/card0-HDMI-A-1/dpms", encoding: .utf8)) == "On\n")
    }

    @Test func aTapOnALitDisplay_isATap() throws {
        let dir = scratch()
        let root = try Self.sysfs(in: dir, dpms: "On", backlight: ("0", "120"))
        let recording = try IdleTests.taps(at: [0.5], in: dir)
        let d = try DaemonUnderTest(["--replay", recording, "--wait-for-clients", "1"], config: "[idle]\nsysfs = \"\(root)\"\n", dir: dir)
        #expect(try Self.heard(d) == ["tap recognized"])
        _ = d.stop()
    }

    @Test(arguments: [("4", "120"), ("0", "0")])
    func aBacklightOff_isADarkDisplay(power: String, brightness: String) throws {
        let dir = scratch()
        let root = try Self.sysfs(in: dir, dpms: "On", backlight: ("0", "120"))
        // Taps 2.5 s apart, the first 2.5 s after the recording's first (empty) frame: each the
        // first touch after a pause (`DisplayWatch.quietNanoseconds`).
        let recording = try IdleTests.taps(at: [2.5, 5.0], in: dir)
        let d = try DaemonUnderTest(["--replay", recording, "--wait-for-clients", "1"], config: "[idle]\nsysfs = \"\(root)\"\n", dir: dir)
        try Self.set(root, backlight: (power, brightness))
        // Nothing lights it: both taps wake (each is swallowed), and no tap is heard.
        let c = try TestClient(d.socket)
        _ = c.json()
        var seen: [String] = []
        while let v = c.json(seconds: 3) {
            if v["type"] == .string("wake") { seen.append("wake") }
            if v["type"] == .string("gesture") { seen.append(v["gesture"]?.string ?? "") }
        }
        #expect(seen == ["wake", "wake"])
        _ = d.stop()
    }

    @Test func aTouchSoonAfterAnother_isNotChecked() throws {
        // Dark, and nothing lights it: the first tap after the pause wakes; one 0.5 s after it is
        // part of the same interaction and is a tap (no idle tool darkens a display that fast).
        let dir = scratch()
        let root = try Self.sysfs(in: dir, dpms: "On")
        let recording = try IdleTests.taps(at: [2.5, 3.0], in: dir)
        let d = try DaemonUnderTest(["--replay", recording, "--wait-for-clients", "1"], config: "[idle]\nsysfs = \"\(root)\"\n", dir: dir)
        try Self.set(root, dpms: "Off")
        #expect(try Self.heard(d) == ["wake", "tap recognized"])
        _ = d.stop()
    }

    @Test func displayFalse_turnsItOff() throws {
        let dir = scratch()
        let root = try Self.sysfs(in: dir, dpms: "On")
        let recording = try IdleTests.taps(at: [0.5], in: dir)
        let d = try DaemonUnderTest(
            ["--replay", recording, "--wait-for-clients", "1"], config: "[idle]\ndisplay = false\nsysfs = \"\(root)\"\n", dir: dir)
        try Self.set(root, dpms: "Off")
        #expect(try Self.heard(d) == ["tap recognized"])
        _ = d.stop()
    }

    @Test func aDisplayNeverSeenLit_isNotTakenForDark() throws {
        // A connector nothing drove yet (no compositor, a headless machine) reads Off from the
        // start: taking it for dark would swallow the first touch of every stroke.
        let dir = scratch()
        let root = try Self.sysfs(in: dir, dpms: "Off")
        let recording = try IdleTests.taps(at: [0.5, 1.0], in: dir)
        let d = try DaemonUnderTest(["--replay", recording, "--wait-for-clients", "1"], config: "[idle]\nsysfs = \"\(root)\"\n", dir: dir)
        #expect(try Self.heard(d) == ["tap recognized"])
        _ = d.stop()
    }

    /// A tree of many connectors costs a touch 16 reads of each kind, not thousands; a DRM
    /// hotplug lists them again.
    @Test func manyConnectors_areReadSixteenAtMost_andListedAgainOnAHotplug() throws {
        let root = try Self.sysfs(in: scratch(), dpms: "On")
        for i in 0..<40 {
            let c = root + "/class/drm/card1-DP-\(i)"
            try FileManager.default.createDirectory(atPath: c, withIntermediateDirectories: true)
            try "disconnected\n".write(toFile: c + "/status", atomically: true, encoding: .utf8)
        }
        var watch = DisplayWatch(root: root)
        #expect(watch.connectors.count == DisplayWatch.most && watch.passedOver == 41 - DisplayWatch.most)
        let lit = watch.isDark()
        #expect(watch.connectors.first?.hasSuffix("card0-HDMI-A-1") == true && !lit)
        try Self.set(root, dpms: "Off")
        let dark = watch.isDark()
        #expect(dark)
        for i in 0..<40 { try FileManager.default.removeItem(atPath: root + "/class/drm/card1-DP-\(i)") }
        watch.list()
        #expect(watch.connectors.count == 1 && watch.passedOver == 0)
    }
}

/// The displays' notes at start are not said again at each reload (every SIGHUP repeated "no
/// display state"), and are said when what they say changes.
@Suite(.serialized, .waitsOnProcesses) struct DisplayNoteTests {
    @Test func aReload_saysTheDisplaysNoteOnlyWhenItChanges() throws {
        let dir = scratch()
        let empty = dir + "/no-sysfs"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let config = "[idle]\nsysfs = \"\(empty)\"\n"
        let d = try DaemonUnderTest([], config: config, dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()
        let note = "display: no display state"
        let count = { (try? String(contentsOfFile: d.logPath, encoding: .utf8))?.components(separatedBy: note).count ?? 0 }
        #expect(c.call(#"{"op":"reload","id":1}"#)?["type"] == .string("reply"))
        #expect(count() == 2, "said once")
        // Another tree: said again, as it names it.
        let other = dir + "/other-sysfs"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try "[idle]\nsysfs = \"\(other)\"\n".write(toFile: d.configPath, atomically: true, encoding: .utf8)
        usleep(1_050_000)  // a reload a second at most
        #expect(c.call(#"{"op":"reload","id":2}"#)?["type"] == .string("reply"))
        #expect(count() == 3)
        #expect(d.stop() == 0)
    }
}
