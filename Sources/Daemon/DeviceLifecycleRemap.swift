import GestureEngine
import Pipeline
import TouchMirror

/// A reload's new geometry or filters on each panel: a new pipeline (and the mirror's
/// positions) once the panel's gestures are idle, so the touch sequence under way ends under
/// the mapping it began with; at the latest `remapWaitNs` after the reload, so a contact that
/// never lifts (a stuck one, with no stuck filter to end it) holds the new settings back no longer.
extension DeviceLifecycle {
    /// How long (ns of the panel's clock) a reload's new geometry or filters wait for the
    /// gestures under way to end before they apply anyway, ending those gestures `cancelled`.
    static var remapWaitNs: Int64 { 10_000_000_000 }

    /// A reload changed the geometry ([screen], [device]) or the filters: each device gets a new
    /// pipeline once its panel is idle, or `remapWaitNs` later (`remapIfIdle`).
    func remap(_ state: inout FrameState) {
        let now = monotonicNanoseconds()
        for k in state.devices.all.indices {
            let source = state.devices.all[k].source
            let by = source.monotonic(of: Timestamp(nanoseconds: source.engineTime(atMonotonic: now).nanoseconds &+ Self.remapWaitNs))
            // Counted from the first reload still waiting (reloads every few seconds must not
            // hold it back for good).
            state.devices.setRemapDue(k, by: min(state.devices.all[k].remapBy ?? by, by))
            remapIfIdle(k, &state)
            if state.devices.all[k].remapDue {
                log.info("device \(state.devices.all[k].id): the new geometry or filters apply once the gesture under way there ends (in \(Self.remapWaitNs / 1_000_000_000) s at the latest)")
            }
        }
    }

    /// Device `k`'s new pipeline, once its gestures are idle (no contact they see is down, none
    /// under way or waiting): a reload applies from the next touch sequence (the one under way
    /// ends as it began, under the mapping it began with). A contact the gestures do not see
    /// (ended as stuck, in a dead zone) does not hold it back; past its wait (`remapWaitNs`), the
    /// gestures under way end `cancelled` and it applies. A new pipeline numbers its gestures
    /// on (`DeviceTable.replacePipeline`).
    func remapIfIdle(_ k: Int, _ state: inout FrameState) {
        guard !rehearsal.running, let by = state.devices.all[k].remapBy else { return }
        // A panel with no more input keeps its pipeline (and its deadline goes).
        guard !state.devices.all[k].ended else { return state.devices.setRemapDue(k, by: nil) }
        if !state.devices.all[k].pipeline.isIdle {
            guard monotonicNanoseconds() >= by else { return }
            log.notice("device \(state.devices.all[k].id): a touch held \(Self.remapWaitNs / 1_000_000_000) s past a reload: the new geometry or filters apply now, the gestures under way end cancelled")
        }
        state.devices.setRemapDue(k, by: nil)
        route(.removal(monotonic: monotonicNanoseconds()), k, &state)
        var fresh: DevicePipeline?
        do {
            let pipeline = try makePipeline(state.devices.all[k].source, id: state.devices.all[k].id)
            noteSize(state.devices.all[k].source, pipeline.decoder)
            // A threaded panel's, where the input thread marked it among the reads (else now).
            if state.devices.all[k].thread?.replaceDecoder(with: pipeline.decoder) == true {
                state.devices.all[k].pendingPipelines.append(pipeline)
            } else {
                // Unmarked (the relay full: the thread resyncs, the loop takes its decoder then).
                state.devices.all[k].pendingPipelines.removeAll()
                state.devices.replacePipeline(k, with: pipeline)
            }
            // The thread looks again: a resync to try, or the new filters' first deadline.
            if state.devices.all[k].threaded { input?.nudge() }
            fresh = pipeline
        } catch {
            log.error("device \(state.devices.all[k].id): \(error)")
        }
        remapMirror(k, &state)
        // New filters, a calibration or a turn: other code for its frames, rehearsed as at its start.
        rehearseIfNew(state.devices.all[k], fresh: fresh)
    }

    /// The mirror's positions follow a reload's calibration and rotation, where its axes allow.
    private func remapMirror(_ k: Int, _ state: inout FrameState) {
        guard state.devices.all[k].mirrored else { return }
        let source = state.devices.all[k].source
        let g = geometry(of: source)
        let panel = source.description
        let mapped = panel.positionAxes.flatMap { MirrorGeometry(x: $0.x, y: $0.y, calibration: g.calibration, rotation: g.rotation) }
        if !state.devices.remapMirror(k, to: mapped, panel: panel) {
            log.notice("\(source.node): the rotation turned by a quarter: its virtual touchscreen keeps the old one until the panel is plugged again or the daemon restarts")
        }
    }
}
