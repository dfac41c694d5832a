import GestureConfig
import TouchFrames
import GestureEngine
import Pipeline
import SystemCalls
import TouchInput

/// The devices' per-frame state in one value: each device (its pipeline, deadline, health), the
/// one output buffer every pipeline fills in turn, and the totals the daemon reads every
/// wake-up. It lives in the frame state beside the fan-out; `Devices` changes it, and a read's whole
/// trip through a pipeline is one mutating call here.
struct DeviceTable {
    private(set) var all: [Device] = []
    /// What the last fill made (emptied by the next fill, so the fan-out reads it in place).
    var output = PipelineOutput()
    /// The earliest engine deadline over all devices (monotonic ns), and the engines' anomalies
    /// added up: kept as pipelines run, so the daemon's every wake-up reads two numbers.
    private(set) var earliestDeadline: Int64?
    private(set) var anomalies = 0
    /// Frames decoded over all devices (`stats`).
    private(set) var frames = 0
    /// Idle (`[idle] after`): the next read in which a touch lands wakes the kiosk, and its
    /// touch sequence is swallowed; the device it came from is `wokeBy` until the daemon takes it.
    var asleep = false
    private(set) var wokeBy: UInt32?
    /// The virtual pointer the pointer regions drive (`emulate = "pointer"`): what a pipeline
    /// made for it is written after each of its runs, in one write. Failed writes are counted;
    /// the last not yet logged waits for `takePointerFailure`.
    var pointer: VirtualPointer?
    private(set) var pointerFailures = 0
    private(set) var pointerOps = 0
    private var pointerUnreported: SystemCallError?

    /// Every device has ended its input and has nothing under way (`--exit-after-replay`); each
    /// asked where it lies (a `Device` is about a kilobyte).
    var allEndedAndIdle: Bool {
        !all.isEmpty && all.indices.allSatisfy { all[$0].ended && all[$0].pipeline.isIdle }
    }

    func index(of id: UInt32) -> Int? { all.firstIndex { $0.id == id } }

    mutating func add(_ device: Device) {
        all.append(device)
        refresh(all.count - 1)
    }

    /// Takes device `k` out (it went away).
    mutating func take(_ k: Int) -> Device {
        var d = all.remove(at: k)
        d.health.up = false
        d.health.removals += 1
        d.health.errors += d.source.errorCount
        recount()
        return d
    }

    /// A read's batch to device `id`'s mirror (pass-through) and through its pipeline, and what
    /// it made to `fanout`; the device's index when actions fired, transitions were traced or
    /// the mirror's write failed (the caller runs and logs them).
    mutating func feed(_ batch: InputBatch, from id: UInt32, to fanout: inout Fanout, turn: EventLoop) -> Int? {
        guard let k = index(of: id) else { return nil }
        if asleep && batch.landsATouch {
            asleep = false
            wokeBy = id
            all[k].pipeline.swallowSequence()
            all[k].mirror?.swallowNewTouches()
        }
        // Pass-through: the read goes on to the compositor as it came, less the touches a system
        // gesture took. Where a gesture may hold touches back, the pipeline says which first;
        // else the compositor gets the read before the recognizers run, and a gesture that
        // begins in it cancels its touches just after.
        var mirrorFailed = false
        let hasMirror = all[k].mirrored
        let first = hasMirror && !all[k].pipeline.holdsTouches
        if first { mirrorFailed = all[k].mirror!.pass(batch) }
        output.removeAll()
        if batch.resynced { all[k].health.resyncs += 1 }
        all[k].pipeline.feed(batch, into: &output)
        if !output.pointerOps.isEmpty { writePointer() }
        var mirrorMoved = false
        if hasMirror {
            let m = updateMirror(k, now: turn.turnStarted)
            mirrorMoved = m.dueMoved
            mirrorFailed = m.failed || mirrorFailed
            if !first { mirrorFailed = all[k].mirror!.pass(batch) || mirrorFailed }
        }
        all[k].health.events += output.eventCount
        if output.frameCount > 0 {
            frames += output.frameCount
            all[k].health.frames += output.frameCount
            all[k].health.lastFrameAt = all[k].source.monotonic(of: output.lastFrameTime!)
        }
        refresh(k, force: mirrorMoved)
        return handOff(k, to: &fanout, turn: turn) || mirrorFailed || wokeBy != nil ? k : nil
    }

    /// The pointer ops in `output` to the virtual pointer, in one write.
    private mutating func writePointer() {
        guard let pointer else { return }
        pointerOps += output.pointerOps.count
        guard let error = pointer.send(output.pointerOps) else { return }
        pointerFailures += 1
        pointerUnreported = error
    }

    /// The pointer's write failure to log now, if any: the first, then every 1000th.
    mutating func takePointerFailure() -> (error: SystemCallError, count: Int)? {
        defer { pointerUnreported = nil }
        guard let e = pointerUnreported, pointerFailures == 1 || pointerFailures % 1000 == 0 else { return nil }
        return (e, pointerFailures)
    }

    /// Device `k`'s mirror hears what the pipeline decided of its touches (in `output`): whether
    /// its write failed, and whether when a held touch is due changed (the deadline moves).
    private mutating func updateMirror(_ k: Int, now: Int64) -> (failed: Bool, dueMoved: Bool) {
        let failed = all[k].mirror!.update(cancel: output.cancelledSlots, hold: output.heldSlots, bound: output.holdBound, now: now)
        let due = all[k].mirror!.releaseDue
        guard due != all[k].mirrorDue else { return (failed, false) }
        all[k].mirrorDue = due
        return (failed, true)
    }

    /// The device whose touch woke the kiosk, once.
    mutating func takeWoke() -> UInt32? {
        defer { wokeBy = nil }
        return wokeBy
    }

    /// The newest frame of any device (monotonic ns), for the idle watch.
    var lastFrameAt: Int64? { all.compactMap(\.health.lastFrameAt).max() }

    /// Hands what device `k`'s pipeline made (in `output`, read in place) to `fanout`; whether
    /// actions fired or transitions were traced. A line's latency starts at its input: the
    /// kernel's timestamp of the first frame behind it (CLOCK_MONOTONIC), or, for lines no frame
    /// led to (a deadline), this turn.
    mutating func handOff(_ k: Int, to fanout: inout Fanout, turn: EventLoop) -> Bool {
        guard !output.isEmpty else { return false }
        // The frames' monotonic times, worked out here: a call to a method of `self` for them
        // copied the whole table (memcpy) every frame.
        let since: Int64, last: Int64
        if let first = output.firstFrameTime {
            let source = all[k].source
            since = source.monotonic(of: first)
            last = output.frameCount > 1 ? output.lastFrameTime.map { source.monotonic(of: $0) } ?? since : since
        } else {
            since = turn.turnStarted  // read (a clock read on the turn's first ask) only here
            last = since
        }
        fanout.deliver(&output, device: all[k].id, since: since, lastFrame: last)
        return !output.firings.isEmpty || !output.transitions.isEmpty || pointerUnreported != nil
    }

    /// Fires device `k`'s deadlines due by monotonic time `now`, each at its own time (the
    /// caller hands the output on).
    mutating func advance(_ k: Int, toMonotonic now: Int64) {
        output.removeAll()
        let engineNow = all[k].source.engineTime(atMonotonic: now)
        while let t = all[k].pipeline.nextDeadline, t <= engineNow {
            all[k].pipeline.advance(to: t, into: &output)
        }
        if !output.pointerOps.isEmpty { writePointer() }
        // A gesture that fired on its deadline takes its touches; held ones are due for replay.
        // (A failed write is counted in the mirror and logged with the device's next hand-off.)
        var mirrorMoved = false
        if all[k].mirrored {
            all[k].pipeline.collectHeld(into: &output)
            mirrorMoved = updateMirror(k, now: now).dueMoved
        }
        refresh(k, force: mirrorMoved)
    }

    /// Device `k` went away (or its geometry changed): its gestures end `cancelled`.
    mutating func removeDevice(_ k: Int, atMonotonic now: Int64) {
        output.removeAll()
        all[k].pipeline.deviceRemoved(at: all[k].source.engineTime(atMonotonic: now), into: &output)
        if !output.pointerOps.isEmpty { writePointer() }
        refresh(k)
    }

    mutating func replacePipeline(_ k: Int, with pipeline: DevicePipeline) {
        all[k].pipeline = pipeline
        refresh(k)
    }

    mutating func markEnded(_ k: Int) { all[k].ended = true }

    /// Device `k`'s mirror failure to log now, if any (`Mirror.takeFailure`), with the count.
    mutating func mirrorFailure(_ k: Int) -> (error: SystemCallError, count: Int)? {
        guard let e = all[k].mirror?.takeFailure() else { return nil }
        return (e, all[k].mirror?.failures ?? 0)
    }

    mutating func reconfigure(_ next: CompiledConfiguration, file: Configuration) {
        for k in all.indices {
            all[k].pipeline.reconfigure(next, file: file)
            refresh(k)
        }
    }

    /// Takes device `k`'s deadline and anomalies after its pipeline ran; the totals are worked
    /// out again only when they changed (on most frames they do not).
    /// `force`: the mirror's due time moved (the engine's deadline is compared here).
    private mutating func refresh(_ k: Int, force: Bool = false) {
        let t = all[k].pipeline.nextDeadline
        let a = all[k].pipeline.anomalies
        guard force || t != all[k].engineDeadline || a != all[k].anomalies else { return }
        all[k].engineDeadline = t
        let engine = t.map { all[k].source.monotonic(of: $0) }
        // The engine's next deadline, or a mirror's touch held back, whichever comes first.
        if let m = all[k].mirrorDue { all[k].monotonicDeadline = min(engine ?? m, m) } else { all[k].monotonicDeadline = engine }
        all[k].anomalies = a
        recount()
    }

    private mutating func recount() {
        var earliest: Int64?
        var total = 0
        for d in all {
            total += d.anomalies
            if let m = d.monotonicDeadline, earliest == nil || m < earliest! { earliest = m }
        }
        earliestDeadline = earliest
        anomalies = total
    }
}

extension DevicePipeline {
    /// A reader's batch, through the span of the events it holds (one of its two lists).
    mutating func feed(_ batch: InputBatch, into out: inout PipelineOutput) {
        if batch.kernelEvents.isEmpty {
            feed(batch.events.span, resynced: batch.resynced, into: &out)
        } else {
            feed(kernel: batch.kernelEvents.span, into: &out)
        }
    }
}
