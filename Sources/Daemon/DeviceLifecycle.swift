import GestureConfig
import GestureEngine
import GestureProtocol
import Logging
import Pipeline
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

/// What the daemon hears of devices coming and going.
protocol DeviceOwner: AnyObject {
    func added(_ device: RouteDevice, _ state: inout FrameState)
    func removed(_ device: RouteDevice, _ state: inout FrameState)
    /// A touch on device `id` woke the kiosk from idle (that touch is swallowed); `inTheDark`:
    /// the display was dark.
    func woke(by id: UInt32, inTheDark: Bool, _ state: inout FrameState)
}

/// The touch devices: discovery and hotplug of live ones (libudev, the capability fallback,
/// `ignore_devices`, `grab`), a replayed recording, each device's geometry and pipeline, and
/// what happens when one goes away or the configuration changes. The devices themselves are in
/// the frame state (`state.devices`, DeviceTable.swift), handed in by whoever calls; what a
/// pipeline makes goes straight to the fan-out (`state.fanout`) and the actions; the owner (the
/// daemon) hears only of devices added and removed.
final class DeviceLifecycle<Owner: DeviceOwner> {
    let loop: EventLoop
    let log: Logger
    /// Set by the owner once it is made (it makes the devices first, as a constant of its own:
    /// a wake-up reaches them with nothing retained).
    weak var owner: Owner?
    let actions: ActionRunner
    private var nextID: UInt32 = 1
    /// Sources waiting for enough clients (`--wait-for-clients`).
    private var pending: [InputSource] = []
    var hotplug: HotplugMonitor?
    /// The file's configuration (geometry, `[daemon]`), and what the engines run.
    var base: Configuration
    private(set) var compiled: CompiledConfiguration
    /// Panels that went (for `stats`: up = false), the newest 64.
    private var gone = GonePanels()
    /// Each live panel's place (node → its mirror's name under /dev/input/touchgestured).
    var places: [String: String] = [:]
    /// The mirrors systemd keeps across a restart (the daemon sets its own; none kept without).
    var mirrors: MirrorStore
    /// `--trace-hops`: each read's return and each mirror write's times (nil: not traced).
    var trace: HopTrace?
    /// Where every live device is read (`ready`): one at a time, so one buffer serves them all.
    private let readBuffer = EventReadBuffer(capacity: Relay.stateCapacity)
    /// The thread that reads the pass-through panels (made at start; nil: the loop reads them).
    var input: InputThread?
    /// The read `ready` made was a relay's message (`relayed`): there may be another behind it.
    private var relayedRead = false
    /// Whether a rehearsal runs, and the kinds of route rehearsed so far (`Rehearsal`).
    var rehearsal = Rehearsal.Stage()

    init(loop: EventLoop, log: Logger, actions: ActionRunner, base: Configuration) {
        self.loop = loop
        self.log = log
        self.actions = actions
        self.base = base
        compiled = CompiledConfiguration(base.engine)
        mirrors = MirrorStore(passed: [], systemd: Systemd(notifySocket: nil), log: log)
    }

    /// `--replay`: the recording as a virtual device, now or once `waitForClients` connected
    /// (no more than the `clients` the daemon takes: it would wait forever).
    func openReplay(_ path: String, options: Daemon.Options, clients: Int, _ state: inout FrameState) throws {
        guard options.waitForClients <= clients else {
            throw Daemon.StartError("--wait-for-clients \(options.waitForClients): the daemon takes \(clients) clients at most (max_clients)")
        }
        var described: DeviceDescription?
        if let desc = options.deviceDescription {
            described = try Evemu.parse(try readTextFile(desc), file: desc).description
            guard described != nil else { throw Daemon.StartError("\(desc): no device description (N:, A: lines)") }
        }
        let recording = try Evemu.parse(try readTextFile(path), file: path, describedAs: described)
        if let warning = recording.unterminatedWarning { log.notice("\(SafeText.escaped(path)):\(warning)") }
        let description = recording.description
        guard let description else {
            throw Daemon.StartError("\(path): the recording has no device description; pass --device DESC")
        }
        let source = try ReplaySource(recording: recording, description: description, path: path, speed: options.speed, loop: options.loop, log: log)
        if options.waitForClients > 0 {
            pending.append(source)
            log.info("replay of \(path) waits for \(options.waitForClients) client(s)")
        } else {
            try add(source, &state)
        }
    }

    /// Starts the sources that waited for clients.
    func startWaiting(_ state: inout FrameState) {
        let sources = pending
        pending = []
        for s in sources {
            do { try add(s, &state) } catch { log.error("cannot start \(s.node): \(error)") }
        }
    }

    var waiting: Bool { !pending.isEmpty }

    /// A device appears: it gets its own decoder and engine (and, passed through, its mirror);
    /// the owner hears `added`.
    /// `past`: the panel's slots as the kernel has them (`EvdevDevice.slotState`), which its
    /// decoder starts from (`FrameDecoder.seed`).
    /// A live panel with a mirror (`mirror`: what it is made of) is read by the input thread
    /// (`ThreadedPanel`), which shows the mirror's frames ahead of the loop.
    func add(
        _ source: InputSource, mirror: MirrorParts? = nil, past: (positions: [Int32], slot: Int)? = nil, _ state: inout FrameState
    ) throws {
        let d = source.description
        let key = PanelHealth.Key(name: d.name, vendor: d.vendor, product: d.product, node: source.node)
        let id = nextID
        var pipeline = try makePipeline(source, id: id)
        let fresh = pipeline
        if let past { pipeline.decoder.seed(positions: past.positions, slot: past.slot) }
        noteSize(source, pipeline.decoder)
        let thread = mirror.flatMap {
            threaded(source, mirror: $0, decoder: pipeline.decoder, ahead: pipeline.leavesTheMirror, wake: state.devices.wake.flags)
        }
        let own = thread == nil ? mirror.map { Mirror($0) } : nil
        let device = RouteDevice(
            id: id, source: source, pipeline: pipeline, health: gone.take(key) ?? PanelHealth(key), mirror: own, thread: thread)
        nextID += 1
        state.devices.add(device)
        // The hand-off (a replay's every batch; a live device's only after lost events or before
        // deadlines fire: `ready` reads it otherwise) holds the devices strongly (an unowned
        // capture was checked, retained and released on every call); the source lets go of it
        // when it is stopped, which the devices do before they let a source go and when the
        // daemon stops (`stopAll`). The end's call-back, rare, stays unowned.
        do {
            try source.start(
                loop: loop, id: id,
                deliver: { batch, state in self.delivered(batch, from: id, &state) },
                ended: { [unowned self] state in self.sourceEnded(id, &state) })
        } catch {
            // Not read by the loop: not by the input thread either.
            if let thread { input?.remove(thread) }
            throw error
        }
        owner?.added(device, &state)
        log.info("device \(id) added: \(source.description.name) (\(source.node))")
        // Its first touch is not the first run of its frame path's code (its fd is read at a
        // later turn; once for each kind of route: a storm of like panels rehearses one).
        rehearseIfNew(device, fresh: fresh, threadPath: thread != nil ? mirror : nil)
    }

    /// A live panel read by the input thread (`ThreadedPanel`), with its mirror and a copy of
    /// its decoder; the source reads the thread's relay from now on. Nil without the thread, or
    /// when the panel cannot be handed to it (logged): the loop reads it and writes its mirror.
    private func threaded(_ source: InputSource, mirror: MirrorParts, decoder: FrameDecoder, ahead: Bool, wake: WakeFlags) -> ThreadedPanel? {
        guard let input, let source = source as? LiveSource else { return nil }
        let device = source.device
        do throws(SystemCallError) {
            let panel = try ThreadedPanel(
                panel: device.fd, node: device.path, slots: device.stateSlots, decoder: decoder, mirror: mirror, ahead: ahead, wake: wake, log: log,
                trace: trace)
            if let e = input.add(panel) { throw e }
            source.relay = panel
            source.input = input
            return panel
        } catch {
            log.warning("\(device.path): not read by the input thread (\(error)): the loop reads it and writes its mirror")
            return nil
        }
    }

    /// Live device `id`'s fd is ready: its events, read into the devices' one buffer, go through
    /// its pipeline. The source itself is reached only when the read is not a plain batch (an
    /// unplug, lost events, an error): no object is retained or called per frame.
    func ready(_ id: UInt32, fd: Int32, _ state: inout FrameState) {
        var end = EvdevDevice.BatchEnd.drained
        do {
            repeat {
                relayedRead = false
                // One read at a time uses the buffer (one thread; each batch is handed on before the next).
                end = try EvdevDevice.readBatch(fd, into: readBuffer, "read(fd \(fd))", decode: { batch in
                    delivered(batch, from: id, &state)
                })
                // A full buffer: read on, while the device is still there; a relay's read is one
                // message, short or not: read on while messages come.
            } while (end == .full || (relayedRead && end == .drained)) && state.devices.index(of: id) != nil
        } catch {
            let source = liveSource(id, state)
            source?.readFailed(error, &state)
            return
        }
        if end == .removed || end == .dropped {
            let source = liveSource(id, state)
            source?.readEnded(end, &state)
        }
    }

    private func liveSource(_ id: UInt32, _ state: borrowing FrameState) -> LiveSource? {
        state.devices.index(of: id).flatMap { state.devices.all[$0].source as? LiveSource }
    }

    /// A read's batch down the device's route; true when it stopped at a SYN_DROPPED. One body
    /// for every caller (the reader, a replay, a rehearsal), so a rehearsal runs the very code a
    /// panel's read does.
    @discardableResult @inline(never)
    func delivered(_ batch: InputBatch, from id: UInt32, _ state: inout FrameState) -> Bool {
        if batch.resynced { logResync(id, in: state) }
        guard let k = state.devices.index(of: id) else { return false }
        if state.devices.all[k].threaded { return relayed(batch, k, &state) }
        if let trace { trace.noteRead(batch) }
        return route(.read(batch), k, &state)
    }

    /// A message of the input thread's relay (`Relay`): a read, the filters' frame at the place
    /// the thread made it, or lost events with the kernel's state after them.
    private func relayed(_ batch: InputBatch, _ k: Int, _ state: inout FrameState) -> Bool {
        relayedRead = true
        switch Relay.kind(of: batch) {
        case .read: return route(.read(batch), k, &state)
        case .tick(let t): return route(.filterTick(t), k, &state)
        case .swap:
            guard !state.devices.all[k].pendingPipelines.isEmpty else { return false }
            // What the outgoing engine began since the reload ends as the reload ended the rest.
            route(.removal(monotonic: monotonicNanoseconds()), k, &state)
            guard !state.devices.all[k].pendingPipelines.isEmpty else { return false }
            state.devices.replacePipeline(k, with: state.devices.all[k].pendingPipelines.removeFirst())
            return false
        case .resync(let number):
            logResync(state.devices.all[k].id, in: state)
            // From where the thread's decoder stood: this one may be behind (messages it lost;
            // a reload's mark comes after, in order, and its pipeline waits for it).
            if var snapshot = state.devices.all[k].thread?.shared.withLock({ $0.takeSnapshot(number) }) {
                // The thread's decoder fed the mirror alone; this one feeds the engine too.
                snapshot.feedsEngine = true
                state.devices.all[k].pipeline.decoder = snapshot
            }
            return Relay.state(of: batch) { route(.read($0), k, &state) }
        }
    }

    private func logResync(_ id: UInt32, in state: borrowing FrameState) {
        let node = state.devices.index(of: id).map { state.devices.all[$0].source.node } ?? "device \(id)"
        log.notice("\(node): events dropped (SYN_DROPPED); resynchronized with the kernel's state")
    }

    /// A device's decoder (with the configured geometry) and engine (with the current regions).
    func makePipeline(_ source: InputSource, id: UInt32) throws -> DevicePipeline {
        var configuration = base
        configuration.geometry = geometry(of: source)
        return try DevicePipeline(description: source.description, configuration: configuration, compiled: compiled, device: id)
    }

    /// A device's geometry: its `[[panel]]` or `[device]` lines, and udev's
    /// LIBINPUT_CALIBRATION_MATRIX and measured size unless the config says otherwise. The
    /// pipeline's gestures and the mirror's positions both follow it.
    func geometry(of source: InputSource) -> GeometryConfiguration {
        base.geometry(of: source.description, path: source.node, systemSizeMM: source.systemSizeMM, systemCalibration: source.systemCalibration)
    }

    /// Fires each device's deadlines due by monotonic time `now`, each at its own time (input
    /// already due is read first, so that input and deadlines keep their order).
    func fireDeadlines(now: Int64, _ state: inout FrameState) {
        // The sources first, last to first and each looked up afresh (no list to allocate): a
        // delivery may take its own device out of the table, which moves only those after it.
        var k = state.devices.all.count
        while k > 0 {
            k -= 1
            guard k < state.devices.all.count else { continue }
            let source = state.devices.all[k].source
            source.deliverDue(&state)
        }
        for k in state.devices.all.indices { route(.deadlines(monotonic: now), k, &state) }
    }

    /// New regions (a reload, a client's set_regions): apply from each device's next sequence.
    /// Each compile is numbered (`serial`), so a client's filter knows which one it was resolved for.
    func reconfigure(_ next: CompiledConfiguration, _ state: inout FrameState) {
        var next = next
        next.serial = compiled.serial + 1
        compiled = next
        state.devices.reconfigure(next, file: base)
    }

    /// A panel's size that is a guess where it matters (an implausible resolution; a filtered
    /// panel's), and dead zones off it or over all of it, logged when its decoder is made.
    func noteSize(_ source: InputSource, _ decoder: borrowing FrameDecoder) {
        let node = source.node, size = decoder.geometry.sizeSource
        let g = geometry(of: source), mm = decoder.geometry.sizeMM
        if size == .resolution, !g.sizeIsThePanels, let w = g.widthMM, let h = g.heightMM, abs(mm.width - w) > 0.1 * w || abs(mm.height - h) > 0.1 * h {
            log.notice("\(node): its axis resolution gives \(Int(mm.width)) × \(Int(mm.height)) mm, used over [device]'s width_mm and height_mm (for panels without one): set them in its [[panel]] to override it")
        }
        if size == .implausibleResolution || (decoder.isFiltered && size == .fallback) {
            let guess = GeometryConfiguration.defaultPanelSize
            let why = size == .fallback ? "no axis resolution, and its filters are in mm" : "its axis resolution gives a size no panel has"
            log.notice("\(node): its size is a guess (\(Int(guess.width)) × \(Int(guess.height)) mm; \(why)): set width_mm and height_mm in its [[panel]]")
        }
        if let problem = decoder.deadZoneProblem { log.notice("\(node): \(problem)") }
    }

    private func sourceEnded(_ id: UInt32, _ state: inout FrameState) {
        guard let k = state.devices.index(of: id) else { return }
        state.devices.markEnded(k)
        let source = state.devices.all[k].source
        if source.removesWhenEnded {
            remove(id, &state)
        } else {
            log.info("device \(id) (\(source.node)) has no more input")
        }
    }

    /// A device went away: its gestures end `cancelled`, then the owner hears `removed`.
    func remove(_ id: UInt32, _ state: inout FrameState) {
        guard let k = state.devices.index(of: id) else { return }
        route(.removal(monotonic: monotonicNanoseconds()), k, &state)
        var device = state.devices.take(k)
        if let place = places.removeValue(forKey: device.source.node) { mirrors.removed(place: place) }
        device.source.stop()
        // The mirror lifts what it holds, then goes (its device is destroyed with it).
        device.liftMirror()
        device.health.filtered += device.pipeline.decoder.filterCounts
        device.health.filtered.contactLimit += device.pipeline.contactsLimited
        gone.add(device.health)
        owner?.removed(device, &state)
        log.info("device \(device.id) removed: \(device.source.node)")
    }

    /// Every panel's health: those present (their read errors so far added), then those gone.
    func panels(in state: borrowing FrameState) -> [PanelHealth] {
        state.devices.all.map { d in
            var h = d.health
            h.errors += d.source.errorCount
            h.filtered += d.pipeline.decoder.filterCounts
            h.filtered.contactLimit += d.pipeline.contactsLimited
            return h
        } + gone.all
    }

    /// The daemon stops: every source stops, and every mirror lifts what it shows (a mirror
    /// systemd keeps stays for the next start, with nothing left down).
    func stopAll(_ state: inout FrameState) {
        for d in state.devices.all { d.source.stop() }
        for k in state.devices.all.indices { state.devices.all[k].liftMirror() }
        mirrors.keepAll()
    }
}
