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
    /// touch sequence is swallowed (the route's wake stage).
    var asleep = false
    /// `[idle] display`: a touch landing on a panel with no finger on it, while the displays are
    /// dark, wakes the kiosk as one after `[idle] after` does. Nil: not watched.
    var display: DisplayWatch? { didSet { watchesDisplay = display != nil } }
    /// `display != nil`, kept as a flag: every read asks it, and asking the optional copied the
    /// watch (its arrays retained) on each read.
    private var watchesDisplay = false
    /// The last wake was a touch on a dark display (for the log).
    var wokeInTheDark = false
    /// The virtual pointer the pointer regions drive (`emulate = "pointer"`): what a pipeline
    /// made for it is written after each of its runs, in one write (the route's pointer stage).
    var pointer: VirtualPointer?
    var pointerFailures = FailureThrottle()
    var pointerOps = 0

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

    /// The newest frame of any device (monotonic ns), for the idle watch.
    var lastFrameAt: Int64? { all.compactMap(\.health.lastFrameAt).max() }

    /// The fan-out stage: what device `k`'s pipeline made (in `output`, read in place) to
    /// `fanout`; whether actions fired and transitions were traced. A line's latency starts at
    /// its input: the kernel's timestamp of the first frame behind it (CLOCK_MONOTONIC), or,
    /// for lines no frame led to (a deadline), this turn.
    mutating func handOff(_ k: Int, to fanout: inout Fanout, turn: EventLoop) -> (fired: Bool, traced: Bool) {
        guard !output.isEmpty else { return (false, false) }
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
        return (!output.firings.isEmpty, !output.transitions.isEmpty)
    }

    mutating func replacePipeline(_ k: Int, with pipeline: DevicePipeline) {
        all[k].pipeline = pipeline
        refresh(k)
    }

    mutating func markEnded(_ k: Int) { all[k].ended = true }

    /// Device `k`'s mirror follows a reload's calibration and rotation (`Mirror.remap`).
    mutating func remapMirror(_ k: Int, to geometry: MirrorGeometry?, panel: DeviceDescription) -> Bool {
        all[k].mirror?.remap(to: geometry, panel: panel) ?? true
    }

    /// Device `k`'s mirror write failure to log now, if any (throttled), with the count.
    mutating func takeMirrorFailure(_ k: Int) -> (error: SystemCallError, count: Int)? {
        all[k].mirror?.failures.take()
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
    mutating func refresh(_ k: Int, force: Bool = false) {
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

/// The route's per-frame stages, on device `k` of the table, in order: each has one job, sees
/// the input or the pipeline's output once, and says what it did in the report.
extension DeviceTable {
    // Inlined into each call of `Devices.route`, where the input's case is known: the stages
    // that do not apply to it fold away.
    @inline(__always)
    mutating func run(_ input: RouteInput, _ k: Int, turn: EventLoop) -> RouteReport {
        var report = RouteReport()
        if case .read(let batch) = input { report.woke = wake(k, batch, turn) }
        // Pass-through: a read goes on to the compositor as it came, less the touches a system
        // gesture took. Where a gesture may hold touches back, the pipeline says which first;
        // else the compositor gets the read before the recognizers run, and a gesture that
        // begins in it cancels its touches just after.
        let mirrored = all[k].mirrored
        let passFirst = mirrored && !all[k].pipeline.holdsTouches
        if passFirst, case .read(let batch) = input { report.writeFailed = all[k].mirror!.pass(batch) }
        runPipeline(k, input)
        if !output.pointerOps.isEmpty { report.writeFailed = writePointer() || report.writeFailed }
        var mirrorMoved = false
        if mirrored, input.reachesMirror {
            let m = updateMirror(k, input, now: input.monotonic ?? turn.turnStarted, passed: passFirst)
            mirrorMoved = m.dueMoved
            report.writeFailed = m.failed || report.writeFailed
        }
        count(k)
        refresh(k, force: mirrorMoved)
        return report
    }

    /// Wake: while the kiosk sleeps, the read in which a touch lands wakes it, and its touch
    /// sequence is swallowed (the pipeline's and the mirror's).
    @inline(__always)
    private mutating func wake(_ k: Int, _ batch: InputBatch, _ turn: EventLoop) -> Bool {
        wokeInTheDark = false
        if watchesDisplay && !asleep && all[k].pipeline.decoder.frame.contacts.isEmpty && batch.landsATouch
            && quietBefore(k, turn) && display?.isDark() == true
        {
            asleep = true
            wokeInTheDark = true
        }
        guard asleep && batch.landsATouch else { return false }
        asleep = false
        all[k].pipeline.swallowSequence()
        all[k].mirror?.swallowNewTouches()
        return true
    }

    /// Device `k`'s last frame was `DisplayWatch.quietNanoseconds` or more before this read (or it had
    /// none): a touch landing then may be the first on a display darkened since.
    private func quietBefore(_ k: Int, _ turn: EventLoop) -> Bool {
        guard let last = all[k].health.lastFrameAt else { return true }
        return turn.turnStarted - last >= DisplayWatch.quietNanoseconds
    }

    /// The pipeline: the read decoded and recognized, the deadlines fired each at its own time,
    /// or what was under way cancelled, into the table's one output.
    @inline(__always)
    private mutating func runPipeline(_ k: Int, _ input: RouteInput) {
        output.removeAll()
        switch input {
        case .read(let batch):
            if batch.resynced { all[k].health.resyncs += 1 }
            all[k].pipeline.feed(batch, into: &output)
        case .deadlines(let now):
            let engineNow = all[k].source.engineTime(atMonotonic: now)
            while let t = all[k].pipeline.nextDeadline, t <= engineNow {
                all[k].pipeline.advance(to: t, into: &output)
            }
        case .removal(let now):
            all[k].pipeline.deviceRemoved(at: all[k].source.engineTime(atMonotonic: now), into: &output)
        }
    }

    /// The pointer: the pointer ops of the output to the virtual pointer, in one write; whether
    /// it failed.
    @inline(__always)
    private mutating func writePointer() -> Bool {
        guard let pointer else { return false }
        pointerOps += output.pointerOps.count
        return pointerFailures.note(pointer.send(output.pointerOps))
    }

    /// The mirror's update: what the pipeline decided of the panel's touches (those a system
    /// gesture took, those a delaying gesture may still take; on a deadline, held ones due for
    /// replay), then, where the pipeline had to speak first, the read itself. Whether a write
    /// failed, and whether when a held touch is due changed (the deadline moves).
    @inline(__always)
    private mutating func updateMirror(_ k: Int, _ input: RouteInput, now: Int64, passed: Bool) -> (failed: Bool, dueMoved: Bool) {
        if case .deadlines = input { all[k].pipeline.collectHeld(into: &output) }
        var failed = all[k].mirror!.update(cancel: output.cancelledSlots, hold: output.heldSlots, bound: output.holdBound, now: now)
        if !passed, case .read(let batch) = input { failed = all[k].mirror!.pass(batch) || failed }
        let due = all[k].mirror!.releaseDue
        guard due != all[k].mirrorDue else { return (failed, false) }
        all[k].mirrorDue = due
        return (failed, true)
    }

    /// The counts: events and frames, the panel's and the table's, and when its last frame was.
    @inline(__always)
    private mutating func count(_ k: Int) {
        all[k].health.events += output.eventCount
        guard output.frameCount > 0 else { return }
        frames += output.frameCount
        all[k].health.frames += output.frameCount
        all[k].health.lastFrameAt = all[k].source.monotonic(of: output.lastFrameTime!)
    }
}
