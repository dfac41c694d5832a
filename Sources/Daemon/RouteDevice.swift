import GestureEngine
import GestureProtocol
import Pipeline
import SystemCalls
import TouchFrames
import TouchMirror

/// One touch device in the route: its source, its pipeline (the input stage's decoder and the
/// gesture consumer), its mirror in pass-through mode, its health.
struct RouteDevice {
    let id: UInt32
    let source: InputSource
    var pipeline: DevicePipeline
    var ended = false
    /// A reload changed its geometry or filters while a touch was down or a gesture under way:
    /// its new pipeline waits for the panel to be idle, until `remapBy` (monotonic ns) at the
    /// latest (`DeviceLifecycle.remapIfIdle`; counted in its deadline).
    private(set) var remapBy: Int64?
    var remapDue: Bool { remapBy != nil }
    mutating func setRemapBy(_ t: Int64?) { (remapBy, mirrorDueMoved) = (t, true) }
    /// Its last read ended inside a frame (the rest comes with the next read).
    var midFrame = false
    /// The pipeline's next deadline and anomalies as last seen (`DeviceTable.refresh`), the
    /// deadline also in monotonic time.
    var engineDeadline: Timestamp?
    var monotonicDeadline: Int64?
    var anomalies = 0
    /// Its panel's health (`stats`), carried over from an earlier life of the same panel.
    var health: PanelHealth
    /// Its virtual touchscreen, in pass-through mode (`[device] mode`); `mirrored` says whether
    /// it has one (asked on every frame: asking the optional copied the mirror). When a touch
    /// held back from it must be replayed (monotonic ns; counted in the table's deadline), and
    /// whether that moved since the table last looked.
    private(set) var mirror: Mirror?
    let mirrored: Bool
    /// Its panel's own thread (pass-through, a live panel: `ThreadedPanel`), which reads the panel
    /// and shows the mirror's frames while the engine decides nothing of them. The mirror is then
    /// the thread's, reached through its lock (`mirror` is nil).
    let thread: ThreadedPanel?
    /// `thread != nil`, kept as a flag (asked every frame).
    let threaded: Bool
    /// The engine's say last told the thread (`ThreadedPanel.ahead`).
    private var toldAhead = false
    /// The loop reached the thread's mirror since its last flush: while the thread shows every
    /// frame, the loop's input ends without taking the panel's lock (which the thread, at real
    /// time, would otherwise wait on behind a loop a busy CPU delays).
    private var loopTouchedMirror = false
    /// A reload's pipelines, each taken where the input thread marked it among the reads.
    var pendingPipelines: [DevicePipeline] = []
    private(set) var mirrorDue: Int64?
    /// `mirrorDue` or `remapBy` changed since the table last looked.
    var mirrorDueMoved = false
    /// The last frame went to the mirror ahead of the engine (`MirrorAhead`).
    var shownAhead = false
    /// The frame being routed is the last its read holds: the mirror ahead writes then, so a
    /// read of many frames (a daemon that fell behind) is still one write, made before the
    /// engine runs the last of them. (False for the filters' own frames: the input's end writes
    /// those, however many were due.)
    var endsRead = true

    init(id: UInt32, source: InputSource, pipeline: DevicePipeline, health: PanelHealth, mirror: Mirror? = nil, thread: ThreadedPanel? = nil) {
        self.id = id
        self.source = source
        self.pipeline = pipeline
        self.mirror = thread == nil ? mirror : nil
        self.thread = thread
        threaded = thread != nil
        toldAhead = pipeline.leavesTheMirror
        thread?.ahead.store(toldAhead, ordering: .relaxed)
        mirrored = mirror != nil || thread != nil
        self.health = health
        self.health.up = true
        if mirrored { self.pipeline.decoder.keepsPanel = true }
        // The filters' own frames come in the relay, where the input thread made them.
        if threaded { self.pipeline.ticksRelayed = true }
    }

    /// Its mirror as it is, writing to `sink` (`Rehearsal`'s copy); nil when it has none, or when
    /// its thread has it (the thread's path is its own code, not the route's).
    func mirrorCopy(writingTo sink: any TouchSink) -> Mirror? { mirror?.writing(to: sink) }

    /// `body` on the mirror, wherever it is (this device's, or its thread's, under the lock).
    @inline(__always)
    private mutating func withMirror<R: Sendable>(_ body: (inout Mirror) -> R) -> R {
        guard let thread else { return body(&mirror!) }
        loopTouchedMirror = true
        return thread.shared.withLock { body(&$0.mirror) }
    }

    /// The route's say to the input thread: whether it shows this frame ahead (the engine decides
    /// nothing of it), told when it changes; true when the thread showed it. (The say changes
    /// between sequences, where the engine's configuration changes. Ahead again, the mirror is
    /// shown what the thread's decoder has now, under its lock: the thread is between reads.)
    mutating func threadShows(ahead: Bool) -> Bool {
        guard ahead != toldAhead, let thread else { return ahead }
        toldAhead = ahead
        loopTouchedMirror = true
        thread.shared.withLock { s in
            thread.ahead.store(ahead, ordering: .relaxed)
            guard ahead, let now = s.lastFrameAt else { return }
            s.mirror.frameAhead(
                s.decoder.panel, others: s.decoder.others, discontinuity: s.decoder.frame.discontinuity, stuck: s.decoder.contactsEndedAsStuck,
                now: now)
            _ = s.mirror.flush()
        }
        return ahead
    }

    /// Touch to wake, decided by the input thread: the sequence goes to no gesture, and to the
    /// mirror only where the loop shows it (the thread swallowed it on the mirror it shows).
    mutating func swallowThreadedSequence() {
        pipeline.swallowSequence()
        if !toldAhead { withMirror { $0.swallowNewTouches() } }
    }

    /// Whether the input thread found that this frame's landing woke the kiosk (it swallowed the
    /// sequence on the mirror), and on a dark display; nil: it did not.
    func threadWoke() -> Bool? {
        let time = pipeline.decoder.frame.time.nanoseconds
        return thread!.shared.withLock { $0.takeWake(at: time)?.inTheDark }
    }

    var summary: DeviceSummary {
        let d = source.description
        return DeviceSummary(
            id: id, name: d.name, node: source.node, vendor: d.vendor, product: d.product,
            kind: d.touchKind?.rawValue ?? "unknown", slots: d.slotCount, sizeMM: pipeline.decoder.geometry.sizeMM)
    }

    /// The last frame was `DisplayWatch.quietNanoseconds` or more before `now` (or there was
    /// none): a touch landing then may be the first on a display darkened since.
    func quietBefore(now: Int64) -> Bool {
        guard let last = health.lastFrameAt else { return true }
        return now - last >= DisplayWatch.quietNanoseconds
    }

    /// Touch to wake: the sequence that woke the kiosk goes to no one.
    mutating func swallowSequence() {
        pipeline.swallowSequence()
        if mirrored { withMirror { $0.swallowNewTouches() } }
    }

    /// The metrics stage's counts: events and frames, the frames' times in monotonic ns (into the
    /// report: once an input) and when the last frame was. (One access to the device for all.)
    /// (The output's numbers are passed, not the output: borrowed from the table beside this
    /// device, it was copied whole, 216 bytes, every input.)
    /// Returns `refreshDeadline()`'s answer, taken after the counts.
    mutating func count(events: Int, frames: Int, first: Timestamp?, last: Timestamp?, touch: Timestamp?, _ report: inout RouteReport) -> Bool {
        health.events += events
        if frames > 0, let first {
            let since = source.monotonic(of: first)
            let lastAt = frames > 1 ? last.map { source.monotonic(of: $0) } ?? since : since
            report.firstFrame = since
            report.lastFrame = lastAt
            health.frames += frames
            health.lastFrameAt = lastAt
            // Most reads' last frame is a touch's: its time is `lastAt`, already converted.
            if let touch { health.lastTouchAt = touch == (last ?? first) ? lastAt : source.monotonic(of: touch) }
        }
        return refreshDeadline()
    }

    /// Takes the pipeline's deadline and anomalies after the route ran; whether they (or when a
    /// touch the mirror holds back is due) changed, for the table's totals.
    @inline(__always)  // once a read, from the end stages (a call cost a tenth of it)
    mutating func refreshDeadline() -> Bool {
        var t = pipeline.nextDeadline
        // A threaded panel's deadlines from its filters' next frame on wait for it (it comes in
        // the relay: `DeviceTable.deadlines`).
        if pipeline.ticksRelayed, let d = t, let tick = pipeline.decoder.nextTick, tick <= d { t = nil }
        let a = pipeline.anomalies
        let force = mirrorDueMoved
        mirrorDueMoved = false
        guard force || t != engineDeadline || a != anomalies else { return false }
        engineDeadline = t
        let engine = t.map { source.monotonic(of: $0) }
        // The engine's next deadline, or a mirror's touch held back, whichever comes first.
        if let m = mirrorDue { monotonicDeadline = min(engine ?? m, m) } else { monotonicDeadline = engine }
        if let r = remapBy { monotonicDeadline = min(monotonicDeadline ?? r, r) }
        anomalies = a
        return true
    }

    /// The client-lines consumer's writing (`JSONLines`): the last frame's touch line, and the
    /// gesture lines not yet written. Here, where the pipeline's parts are passed as they lie
    /// (passed from the table's array element, the pipeline was copied).
    mutating func writeTouchLine(_ out: inout PipelineOutput) {
        JSONLines.touchLine(pipeline.decoder, hiding: pipeline.excluded.ids, into: &out)
    }

    /// The output's lines to the subscribers that take them, each gesture line written as it
    /// is queued with this device's configurations' names.
    mutating func deliverLines(_ out: inout PipelineOutput, to fanout: inout Fanout, since: Int64, lastFrame: Int64) {
        fanout.deliver(&out, encoders: pipeline.encoders, device: id, since: since, lastFrame: lastFrame)
    }

    /// The mirror's frame: the decoder's last frame's contacts, less what the engine decided of
    /// them (`out`). Its time is the frame's (a held touch's bound runs from it).
    mutating func mirrorFrame(_ out: borrowing PipelineOutput) {
        let now = source.monotonic(of: pipeline.decoder.frame.time)
        // The input thread showed this frame before the engine's say changed: not again.
        if let thread, pipeline.decoder.frameCount <= thread.shownThrough.load(ordering: .relaxed) { return }
        guard let thread else {
            return mirror!.frame(
                pipeline.decoder.panel, others: pipeline.decoder.others, discontinuity: pipeline.decoder.frame.discontinuity,
                taken: out.takenContacts, hold: out.heldContacts, bound: out.holdBound, now: now)
        }
        loopTouchedMirror = true
        thread.shared.withLock {
            $0.mirror.frame(
                pipeline.decoder.panel, others: pipeline.decoder.others, discontinuity: pipeline.decoder.frame.discontinuity,
                taken: out.takenContacts, hold: out.heldContacts, bound: out.holdBound, now: now)
        }
    }

    /// The mirror's frame ahead of the engine, which decides nothing of it (`MirrorAhead`): the
    /// decoder's last frame's contacts, less those the filters ended as stuck.
    mutating func mirrorFrameAhead() {
        let now = source.monotonic(of: pipeline.decoder.frame.time)
        guard let thread else {
            return mirror!.frameAhead(
                pipeline.decoder.panel, others: pipeline.decoder.others, discontinuity: pipeline.decoder.frame.discontinuity,
                stuck: pipeline.decoder.contactsEndedAsStuck, now: now)
        }
        loopTouchedMirror = true
        thread.shared.withLock {
            $0.mirror.frameAhead(
                pipeline.decoder.panel, others: pipeline.decoder.others, discontinuity: pipeline.decoder.frame.discontinuity,
                stuck: pipeline.decoder.contactsEndedAsStuck, now: now)
        }
    }

    /// The clock reached `now` with no frame: the engine's decisions then (`out`).
    mutating func mirrorAdvance(_ out: borrowing PipelineOutput, now: Int64) {
        withMirror { $0.advance(taken: out.takenContacts, hold: out.heldContacts, now: now) }
    }

    /// The mirror's frames since the last flush, in one write; whether it failed. When a held
    /// touch is due is taken here.
    mutating func flushMirror() -> Bool {
        // The thread's own frames it writes itself (and logs its failures); a held touch's due
        // time moves only with the loop's (the engine's holds).
        if threaded && !loopTouchedMirror { return false }
        let (failed, due) = withMirror { ($0.flush(), $0.releaseDue) }
        loopTouchedMirror = false
        if due != mirrorDue {
            mirrorDue = due
            mirrorDueMoved = true
        }
        return failed
    }

    /// A reload's calibration and rotation for the mirror (`Mirror.remap`); false: its axes
    /// would change, and it keeps the old.
    mutating func remapMirror(to geometry: MirrorGeometry?, panel: DeviceDescription) -> Bool {
        mirrored ? withMirror { $0.remap(to: geometry, panel: panel) } : true
    }

    /// The mirror's write failure to log now, if any (throttled), with the count.
    mutating func takeMirrorFailure() -> (error: SystemCallError, count: Int)? {
        mirrored ? withMirror { $0.failures.take() } : nil
    }

    /// The panel goes (or the daemon stops): the mirror lifts what it shows.
    mutating func liftMirror() {
        if mirrored { withMirror { $0.liftAll() } }
    }
}
