import Foundation
import GestureEngine
import GestureProtocol
import Testing
import TouchFrames

/// `touchgesturectl calibrate` against the real daemon, as an installer runs it: four corner
/// touches on a skewed panel (a replayed recording), the drop-in written, the daemon reloaded,
/// and the corners then landing on the corners.
@Suite(.serialized, .waitsOnProcesses) struct CalibrateTests {
    /// Where the skewed panel reports a finger on the screen's normalized (p, q).
    static func skewed(_ p: Double, _ q: Double) -> (Int32, Int32) {
        (Int32((0.9 * p + 0.02 * q + 0.04) * 3840), Int32((-0.01 * p + 0.92 * q + 0.05) * 2160))
    }

    /// The calibrator's order: top left, top right, bottom left, bottom right.
    static let corners: [(Double, Double)] = [(0, 0), (1, 0), (0, 1), (1, 1)]

    /// One finger resting on each of `places` in turn (wavering by a unit), 0.7 s apart.
    static func recording(_ places: [(Double, Double)], in dir: String, name: String, frames: Int = 12) throws -> String {
        var events: [InputEvent] = []
        var t: Int64 = 100_000
        func ev(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: Timestamp(nanoseconds: t * 1_000), type: type, code: code, value: value))
        }
        for (i, (p, q)) in places.enumerated() {
            let (x, y) = skewed(p, q)
            ev(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0)
            ev(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, Int32(10 + i))
            ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, x)
            ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, y)
            ev(Evdev.EV_KEY, Evdev.BTN_TOUCH, 1)
            ev(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
            for k in 0..<frames {
                t += 20_000
                ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, x + Int32(k % 2))
                ev(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
            }
            t += 20_000
            ev(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
            ev(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)
            ev(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
            t += 700_000
        }
        let panel = DeviceDescription.multitouchPanel(name: "skewed panel", maxX: 3839, maxY: 2159, slots: 10, resolution: 15)
        let path = dir + "/" + name
        try Evemu.format(Recording(description: panel, events: events)).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The taps a replay of `recording` with `config` reports (x, y).
    static func taps(_ recording: String, config: String) throws -> [(Double, Double)] {
        let (status, out) = try runProgram(Root.ctl, ["replay", "--config", config, recording])
        #expect(status == 0, "\(out)")
        return out.split(separator: "\n").compactMap { line in
            guard let v = try? parseJSON(Array(line.utf8)), v["gesture"] == .string("tap"),
                case .number(let x)? = v["x"], case .number(let y)? = v["y"]
            else { return nil }
            return (x, y)
        }
    }

    @Test func fourCornerTouches_writeADropIn_theDaemonReloads_andTheCornersLandOnTheCorners() throws {
        let dir = scratch()
        let touches = try Self.recording(Self.corners, in: dir, name: "corners.events")
        let d = try DaemonUnderTest(["--replay", touches, "--wait-for-clients", "1"], config: "[screen]\nwidth = 1920\nheight = 1080\n", dir: dir)
        // The drop-in goes beside --config (never where the server says), then a reload request.
        let (status, out) = try runProgram(Root.ctl, ["calibrate", "--socket", d.socket, "--config", d.configPath, "--timeout", "20"])
        #expect(status == 0, "\(out)")
        #expect(out.contains("Applied: the daemon reloaded \(d.configPath)."), "\(out)")
        let dropIn = try String(contentsOfFile: dir + "/touchgestured.d/calibration.toml", encoding: .utf8)
        // The panel has no vendor and product: matched by its name.
        #expect(dropIn.contains("match = \"skewed panel\""), "\(dropIn)")
        #expect(d.stop() == 0)
        #expect(d.log.contains("reloaded"))
        // The same panel's corners and middle, tapped: on the corners' pixels, within 1 px.
        let check = try Self.recording(Self.corners + [(0.5, 0.5)], in: dir, name: "check.events", frames: 1)
        let taps = try Self.taps(check, config: d.configPath)
        let expected: [(Double, Double)] = [(0, 0), (1919, 0), (0, 1079), (1919, 1079), (960, 540)]
        #expect(taps.count == 5)
        for (tap, goal) in zip(taps, expected) {
            #expect(abs(tap.0 - goal.0) <= 1 && abs(tap.1 - goal.1) <= 1, "\(tap) for \(goal)")
        }
    }

    @Test func cornersTouchedOutOfOrder_areRefused_andNothingIsWritten() throws {
        let dir = scratch()
        let touches = try Self.recording([(0, 0), (1, 1), (1, 0), (0, 1)], in: dir, name: "wrong.events")
        let d = try DaemonUnderTest(["--replay", touches, "--wait-for-clients", "1"], dir: dir)
        let config = dir + "/kiosk.toml"
        try "".write(toFile: config, atomically: true, encoding: .utf8)
        let (status, out) = try runProgram(Root.ctl, ["calibrate", "--socket", d.socket, "--config", config, "--timeout", "20"])
        #expect(status != 0)
        #expect(out.contains("calibration refused"), "\(out)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/kiosk.d/calibration.toml"))
        _ = d.stop()
    }

    @Test func cornersTouchedRoundTheScreen_areTakenInThatOrder_andSaidSo() throws {
        let dir = scratch()
        let touches = try Self.recording([(0, 0), (1, 0), (1, 1), (0, 1)], in: dir, name: "round.events")
        let d = try DaemonUnderTest(["--replay", touches, "--wait-for-clients", "1"], dir: dir)
        let (status, out) = try runProgram(Root.ctl, ["calibrate", "--socket", d.socket, "--config", dir + "/kiosk.toml", "--timeout", "20", "--dry-run"])
        #expect(status == 0, "\(out)")
        #expect(out.contains("The last two touches fit as bottom right, then bottom left"), "\(out)")
        #expect(out.contains("calibration = [1.11"), "\(out)")
        _ = d.stop()
    }

    @Test func dryRun_printsTheDropIn_andWritesNothing() throws {
        let dir = scratch()
        let touches = try Self.recording(Self.corners, in: dir, name: "corners.events")
        let d = try DaemonUnderTest(["--replay", touches, "--wait-for-clients", "1"], dir: dir)
        let config = dir + "/kiosk.toml"
        try "[device]\nrotation = 180\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (status, out) = try runProgram(Root.ctl, ["calibrate", "--socket", d.socket, "--config", config, "--timeout", "20", "--dry-run"])
        #expect(status == 0, "\(out)")
        #expect(out.contains("[[panel]]") && out.contains("calibration = ["))
        #expect(out.contains("LIBINPUT_CALIBRATION_MATRIX") && out.contains("remove `rotation`"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/kiosk.d"))
        _ = d.stop()
    }
}

/// The `calibrate` request (the web page's route): the fit in the reply, and with `save` the
/// daemon's own calibration file in its state folder, applied by a reload.
@Suite(.serialized, .waitsOnProcesses) struct CalibrateRequestTests {
    /// The four corners' touches as a request's points (the panel's u, v and the target).
    static func points(_ places: [(Double, Double)] = CalibrateTests.corners) -> String {
        let json = zip(places, CalibrateTests.corners).map { (place, target) -> String in
            let (x, y) = CalibrateTests.skewed(place.0, place.1)
            return #"{"u":\#(Double(x) / 3840),"v":\#(Double(y) / 2160),"x":\#(target.0 * 1920),"y":\#(target.1 * 1080)}"#
        }
        return "[" + json.joined(separator: ",") + "]"
    }

    @Test func aFit_isReplied_andSaved_inTheStateFolder_thenApplied() throws {
        let dir = scratch()
        let touches = try CalibrateTests.recording(CalibrateTests.corners, in: dir, name: "corners.events")
        let d = try DaemonUnderTest(
            ["--replay", touches, "--loop", "--state-dir", dir + "/state"], config: "[screen]\nwidth = 1920\nheight = 1080\n", dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()  // hello
        let fit = try #require(c.call(#"{"op":"calibrate","id":1,"device":1,"points":\#(Self.points())}"#))
        #expect(fit["ok"] == .bool(true), "\(fit)")
        guard case .array(let m)? = fit["calibration"] else { Issue.record("no calibration: \(fit)"); return }
        #expect(m.count == 6 && abs((m[0].number ?? 0) - 1.1108) < 0.001, "\(m)")
        #expect((fit["worst_mm"]?.number ?? 1) < 0.1 && fit["saved"] == nil)
        #expect(!FileManager.default.fileExists(atPath: dir + "/state/calibration.toml"))

        let saved = try #require(c.call(#"{"op":"calibrate","id":2,"device":1,"save":true,"points":\#(Self.points())}"#))
        #expect(saved["saved"] == .string(dir + "/state/calibration.toml"), "\(saved)")
        let file = try String(contentsOfFile: dir + "/state/calibration.toml", encoding: .utf8)
        #expect(file.contains("match = \"skewed panel\"") && file.contains("calibration = [1.11"), "\(file)")
        let stats = try #require(c.call(#"{"op":"stats","id":3}"#))
        #expect(stats["reloads"] == .number(1))
        #expect(d.stop() == 0)
        #expect(d.log.contains("saved skewed panel's calibration"))
        // A daemon started again reads it after the file: taps on the corners land on the corners.
        let check = try CalibrateTests.recording(CalibrateTests.corners, in: dir, name: "check.events", frames: 1)
        let d2 = try DaemonUnderTest(
            ["--replay", check, "--wait-for-clients", "1", "--state-dir", dir + "/state"], config: "[screen]\nwidth = 1920\nheight = 1080\n")
        let c2 = try TestClient(d2.socket)
        _ = c2.json()
        var taps: [(Double, Double)] = []
        while taps.count < 4, let v = c2.json(seconds: 10) {
            if v["gesture"] == .string("tap"), let x = v["x"]?.number, let y = v["y"]?.number { taps.append((x, y)) }
        }
        let goals: [(Double, Double)] = [(0, 0), (1919, 0), (0, 1079), (1919, 1079)]
        #expect(taps.count == 4)
        for (tap, goal) in zip(taps, goals) { #expect(abs(tap.0 - goal.0) <= 1 && abs(tap.1 - goal.1) <= 1, "\(tap) for \(goal)") }
        #expect(d2.stop() == 0)
    }

    @Test func refusals_comeWithTheirReason() throws {
        let dir = scratch()
        let touches = try CalibrateTests.recording(CalibrateTests.corners, in: dir, name: "corners.events")
        let d = try DaemonUnderTest(["--replay", touches, "--loop"], config: "", dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()
        let wrong = Self.points([(0, 0), (1, 1), (1, 0), (0, 1)])
        let refused = try #require(c.call(#"{"op":"calibrate","id":1,"device":1,"points":\#(wrong)}"#))
        #expect(refused["code"] == .string("calibration_refused"), "\(refused)")
        let noState = try #require(c.call(#"{"op":"calibrate","id":2,"device":1,"save":true,"points":\#(Self.points())}"#))
        #expect(noState["code"] == .string("not_saved"), "\(noState)")
        let noDevice = try #require(c.call(#"{"op":"calibrate","id":3,"device":9,"points":\#(Self.points())}"#))
        #expect(noDevice["code"] == .string("invalid_field"))
        let twoPoints = try #require(c.call(#"{"op":"calibrate","id":4,"device":1,"points":[{"u":0,"v":0,"x":0,"y":0}]}"#))
        #expect(twoPoints["code"] == .string("invalid_field"))
        #expect(try #require(c.call(#"{"op":"ping","id":5}"#))["ok"] == .bool(true), "the daemon lives on")
        _ = d.stop()
    }

    /// A saved calibration never stops the daemon: a state file that does not load (damaged,
    /// written by hand) is left out at start, with the reason; the admin's files still count.
    @Test func aStateFileThatDoesNotLoad_startsTheDaemonWithoutIt_andSaysWhy() throws {
        let dir = scratch()
        try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        try "[[action]]\nname = 'x'\ngesture = 'tap'\nexec = ['/bin/true']\n".write(toFile: dir + "/state/calibration.toml", atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(["--state-dir", dir + "/state"], config: "", dir: dir)
        let c = try TestClient(d.socket)
        #expect(c.call(#"{"op":"ping","id":1}"#)?["ok"] == .bool(true))
        #expect(d.stop() == 0)
        #expect(d.log.contains("the saved calibrations are not applied") && d.log.contains("a key other than [[panel]]"), "\(d.log)")
    }

    /// A state file that is a link is not followed: neither read at start nor by a save, and
    /// nothing of the file it names is quoted.
    @Test func aStateFileThatIsALink_isNeitherReadNorQuoted() throws {
        let dir = scratch()
        let touches = try CalibrateTests.recording(CalibrateTests.corners, in: dir, name: "corners.events")
        try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        try "secret = 'do not show'\n".write(toFile: dir + "/secret.toml", atomically: true, encoding: .utf8)
        symlink(dir + "/secret.toml", dir + "/state/calibration.toml")
        let d = try DaemonUnderTest(["--replay", touches, "--loop", "--state-dir", dir + "/state"], config: "", dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()
        let saved = try #require(c.call(#"{"op":"calibrate","id":1,"device":1,"save":true,"points":\#(CalibrateRequestTests.points())}"#))
        #expect(saved["code"] == .string("not_saved"), "\(saved)")
        let message = saved["message"]?.string ?? ""
        #expect(message.contains("a symbolic link, not read") && !message.contains("secret"), "\(message)")
        #expect(d.stop() == 0)
        #expect(d.log.contains("a symbolic link, not read") && !d.log.contains("do not show") && !d.log.contains("'secret'"), "\(d.log)")
    }
}

extension CalibrateRequestTests {
    @Test func aDropInSettingThePanel_hasTheLastWord_andTheClientIsTold() throws {
        let dir = scratch()
        let touches = try CalibrateTests.recording(CalibrateTests.corners, in: dir, name: "corners.events")
        try FileManager.default.createDirectory(atPath: dir + "/touchgestured.d", withIntermediateDirectories: true)
        try "[[panel]]\nmatch = \"skewed panel\"\ncalibration = [1, 0, 0, 0, -1, 1]\n"
            .write(toFile: dir + "/touchgestured.d/calibration.toml", atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(["--replay", touches, "--loop", "--state-dir", dir + "/state"], config: "", dir: dir)
        let c = try TestClient(d.socket)
        _ = c.json()
        let saved = try #require(c.call(#"{"op":"calibrate","id":1,"device":1,"save":true,"points":\#(Self.points())}"#))
        #expect(saved["code"] == .string("not_saved"), "\(saved)")
        #expect(saved["message"]?.string?.contains("touchgestured.d") == true, "\(saved)")
        #expect(FileManager.default.fileExists(atPath: dir + "/state/calibration.toml"))
        _ = d.stop()
    }
}

extension CalibrateRequestTests {
    /// A daemon run without a file of the admin's read no saved calibration (a `calibrate`
    /// request's save then applied nowhere); a damaged one did not stop it either.
    @Test func withoutAConfigFile_theSavedCalibrationsStillApply() throws {
        let tap = Root.fixtures + "/tap.events"
        func tapX(_ calibration: String?) throws -> Double? {
            let dir = scratch()  // (a daemon under test takes its folder with it)
            try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
            if let calibration { try calibration.write(toFile: dir + "/state/calibration.toml", atomically: true, encoding: .utf8) }
            let d = try DaemonUnderTest(["--replay", tap, "--wait-for-clients", "1", "--exit-after-replay", "--state-dir", dir + "/state"], dir: dir)
            let c = try TestClient(d.socket)
            var x: Double?
            while x == nil, let v = c.json(seconds: 5) { if v["gesture"] == .string("tap") { x = v["x"]?.number } }
            _ = d.stop()
            return x
        }
        let plain = try #require(try tapX(nil))
        let shifted = try #require(try tapX("[[panel]]\nmatch = \"*\"\ncalibration = [1, 0, 0.1, 0, 1, 0]\n"))
        #expect(abs(shifted - plain - 192) < 1, "\(plain) → \(shifted)")
        #expect(try tapX("[[action]]\nname = 'x'\n") == plain, "a damaged state file is left out; the daemon starts")
    }
}

