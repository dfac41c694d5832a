import GestureConfig
import GestureEngine
import GestureProtocol
import PointerEmulation
import TouchFrames

/// One touch device's pipeline, the same for a live device, the daemon's `--replay` and
/// `touchgesturectl replay`: evdev events → frame decoder → engine (deadlines fired at their exact
/// time) → JSON lines. Like `Engine`, it returns what it makes into a buffer its caller owns
/// (`PipelineOutput`); nothing is set on it from outside between calls.
public struct DevicePipeline {
    public internal(set) var engine: Engine
    /// The input stage: the daemon's route decodes with it itself (`decoder.feed`, then
    /// `handleFrame`), so a frame's other consumers (the mirror) read the same frame.
    public var decoder: FrameDecoder
    /// The names and regions of the configuration the engine runs, and of the one before (for
    /// events emitted just before a switch: the engine switches only between sequences, so one
    /// configuration back is all there can be): for the items, and for `JSONLines`.
    public private(set) var encoders: LineEncoders
    private var encoderGeneration = 0
    private var serial: Int
    /// The actions of the configuration before (events emitted just before a switch fire them).
    private var previousActions: ActionTable
    /// The `[[action]]`s, and the table of them resolved for the configuration the engine runs.
    private var actionList: [Action]
    private var actionRegions: Set<String>
    private var actions: ActionTable
    /// Per compiled gesture: it takes its touches from the app when it begins (`cancels_touches`,
    /// by default in pass-through mode when an action is bound to it).
    var takesTouches: [Bool]
    /// Regions' `max_contacts` at work (pass-through only; `limitsContacts` when some region has one).
    var limits = ContactLimits()
    /// The contacts down that landed in an excluded region, in no touch line (stored: see below).
    public internal(set) var excluded = ExcludedContacts()
    var limitsContacts = false
    /// Contacts taken from the app for a region's `max_contacts` so far.
    public var contactsLimited: Int { limits.taken }
    let passThrough: Bool
    /// The gestures that take touches and hold them back while they may still (their bound, ns).
    var holders: [(gesture: Int, bound: Int64)] {
        didSet { holdsTouches = !holders.isEmpty || pointer.claims }
    }
    /// Touch to wake (DevicePipelineWake.swift).
    var wake = WakeSwallow()
    /// Pointer emulation (`emulate = "pointer"` regions). A value, never optional: its `active`
    /// is asked every frame, and testing an optional stage copied it whole.
    var pointer: PointerStage
    var pointerList: [PointerRegion]

    public enum SetupError: Error, CustomStringConvertible {
        case notATouchscreen(String)
        public var description: String {
            switch self {
            case .notATouchscreen(let name):
                return "'\(name)' is not a usable touchscreen (no ABS_MT_POSITION_X/Y, nor ABS_X/Y with BTN_TOUCH, or a position axis whose minimum equals its maximum)"
            }
        }
    }

    /// `compiled` is what the engine runs (the daemon's file plus client regions); without it, the
    /// configuration's own engine section.
    public init(
        description: DeviceDescription, configuration: Configuration, compiled: CompiledConfiguration? = nil,
        device: UInt32 = 0
    ) throws(SetupError) {
        guard let decoder = FrameDecoder(description: description, geometry: configuration.geometry, device: device) else {
            throw .notATouchscreen(description.name)
        }
        self.decoder = decoder
        let compiled = compiled ?? CompiledConfiguration(configuration.engine)
        engine = Engine(compiled: compiled, edges: decoder.geometry.output)
        encoders = LineEncoders(GestureLineEncoder(configuration: compiled))
        serial = compiled.serial
        actionList = configuration.actions
        actionRegions = Set(configuration.engine.regions.map(\.name))
        actions = ActionTable(configuration.actions, compiled, fileRegions: actionRegions)
        previousActions = actions
        passThrough = configuration.daemon.mode == .passthrough
        takesTouches = Self.takesTouches(compiled, actions, passThrough: passThrough)
        holders = Self.holders(compiled, takesTouches)
        pointerList = configuration.pointerRegions
        pointer = PointerStage(pointerList, compiled: compiled, scale: decoder.geometry.scale, passThrough: passThrough)
        holdsTouches = !holders.isEmpty || pointer.claims
        configureContacts(compiled)
        noteWhatTheEngineTakes()
    }

    /// Some region limits the contacts the virtual touchscreen shows (`max_contacts`); some is excluded.
    private mutating func configureContacts(_ c: CompiledConfiguration) {
        limitsContacts = passThrough && c.regions.contains { $0.maxContacts != nil }
        excluded.watching = c.hasExcludedRegions
    }

    /// Some gesture holds touches back while it may still take them (`delays_touches_began`),
    /// or fingers landing in a pointer region are the pointer's (pass-through): a read must go
    /// through the pipeline before it goes on to a mirror. Stored, as `nextDeadline` is: the
    /// daemon reads it every read.
    public internal(set) var holdsTouches = false

    /// The engine takes and holds nothing of the panel's contacts (`noteWhatTheEngineTakes`): a
    /// mirror may show each frame before the engine runs (the route's mirror-ahead stage).
    /// Stored, as `holdsTouches` is; false while a new configuration waits for the next sequence.
    public internal(set) var leavesTheMirror = false

    // What the daemon reads every wake-up is stored, kept after each call: reading a computed
    // property of a pipeline held by a class, from another module, copied the whole pipeline
    // (its engine's every array retained and released) each time.
    /// The engine's next deadline, the pointer's kinetic tick, or the panel's filters' next frame
    /// of their own (`FrameDecoder.nextTick`), whichever is soonest.
    public internal(set) var nextDeadline: Timestamp?
    /// The engine's bug counters: impossible (state, input) pairs, and decisions the arena was
    /// asked to take twice. Both stay 0 unless there is a bug.
    public private(set) var anomalies = 0
    /// No gesture is under way or pending, and no kinetic tail turns the wheel.
    public var isIdle: Bool { engine.isIdle && pointer.isIdle }

    /// Feeds a reader's batch of decoded events in order (a replay's, a resync's). A resynced
    /// batch marks its frame as a discontinuity.
    public mutating func feed(_ events: borrowing Span<InputEvent>, resynced: Bool = false, into out: inout PipelineOutput) {
        if resynced { decoder.markDiscontinuity() }
        var i = 0
        while i < events.count {
            if decoder.feed(events, from: &i) { frameWithLines(into: &out) }
        }
        out.eventCount += events.count
        writeGestureLines(into: &out)
    }

    /// Feeds a reader's batch of events in the kernel's layout (a live device's read) in order.
    public mutating func feed(kernel events: borrowing Span<KernelInputEvent>, into out: inout PipelineOutput) {
        var i = 0
        while i < events.count {
            if decoder.feed(events, from: &i) { frameWithLines(into: &out) }
        }
        out.eventCount += events.count
        writeGestureLines(into: &out)
    }

    /// Feeds one event; a SYN_REPORT makes a frame, and the engine's events for it. The frames
    /// the panel's filters make on their own before it come first.
    public mutating func feed(_ e: InputEvent, into out: inout PipelineOutput) {
        // (Not inside a frame: its events are not all in the slots yet.)
        if decoder.isFiltered && !midFrame { ticks(before: e.time, into: &out) }
        out.eventCount += 1
        let frame = decoder.feed(e) != nil
        midFrame = !decoder.betweenFrames
        guard frame else { return }
        frameWithLines(into: &out)
        writeGestureLines(into: &out)
    }

    /// The frames the panel's filters make on their own due by `time` (a held lift, a young
    /// contact shown), for an offline replay, before the event at `time` (as the daemon's route
    /// fires a deadline before a read at the same time); the route makes them itself, for every
    /// consumer (`DeviceTable.run`).
    private mutating func ticks(before time: Timestamp, into out: inout PipelineOutput) {
        while let t = decoder.nextTick, t <= time, decoder.tick(at: t) { frameWithLines(into: &out) }
    }

    /// An event of a frame not yet ended was fed (`feed(_:into:)`).
    private var midFrame = false

    /// An offline replay's end: the filters' frames still due, then every deadline.
    public mutating func finishReplay(into out: inout PipelineOutput) {
        if decoder.isFiltered { ticks(before: .distantFuture, into: &out) }
        advance(to: .distantFuture, into: &out)
    }

    /// The gesture lines not yet written (`JSONLines`), each with the names of the configuration
    /// it ran under: this one's, or the one before (passed as they lie in `self`).
    public mutating func writeGestureLines(into out: inout PipelineOutput) {
        guard out.encodedItems < out.items.count else { return }
        JSONLines.gestureLines(encoders, into: &out)
    }

    /// A frame as the replay and `touchgesturectl` take it: the gesture consumer, then its
    /// touch line (the daemon's route runs `handleFrame` and its own client-lines stage).
    private mutating func frameWithLines(into out: inout PipelineOutput) {
        handleFrame(into: &out)
        JSONLines.touchLine(decoder, hiding: excluded.ids, into: &out)
        writeGestureLines(into: &out)
    }

    /// The decoder's last frame (the input stage's: the daemon's route decodes with `decoder`
    /// itself, and runs the frame's other consumers beside this one), read where it lies
    /// (engine and decoder are apart in `self`). After it, `out.takenContacts` and
    /// `out.heldContacts` say what the engine decided of the panel's contacts.
    public mutating func handleFrame(into out: inout PipelineOutput) {
        handleDecodedFrame(into: &out)
        // (Only a mirror reads what is held: in pass-through.)
        if passThrough && !holders.isEmpty { collectHeld(into: &out) }
        // (A swallowed sequence, touch to wake, is the app's no more than the engine's.)
        if limitsContacts && !wake.swallowing { limits.frame(decoder, engine.configuration, into: &out.takenContacts) }
        if excluded.isActive { excluded.frame(decoder, engine.configuration) }
        if decoder.isFiltered {
            includeTick()
            if passThrough && !decoder.contactsEndedAsStuck.isEmpty { out.takenContacts += decoder.contactsEndedAsStuck }
        }
    }

    /// This pipeline replaces `old` for the same panel (a reload's new geometry or filters):
    /// its gestures and sequences are numbered on from `old`'s.
    public mutating func continueNumbering(from old: borrowing DevicePipeline) { engine.continueNumbering(from: old.engine) }

    /// The decoder went on from `old`'s (`FrameDecoder.continueFrom`, a reload): its filters'
    /// next frame of their own is due as it was, and the contacts the regions' limits showed
    /// still count.
    public mutating func continued(from old: borrowing DevicePipeline) {
        if decoder.isFiltered { includeTick() }
        // Fingers still down (its gestures could not wait for them), or a lift still held: passed
        // over until they lift, by the gestures and the pointer.
        if !decoder.frame.contacts.isEmpty { engine.passOver(decoder.frame.contacts.map(\.id)) }
        pointer.seenNextContact = decoder.nextContact
        limits.continueFrom(old.limits, decoder.frame.contacts, engine.configuration)
        excluded.continueFrom(old.excluded)
        // A touch that woke the kiosk is still the waking touch.
        wake = old.wake
        if !wake.passed.isEmpty { engine.passOver(wake.passed) }
    }

    /// The filters' own frames come from elsewhere, in order with the reads (the input thread's
    /// relay: `ThreadedPanel`), never from this pipeline's deadline.
    public var ticksRelayed = false {
        didSet { if ticksRelayed { nextDeadline = engine.nextDeadline } }
    }

    /// The filters' next frame of their own in `nextDeadline`.
    private mutating func includeTick() {
        guard !ticksRelayed else { return }
        // Read first: the getter called while `nextDeadline` is written copied the decoder.
        let tick = decoder.nextTick
        nextDeadline = Self.sooner(nextDeadline, tick)
    }

    @inline(__always)  // from `handleFrame` alone
    private mutating func handleDecodedFrame(into out: inout PipelineOutput) {
        if wake.swallowing && !wakeWindowIsOver() {
            // The waking touch stops a kinetic tail as any touch does.
            if pointer.active && decoder.landed { pointer.stopTail() }
            return swallow(decoder.frame, into: &out)
        }
        if wake.below != 0 { passWakingContacts() }
        out.frame(decoder.frame, touched: !decoder.frame.contacts.isEmpty || decoder.hadContacts)
        trace(out.wants.transitions)
        if pointer.active { pointer.advance(to: decoder.frame.time, into: &out) }
        let first = out.events.count
        engine.handle(decoder.frame, into: &out.events)
        flush(from: first, into: &out, landings: true)
        if pointer.active { pointerLandings(into: &out) }
    }

    static func sooner(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
        if let a, let b { min(a, b) } else { a ?? b }
    }

    /// Fires deadlines up to `time` (the daemon's timer, or the end of a recording).
    /// `writingLines`: the lines written too (`JSONLines`; the daemon's route has its own stage).
    public mutating func advance(to time: Timestamp, into out: inout PipelineOutput, writingLines: Bool = true) {
        trace(out.wants.transitions)
        if pointer.active { pointer.advance(to: time, into: &out) }
        let first = out.events.count
        engine.advance(to: time, into: &out.events)
        flush(from: first, into: &out)
        if decoder.isFiltered { includeTick() }
        if writingLines { writeGestureLines(into: &out) }
    }

    /// The device went away (or its geometry changed): active gestures are cancelled.
    public mutating func deviceRemoved(at time: Timestamp, into out: inout PipelineOutput, writingLines: Bool = true) {
        trace(out.wants.transitions)
        let first = out.events.count
        engine.deviceRemoved(at: time, into: &out.events)
        flush(from: first, into: &out)
        if writingLines { writeGestureLines(into: &out) }
    }

    /// A new configuration (a reload, a client's regions; `file`: the file's actions and
    /// regions): applies from the next sequence.
    public mutating func reconfigure(_ compiled: CompiledConfiguration, file: Configuration) {
        actionList = file.actions
        actionRegions = Set(file.engine.regions.map(\.name))
        pointerList = file.pointerRegions
        engine.reconfigure(compiled)
        // Until it applies (at the next sequence), the mirror waits for the engine.
        leavesTheMirror = false
        nextDeadline = engine.nextDeadline
        if decoder.isFiltered { includeTick() }
    }

    /// The name of a compiled gesture (for logs).
    public func gestureName(_ g: Int) -> String {
        g < engine.configuration.gestures.count ? engine.configuration.gestures[g].qualifiedName : "#\(g)"
    }

    private mutating func trace(_ on: Bool) {
        if on != (engine.transitionLog != nil) {
            engine.transitionLog = on ? [] : nil
            engine.landingLog = on ? [] : nil
        }
    }

    /// Encodes the events from `first` on (those the engine just appended); `landings`: a
    /// frame's, whose landings are marked for the pointer first (`pointerMarks`), under the
    /// configuration the frame ran under.
    private mutating func flush(from first: Int, into out: inout PipelineOutput, landings: Bool = false) {
        nextDeadline = engine.nextDeadline
        anomalies = engine.invalidInputs + engine.arenaViolations
        if let log = engine.transitionLog, !log.isEmpty {
            out.transitions(log)
            engine.transitionLog!.removeAll(keepingCapacity: true)
        }
        if let log = engine.landingLog, !log.isEmpty {
            out.landings(log)
            engine.landingLog!.removeAll(keepingCapacity: true)
        }
        if encoderGeneration != engine.configurationGeneration {
            previousActions = actions
            encoders.switched(to: GestureLineEncoder(configuration: engine.configuration), from: serial)
            serial = engine.configuration.serial
            actions = ActionTable(actionList, engine.configuration, fileRegions: actionRegions)
            takesTouches = Self.takesTouches(engine.configuration, actions, passThrough: passThrough)
            holders = Self.holders(engine.configuration, takesTouches)
            configureContacts(engine.configuration)
            encoderGeneration = engine.configurationGeneration
            reconfigurePointer()
            noteWhatTheEngineTakes()
        }
        // (Asked after the switch: a reload's first pointer region starts here.)
        if landings && pointer.active { pointerMarks() }
        for i in first..<out.events.count {
            if out.events[i].generation == encoderGeneration || encoders.previousSerial < 0 {
                out.gesture(i, encoder: encoders.current, configuration: serial, actions: actions)
                let g = out.events[i].gesture
                if g >= 0 && g < takesTouches.count && takesTouches[g] { takeTouches(of: i, into: &out) }
                if pointer.active { pointer.handle(i, current: true, into: &out) }
            } else {
                out.gesture(i, encoder: encoders.previous, configuration: encoders.previousSerial, actions: previousActions)
                if pointer.active { pointer.handle(i, current: false, into: &out) }
            }
        }
        if pointer.active { nextDeadline = Self.sooner(engine.nextDeadline, pointer.nextDeadline) }
    }

    /// Replays a whole recording into `out`: contacts still down at its end are lifted, and
    /// every deadline left after the last event fires (a tap waiting for a double tap is still
    /// reported).
    public static func replay(
        _ recording: Recording, description: DeviceDescription, configuration: Configuration,
        into out: inout PipelineOutput
    ) throws(SetupError) {
        var p = try DevicePipeline(description: description, configuration: configuration)
        for e in recording.eventsLiftedAtEnd(as: description) { p.feed(e, into: &out) }
        p.finishReplay(into: &out)
    }

    /// Replays a whole recording and returns its gesture lines (and pointer lines).
    public static func lines(_ recording: Recording, description: DeviceDescription, configuration: Configuration)
        throws(SetupError) -> String
    {
        var out = PipelineOutput(wants: .init(pointerLines: true))
        try replay(recording, description: description, configuration: configuration, into: &out)
        return String(decoding: out.lines, as: UTF8.self)
    }
}
