import Foundation
import GestureEngine
import GestureProtocol
import Testing
import TouchFrames

@testable import Daemon

/// A client's held continuous updates go out when input stops: a finger that comes to rest
/// sends no frames (the kernel drops repeated values), so the loop's wait ends at their due time.
@Suite(.serialized, .waitsOnProcesses) struct HeldLinesTests {
    /// A 1 kHz pan of 60 frames, then the finger rests (no frame) for `rest` seconds and lifts.
    static func panThenRest(_ dir: String, rest: Double) throws -> String {
        var events: [InputEvent] = []
        func ev(_ us: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: Timestamp(nanoseconds: us * 1_000), type: type, code: code, value: value))
        }
        // An empty frame, then the pan a second later: the client's `subscribe` is served by
        // then (the replay starts as it connects).
        ev(0, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        var t: Int64 = 1_000_000
        ev(t, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0)
        ev(t, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 1)
        ev(t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 500)
        ev(t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, 1000)
        ev(t, Evdev.EV_KEY, Evdev.BTN_TOUCH, 1)
        ev(t, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        for i in 1...60 {
            t += 1_000
            ev(t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 500 + Int32(i * 20))
            ev(t, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        }
        t += Int64(rest * 1e6)
        ev(t, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
        ev(t, Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)
        ev(t, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        let panel = DeviceDescription.multitouchPanel(name: "resting panel", maxX: 3839, maxY: 2159, slots: 10, resolution: 15)
        let path = dir + "/rest.events"
        try Evemu.format(Recording(description: panel, events: events)).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The pan's last `changed` line (the finger's last position) reaches a coalescing client
    /// while the finger rests, seconds before the lift's `ended`: not held until the next input.
    /// Only a pan is configured: no gesture's deadline (a long press's) wakes the loop instead.
    @Test func heldChangedLines_goOutWhileTheFingerRests_notWithTheLift() throws {
        let dir = scratch()
        let config = "[[region]]\nname = \"screen\"\n[[region.gesture]]\nkind = \"pan\"\n"
        let d = try DaemonUnderTest(["--replay", try Self.panThenRest(dir, rest: 3), "--wait-for-clients", "1"], config: config, dir: dir)
        let c = try TestClient(d.socket)
        // A window longer than the pan (60 ms): its last line is held whatever the turns' rhythm.
        c.send(#"{"op":"subscribe","coalesce_ms":100}"#)
        var lastChanged: (line: String, at: Date)?
        var ended: Date?
        while ended == nil, let l = c.line(seconds: 15) {
            guard l.contains(#""gesture":"pan""#) else { continue }
            if l.contains(#""phase":"changed""#) { lastChanged = (l, Date()) }
            if l.contains(#""phase":"ended""#) { ended = Date() }
        }
        let changed = try #require(lastChanged)
        let end = try #require(ended)
        // The rest is 3 s; the held line's release comes about 100 ms into it. Only a line held
        // until the lift's turn comes within a second of it.
        #expect(end.timeIntervalSince(changed.at) > 1.5, "the last changed line came with the lift: \(changed.line)")
        #expect(d.stop() == 0)
    }
}
