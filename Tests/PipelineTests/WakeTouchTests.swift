import GestureConfig
import GestureEngine
import Pipeline
import Testing
import TouchFrames

/// Touch to wake on a pipeline: the waking touch (the fingers landing in its first half second)
/// goes to no one until it lifts; a finger landing later while it stays down (a drop of water
/// woke the kiosk) is an ordinary touch, and the drop stays out of every view of the panel.
@Suite struct WakeTouchTests {
    /// A drop landing at 1 s and staying (silent), swallowed as the waking touch; a tap at 2.5 s;
    /// the pipeline's touch and gesture lines, and the contacts the regions' limits took.
    static func dropThenTap(_ config: String, tapAt: Double = 2500, reloadAt: Int64? = nil) throws -> (lines: [String], limited: Int) {
        let c = try ConfigLoader.parse(config, file: "w.toml")
        var p = try DevicePipeline(description: Synth.panel, configuration: c)
        var out = PipelineOutput(wants: .init(touchLines: true))
        var s = Synth()
        s.wait(1000)
        s.down(1, (100, 800))
        s.sync()
        if tapAt > 1800 {
            // The drop wavers at 1.8 s (a frame past the window, before a reload at 2 s).
            s.wait(780)
            s.drag([1], by: (1, 0), over: 20)
            s.wait(tapAt - 1800)
        } else {
            s.wait(tapAt - 1000)
        }
        s.tap((900, 500))
        p.swallowSequence()
        var reload = reloadAt
        for e in s.recording.events {
            // A reload's new pipeline (as the daemon's `replacePipeline` makes it) at `reloadAt` ms.
            if let at = reload, e.time.nanoseconds >= at * 1_000_000 {
                reload = nil
                var next = try DevicePipeline(description: Synth.panel, configuration: c)
                next.continueNumbering(from: p)
                next.decoder.continueFrom(p.decoder)
                next.continued(from: p)
                p = next
            }
            p.feed(e, into: &out)
        }
        p.finishReplay(into: &out)
        let lines = String(decoding: out.lines, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines, p.contactsLimited)
    }

    @Test func aWakingDropThatStays_isInNoTouchLine_andNoLimit_andATapAfterItIsATap() throws {
        let (lines, limited) = try Self.dropThenTap(
            "[device]\nmode = \"passthrough\"\n[[region]]\nname = \"page\"\nmax_contacts = 1\nstandard_gestures = true\n")
        let touches = lines.filter { $0.contains(#""type":"touch""#) }
        #expect(!touches.isEmpty && touches.allSatisfy { !$0.contains("\"x\":10") }, "the drop in a touch line: \(touches)")
        #expect(limited == 0, "the tap taken for the drop's place: \(lines)")
        #expect(lines.contains { $0.contains(#""gesture":"tap""#) }, "\(lines)")
    }

    /// A tap within the window is the waking hand's, across a reload's new pipeline too; one
    /// after it is a tap, across a reload in the window or after it.
    @Test(arguments: [(1300.0, Int64?.none, false), (1300, 1150, false), (2500, 1150, true), (2500, 2000, true)])
    func aTap_inOrAfterTheWindow_acrossAReload(tapAt: Double, reloadAt: Int64?, heard: Bool) throws {
        let (lines, _) = try Self.dropThenTap("[[region]]\nname = \"page\"\nstandard_gestures = true\n", tapAt: tapAt, reloadAt: reloadAt)
        #expect(lines.contains { $0.contains(#""gesture":"tap""#) } == heard, "\(lines)")
        #expect(!lines.contains { $0.contains(#""gesture":"long_press""#) }, "the drop: \(lines)")
        #expect(!lines.contains { $0.contains(#""type":"touch""#) && $0.contains("\"x\":10") }, "the drop in a touch line: \(lines)")
    }
}
