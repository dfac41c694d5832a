import GestureConfig
import GestureEngine
import Logging
import Testing
import TouchFrames
import TouchInput

@testable import Daemon
@testable import Pipeline

/// A new panel's route rehearsed on a made-up stroke before its first touch: the copy runs the
/// decoder, the mirror's frames, the engine and the lines, through the lifecycle's own read
/// path; the panel itself, its mirror and the clients see nothing of it.
@Suite struct RehearsalTests {
    static let passThrough = "[device]\nmode = \"passthrough\"\n"

    final class Owner: DeviceOwner {
        func added(_ device: RouteDevice, _ state: inout FrameState) {}
        func removed(_ device: RouteDevice, _ state: inout FrameState) {}
        func woke(by id: UInt32, inTheDark: Bool, _ state: inout FrameState) {}
    }

    static func lifecycle(_ config: String = "") throws -> DeviceLifecycle<Owner> {
        let loop = try EventLoop()
        let log = Logger(label: "rehearsal")
        let base = try ConfigLoader.parse(config, file: "rehearsal.toml")
        return DeviceLifecycle(loop: loop, log: log, actions: ActionRunner(loop: loop, log: log, maxChildren: 1, runnerSocket: nil, verbose: false), base: base)
    }

    /// Every frame of the stroke, through every stage of the copy.
    static let strokeFrames = RehearsalStroke.dragFrames + RehearsalStroke.pinchFrames + 4

    @Test func theCopy_runsEveryStage_onADragAndAPinch() throws {
        let rig = try RouteRig("pinch-out-and-turn", config: Self.passThrough, mirrored: true)
        let made = try Self.lifecycle().rehearse(rig.state.devices.all[0])
        #expect(made.frames == Self.strokeFrames)
        #expect(made.mirrorWrites >= made.frames, "each frame written to the copy's mirror")
        #expect(made.gesturesBegan.isSuperset(of: [.pan, .pinch]), "\(made.gesturesBegan)")
        #expect(made.lineBytes > 0, "the lines encoded")
    }

    /// A live panel's reads come in the kernel's layout: the copy is fed the same way.
    @Test func aLivePanelsCopy_readsTheKernelsLayout() throws {
        let rig = try RouteRig("pinch-out-and-turn")
        var device = rig.state.devices.all[0]
        let d = device.source.description
        device = RouteDevice(id: 1, source: RecordedSource(d, node: "kernel-layout", kernelLayout: true), pipeline: device.pipeline, health: device.health)
        let made = try Self.lifecycle().rehearse(device)
        #expect(made.frames == Self.strokeFrames && made.gesturesBegan.contains(.pinch))
        #expect(made.kernelLayoutReads == made.frames, "every read in the kernel's layout")
        let replayed = try Self.lifecycle().rehearse(rig.state.devices.all[0])
        #expect(replayed.kernelLayoutReads == 0 && replayed.frames == Self.strokeFrames, "a replay's copy reads decoded events")
    }

    @Test func thePanel_itsMirror_andItsClients_seeNothing() throws {
        var rig = try RouteRig("double-tap", config: Self.passThrough, mirrored: true)
        let before = rig.state.devices.all[0].pipeline.decoder.frameCount
        let devices = try Self.lifecycle()
        devices.rehearse(rig.state.devices.all[0])
        #expect(rig.mirror.writes.isEmpty, "nothing on the panel's mirror")
        #expect(rig.state.devices.all[0].pipeline.decoder.frameCount == before)
        #expect(rig.state.devices.all[0].pipeline.isIdle && !devices.rehearsal.running)
        // The recording's own gestures come out as they would without the rehearsal.
        var plain = try RouteRig("double-tap", config: Self.passThrough, mirrored: true)
        rig.playAll()
        plain.playAll()
        #expect(rig.lines == plain.lines && !rig.lines.isEmpty)
        #expect(MirrorAheadTests.events(rig.mirror.writes) == MirrorAheadTests.events(plain.mirror.writes))
    }

    /// Without pass-through there is no mirror to copy; the engine's part is rehearsed.
    @Test func withoutAMirror_theEngineIsRehearsed() throws {
        let rig = try RouteRig("double-tap")
        let made = try Self.lifecycle().rehearse(rig.state.devices.all[0])
        #expect(made.mirrorWrites == 0 && made.gesturesBegan.contains(.pan))
    }

    /// Added through the lifecycle: the first panel of a kind is rehearsed, a like one is not, a
    /// live one (the kernel's layout) is; and the added panels' own state is as the add left it.
    @Test func adding_rehearsesEachKindOfRouteOnce() throws {
        let devices = try Self.lifecycle()
        let rig = try RouteRig("double-tap")
        let d = rig.state.devices.all[0].source.description
        var state = FrameState(fanout: Fanout(coalesceNs: 0, outputBufferBytes: 1 << 16))
        try devices.add(RecordedSource(d, node: "a"), &state)
        #expect(devices.rehearsal.kinds.count == 1 && devices.rehearsal.runs == 1)
        try devices.add(RecordedSource(d, node: "b"), &state)
        #expect(devices.rehearsal.kinds.count == 1 && devices.rehearsal.runs == 1)
        try devices.add(RecordedSource(d, node: "kernel-layout", kernelLayout: true), &state)
        #expect(devices.rehearsal.kinds.count == 2 && devices.rehearsal.runs == 2 && !devices.rehearsal.running)
        #expect(state.devices.all.count == 3)
        for k in state.devices.all.indices { #expect(state.devices.all[k].pipeline.decoder.frameCount == 0) }
    }

    /// A storm of like panels is rehearsed once: the key is what decides the frame path's code.
    @Test func likePanels_shareAKey_andAMirrorOrOtherFilters_makeAnother() throws {
        let a = try RouteRig("double-tap", config: Self.passThrough, mirrored: true)
        let b = try RouteRig("double-tap", config: Self.passThrough, mirrored: true)
        let plain = try RouteRig("double-tap")
        let g = GeometryConfiguration()
        var filtered = g, calibrated = g
        filtered.filters.dejitter = .init(minCutoff: 1)
        calibrated.calibration = [1.1, 0, 0, 0, 1, 0]
        var screen = g
        screen.screenWidth = 800
        let key = Rehearsal.Key(a.state.devices.all[0], g)
        #expect(key == Rehearsal.Key(b.state.devices.all[0], g))
        #expect(key == Rehearsal.Key(a.state.devices.all[0], screen), "a screen's size runs the same code")
        #expect(key != Rehearsal.Key(plain.state.devices.all[0], g))
        #expect(key != Rehearsal.Key(a.state.devices.all[0], filtered))
        #expect(key != Rehearsal.Key(a.state.devices.all[0], calibrated))
    }

    /// The kinds kept are bounded: past `most`, forgotten.
    @Test func theKindsKept_areBounded() throws {
        let rig = try RouteRig("double-tap")
        var stage = Rehearsal.Stage()
        for k in 0..<(3 * Rehearsal.Stage.most) {
            var g = GeometryConfiguration()
            g.rotation = [0, 90, 180, 270][k % 4]
            g.filters.dejitter = .init(minCutoff: Double(k + 1))
            let new = stage.isNew(Rehearsal.Key(rig.state.devices.all[0], g))
            #expect(new)
            #expect(stage.kinds.count <= Rehearsal.Stage.most)
        }
    }
}
