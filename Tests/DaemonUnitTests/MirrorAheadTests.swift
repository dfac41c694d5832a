import GestureConfig
import GestureEngine
import Testing
import TouchFrames
import TouchInput

@testable import Daemon
@testable import Pipeline

/// The mirror ahead of the engine: in pass-through, when the engine can take and hold nothing of
/// the panel's contacts, each frame is written to the mirror as it is decoded, before the
/// gestures' work; what the app sees is the same, frame for frame.
@Suite struct MirrorAheadTests {
    static let passThrough = "[device]\nmode = \"passthrough\"\n"

    @Test func plainPassThrough_showsTheSameFrames_aheadOfTheEngine_asBehindIt() throws {
        for name in ["pinch-out-and-turn", "double-tap", "long-press-then-move", "edge-swipe-from-left", "palm-cancels-pan", "two-visitors"] {
            var ahead = try RouteRig(name, config: Self.passThrough, mirrored: true)
            let leaves = ahead.state.devices.all[0].pipeline.leavesTheMirror
            #expect(leaves, "\(name)")
            ahead.playAll()
            var behind = try RouteRig(name, config: Self.passThrough, mirrored: true)
            behind.state.devices.all[0].pipeline.leavesTheMirror = false
            behind.playAll()
            #expect(!ahead.mirror.writes.isEmpty, "\(name)")
            let went = ahead.state.devices.all[0].shownAhead, stayed = behind.state.devices.all[0].shownAhead
            #expect(went && !stayed, "\(name): the stage went ahead in one, not in the other")
            #expect(Self.events(ahead.mirror.writes) == Self.events(behind.mirror.writes), "\(name): the same events on the mirror")
            #expect(ahead.lines == behind.lines, "\(name): the same lines")
        }
    }

    /// Every event written, as (type, code, value) in order.
    static func events(_ writes: [[KernelInputEvent]]) -> [[Int32]] {
        writes.joined().map { [Int32($0.type), Int32($0.code), $0.value] }
    }

    /// The stage alone: the decoder's frame goes to the mirror, and the engine has not run on
    /// it (the route runs it before the gestures' stage: RouteStageTests checks the order).
    @Test func theStage_writesTheFrame_withoutTheEngine() throws {
        let rig = try RouteRig("pinch-out-and-turn", config: Self.passThrough, mirrored: true)
        var device = rig.state.devices.all[0]
        let first = Array(rig.events.prefix { !($0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_REPORT) })
            + [InputEvent(time: rig.events[0].time, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0)]
        var i = 0
        #expect(device.pipeline.decoder.feed(first.span, from: &i))
        var output = PipelineOutput(), wake = WakeWatch(), report = RouteReport()
        MirrorAhead.frame(&device, &output, &wake, &report, rig.env)
        #expect(device.shownAhead)
        #expect(rig.mirror.writes.count == 1 && rig.mirror.writes[0].last?.code == Evdev.SYN_REPORT, "the frame, whole, in one write")
        #expect(device.pipeline.engine.isIdle && output.events.isEmpty, "no gesture work came first")
    }

    /// A read of two frames (a daemon that fell behind) is one write ahead as behind: the
    /// frames made ahead are written at the read's last frame, before the engine runs on it.
    @Test func aReadOfTwoFrames_isOneWrite() throws {
        for leaves in [true, false] {
            var rig = try RouteRig("pinch-out-and-turn", config: Self.passThrough, mirrored: true)
            rig.state.devices.all[0].pipeline.leavesTheMirror = leaves
            let frames = rig.events.split(omittingEmptySubsequences: false) { $0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_REPORT }
            let report = InputEvent(time: rig.events[0].time, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0)
            let two = Array(frames[0]) + [report] + Array(frames[1]) + [report]
            rig.read(two, at: rig.events[0].time.nanoseconds)
            #expect(rig.mirror.writes.count == 1, "ahead: \(leaves)")
            let syncs = rig.mirror.writes.joined().filter { $0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_REPORT }.count
            #expect(syncs == 2, "both frames")
        }
    }

    /// Whatever lets the engine take or hold a touch keeps the mirror behind it: a system
    /// gesture (an action bound in pass-through), a region's `max_contacts`, a pointer region;
    /// and without pass-through there is no mirror to show ahead.
    @Test func aTakerOrALimit_keepsTheMirrorBehindTheEngine() throws {
        let rules: [(String, Bool)] = [
            (Self.passThrough, true),
            ("", false),
            (Self.passThrough + "[[action]]\nname = \"back\"\ngesture = \"edge_swipe\"\nkeys = \"KEY_LEFTALT+KEY_LEFT\"\n", false),
            (Self.passThrough + "[[region]]\nname = \"map\"\nrect = [0, 0, 500, 500]\nmax_contacts = 1\nstandard_gestures = true\n", false),
            (Self.passThrough + "[[region]]\nname = \"pad\"\nrect = [0, 0, 500, 500]\nemulate = \"pointer\"\n", false),
        ]
        for (config, leaves) in rules {
            let rig = try RouteRig("tap", config: config, mirrored: true)
            let got = rig.state.devices.all[0].pipeline.leavesTheMirror
            #expect(got == leaves, "\(config)")
        }
    }

    /// A configuration that waits for the next sequence (a reload, a client's regions) may
    /// take: the mirror waits for the engine from the moment it is given, and goes ahead again
    /// only once a configuration that takes nothing runs.
    @Test func aConfigurationWaitingForTheNextSequence_keepsTheMirrorBehind() throws {
        var rig = try RouteRig("long-press-then-move", config: Self.passThrough, mirrored: true)
        let frames = rig.events.split(omittingEmptySubsequences: false) { $0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_REPORT }
        let report = InputEvent(time: rig.events[0].time, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0)
        rig.read(Array(frames[0]) + [report], at: rig.events[0].time.nanoseconds)
        let taking = try ConfigLoader.parse(
            Self.passThrough + "[[region]]\nname = \"screen\"\n[[region.gesture]]\nkind = \"pan\"\ncancels_touches = true\n", file: "taking.toml")
        rig.state.devices.reconfigure(CompiledConfiguration(taking.engine), file: taking)
        var leaves = rig.state.devices.all[0].pipeline.leavesTheMirror
        #expect(!leaves, "given while a touch is down: behind at once")
        for (k, f) in frames.enumerated().dropFirst() where !f.isEmpty {
            rig.read(Array(f) + [report], at: f.last!.time.nanoseconds + Int64(k))
        }
        rig.fireDeadlines(until: .max)
        let applied = rig.state.devices.all[0].pipeline.engine.configuration.gestures.contains { $0.spec.cancelsTouches == true }
        leaves = rig.state.devices.all[0].pipeline.leavesTheMirror
        #expect(applied && !leaves, "the new configuration applied, and takes")
        let plain = try ConfigLoader.parse(Self.passThrough, file: "plain.toml")
        rig.state.devices.reconfigure(CompiledConfiguration(plain.engine), file: plain)
        leaves = rig.state.devices.all[0].pipeline.leavesTheMirror
        #expect(!leaves, "until it applies")
        rig.read(Array(frames[0]) + [report], at: rig.events.last!.time.nanoseconds + 1_000_000_000)
        leaves = rig.state.devices.all[0].pipeline.leavesTheMirror
        #expect(leaves, "it applied at the next sequence and takes nothing")
    }
}
