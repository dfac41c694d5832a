import PointerDevice
import GestureConfig
import TouchFrames
import GestureEngine
import Pipeline
import SystemCalls
import TouchInput
import TouchMirror

/// The devices' per-frame state in one value: each device (its pipeline, deadline, health), the
/// one output buffer every pipeline fills in turn, and the totals the daemon reads every
/// wake-up. It lives in the frame state beside the fan-out; `DeviceLifecycle` changes it, and a read's whole
/// trip through a pipeline is one mutating call here.
struct DeviceTable {
    /// The devices; the route's stages (RouteStages.swift) reach their own parts of a device
    /// (its decoder, pipeline, mirror, health); adding and taking one goes through `add`/`take`.
    var all: [RouteDevice] = []
    /// What the last fill made (emptied by the next fill, so the fan-out reads it in place).
    var output = PipelineOutput()
    /// The earliest engine deadline over all devices (monotonic ns), and the engines' anomalies
    /// added up: kept as pipelines run, so the daemon's every wake-up reads two numbers.
    private(set) var earliestDeadline: Int64?
    private(set) var anomalies = 0
    /// Frames decoded over all devices (`stats`).
    private(set) var frames = 0
    /// Touch to wake (the route's wake stage).
    var wake = WakeWatch()
    /// The virtual pointer (the route's pointer stage).
    var pointer = PointerOutput()

    /// Every device has ended its input and has nothing under way (`--exit-after-replay`); each
    /// asked where it lies (a `Device` is about a kilobyte).
    var allEndedAndIdle: Bool {
        !all.isEmpty && all.indices.allSatisfy { all[$0].ended && all[$0].pipeline.isIdle }
    }

    func index(of id: UInt32) -> Int? { all.firstIndex { $0.id == id } }

    mutating func add(_ device: RouteDevice) {
        all.append(device)
        refresh(all.count - 1)
    }

    /// Takes device `k` out (it went away).
    mutating func take(_ k: Int) -> RouteDevice {
        var d = all.remove(at: k)
        d.health.up = false
        d.health.removals += 1
        d.health.errors += d.source.errorCount
        recount()
        return d
    }

    /// The newest frame of any device (monotonic ns), for the idle watch.
    /// When a panel last sent a frame, whatever the filters made of it.
    var lastFrameAt: Int64? { all.compactMap(\.health.lastFrameAt).max() }
    /// When a panel last had a touch the filters show (or its lift): touch to wake's clock.
    var lastTouchAt: Int64? { all.compactMap(\.health.lastTouchAt).max() }
    /// A panel has a contact down that the gestures see: the kiosk is in use (a finger held
    /// still sends nothing for as long as it rests).
    var touched: Bool { all.contains { !$0.pipeline.decoder.frame.contacts.isEmpty } }

    /// A reload's new pipeline for device `k` (a new geometry): its decoder goes on from the
    /// old one's contacts (`FrameDecoder.continueFrom`).
    mutating func replacePipeline(_ k: Int, with pipeline: DevicePipeline) {
        var pipeline = pipeline
        // Numbered on from the outgoing engine as it is now (a threaded panel's swap comes after
        // the reads the relay held: their gestures took ids too).
        pipeline.continueNumbering(from: all[k].pipeline)
        pipeline.ticksRelayed = all[k].threaded
        pipeline.decoder.continueFrom(all[k].pipeline.decoder)
        pipeline.continued(from: all[k].pipeline)
        all[k].pipeline = pipeline
        refresh(k)
    }

    mutating func markEnded(_ k: Int) { all[k].ended = true }

    /// Device `k`'s reloaded geometry or filters wait for its panel until `by` (monotonic ns;
    /// nil: nothing waits), a deadline like its engine's.
    mutating func setRemapDue(_ k: Int, by: Int64?) {
        all[k].setRemapBy(by)
        refresh(k)
    }

    /// Device `k`'s mirror follows a reload's calibration and rotation (`Mirror.remap`).
    mutating func remapMirror(_ k: Int, to geometry: MirrorGeometry?, panel: DeviceDescription) -> Bool {
        all[k].remapMirror(to: geometry, panel: panel)
    }

    /// Device `k`'s mirror write failure to log now, if any (throttled), with the count.
    mutating func takeMirrorFailure(_ k: Int) -> (error: SystemCallError, count: Int)? {
        all[k].takeMirrorFailure()
    }

    mutating func reconfigure(_ next: CompiledConfiguration, file: Configuration) {
        for k in all.indices {
            all[k].pipeline.reconfigure(next, file: file)
            // (A reload's pipelines still waiting for their mark too: `RouteDevice.pendingPipelines`.)
            for i in all[k].pendingPipelines.indices { all[k].pendingPipelines[i].reconfigure(next, file: file) }
            refresh(k)
        }
    }

    /// Takes device `k`'s deadline and anomalies after its route ran; the totals are worked
    /// out again only when they changed (on most frames they do not): the engine's deadline,
    /// its anomalies, or when a touch its mirror holds back is due.
    mutating func refresh(_ k: Int) {
        if all[k].refreshDeadline() { recount() }
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

/// The route's input stage, and the stages' work that reaches into the table (Route.swift has
/// the order, RouteStages.swift each stage).
extension DeviceTable {
    /// One input through device `k`: a read decoded frame by frame, each frame through the frame
    /// stages; then the end stages. Inlined into each call of `DeviceLifecycle.route`, where the input's
    /// case is known.
    /// True when a live read stopped at a SYN_DROPPED (its reader resynchronizes).
    @discardableResult @inline(__always)
    static func run<E: RouteEnvironment>(_ input: RouteInput, _ k: Int, _ state: inout FrameState, _ env: E) -> Bool {
        var report = RouteReport()
        state.devices.output.removeAll()
        switch input {
        case .read(let batch):
            state.devices.read(batch, k, &report, env)
        case .deadlines(let now):
            let engineNow = state.devices.all[k].source.engineTime(atMonotonic: now)
            state.devices.deadlines(k, until: engineNow, ticks: !state.devices.all[k].pipeline.ticksRelayed, &report, env)
        case .filterTick(let t):
            state.devices.deadlines(k, until: t, ticks: true, &report, env)
        case .removal(let now):
            let at = state.devices.all[k].source.engineTime(atMonotonic: now)
            state.devices.all[k].pipeline.deviceRemoved(at: at, into: &state.devices.output, writingLines: false)
        }
        Route.PerInput.end(&state, k, input, &report, env)
        return report.lostEvents
    }

    /// Device `k`'s deadlines due by `end`, each at its own time: the panel's filters' own frames
    /// (a held lift, a young contact shown), through every frame stage as a read's, and the
    /// engine's and the pointer's. Where the filters' frames are relayed (`ticks` false: a
    /// threaded panel's, outside the relay's mark), they stop the clock at the first one: it
    /// comes in the relay, where the input thread made it, and what is due after it waits.
    private mutating func deadlines<E: RouteEnvironment>(_ k: Int, until end: Timestamp, ticks: Bool, _ report: inout RouteReport, _ env: E) {
        while true {
            let engine = all[k].pipeline.nextDeadline
            if let due = all[k].pipeline.decoder.nextTick, due <= end, engine.map({ due <= $0 }) ?? true {
                // Refused mid-frame (a read ended inside one): the frame's own end runs it.
                guard ticks, tick(k, at: due, &report, env) else { return }
            } else if let t = engine, t <= end {
                all[k].pipeline.advance(to: t, into: &output, writingLines: false)
            } else {
                return
            }
        }
    }

    /// A frame the panel's filters make on their own at `time`, through the frame stages.
    private mutating func tick<E: RouteEnvironment>(_ k: Int, at time: Timestamp, _ report: inout RouteReport, _ env: E) -> Bool {
        Self.tick(time, &all[k], &output, &wake, &report, env)
    }

    private static func tick<E: RouteEnvironment>(
        _ time: Timestamp, _ device: inout RouteDevice, _ output: inout PipelineOutput, _ wake: inout WakeWatch, _ report: inout RouteReport,
        _ env: E
    ) -> Bool {
        guard !device.midFrame, device.pipeline.decoder.tick(at: time) else { return false }
        // Several may be due in one input: the mirror writes them at its end, in one write.
        device.endsRead = false
        Route.PerFrame.frame(&device, &output, &wake, &report, env)
        device.endsRead = true
        return true
    }

    /// The input stage: the read decoded once (`FrameDecoder`), each frame it ends through the
    /// frame stages as it is made (a lost-events batch first marks its frame a discontinuity).
    /// The device, the output and the wake watch are lent to the loop once, whatever the frames.
    @inline(__always)
    private mutating func read<E: RouteEnvironment>(_ batch: InputBatch, _ k: Int, _ report: inout RouteReport, _ env: E) {
        Self.read(batch, &all[k], &output, &wake, &report, env)
    }

    @inline(__always)
    private static func read<E: RouteEnvironment>(
        _ batch: InputBatch, _ device: inout RouteDevice, _ output: inout PipelineOutput, _ wake: inout WakeWatch, _ report: inout RouteReport,
        _ env: E
    ) {
        if batch.resynced {
            device.health.resyncs += 1
            device.pipeline.decoder.markDiscontinuity()
        }
        var whole = true
        if batch.kernelEvents.isEmpty {
            let events = batch.events.span
            var i = 0
            while i < events.count {
                whole = device.pipeline.decoder.feed(events, from: &i)
                device.endsRead = i >= events.count
                if whole { Route.PerFrame.frame(&device, &output, &wake, &report, env) }
            }
            output.eventCount += events.count
        } else {
            // A live read: the decoder meets a SYN_DROPPED as it goes; what follows it is stale
            // (the reader takes the kernel's state instead).
            let events = batch.kernelEvents.span
            var i = 0
            while i < events.count {
                whole = device.pipeline.decoder.feed(events, from: &i)
                device.endsRead = i >= events.count
                if whole {
                    Route.PerFrame.frame(&device, &output, &wake, &report, env)
                } else if device.pipeline.decoder.lostEvents {
                    report.lostEvents = true
                    break
                }
            }
            // The events read up to the SYN_DROPPED (the stale rest is no panel's event).
            output.eventCount += i
        }
        // A read that ended inside a frame (a long one split across reads): no frame of the
        // filters' own until it is whole. (A report that made no frame, closing a SYN_DROPPED's
        // gap, ends none: the filters' frames go on.)
        device.midFrame = !whole && !device.pipeline.decoder.betweenFrames
        device.endsRead = true
    }

    /// The clock reached device `k`'s deadlines: what the engine holds now, told to its mirror
    /// (held touches due are replayed).
    mutating func mirrorDeadline(_ k: Int, now: Int64) {
        all[k].pipeline.collectHeld(into: &output)
        all[k].mirrorAdvance(output, now: now)
    }

    /// The counts: events and frames, the panel's and the table's, the frames' times (monotonic,
    /// into the report) and when the panel's last frame was; then its deadline taken
    /// (`refresh`), in the same access to the device.
    @inline(__always)
    mutating func countAndRefresh(_ k: Int, _ report: inout RouteReport) {
        let (events, frameCount, first, last) = (output.eventCount, output.frameCount, output.firstFrameTime, output.lastFrameTime)
        frames += frameCount
        if all[k].count(events: events, frames: frameCount, first: first, last: last, touch: output.lastTouchTime, &report) { recount() }
    }
}
