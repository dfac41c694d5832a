import Pipeline
import TouchInput

/// The route's per-frame stages, on device `k` of the table, in order: each has one job, sees
/// the input or the pipeline's output once, and says what it did in the report.
extension DeviceTable {
    // Inlined into each call of `Devices.route`, where the input's case is known: the stages
    // that do not apply to it fold away.
    @inline(__always)
    mutating func run(_ input: RouteInput, _ k: Int, turn: EventLoop) -> RouteReport {
        var report = RouteReport()
        if case .read(let batch) = input { report.woke = wake(k, batch) }
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
    private mutating func wake(_ k: Int, _ batch: InputBatch) -> Bool {
        guard asleep && batch.landsATouch else { return false }
        asleep = false
        all[k].pipeline.swallowSequence()
        all[k].mirror?.swallowNewTouches()
        return true
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
