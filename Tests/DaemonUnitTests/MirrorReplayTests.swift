import Daemon
import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import Synchronization
import Testing
import TouchFrames

/// `touchgesturectl replay --mirror`: the daemon's own route offline, the virtual touchscreen's
/// writes kept as a recording.
@Suite struct MirrorReplayTests {
    static func recording(_ name: String) throws -> Recording {
        let path = Paths.fixtures + "/" + name + ".events"
        return try Evemu.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
    }

    static func mirrored(_ name: String, config: String = "") throws -> Recording {
        let rec = try recording(name)
        var replay = try MirrorReplay(description: try #require(rec.description), configuration: try ConfigLoader.parse(config, file: "m.toml"), path: name)
        replay.play(rec.eventsLiftedAtEnd)
        // Written and read back as the file `--mirror` writes.
        let text = Evemu.format(Recording(description: replay.described, events: replay.events), absoluteTimes: true)
        return try Evemu.parse(text, file: "mirror.events")
    }

    @Test(arguments: ["pinch-out-and-turn", "double-tap", "long-press-then-move"])
    func theMirrorsRecording_givesTheGesturesOfThePanels(name: String) throws {
        let panel = try Self.recording(name), mirror = try Self.mirrored(name)
        let d = try #require(mirror.description)
        #expect(d.name.hasSuffix(" (touchgestured)"))
        let config = try ConfigLoader.parse("", file: "m.toml")
        let fromPanel = try DevicePipeline.lines(panel, description: try #require(panel.description), configuration: config)
        let fromMirror = try DevicePipeline.lines(mirror, description: d, configuration: config)
        #expect(RouteStageTests.kinds(fromMirror.split(separator: "\n")) == RouteStageTests.kinds(fromPanel.split(separator: "\n")))
        #expect(!fromPanel.isEmpty)
    }

    /// A driver's position outside the axes (a bezel, a glitch, INT32_MAX) is written at their
    /// edge, as the gestures see it; filtered or not (with the ghost filter a moving contact is
    /// first shown where it landed, its raw landing). The doctor still reads the raw values.
    @Test(arguments: ["", "[device.filters]\nghost_under = 0.04\n"])
    func aPositionOutsideTheAxes_isWrittenAtTheirEdge(config: String) throws {
        let d = DeviceDescription.multitouchPanel(name: "p", maxX: 999, maxY: 499, slots: 4)
        func e(_ ms: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
            InputEvent(time: Timestamp(nanoseconds: 100_000_000 + ms * 1_000_000), type: type, code: code, value: value)
        }
        let events = [
            e(0, 3, Evdev.ABS_MT_TRACKING_ID, 9), e(0, 3, Evdev.ABS_MT_POSITION_X, .max), e(0, 3, Evdev.ABS_MT_POSITION_Y, -300), e(0, 0, 0, 0),
            e(50, 3, Evdev.ABS_MT_POSITION_X, 500), e(50, 3, Evdev.ABS_MT_POSITION_Y, 600), e(50, 0, 0, 0),
            e(100, 3, Evdev.ABS_MT_TRACKING_ID, -1), e(100, 0, 0, 0),
        ]
        var replay = try MirrorReplay(description: d, configuration: try ConfigLoader.parse(config, file: "m.toml"), path: "p")
        replay.play(Recording(description: d, events: events).eventsLiftedAtEnd)
        let xs = replay.events.filter { $0.type == 3 && $0.code == Evdev.ABS_MT_POSITION_X }.map(\.value)
        let ys = replay.events.filter { $0.type == 3 && $0.code == Evdev.ABS_MT_POSITION_Y }.map(\.value)
        #expect(!xs.isEmpty && xs.allSatisfy { (0...999).contains($0) } && ys.allSatisfy { (0...499).contains($0) }, "\(xs) \(ys)")
        #expect(xs.first == 999 && ys.last == 499, "\(xs) \(ys)")
    }

    /// A SYN_DROPPED closed by a report with nothing between (the next frame is the gap's)
    /// ends no frame half read: a young contact is still shown at its age (the replay stopped
    /// there, waiting for a frame's end that had come: run on a thread of its own, so that a
    /// replay that never ends fails the test rather than hangs it).
    @Test func aReportClosingALossGap_letsTheFiltersFramesGoOn() throws {
        let landing = Landing(), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let at = try? Self.landingAfterALossGap()
            landing.at.withLock { $0 = at }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success, "the replay never ended")
        #expect(landing.at.withLock { $0 } == 140_000_000)
    }

    final class Landing: Sendable {
        let at = Mutex<Int64?>(nil)
    }

    /// When the mirror shows the contact of `aReportClosingALossGap_letsTheFiltersFramesGoOn`.
    static func landingAfterALossGap() throws -> Int64? {
        let d = DeviceDescription.multitouchPanel(name: "p", maxX: 999, maxY: 499, slots: 4)
        func e(_ ms: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
            InputEvent(time: Timestamp(nanoseconds: 100_000_000 + ms * 1_000_000), type: type, code: code, value: value)
        }
        let events = [
            e(0, 3, Evdev.ABS_MT_TRACKING_ID, 1), e(0, 3, Evdev.ABS_MT_POSITION_X, 100), e(0, 3, Evdev.ABS_MT_POSITION_Y, 100), e(0, 0, 0, 0),
            e(10, 0, Evdev.SYN_DROPPED, 0), e(10, 0, 0, 0), e(100, 3, Evdev.ABS_MT_TRACKING_ID, -1), e(100, 0, 0, 0),
        ]
        var replay = try MirrorReplay(description: d, configuration: try ConfigLoader.parse("[device.filters]\nghost_under = 0.04\n", file: "m.toml"), path: "p")
        replay.play(Recording(description: d, events: events).eventsLiftedAtEnd)
        return replay.events.first { $0.type == 3 && $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }?.time.nanoseconds
    }

    @Test func aDeadZoneOverTheWholePanel_showsNoTouch() throws {
        let mirror = try Self.mirrored("pinch-out-and-turn", config: "[device.filters]\ndead_zones = [[0, 0, 4000, 4000]]\n")
        #expect(!mirror.events.contains { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 })
        let d = try #require(mirror.description)
        #expect(d.axes[Evdev.ABS_MT_POSITION_X]?.fuzz == 0, "a filtered panel's mirror is unfuzzed")
        // Said, as the daemon logs it when such a panel opens (`replay` prints it).
        let rec = try Self.recording("pinch-out-and-turn")
        let replay = try MirrorReplay(
            description: try #require(rec.description), configuration: try ConfigLoader.parse("[device.filters]\ndead_zones = [[0, 0, 4000, 4000]]\n", file: "m.toml"),
            path: "p")
        #expect(replay.deadZoneProblem?.contains("covers the whole panel") == true)
    }
}
