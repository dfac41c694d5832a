import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import TestSupport
import Testing
import TouchFrames

@testable import Daemon

/// Cheap-panel behaviour through the panel's filters, offline (`replay`) and on the daemon's
/// route (the filters' own frames as deadlines): the same gestures either way.
@Suite struct FilteredGestureTests {
    static let panel = DeviceDescription.multitouchPanel(name: "cheap", maxX: 3839, maxY: 2159, slots: 10)

    /// Frames at 60 Hz (or every `period` ns): each `true` a frame with the finger down at
    /// (1920, 1080), `false` up; each landing after the first `jump` units further right.
    static func recording(_ downs: [Bool], period: Int64 = 16_666_000, jump: Int32 = 0) -> Recording {
        var events: [InputEvent] = [], down = false, id: Int32 = 0
        for (k, d) in downs.enumerated() {
            let t = Timestamp(nanoseconds: Int64(k) * period)
            func e(_ type: UInt16, _ code: UInt16, _ value: Int32) { events.append(InputEvent(time: t, type: type, code: code, value: value)) }
            if d && !down {
                id += 1
                e(3, Evdev.ABS_MT_TRACKING_ID, id)
                e(3, Evdev.ABS_MT_POSITION_X, 1920 + id + (id - 1) * jump)
                e(3, Evdev.ABS_MT_POSITION_Y, 1080)
                e(1, Evdev.BTN_TOUCH, 1)
            } else if !d && down {
                e(3, Evdev.ABS_MT_TRACKING_ID, -1)
                e(1, Evdev.BTN_TOUCH, 0)
            }
            e(0, 0, 0)
            down = d
        }
        return Recording(description: panel, events: events)
    }

    static func gestures(_ rec: Recording, _ config: String) throws -> [String] {
        let lines = try DevicePipeline.lines(rec, description: panel, configuration: try ConfigLoader.parse(config, file: "f.toml"))
        var rig = try RouteRig(recording: rec, config: config)
        rig.playAll()
        let offline = lines.split(separator: "\n").compactMap(Self.name), routed = rig.lines.compactMap { Self.name(Substring($0)) }
        #expect(offline == routed, "offline and on the route")
        return offline
    }

    /// A gesture line's name (`name`, else `gesture`), with its phase unless it is `recognized`.
    static func name(_ line: Substring) -> String? {
        func field(_ key: String) -> Substring? {
            guard let r = line.firstRange(of: "\"\(key)\":\"") else { return nil }
            return line[r.upperBound...].prefix { $0 != "\"" }
        }
        guard let gesture = field("gesture"), let phase = field("phase") else { return nil }
        let name = field("name") ?? gesture
        return phase == "recognized" ? String(name) : "\(name) \(phase)"
    }

    /// A tap whose contact bounces for one frame (up one frame, down again), then lifts.
    static let chatteringTap = [true, true, true, false, true, true, false] + Array(repeating: false, count: 40)
    static let chatter = "[device.filters]\nchatter_window = 0.04\n"

    @Test func aChatteringTap_isOneTap_withTheFilter() throws {
        #expect(try Self.gestures(Self.recording(Self.chatteringTap), "").contains("double_tap"), "without it: a double tap")
        #expect(try Self.gestures(Self.recording(Self.chatteringTap), Self.chatter) == ["tap"])
    }

    /// A tap whose tracking id the panel replaces mid-tap, in one report (its lift and a new
    /// landing together, or the new id alone): one tap with the filter, a double tap without.
    @Test(arguments: [true, false])
    func aTapWhoseIdChangesWithinAFrame_isOneTap(withLift: Bool) throws {
        var events: [InputEvent] = []
        for k in 0..<40 {
            let t = Timestamp(nanoseconds: Int64(k) * 16_666_000)
            func e(_ type: UInt16, _ code: UInt16, _ value: Int32) { events.append(InputEvent(time: t, type: type, code: code, value: value)) }
            switch k {
            case 0:
                e(3, Evdev.ABS_MT_TRACKING_ID, 1)
                e(3, Evdev.ABS_MT_POSITION_X, 1920)
                e(3, Evdev.ABS_MT_POSITION_Y, 1080)
                e(1, Evdev.BTN_TOUCH, 1)
            case 3:
                if withLift { e(3, Evdev.ABS_MT_TRACKING_ID, -1) }
                e(3, Evdev.ABS_MT_TRACKING_ID, 2)
                e(3, Evdev.ABS_MT_POSITION_X, 1925)
            case 6:
                e(3, Evdev.ABS_MT_TRACKING_ID, -1)
                e(1, Evdev.BTN_TOUCH, 0)
            default: break
            }
            e(0, 0, 0)
        }
        let rec = Recording(description: Self.panel, events: events)
        #expect(try Self.gestures(rec, "").contains("double_tap"), "without the filter: two touches")
        #expect(try Self.gestures(rec, Self.chatter) == ["tap"])
    }

    /// Taps that bounce once for a frame or three, on a 200 Hz panel with 1.5 mm of noise (hostile
    /// probes', Recordings/chatter-tap-200hz-*.events), through examples/noisy-panel.toml: one tap
    /// each. The 1€ speed estimate read the resting finger as moving (8, 13: a pan, nothing); a
    /// bounce as the tap came of age (`ghost_under`, 40 ms) went on from a landing report 4.5 mm
    /// off, or from a lift snapped to a noisy report (40ms-*, 45ms-*: a pan, nothing).
    @Test(arguments: ["8", "13", "40ms-1", "40ms-2", "45ms-24"])
    func aChatteringTapOnAFastNoisyPanel_isOneTap(seed: String) throws {
        let path = Repository.root + "/Tests/DaemonUnitTests/Recordings/chatter-tap-200hz-\(seed).events"
        let rec = try Evemu.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        let example = Repository.root + "/examples/noisy-panel.toml"
        let config = try ConfigLoader.parse(try String(contentsOfFile: example, encoding: .utf8), file: example)
        let lines = try DevicePipeline.lines(rec, description: try #require(rec.description), configuration: config)
        #expect(lines.split(separator: "\n").compactMap(Self.name) == ["tap"], "\(lines)")
    }

    /// A bounce landing 4.5 mm away (past the tap's 3 mm slop, within `chatter_distance`) moves
    /// nothing: one tap, at 60 and at 250 Hz, with the 1€ filter or without.
    @Test func aBounceLandingMillimetresAway_isStillOneTap() throws {
        let filters = "[device.filters]\nchatter_window = 0.035\nchatter_distance = 5\n"
        let downs = [true, true, true, false, true, true, true, true, true, false] + Array(repeating: false, count: 200)
        for period: Int64 in [16_666_000, 4_000_000] {
            let rec = Self.recording(downs, period: period, jump: 50)  // the 15.6-inch guess: 11.2 units a mm
            #expect(try Self.gestures(rec, filters) == ["tap"], "period \(period)")
            #expect(try Self.gestures(rec, filters + "dejitter_min_cutoff = 1.0\n") == ["tap"], "period \(period)")
        }
    }

    /// A landing again exactly when the window ends (two reports after the lift, the window two
    /// report intervals) is a new touch, offline and on the route.
    @Test func aLandingAtTheWindowsEnd_isANewTouch_offlineAndOnTheRoute() throws {
        let tap = [true, true, true, false, false, true, true, false] + Array(repeating: false, count: 40)
        let lines = try Self.gestures(Self.recording(tap), "[device.filters]\nchatter_window = 0.033332\n")
        #expect(lines.contains("double_tap"), "\(lines)")
    }

    @Test func aTapInAPointerRegion_clicks_withTheGhostFilter() throws {
        let tap = Self.recording([true, true, true, true] + Array(repeating: false, count: 40))
        let config = "[device.filters]\nghost_under = 0.03\n[[region]]\nname = \"page\"\nemulate = \"pointer\"\n"
        let lines = try DevicePipeline.lines(tap, description: Self.panel, configuration: try ConfigLoader.parse(config, file: "p.toml"))
        #expect(lines.contains("\"type\":\"pointer\""), "\(lines)")
    }

    @Test func aReloadWhileALiftIsHeld_showsTheLiftWhenItIsDue() throws {
        var rig = try RouteRig(recording: Self.recording([true, true]), config: Self.chatter)
        let frames = rig.events.split { $0.type == 0 && $0.code == 0 }
        var t: Int64 = 0
        for f in frames {
            rig.read(Array(f) + [InputEvent(time: f.first!.time, type: 0, code: 0, value: 0)], at: f.first!.time.nanoseconds)
            t = f.first!.time.nanoseconds
        }
        let lift = [InputEvent(time: Timestamp(nanoseconds: t + 16_666_000), type: 3, code: Evdev.ABS_MT_TRACKING_ID, value: -1),
                    InputEvent(time: Timestamp(nanoseconds: t + 16_666_000), type: 0, code: 0, value: 0)]
        rig.read(lift, at: t + 16_666_000)
        #expect(rig.state.devices.all[0].pipeline.decoder.frame.contacts.count == 1, "the lift is held")
        let config = try ConfigLoader.parse(Self.chatter, file: "f.toml")
        rig.state.devices.replacePipeline(0, with: try DevicePipeline(description: Self.panel, configuration: config, device: 1))
        #expect(rig.state.devices.earliestDeadline != nil, "the held lift's frame is still due")
        rig.fireDeadlines(until: .max)
        #expect(rig.state.devices.all[0].pipeline.decoder.frame.contacts.isEmpty, "and shown")
    }

    @Test func oneFrameGhosts_areNoGesture_withTheFilter() throws {
        let ghosts = (0..<5).flatMap { _ in [true] + Array(repeating: false, count: 40) }
        #expect(try Self.gestures(Self.recording(ghosts), "").count >= 3, "without it: taps")
        #expect(try Self.gestures(Self.recording(ghosts), "[device.filters]\nghost_under = 0.03\n").isEmpty)
        let tap = [true, true, true, true] + Array(repeating: false, count: 40)
        #expect(try Self.gestures(Self.recording(tap), "[device.filters]\nghost_under = 0.03\n") == ["tap"], "a real tap stays a tap")
    }

    /// A 25 Hz panel's one-report tap (its lift the next report, 40 ms on, `ghost_under` 40 ms)
    /// is a tap, with the chatter filter or without: its coming of age waited 2 ms for the
    /// panel's next report, which was its lift (it was counted a ghost).
    @Test(arguments: ["", "chatter_window = 0.035\n"])
    func aOneReportTapAt25Hz_isATap(chatter: String) throws {
        let downs = Array(repeating: true, count: 6) + Array(repeating: false, count: 25) + [true] + Array(repeating: false, count: 40)
        let config = "[device.filters]\nghost_under = 0.04\n" + chatter
        #expect(try Self.gestures(Self.recording(downs, period: 40_000_000), config) == ["tap", "tap"])
    }
}

/// A held lift (the chatter window) ends for the gestures at the lift's own time, so a fast
/// swipe keeps its release speed.
@Suite struct HeldLiftVelocityTests {
    /// One finger left across the panel at 60 Hz, 90 units a frame, then up (and quiet after).
    static func swipe() -> Recording {
        var events: [InputEvent] = []
        func e(_ k: Int, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: Timestamp(nanoseconds: Int64(k) * 16_666_000), type: type, code: code, value: value))
        }
        e(0, 3, Evdev.ABS_MT_TRACKING_ID, 1)
        e(0, 1, Evdev.BTN_TOUCH, 1)
        for k in 0..<12 {
            e(k, 3, Evdev.ABS_MT_POSITION_X, Int32(3000 - 90 * k))
            if k == 0 { e(k, 3, Evdev.ABS_MT_POSITION_Y, 1080) }
            e(k, 0, 0, 0)
        }
        e(12, 3, Evdev.ABS_MT_TRACKING_ID, -1)
        e(12, 1, Evdev.BTN_TOUCH, 0)
        e(12, 0, 0, 0)
        e(80, 0, 0, 0)
        return Recording(description: FilteredGestureTests.panel, events: events)
    }

    /// The swipe's release speed (px/s), offline; on the route the same line is checked equal.
    static func speed(_ config: String) throws -> Double? {
        let lines = try DevicePipeline.lines(swipe(), description: FilteredGestureTests.panel, configuration: try ConfigLoader.parse(config, file: "f.toml"))
        var rig = try RouteRig(recording: swipe(), config: config)
        rig.playAll()
        let offline = lines.split(separator: "\n").filter { $0.contains("\"swipe\"") }
        #expect(offline.map(String.init) == rig.lines.filter { $0.contains("\"swipe\"") }, "offline and on the route")
        guard let line = offline.first, let r = line.firstRange(of: "\"velocity\":") else { return nil }
        return Double(line[r.upperBound...].prefix { $0 != "," && $0 != "}" })
    }

    /// Two fingers left together at 60 Hz, 90 units a frame; the first lifts at frame 12, the
    /// second moves on and lifts two frames later.
    static func twoFingerSwipe() -> Recording {
        var events: [InputEvent] = []
        func e(_ k: Int, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: Timestamp(nanoseconds: Int64(k) * 16_666_000), type: type, code: code, value: value))
        }
        for k in 0..<15 {
            for slot: Int32 in [0, 1] where !(slot == 0 && k > 12) {
                e(k, 3, Evdev.ABS_MT_SLOT, slot)
                if k == 0 {
                    e(k, 3, Evdev.ABS_MT_TRACKING_ID, slot + 1)
                    e(k, 3, Evdev.ABS_MT_POSITION_Y, 1000 + 300 * slot)
                }
                if slot == 0 && k == 12 {
                    e(k, 3, Evdev.ABS_MT_TRACKING_ID, -1)
                } else if k < 14 || slot == 0 {
                    e(k, 3, Evdev.ABS_MT_POSITION_X, Int32(3000 - 90 * k))
                } else {
                    e(k, 3, Evdev.ABS_MT_TRACKING_ID, -1)
                }
            }
            if k == 0 { e(k, 1, Evdev.BTN_TOUCH, 1) }
            if k == 14 { e(k, 1, Evdev.BTN_TOUCH, 0) }
            e(k, 0, 0, 0)
        }
        e(80, 0, 0, 0)
        return Recording(description: FilteredGestureTests.panel, events: events)
    }

    /// Every gesture line of the two-finger swipe, offline, with `config`.
    static func twoFingerLines(_ config: String) throws -> [String] {
        let lines = try DevicePipeline.lines(
            twoFingerSwipe(), description: FilteredGestureTests.panel, configuration: try ConfigLoader.parse(config, file: "f.toml"))
        return lines.split(separator: "\n").map(String.init).filter { $0.contains("\"gesture\"") }
    }

    /// While the first finger's lift is held, it is still down but moves nothing: the pan goes
    /// on as without the filter (the same translation and place every frame; a held finger
    /// counted as a still one halved the motion and pulled the place back), and the swipe's
    /// speed is within 5 %.
    @Test func twoFingersLiftingAFrameApart_keepTheirMotion_throughTheChatterWindow() throws {
        let raw = try Self.twoFingerLines("")
        let held = try Self.twoFingerLines("[device.filters]\nchatter_window = 0.035\n")
        let changed = { (lines: [String]) in lines.filter { $0.contains("\"phase\":\"changed\"") } }
        #expect(changed(raw).count == 12)
        #expect(changed(held) == changed(raw))
        func speed(_ lines: [String]) -> Double? {
            guard let line = lines.first(where: { $0.contains("\"swipe\"") }), let r = line.firstRange(of: "\"velocity\":") else { return nil }
            return Double(line[r.upperBound...].prefix { $0 != "," && $0 != "}" })
        }
        let a = try #require(speed(raw)), b = try #require(speed(held))
        #expect(abs(a - b) <= 0.05 * a, "raw \(a) px/s, held \(b) px/s")
    }

    /// Two fingers left together at 60 Hz, 20 units (about 1.8 mm) a frame for 14 frames; with
    /// `bounce` the first lifts at frame 5 and lands again a frame later where it has got to (a
    /// new tracking id, 3.6 mm from its lift: one contact through the chatter filter).
    static func twoFingerPan(bounce: Bool) -> Recording {
        var events: [InputEvent] = []
        func e(_ k: Int, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: Timestamp(nanoseconds: Int64(k) * 16_666_000), type: type, code: code, value: value))
        }
        for k in 0...14 {
            for slot: Int32 in [0, 1] {
                e(k, 3, Evdev.ABS_MT_SLOT, slot)
                if k == 0 || (bounce && slot == 0 && k == 6) {
                    e(k, 3, Evdev.ABS_MT_TRACKING_ID, k == 0 ? slot + 1 : 3)
                    e(k, 3, Evdev.ABS_MT_POSITION_Y, 1000 + 300 * slot)
                }
                if k == 14 || (bounce && slot == 0 && k == 5) {
                    e(k, 3, Evdev.ABS_MT_TRACKING_ID, -1)
                } else {
                    e(k, 3, Evdev.ABS_MT_POSITION_X, Int32(3000 - 20 * k))
                }
            }
            if k == 0 { e(k, 1, Evdev.BTN_TOUCH, 1) }
            if k == 14 { e(k, 1, Evdev.BTN_TOUCH, 0) }
            e(k, 0, 0, 0)
        }
        e(80, 0, 0, 0)
        return Recording(description: FilteredGestureTests.panel, events: events)
    }

    /// A finger that bounces mid-pan (merged by the chatter filter) moves nothing while its lift
    /// is held, nor in the frame it lands again: the pan's translation frame by frame is that of
    /// the same pan without the bounce (the jump from where it was held to where it landed was
    /// counted as motion, a net translation, rotation and span that never cancelled).
    @Test func aFingerBouncingMidPan_addsNoMotion_throughTheChatterWindow() throws {
        let config = try ConfigLoader.parse("[device.filters]\nchatter_window = 0.035\n", file: "f.toml")
        func translations(_ rec: Recording) throws -> [String] {
            let lines = try DevicePipeline.lines(rec, description: FilteredGestureTests.panel, configuration: config)
            return lines.split(separator: "\n").filter { $0.contains("\"pan\"") && $0.contains("\"changed\"") }.map {
                String($0[$0.firstRange(of: "\"dx\":")!.lowerBound...].prefix { $0 != "v" })
            }
        }
        let clean = try translations(Self.twoFingerPan(bounce: false))
        let bounced = try translations(Self.twoFingerPan(bounce: true))
        #expect(clean.count >= 10)
        #expect(bounced == clean)
    }

    /// The same swipe beside a contact the filters hide (in a dead zone) that flickers by a unit
    /// in every report: its frames during the swipe's held lift are no samples of the swipe's
    /// path, which keeps its speed (they halved it).
    @Test func aSwipeBesideAHiddenFlickeringContact_keepsItsSpeed() throws {
        var events: [InputEvent] = []
        for k in 0..<40 {
            func e(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                events.append(InputEvent(time: Timestamp(nanoseconds: Int64(k) * 16_666_000), type: type, code: code, value: value))
            }
            // The swipe in slot 0, as `swipe()` has it.
            e(3, Evdev.ABS_MT_SLOT, 0)
            if k == 0 { e(3, Evdev.ABS_MT_TRACKING_ID, 1) }
            if k < 12 { e(3, Evdev.ABS_MT_POSITION_X, Int32(3000 - 90 * k)) }
            if k == 0 { e(3, Evdev.ABS_MT_POSITION_Y, 1080) }
            if k == 12 { e(3, Evdev.ABS_MT_TRACKING_ID, -1) }
            // The hidden contact in slot 1, 2 mm from the corner, down throughout.
            e(3, Evdev.ABS_MT_SLOT, 1)
            if k == 0 { e(3, Evdev.ABS_MT_TRACKING_ID, 9) }
            e(3, Evdev.ABS_MT_POSITION_X, 20 + Int32(k % 2))
            if k == 0 { e(3, Evdev.ABS_MT_POSITION_Y, 20) }
            if k == 0 { e(1, Evdev.BTN_TOUCH, 1) }
            e(0, 0, 0)
        }
        let size = "[device]\nwidth_mm = 344\nheight_mm = 194\n"
        let config = try ConfigLoader.parse(size + "[device.filters]\nchatter_window = 0.035\ndead_zones = [[0, 0, 10, 10]]\n", file: "f.toml")
        let rec = Recording(description: FilteredGestureTests.panel, events: events)
        let lines = try DevicePipeline.lines(rec, description: FilteredGestureTests.panel, configuration: config)
        let swipe = try #require(lines.split(separator: "\n").first { $0.contains("\"swipe\"") }, "the swipe beside it")
        let r = try #require(swipe.firstRange(of: "\"velocity\":"))
        let beside = try #require(Double(swipe[r.upperBound...].prefix { $0 != "," && $0 != "}" }))
        let alone = try #require(try Self.speed(size + "[device.filters]\nchatter_window = 0.035\n"))
        #expect(abs(beside - alone) <= 0.02 * alone, "beside \(beside) px/s, alone \(alone) px/s")
    }

    @Test func aFastSwipe_keepsItsSpeed_throughTheChatterWindow() throws {
        let raw = try #require(try Self.speed(""))
        let held = try #require(try Self.speed("[device.filters]\nchatter_window = 0.035\n"))
        #expect(abs(held - raw) <= 0.05 * raw, "raw \(raw) px/s, held \(held) px/s")
    }
}
