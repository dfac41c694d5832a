import TouchInput

/// What enters a device's route: a read's batch, the clock reaching its deadlines, or its going
/// away (monotonic ns).
enum RouteInput {
    case read(InputBatch)
    case deadlines(monotonic: Int64)
    case removal(monotonic: Int64)

    /// The mirror hears reads and deadlines; a removal's mirror lifts what it holds as it goes
    /// (`Devices.remove`), and a remap keeps what it shows.
    var reachesMirror: Bool {
        if case .removal = self { return false }
        return true
    }

    /// Its time, for a deadline or a removal (a read's is the turn's, read only if asked).
    var monotonic: Int64? {
        switch self {
        case .read: return nil
        case .deadlines(let now), .removal(let now): return now
        }
    }
}

/// What the route's stages did, gathered as they run; the last stages act on it.
struct RouteReport {
    /// A touch in this read woke the kiosk.
    var woke = false
    /// A write to the mirror or the virtual pointer failed (its notice is logged, throttled).
    var writeFailed = false
    /// The fan-out was handed actions that fired, or transitions traced (`--verbose`).
    var fired = false
    var traced = false
}

/// The route: one input through one device, each stage once, in this order (ARCHITECTURE.md
/// draws it). The per-frame stages are the device table's (`DeviceTable.run` in DeviceTable.swift: wake, mirror
/// pre-pass, pipeline, pointer, mirror update, counts); the fan-out is the frame state's; the
/// last (trace, wake notice, write failures, actions) are the daemon's, which owns the log, the
/// actions' runner and the idle watch. A new output is one more stage here.
extension Devices {
    @inline(__always)  // (a read's way: one call from the reader's closure to the table's stages)
    func route(_ input: RouteInput, _ k: Int, _ state: inout FrameState) {
        var report = state.devices.run(input, k, turn: loop)
        (report.fired, report.traced) = state.devices.handOff(k, to: &state.fanout, turn: loop)
        guard report.fired || report.traced || report.woke || report.writeFailed else { return }
        finish(k, report, &state)
    }

    /// The daemon's stages, after the fan-out: the transitions traced, the wake told, failed
    /// writes logged (throttled), the actions fired.
    private func finish(_ k: Int, _ report: RouteReport, _ state: inout FrameState) {
        let id = state.devices.all[k].id
        if report.traced {
            for t in state.devices.output.transitions {
                log.trace("\(state.devices.all[k].pipeline.gestureName(t.gesture)) \(t.from) --\(t.input)--> \(t.to)\(t.reason.map { " (\($0))" } ?? "")")
            }
        }
        if report.woke { owner?.woke(by: id, &state) }
        if report.writeFailed {
            if let f = state.devices.takeMirrorFailure(k) {
                log.warning("device \(id): its virtual touchscreen was not written (\(f.count) failed so far): \(f.error)")
            }
            if let f = state.devices.pointerFailures.take() {
                log.warning("the virtual pointer was not written (\(f.count) failed so far): \(f.error)")
            }
        }
        guard report.fired else { return }
        for firing in state.devices.output.firings {
            actions.fire(
                firing.action, .init(event: state.devices.output.events[firing.event], gestureName: firing.gesture, region: firing.region, device: id))
        }
    }
}
