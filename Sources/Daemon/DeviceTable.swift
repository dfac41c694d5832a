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
    var all: [Device] = []  // (changed by the route's stages, Route/DeviceStages.swift)
    /// What the last fill made (emptied by the next fill, so the fan-out reads it in place).
    var output = PipelineOutput()
    /// The earliest engine deadline over all devices (monotonic ns), and the engines' anomalies
    /// added up: kept as pipelines run, so the daemon's every wake-up reads two numbers.
    private(set) var earliestDeadline: Int64?
    private(set) var anomalies = 0
    /// Frames decoded over all devices (`stats`).
    var frames = 0
    /// Idle (`[idle] after`): the next read in which a touch lands wakes the kiosk, and its
    /// touch sequence is swallowed (the route's wake stage).
    var asleep = false
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
