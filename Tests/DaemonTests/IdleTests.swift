import Foundation
import GestureEngine
import GestureProtocol
import Testing
import TouchFrames

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// Touch to wake (`[idle] after`): idle once after the quiet time, the next touch wakes the
/// kiosk and is swallowed, the touch after it is a gesture again; the moments' actions run.
@Suite(.serialized, .waitsOnProcesses) struct IdleTests {
    /// A tap at each of `times` (s), after an empty first frame at 0.
    static func taps(at times: [Double], in dir: String) throws -> String {
        let fixture = Root.fixtures + "/tap.events"
        let r = try Evemu.parse(try String(contentsOfFile: fixture, encoding: .utf8), file: fixture)
        let start = r.events.first?.time.nanoseconds ?? 0
        var events = [InputEvent(time: .zero, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0)]
        for t in times {
            let shift = Int64(t * 1e9) - start
            events += r.events.map { InputEvent(time: Timestamp(nanoseconds: $0.time.nanoseconds + shift), type: $0.type, code: $0.code, value: $0.value) }
        }
        let path = dir + "/taps.events"
        try Evemu.format(Recording(description: r.description, events: events)).write(toFile: path, atomically: true, encoding: .utf8)
        return path
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
