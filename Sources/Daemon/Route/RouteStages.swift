import PointerDevice
import GestureEngine
import Pipeline

// The route's stages (Route.swift lists them in order). Each is the route's door to a consumer
// that owns its state and its sink: the wake watch, the device's gesture pipeline, its mirror,
// the virtual pointer, the panel's health, the fan-out, the daemon.

/// Wake (`WakeWatch`): a touch landing while the kiosk sleeps, or on a dark display after a
/// pause, wakes it; that touch goes to no one (`WakeTouch`: the pipeline's and the mirror's).
enum WakeStage: FrameStage {
    static var stage: RouteStage { .wake }

    @inline(__always)
    static func frame<E: RouteEnvironment>(
        _ device: inout RouteDevice, _ output: inout PipelineOutput, _ wake: inout WakeWatch, _ report: inout RouteReport, _ env: E
    ) {
        guard device.pipeline.decoder.landed else { return }
        // A threaded panel's landing was first read by the input thread, which decided.
        if device.threaded {
            guard let dark = device.threadWoke() else { return }
            wake.asleep = false
            report.woke = true
            report.wokeInTheDark = dark
            device.swallowThreadedSequence()
            return
        }
        if wake.watchesDisplay && !wake.asleep && !device.pipeline.decoder.hadContacts
            && device.quietBefore(now: env.turnStarted) && wake.displayIsDark()
        {
            wake.asleep = true
            report.wokeInTheDark = true
        }
        guard wake.asleep else { return }
        wake.asleep = false
        report.woke = true
        device.swallowSequence()
    }
}

/// The mirror ahead (`Mirror`, pass-through, when the engine takes and holds nothing of the
/// panel's contacts: `DevicePipeline.leavesTheMirror`): the frame written before the engine runs
/// on it, so the app's touch waits for no gesture's work. A read's frames in one write, at its
/// last frame (`RouteDevice.endsRead`): a daemon that fell behind makes no more system calls. A
/// live panel's own thread (`ThreadedPanel`) has shown the frame before the loop read it: here
/// the loop only tells the thread whether to go on.
enum MirrorAhead: FrameStage {
    static var stage: RouteStage { .mirrorAhead }

    @inline(__always)
    static func frame<E: RouteEnvironment>(
        _ device: inout RouteDevice, _ output: inout PipelineOutput, _ wake: inout WakeWatch, _ report: inout RouteReport, _ env: E
    ) {
        // Decided a frame at a time: the engine may switch configurations on this frame.
        device.shownAhead = device.mirrored && device.pipeline.leavesTheMirror
        // A threaded panel's frame is on the mirror already (the input thread showed it).
        if device.threaded && device.threadShows(ahead: device.shownAhead) { return }
        guard device.shownAhead else { return }
        device.mirrorFrameAhead()
        if device.endsRead && device.flushMirror() { report.mirrorFailed = true }
    }
}

/// Gestures (`DevicePipeline`): the engine on the frame, its lines encoded, its actions
/// resolved, pointer emulation, and the contacts it takes or holds, into the table's output.
enum GestureStage: FrameStage {
    static var stage: RouteStage { .gestures }

    @inline(__always)
    static func frame<E: RouteEnvironment>(
        _ device: inout RouteDevice, _ output: inout PipelineOutput, _ wake: inout WakeWatch, _ report: inout RouteReport, _ env: E
    ) {
        device.pipeline.handleFrame(into: &output)
    }
}

/// The mirror's frame (`Mirror`, pass-through, unless `MirrorAhead` showed it): the frame's
/// contacts less what the engine took or holds; written once the input's frames are through
/// (`MirrorWrite`).
enum MirrorStage: FrameStage {
    static var stage: RouteStage { .mirror }

    @inline(__always)
    static func frame<E: RouteEnvironment>(
        _ device: inout RouteDevice, _ output: inout PipelineOutput, _ wake: inout WakeWatch, _ report: inout RouteReport, _ env: E
    ) {
        guard device.mirrored && !device.shownAhead else { return }
        device.mirrorFrame(output)
    }
}

/// The mirror's write: on a deadline, the engine's decisions then (held touches due); the
/// frames made, in one write; the held touches' due time into the device's deadline.
enum MirrorWrite: EndStage {
    static var stage: RouteStage { .mirror }

    @inline(__always)
    static func end<E: RouteEnvironment>(_ state: inout FrameState, _ k: Int, _ input: RouteInput, _ report: inout RouteReport, _ env: E) {
        guard state.devices.all[k].mirrored else { return }
        if case .deadlines(let now) = input { state.devices.mirrorDeadline(k, now: now) }
        if case .filterTick(let t) = input { state.devices.mirrorDeadline(k, now: state.devices.all[k].source.monotonic(of: t)) }
        if state.devices.all[k].flushMirror() { report.mirrorFailed = true }
    }
}

/// The pointer (`PointerOutput`): the ops the pipeline made, in one write to the virtual pointer.
enum PointerWrite: EndStage {
    static var stage: RouteStage { .pointer }

    @inline(__always)
    static func end<E: RouteEnvironment>(_ state: inout FrameState, _ k: Int, _ input: RouteInput, _ report: inout RouteReport, _ env: E) {
        guard !state.devices.output.pointerOps.isEmpty else { return }
        report.pointerFailed = state.devices.pointer.write(state.devices.output.pointerOps)
    }
}

/// Metrics (`PanelHealth`, the table's totals): events and frames counted, the frames' times
/// in monotonic ns (once: the lines' latency starts there), the device's next deadline.
enum Metrics: EndStage {
    static var stage: RouteStage { .metrics }

    @inline(__always)
    static func end<E: RouteEnvironment>(_ state: inout FrameState, _ k: Int, _ input: RouteInput, _ report: inout RouteReport, _ env: E) {
        state.devices.countAndRefresh(k, &report)
    }
}

/// A frame's touch line (`JSONLines`, wanted when a client takes touch lines), written as the
/// frame is made: its contacts' panel positions are the decoder's then.
enum TouchLines: FrameStage {
    static var stage: RouteStage { .clientLines }

    @inline(__always)
    static func frame<E: RouteEnvironment>(
        _ device: inout RouteDevice, _ output: inout PipelineOutput, _ wake: inout WakeWatch, _ report: inout RouteReport, _ env: E
    ) {
        guard output.pendingTouch != nil else { return }
        device.writeTouchLine(&output)
    }
}

/// Client lines (`JSONLines`, `Fanout`): the gesture events written as JSON lines, then the
/// output's lines queued to each subscriber that takes them. A
/// line's latency starts at its input: the first frame behind it, or, for lines no frame led
/// to (a deadline), this turn.
enum ClientLines: EndStage {
    static var stage: RouteStage { .clientLines }

    @inline(__always)
    static func end<E: RouteEnvironment>(_ state: inout FrameState, _ k: Int, _ input: RouteInput, _ report: inout RouteReport, _ env: E) {
        guard !state.devices.output.isEmpty else { return }
        let since = report.firstFrame ?? env.turnStarted
        state.devices.all[k].deliverLines(
            &state.devices.output, to: &state.fanout, since: since, lastFrame: report.lastFrame ?? since)
        report.fired = !state.devices.output.firings.isEmpty
        report.traced = !state.devices.output.transitions.isEmpty
    }
}

/// The daemon's (`RouteEnvironment.daemonStage`): transitions traced, the wake told, failed
/// writes logged (throttled), actions fired; called only for an input that asks for it.
enum DaemonStage: EndStage {
    static var stage: RouteStage { .actions }

    @inline(__always)
    static func end<E: RouteEnvironment>(_ state: inout FrameState, _ k: Int, _ input: RouteInput, _ report: inout RouteReport, _ env: E) {
        guard report.needsTheDaemon else { return }
        env.daemonStage(k, report, &state)
    }
}
