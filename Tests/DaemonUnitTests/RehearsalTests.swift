import GestureEngine
import Testing
import TouchFrames

@testable import Daemon
@testable import Pipeline

/// A new panel's route rehearsed on a made-up stroke before its first touch: the copy runs the
/// decoder, the mirror's frames, the engine and the lines; the panel itself, its mirror and the
/// clients see nothing of it.
@Suite struct RehearsalTests {
    static let passThrough = "[device]\nmode = \"passthrough\"\n"

    @Test func theCopy_runsEveryStage_onADragAndAPinch() throws {
        let rig = try RouteRig("pinch-out-and-turn", config: Self.passThrough, mirrored: true)
        let made = Rehearsal.run(rig.state.devices.all[0])
        #expect(made.frames == RehearsalStroke.dragFrames + RehearsalStroke.pinchFrames + 4)
        #expect(made.mirrorWrites >= made.frames, "each frame written to the copy's mirror")
        #expect(made.gesturesBegan.isSuperset(of: [.pan, .pinch]), "\(made.gesturesBegan)")
        #expect(made.lineBytes > 0, "the lines encoded")
    }

    @Test func thePanel_itsMirror_andItsClients_seeNothing() throws {
        var rig = try RouteRig("double-tap", config: Self.passThrough, mirrored: true)
        let before = rig.state.devices.all[0].pipeline.decoder.frameCount
        Rehearsal.run(rig.state.devices.all[0])
        #expect(rig.mirror.writes.isEmpty, "nothing on the panel's mirror")
        #expect(rig.state.devices.all[0].pipeline.decoder.frameCount == before)
        #expect(rig.state.devices.all[0].pipeline.isIdle)
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
        let made = Rehearsal.run(rig.state.devices.all[0])
        #expect(made.mirrorWrites == 0 && made.gesturesBegan.contains(.pan))
    }

    /// A storm of like panels is rehearsed once: the key is what decides the frame path's code.
    @Test func likePanels_shareAKey_andAMirrorOrOtherFilters_makeAnother() throws {
        let a = try RouteRig("double-tap", config: Self.passThrough, mirrored: true)
        let b = try RouteRig("double-tap", config: Self.passThrough, mirrored: true)
        let plain = try RouteRig("double-tap")
        let g = GeometryConfiguration()
        var filtered = g
        filtered.filters.dejitter = .init(minCutoff: 1)
        #expect(Rehearsal.Key(a.state.devices.all[0], g) == Rehearsal.Key(b.state.devices.all[0], g))
        #expect(Rehearsal.Key(a.state.devices.all[0], g) != Rehearsal.Key(plain.state.devices.all[0], g))
        #expect(Rehearsal.Key(a.state.devices.all[0], g) != Rehearsal.Key(a.state.devices.all[0], filtered))
    }
}
