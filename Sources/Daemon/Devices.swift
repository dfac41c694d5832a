import GestureConfig
import GestureEngine
import GestureProtocol
import Logging
import Pipeline
import TouchFrames
import TouchInput

/// One touch device: its source, and the decoder + engine + encoder its events go through.
final class Device {
    let id: UInt32
    let source: InputSource
    var pipeline: DevicePipeline
    var ended = false
    /// The pipeline's next deadline and anomalies as last seen (`Devices.refresh`), the deadline
    /// also in monotonic time.
    var engineDeadline: Timestamp?
    var monotonicDeadline: Int64?
    var anomalies = 0
    /// Its panel's health (`stats`), carried over from an earlier life of the same panel.
    var health: PanelHealth

    init(id: UInt32, source: InputSource, pipeline: DevicePipeline, health: PanelHealth) {
        self.id = id
        self.source = source
        self.pipeline = pipeline
        self.health = health
        self.health.up = true
    }

    var summary: DeviceSummary {
        let d = source.description
        return DeviceSummary(
            id: id, name: d.name, node: source.node, vendor: d.vendor, product: d.product,
            kind: d.touchKind?.rawValue ?? "unknown", slots: d.slotCount)
    }
}

/// Where what the devices produce goes (the daemon's fan-out to clients).
protocol DeviceOwner: AnyObject {
    /// What a device's pipeline made of its input or of a deadline (valid during the call).
    func output(_ out: inout PipelineOutput, from device: Device)
    func added(_ device: Device)
    func removed(_ device: Device)
}

/// The touch devices: discovery and hotplug of live ones (libudev, the capability fallback,
/// `ignore_devices`, `grab`), a replayed recording, each device's geometry and pipeline, and
/// what happens when one goes away or the configuration changes.
///
/// Generic over its owner (the daemon), which it borrows without reference counting: `owner`
/// is handed every read's output, and a checked reference, even `unowned(unsafe)`, was retained
/// and released around each call.
final class Devices<Owner: DeviceOwner> {
    private let loop: EventLoop
    private let log: Logger
    /// The daemon owns the devices for its whole life.
    private let ownerRef: Unmanaged<Owner>
    private(set) var all: [Device] = []
    private var nextID: UInt32 = 1
    /// Sources waiting for enough clients (`--wait-for-clients`).
    private var pending: [InputSource] = []
    private var hotplug: HotplugMonitor?
    /// The file's configuration (geometry, `[daemon]`), and what the engines run.
    var base: Configuration
    private(set) var compiled: CompiledConfiguration
    /// Panels that went (for `stats`: up = false), the newest 64.
    private var gone = GonePanels()
    /// The one output buffer every pipeline fills in turn; the owner reads it after each run.
    private var output = PipelineOutput()
    /// What the pipelines make beyond the events (the owner's clients decide). Applied to the
    /// output buffer at once, except during a hand-over (a client dropped while its lines were
    /// being queued changes it while the owner reads the buffer): then right after it.
    var wants = PipelineOutput.Wants() {
        didSet { if !handing { output.wants = wants } }
    }
    private var handing = false
    /// The earliest engine deadline over all devices (monotonic ns), and the engines' anomalies
    /// added up: kept as pipelines run, so the daemon's every wake-up reads two numbers.
    private(set) var earliestDeadline: Int64?
    private(set) var anomalies = 0

    init(loop: EventLoop, log: Logger, owner: Owner, base: Configuration) {
        self.loop = loop
        self.log = log
        ownerRef = Unmanaged.passUnretained(owner)
        self.base = base
        compiled = CompiledConfiguration(base.engine)
    }

    /// `--replay`: the recording as a virtual device, now or once `waitForClients` connected.
    func openReplay(_ path: String, options: Daemon.Options) throws {
        let recording = try Evemu.parse(try readTextFile(path), file: path)
        var description = recording.description
        if let desc = options.deviceDescription {
            description = try Evemu.parse(try readTextFile(desc), file: desc).description
        }
        guard let description else {
            throw Daemon.StartError("\(path): the recording has no device description; pass --device DESC")
        }
        let source = try ReplaySource(recording: recording, description: description, path: path, speed: options.speed, loop: options.loop, log: log)
        if options.waitForClients > 0 {
            pending.append(source)
            log.info("replay of \(path) waits for \(options.waitForClients) client(s)")
        } else {
            try add(source)
        }
    }

    /// Starts the sources that waited for clients.
    func startWaiting() {
        let sources = pending
        pending = []
        for s in sources {
            do { try add(s) } catch { log.error("cannot start \(s.node): \(error)") }
        }
    }

    var waiting: Bool { !pending.isEmpty }

    /// A device appears: it gets its own decoder and engine; the owner hears `added`.
    func add(_ source: InputSource) throws {
        let d = source.description
        let key = PanelHealth.Key(name: d.name, vendor: d.vendor, product: d.product, node: source.node)
        let device = Device(
            id: nextID, source: source, pipeline: try makePipeline(source, id: nextID),
            health: gone.take(key) ?? PanelHealth(key))
        nextID += 1
        all.append(device)
        refresh(device)
        try source.start(
            loop: loop,
            deliver: { [devices = Unmanaged.passUnretained(self), device = Unmanaged.passUnretained(device)] batch in
                // Borrowed, not retained: `unowned(unsafe)` still retained and released both
                // around every use, five pairs a read. The daemon holds both while the source runs.
                devices._withUnsafeGuaranteedRef { devices in
                    device._withUnsafeGuaranteedRef { device in devices.delivered(batch, from: device) }
                }
            },
            ended: { [unowned self, unowned device] in self.sourceEnded(device) })
        ownerRef._withUnsafeGuaranteedRef { $0.added(device) }
        log.info("device \(device.id) added: \(source.description.name) (\(source.node))")
    }

    /// A read's batch through the device's pipeline, and what it made to the owner.
    private func delivered(_ batch: InputBatch, from device: Device) {
        if batch.resynced { device.health.resyncs += 1 }
        device.pipeline.feed(batch, into: &output)
        hand(device)
    }

    /// A device's decoder (with the configured geometry) and engine (with the current regions).
    private func makePipeline(_ source: InputSource, id: UInt32) throws -> DevicePipeline {
        var configuration = base
        let d = source.description
        configuration.geometry = base.geometry(path: source.node, name: d.name, vendor: d.vendor, product: d.product)
        // udev's LIBINPUT_CALIBRATION_MATRIX and measured size, unless the config says otherwise.
        if configuration.geometry.calibration == [1, 0, 0, 0, 1, 0], let m = source.systemCalibration {
            configuration.geometry.calibration = m
        }
        if configuration.geometry.widthMM == nil, let size = source.systemSizeMM {
            configuration.geometry.widthMM = size.width
            configuration.geometry.heightMM = size.height
        }
        return try DevicePipeline(description: source.description, configuration: configuration, compiled: compiled, device: id)
    }

    /// Hands what a device's pipeline made to the owner (transitions to the trace log), then
    /// empties the buffer for the next.
    private func hand(_ device: Device) {
        guard !output.isEmpty else { return refresh(device) }
        // (Looked at only when kept: iterating even an empty array retained it, every read.)
        if output.wants.transitions { logTransitions(device) }
        handing = true
        ownerRef._withUnsafeGuaranteedRef { $0.output(&output, from: device) }
        handing = false
        output.removeAll()
        if output.wants != wants { output.wants = wants }
        refresh(device)
    }

    private func logTransitions(_ device: Device) {
        for t in output.transitions {
            log.trace("\(device.pipeline.gestureName(t.gesture)) \(t.from) --\(t.input)--> \(t.to)\(t.reason.map { " (\($0))" } ?? "")")
        }
    }

    /// Takes a device's deadline and anomalies after its pipeline ran; the totals are worked out
    /// again only when they changed (on most frames they do not).
    private func refresh(_ device: Device) {
        let t = device.pipeline.nextDeadline
        let a = device.pipeline.anomalies
        guard t != device.engineDeadline || a != device.anomalies else { return }
        device.engineDeadline = t
        device.monotonicDeadline = t.map { device.source.monotonic(of: $0) }
        device.anomalies = a
        recount()
    }

    private func recount() {
        var earliest: Int64?
        var total = 0
        for d in all {
            total += d.anomalies
            if let m = d.monotonicDeadline, earliest == nil || m < earliest! { earliest = m }
        }
        earliestDeadline = earliest
        anomalies = total
    }

    /// Fires each device's deadlines due by monotonic time `now`, each at its own time (input
    /// already due is read first, so that input and deadlines keep their order).
    func fireDeadlines(now: Int64) {
        for d in all {
            d.source.deliverDue()
            let engineNow = d.source.engineTime(atMonotonic: now)
            while let t = d.pipeline.nextDeadline, t <= engineNow {
                d.pipeline.advance(to: t, into: &output)
            }
            hand(d)
        }
    }

    /// New regions (a reload, a client's set_regions): apply from each device's next sequence.
    /// Each compile is numbered (`serial`), so a client's filter knows which one it was resolved for.
    func reconfigure(_ next: CompiledConfiguration) {
        var next = next
        next.serial = compiled.serial + 1
        compiled = next
        for d in all {
            d.pipeline.reconfigure(next, file: base)
            refresh(d)
        }
    }

    /// A reload changed the geometry ([screen], [device]): each device gets a new decoder. What was
    /// under way ends `cancelled` (the old mapping's positions cannot continue in the new one).
    func remap() {
        let now = monotonicNanoseconds()
        for d in all {
            d.pipeline.deviceRemoved(at: d.source.engineTime(atMonotonic: now), into: &output)
            hand(d)
            do {
                d.pipeline = try makePipeline(d.source, id: d.id)
            } catch {
                log.error("device \(d.id): \(error)")
            }
            refresh(d)
        }
    }

    private func sourceEnded(_ device: Device) {
        device.ended = true
        if device.source.removesWhenEnded {
            remove(device)
        } else {
            log.info("device \(device.id) (\(device.source.node)) has no more input")
        }
    }

    /// A device went away: its gestures end `cancelled`, then the owner hears `removed`.
    func remove(_ device: Device) {
        device.pipeline.deviceRemoved(at: device.source.engineTime(atMonotonic: monotonicNanoseconds()), into: &output)
        hand(device)
        device.source.stop()
        device.health.up = false
        device.health.removals += 1
        device.health.errors += device.source.errorCount
        gone.add(device.health)
        all.removeAll { $0 === device }
        recount()
        ownerRef._withUnsafeGuaranteedRef { $0.removed(device) }
        log.info("device \(device.id) removed: \(device.source.node)")
    }

    /// Every panel's health: those present (their read errors so far added), then those gone.
    var panels: [PanelHealth] {
        all.map { d in
            var h = d.health
            h.errors += d.source.errorCount
            return h
        } + gone.all
    }

    func stopAll() {
        for d in all { d.source.stop() }
    }

    // MARK: - Live devices

    /// Every input node now: touchscreens are opened, the rest are logged as skipped.
    func scan() {
        for node in Discovery.nodes() { open(node) }
    }

    private func open(_ node: InputNode) {
        guard !all.contains(where: { $0.source.node == node.path }) else { return }
        let evdev: EvdevDevice
        do {
            evdev = try EvdevDevice(path: node.path)
        } catch {
            log.debug("\(node.path): skipped: \(error)")
            return
        }
        switch Discovery.classify(node, evdev.description, excluded: excluded) {
        case .skipped(let reason):
            log.debug("\(node.path) (\(evdev.description.name)): skipped: \(reason)")
        case .taken(let reason):
            if base.daemon.grab {
                do { try evdev.grab(true) } catch { log.warning("\(node.path): cannot grab: \(error)") }
            }
            log.info("\(node.path) (\(evdev.description.name)): taken: \(reason)")
            do {
                try add(LiveSource(device: evdev, node: node, log: log))
            } catch {
                log.error("\(node.path): \(error)")
            }
        }
    }

    /// `[daemon] ignore_devices`: a node path, `vvvv:pppp`, or a glob on the name.
    private func excluded(_ node: InputNode, _ d: DeviceDescription) -> String? {
        base.daemon.ignoreDevices.first {
            devicePatternMatches($0, path: node.path, name: d.name, vendor: d.vendor, product: d.product)
        }.map { "config ignore_devices \"\($0)\"" }
    }

    /// Devices that come and go: the udev monitor, or inotify on /dev/input without udevd.
    func startHotplug() {
        do {
            let monitor = try HotplugMonitor()
            hotplug = monitor
            try loop.add(monitor.fd) { [unowned self] _ in
                for change in monitor.drain() {
                    switch change {
                    case .added(let path): self.open(Discovery.node(devnode: path))
                    case .removed(let path):
                        if let d = self.all.first(where: { $0.source.node == path }) { self.remove(d) }
                    }
                }
            }
            log.info("hotplug: \(monitor.mode.rawValue)")
        } catch {
            log.notice("no hotplug: \(error)")
        }
    }
}
