import Pipeline

/// The devices as the route's environment: the loop's clock, and the daemon's stage (the
/// log, the actions' runner, the idle watch), which the route's last stage calls when an input
/// needs it (Route.swift).
extension DeviceLifecycle: RouteEnvironment {
    var turnStarted: Int64 { loop.turnStarted }

    /// True when a live read stopped at a SYN_DROPPED.
    @discardableResult @inline(__always)  // (a read's way: one call from the reader's closure to the route's stages)
    func route(_ input: RouteInput, _ k: Int, _ state: inout FrameState) -> Bool {
        let lost = DeviceTable.run(input, k, &state, self)
        if state.devices.all[k].remapDue { remapIfIdle(k, &state) }
        return lost
    }

    /// The daemon's stage: the transitions traced, the wake told, failed writes logged
    /// (throttled), the actions fired.
    func daemonStage(_ k: Int, _ report: RouteReport, _ state: inout FrameState) {
        // A rehearsal's copy (`Rehearsal`): nothing of it reaches the daemon.
        guard !rehearsal.running else { return }
        let id = state.devices.all[k].id
        if report.traced {
            for t in state.devices.output.transitions {
                log.trace("\(state.devices.all[k].pipeline.gestureName(t.gesture)) \(t.from) --\(t.input)--> \(t.to)\(t.reason.map { " (\($0))" } ?? "")")
            }
        }
        if report.woke { owner?.woke(by: id, inTheDark: report.wokeInTheDark, &state) }
        if report.mirrorFailed, let f = state.devices.takeMirrorFailure(k) {
            log.warning("device \(id): its virtual touchscreen was not written (\(f.count) failed so far): \(f.error)")
        }
        if report.pointerFailed, let f = state.devices.pointer.takeFailure() {
            log.warning("the virtual pointer was not written (\(f.count) failed so far): \(f.error)")
        }
        guard report.fired else { return }
        for firing in state.devices.output.firings {
            actions.fire(
                firing.action, .init(event: state.devices.output.events[firing.event], gestureName: firing.gesture, region: firing.region, device: id), &state)
        }
    }
}
