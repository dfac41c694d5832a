import GestureEngine
import Logging
import Pipeline
import TouchFrames
import TouchInput

/// A panel's route rehearsed before its first touch (`Rehearsal`): a copy, in a frame state of
/// its own, fed the made-up stroke through `delivered` as the panel's reads will be.
extension DeviceLifecycle {
    /// Rehearses `device`'s route unless a route of its kind (`Rehearsal.Key`) was; `fresh`: its
    /// pipeline as made, before it was seeded with the panel's contacts or continued from an
    /// earlier one (the copy starts from an empty panel). Not inlined: the instruction counts
    /// leave it out by name (`scripts/count-daemon`, the guest's `bench_instructions`).
    /// `threadPath`: a threaded panel's mirror (what it is made of), whose input thread's path is
    /// rehearsed too.
    @inline(never)
    func rehearseIfNew(_ device: borrowing RouteDevice, fresh: DevicePipeline? = nil, threadPath: MirrorParts? = nil) {
        guard rehearsal.isNew(Rehearsal.Key(device, geometry(of: device.source))) else { return }
        rehearsal.runs += 1
        rehearse(device, pipeline: fresh)
        if let threadPath, let source = device.source as? LiveSource {
            rehearseThreadPath(source, threadPath, decoder: (fresh ?? device.pipeline).decoder)
        }
    }

    /// The input thread's path (`ThreadedPanel`) run on the same stroke, on a panel of its own (its
    /// mirror writes nowhere, its wake flags are its own, its relay is read by no one), on this
    /// thread before the panel is touched: the first touch is not its code's first run either.
    @inline(never)
    func rehearseThreadPath(_ source: LiveSource, _ parts: MirrorParts, decoder: FrameDecoder) {
        let start = Timestamp(nanoseconds: monotonicNanoseconds() / 1000 * 1000)
        let nowhere = MirrorParts(screen: DroppedWrites(), described: parts.described, cancel: parts.cancel, geometry: parts.geometry, adopted: false)
        guard
            let panel = try? ThreadedPanel(
                panel: source.device.fd, node: source.node, slots: source.device.stateSlots, decoder: decoder, mirror: nowhere, ahead: true,
                wake: WakeFlags(), log: log, trace: nil)
        else { return }
        for frame in Rehearsal.frames(for: source.description, from: start) {
            panel.tick(before: frame[frame.count - 1].time)
            InputBatch.lending(kernel: frame.map(KernelInputEvent.init(_:))) { batch in _ = panel.shared.withLock { $0.take(batch, panel: panel) } }
        }
        panel.tick(before: .distantFuture)
    }

    /// Runs a copy of `device`'s route on the stroke, its reads in the panel's own layout, each
    /// at its own time from now on (the monotonic clock, as a live panel's), then the copy's
    /// deadlines; what it made is dropped. `pipeline`: the copy's (nil: the device's own, as
    /// the tests give it).
    @inline(never) @discardableResult
    func rehearse(_ device: borrowing RouteDevice, pipeline: DevicePipeline? = nil) -> Rehearsal.Made {
        let d = device.source.description
        // Whole microseconds: a kernel event's time has no finer part.
        let start = Timestamp(nanoseconds: monotonicNanoseconds() / 1000 * 1000)
        let sink = DroppedWrites()
        var state = FrameState(fanout: Fanout(coalesceNs: 0, outputBufferBytes: 1 << 16))
        state.devices.output.wants = .init(touchLines: true, gestureLines: true, transitions: false)
        state.devices.add(
            RouteDevice(
                id: device.id, source: RecordedSource(d, node: device.source.node), pipeline: pipeline ?? device.pipeline, health: device.health,
                mirror: device.mirrorCopy(writingTo: sink)))
        let kept = trace
        trace = nil
        let wasRunning = rehearsal.running
        rehearsal.running = true
        defer { (trace, rehearsal.running) = (kept, wasRunning) }
        var made = Rehearsal.Made()
        let kernelLayout = device.source.deliversKernelLayout
        for frame in Rehearsal.frames(for: d, from: start) {
            let t = frame[frame.count - 1].time.nanoseconds
            rehearseDeadlines(until: t, &state, &made)
            loop.withTurnClock(at: t) {
                if kernelLayout {
                    let events = frame.map {
                        KernelInputEvent(
                            seconds: Int($0.time.nanoseconds / 1_000_000_000), microseconds: Int($0.time.nanoseconds % 1_000_000_000 / 1000),
                            type: $0.type, code: $0.code, value: $0.value)
                    }
                    _ = InputBatch.lending(kernel: events) { delivered($0, from: device.id, &state) }
                    made.kernelLayoutReads += 1
                } else {
                    _ = InputBatch.lending(frame) { delivered($0, from: device.id, &state) }
                }
            }
            made.note(state.devices.output)
            _ = state.endTurn(turnClock: t)
        }
        rehearseDeadlines(until: .max, &state, &made)
        made.mirrorWrites = sink.writes
        return made
    }

    /// The copy's deadlines due by `t` (a tap's wait, a long press's), each at its own time; at
    /// most 256 (a route that keeps finding one due ends the rehearsal there).
    private func rehearseDeadlines(until t: Int64, _ state: inout FrameState, _ made: inout Rehearsal.Made) {
        var fired = 0
        while let due = state.devices.earliestDeadline, due <= t, fired < 256 {
            loop.withTurnClock(at: due) { _ = route(.deadlines(monotonic: due), 0, &state) }
            made.note(state.devices.output)
            _ = state.endTurn(turnClock: due)
            fired += 1
        }
    }
}
