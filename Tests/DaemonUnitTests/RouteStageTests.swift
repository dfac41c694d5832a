import Foundation
import GestureEngine
import Testing
import TouchFrames

@testable import Daemon

/// The real route (`DeviceTable.run`) with a clock the test drives: each stage once per input,
/// in the order ARCHITECTURE.md draws.
@Suite struct RouteStageTests {
    @Test func theRoutesOrder_isTheDocumentedOne_andNamesEveryStage() throws {
        #expect(Route.order == RouteStage.allCases, "every stage is on the route, in the enum's order")
        let doc = try String(contentsOfFile: Paths.root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        let line = try #require(doc.split(separator: "\n").first { $0.hasPrefix("Route stages, in order:") })
        let listed = line.dropFirst("Route stages, in order:".count).split(separator: "→").map { $0.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: "`."))) }
        #expect(listed == Route.order.map(\.rawValue))
    }

    /// A single tap is told once the double-tap window has passed: the read leaves a deadline,
    /// the clock reaching it makes the line, which reaches the fan-out.
    @Test func aTap_waitsForItsDeadline_thenReachesTheFanout() throws {
        var rig = try RouteRig("tap")
        rig.playAll()
        #expect(rig.lines.filter { $0.contains(#""gesture":"tap""#) }.count == 1)
        #expect(rig.state.fanout.gestureLines == 1)
        #expect(rig.state.devices.frames > 0 && rig.state.devices.all[0].health.frames == rig.state.devices.frames)
        #expect(rig.state.devices.earliestDeadline == nil)
        #expect(rig.env.reports.isEmpty, "nothing for the daemon: no action, no trace, no wake")
        let taken = rig.state.devices.take(0)
        #expect(!taken.health.up && taken.health.removals == 1 && rig.state.devices.all.isEmpty)
    }

    @Test func theSameRecording_givesTheRoutesLines_asTheReplays() throws {
        for name in ["double-tap", "pinch-out-and-turn", "long-press-then-move"] {
            var rig = try RouteRig(name)
            rig.playAll()
            let golden = try String(contentsOfFile: Paths.fixtures + "/" + name + ".ndjson", encoding: .utf8)
            #expect(Self.kinds(rig.lines.map { Substring($0) }) == Self.kinds(golden.split(separator: "\n")), "\(name)")
        }
    }

    /// Each line's gesture and phase, in order.
    static func kinds(_ lines: [Substring]) -> [String] {
        lines.compactMap { line -> String? in
            guard let g = line.firstRange(of: #""gesture":""#), let p = line.firstRange(of: #""phase":""#) else { return nil }
            let name = line[g.upperBound...].prefix { $0 != "\"" }
            let phase = line[p.upperBound...].prefix { $0 != "\"" }
            return "\(name) \(phase)"
        }
    }

    /// Pass-through: each read is one write to the mirror, and the reader of the mirror sees the
    /// panel's contacts.
    @Test func passThrough_eachRead_isOneWriteOfWholeFrames() throws {
        var rig = try RouteRig("pinch-out-and-turn", config: "[device]\nmode = \"passthrough\"\n", mirrored: true)
        rig.playAll()
        #expect(!rig.mirror.writes.isEmpty)
        for w in rig.mirror.writes {
            #expect(w.last?.type == Evdev.EV_SYN && w.last?.code == Evdev.SYN_REPORT, "whole frames")
        }
        let ids = rig.mirror.writes.joined().filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.type == Evdev.EV_ABS }
        #expect(ids.filter { $0.value >= 0 }.count == ids.filter { $0.value < 0 }.count, "every touch shown is lifted")
    }

    /// A gesture bound to an action takes its touch in pass-through: lifted on the mirror when it
    /// begins, never shown again; the action fires through the daemon's stage.
    @Test func passThrough_aSystemGesture_takesItsTouchFromTheMirror() throws {
        let config = "[device]\nmode = \"passthrough\"\n[[action]]\nname = \"back\"\ngesture = \"edge_swipe\"\nkeys = \"KEY_LEFTALT+KEY_LEFT\"\n"
        var rig = try RouteRig("edge-swipe-from-left", config: config, mirrored: true)
        rig.playAll()
        #expect(rig.env.firedActions.contains("back"))
        let all = Array(rig.mirror.writes.joined())
        let downs = all.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }.count
        let ups = all.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value < 0 }.count
        #expect(downs == 1 && ups == 1)
        // Nothing moves on the mirror after the lift.
        let lift = try #require(all.lastIndex { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value < 0 })
        #expect(!all[lift...].contains { $0.code == Evdev.ABS_MT_POSITION_X })
    }

    /// Touch to wake: while asleep, the landing wakes the kiosk (the daemon's stage hears it),
    /// and its sequence reaches no one: no line, nothing on the mirror.
    @Test func wake_theLandingWakesTheKiosk_andItsSequenceGoesToNoOne() throws {
        var rig = try RouteRig("tap", config: "[device]\nmode = \"passthrough\"\n", mirrored: true)
        rig.state.devices.wake.asleep = true
        rig.playAll()
        #expect(rig.env.reports.count == 1 && rig.env.reports[0].woke && !rig.env.reports[0].wokeInTheDark)
        #expect(!rig.state.devices.wake.asleep)
        #expect(rig.lines.isEmpty)
        #expect(rig.mirror.writes.isEmpty)
        #expect(rig.state.devices.frames > 0, "the frames are counted all the same")
    }

    /// A held touch (`delays_touches_began`): shown on the mirror only once the gesture failed,
    /// its path replayed; the mirror's due time is part of the device's deadline.
    @Test func heldTouch_isReplayed_whenTheEdgeSwipeFails() throws {
        let config = "[device]\nmode = \"passthrough\"\n[[region]]\nname = \"screen\"\n[[region.gesture]]\nkind = \"edge_swipe\"\ncancels_touches = true\ndelays_touches_began = 500\n"
        var rig = try RouteRig("tap", config: config, mirrored: true)
        // The tap, moved into the left edge band.
        let events = rig.events.map { e in
            var e = e
            if e.type == Evdev.EV_ABS && e.code == Evdev.ABS_MT_POSITION_X { e.value = 10 }
            return e
        }
        var frame: [InputEvent] = []
        var firstWrite: Int?
        for e in events {
            frame.append(e)
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            rig.read(frame, at: e.time.nanoseconds)
            frame.removeAll()
            if firstWrite == nil && !rig.mirror.writes.isEmpty { firstWrite = rig.mirror.writes.count }
        }
        rig.fireDeadlines(until: .max)
        let all = Array(rig.mirror.writes.joined())
        #expect(all.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }.count == 1, "shown once, after the swipe failed")
        #expect(all.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value < 0 }.count == 1)
    }

    /// A live read is scanned once, by the decoder: a SYN_DROPPED in it stops the route there
    /// (the reader is told, and resynchronizes); what follows it in the read is stale and goes
    /// to no consumer. A read without one is not stopped.
    @Test func liveRead_stopsAtSynDropped_andTellsTheReader() throws {
        var rig = try RouteRig("tap")
        let t = rig.events.first!.time
        func ev(_ type: UInt16, _ code: UInt16, _ v: Int32) -> InputEvent { InputEvent(time: t, type: type, code: code, value: v) }
        let down = [ev(3, Evdev.ABS_MT_TRACKING_ID, 7), ev(3, Evdev.ABS_MT_POSITION_X, 100), ev(3, Evdev.ABS_MT_POSITION_Y, 100),
            ev(1, Evdev.BTN_TOUCH, 1), ev(0, Evdev.SYN_REPORT, 0)]
        let plain = rig.readKernel(down, at: 1_000)
        #expect(!plain, "a plain read goes through")
        #expect(rig.state.devices.frames == 1)
        let stale = [ev(0, Evdev.SYN_DROPPED, 0), ev(3, Evdev.ABS_MT_SLOT, 1), ev(3, Evdev.ABS_MT_TRACKING_ID, 8),
            ev(3, Evdev.ABS_MT_POSITION_X, 500), ev(3, Evdev.ABS_MT_POSITION_Y, 500), ev(0, Evdev.SYN_REPORT, 0)]
        let lost = rig.readKernel(stale, at: 2_000)
        #expect(lost, "the reader is told to resynchronize")
        #expect(rig.state.devices.frames == 1, "nothing after the SYN_DROPPED was decoded into a frame")
        #expect(rig.state.devices.all[0].pipeline.decoder.droppedCount == 1)
        #expect(rig.state.devices.all[0].health.events == down.count + 1, "the events up to the SYN_DROPPED, not the stale rest")
    }
}
