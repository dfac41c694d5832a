import CLinux
import GestureConfig
import GestureEngine
import GestureProtocol
import Logging
import Pipeline
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

public let daemonVersion = "0.1.0"

/// The daemon: one thread, one epoll loop. Inputs, a timerfd at the engines' next deadline, a
/// signalfd (TERM/INT stop, HUP reloads), the socket and its clients. Nothing polls: with no input
/// and no clients it does not wake up.
public final class Daemon {
    public struct Options {
        public var configPath: String?
        public var socketPath: String?
        public var replay: String?
        public var deviceDescription: String?
        public var loop = false
        public var speed = 1.0
        public var exitAfterReplay = false
        /// Start the replay once this many clients have connected (0: at once).
        public var waitForClients = 0
        public var verbose = false
        public init() {}
    }

    /// One touch device: its source, and the decoder + engine + encoder its events go through.
    final class Device {
        let id: UInt32
        let source: InputSource
        var replayer: Replayer
        var ended = false
        init(id: UInt32, source: InputSource, replayer: Replayer) {
            self.id = id
            self.source = source
            self.replayer = replayer
        }
        var summary: DeviceSummary {
            let d = source.description
            return DeviceSummary(
                id: id, name: d.name, node: source.node, vendor: d.vendor, product: d.product,
                kind: d.touchKind?.rawValue ?? "unknown", slots: d.slotCount)
        }
    }

    let options: Options
    let log: Logger
    let loop: EventLoop
    let systemd = Systemd()
    var server: Server!
    /// The configuration from the file (or the built-in one), without client regions.
    var base: Configuration
    /// The file's regions plus every client's, compiled: what the engines run.
    var compiled: CompiledConfiguration
    var devices: [Device] = []
    private var nextDeviceID: UInt32 = 1
    private let deadline: DeadlineTimer
    private var signalFD: Int32 = -1
    private var watchdog: Int32 = -1
    private var socketPathToRemove: String?
    private var pendingSources: [InputSource] = []
    private var hotplug: HotplugMonitor?
    private var exitCode: Int32 = 0
    private var lastReloadError: String?

    // Output scratch and stats.
    var writer = JSONLineWriter(capacity: 4096)
    /// Monotonic time the current input began to be handled (latency start).
    var inputSince: Int64?
    let startedAt = monotonicNanoseconds()
    var counters = Counters()
    var latencies = LatencyRing()
    /// How late the deadline timer fired (long press, double-tap window), for `stats`.
    var lateness = LatencyRing()

    struct Counters {
        var frames = 0
        var gestureLines = 0
        var touchLines = 0
        var requests = 0
        var errors = 0
        var reloads = 0
        var reloadFailures = 0
    }

    public init(options: Options, log: Logger) throws {
        self.options = options
        self.log = log
        loop = try EventLoop()
        deadline = try DeadlineTimer()
        base = try Self.loadConfiguration(options.configPath)
        if let s = options.socketPath { base.daemon.socket = s }
        compiled = CompiledConfiguration(base.engine)
    }

    /// `max_clients`, lowered (with a warning) when RLIMIT_NOFILE cannot hold that many.
    func clientLimit() -> Int {
        let n = Server.clientLimit(configured: base.daemon.maxClients)
        if n < base.daemon.maxClients {
            log.warning("max_clients \(base.daemon.maxClients) lowered to \(n): RLIMIT_NOFILE leaves fds for \(n) clients")
        }
        return n
    }

    static func loadConfiguration(_ path: String?) throws -> Configuration {
        guard let path else { return .standard }
        return try ConfigLoader.parse(bytes: try readRegularFile(path), file: path)
    }

    // MARK: - Start and run

    /// Sets everything up, tells systemd READY=1, runs until stopped; returns the exit code.
    public func run() throws -> Int32 {
        cl_set_process_name("touchgestured")
        signalFD = cl_signalfd_create()
        guard signalFD >= 0 else { throw EventLoop.Failure(call: "signalfd", errno: errno) }
        try loop.add(signalFD) { [unowned self] _ in self.signals() }
        try loop.add(deadline.fd) { [unowned self] _ in self.deadlineFired() }

        let listenFD = try openSocket()
        let limits = Server.Limits(
            maxClients: clientLimit(), maxLineBytes: base.daemon.maxLineBytes,
            outputBufferBytes: base.daemon.outputBufferBytes)
        server = try Server(loop: loop, listenFD: listenFD, limits: limits, log: log)
        server.onConnect = { [unowned self] c in self.connected(c) }
        server.onRequest = { [unowned self] c, line in self.request(c, line) }
        server.onDisconnect = { [unowned self] c in self.disconnected(c) }
        server.onWritten = { [unowned self] ns in self.latencies.add(ns) }
        loop.afterTurn = { [unowned self] in self.afterTurn() }
        loop.hasPendingWork = { [unowned self] in self.server.hasBacklog }

        if let path = options.replay {
            try openReplay(path)
        } else {
            scanDevices()
            startHotplug()
        }

        if let interval = systemd.watchdogInterval {
            watchdog = cl_timerfd_create()
            _ = cl_timerfd_set_interval(watchdog, interval)
            try loop.add(watchdog) { [unowned self] _ in
                _ = cl_timerfd_read(self.watchdog)
                self.systemd.notify("WATCHDOG=1")
            }
        }
        systemd.notify("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
        log.info("touchgestured \(daemonVersion) ready on \(base.daemon.socket): \(devices.count) device(s), config \(base.source)")
        loop.run()

        systemd.notify("STOPPING=1")
        server.closeAll()
        for d in devices { d.source.stop() }
        if let path = socketPathToRemove { unlink(path) }
        log.info("stopped")
        return exitCode
    }

    var status: String {
        var s = "\(devices.count) device(s), \(server?.clientCount ?? 0) client(s)"
        if let e = lastReloadError { s += "; last reload failed: \(e)" }
        return s
    }

    /// The listening socket: systemd's (socket activation), or our own at the configured path.
    private func openSocket() throws -> Int32 {
        if let fd = Systemd.listenFDs().first {
            log.info("using the socket systemd passed (fd \(fd))")
            return fd
        }
        let path = base.daemon.socket
        var gid: gid_t = getegid()
        if let group = base.daemon.group {
            guard let g = getgrnam(group) else { throw StartError("unknown group '\(group)' ([daemon] group)") }
            gid = g.pointee.gr_gid
        }
        // A missing directory is made 0750 with the socket's group: the members that may connect
        // can reach the socket, nobody else can even list it. An existing one is left as it is.
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty && access(parent, F_OK) != 0 {
            guard mkdir(parent, 0o750) == 0 || errno == EEXIST else {
                throw StartError("cannot create \(parent): \(String(cString: strerror(errno)))")
            }
            guard chown(parent, geteuid(), gid) == 0 else {
                throw StartError("cannot give \(parent) its group: \(String(cString: strerror(errno)))")
            }
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            // Only a socket nobody listens on is replaced (a daemon that died left it); anything
            // else there is not ours to delete.
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                let kind = st.st_mode & S_IFMT == S_IFDIR ? "a directory" : st.st_mode & S_IFMT == S_IFREG ? "a regular file" : "not a socket"
                throw StartError("\(path) is \(kind), not a socket; refusing to replace it (choose another --socket or remove it)")
            }
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            defer { close(probe) }
            if cl_connect_unix(probe, path) == 0 {
                throw StartError("another touchgestured is listening on \(path)")
            }
            guard unlink(path) == 0 else { throw StartError("cannot remove the stale socket \(path): \(String(cString: strerror(errno)))") }
            log.notice("replaced a stale socket at \(path)")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw EventLoop.Failure(call: "socket", errno: errno) }
        guard cl_bind_unix(fd, path) == 0 else {
            let e = errno
            close(fd)
            throw StartError("cannot bind \(path): \(String(cString: strerror(e)))")
        }
        socketPathToRemove = path
        guard chown(path, geteuid(), gid) == 0, chmod(path, 0o660) == 0 else {
            throw StartError("cannot set the owner and mode of \(path): \(String(cString: strerror(errno)))")
        }
        guard listen(fd, 64) == 0 else { throw EventLoop.Failure(call: "listen", errno: errno) }
        return fd
    }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    private func openReplay(_ path: String) throws {
        let recording = try Evemu.parse(try readTextFile(path), file: path)
        var description = recording.description
        if let desc = options.deviceDescription {
            description = try Evemu.parse(try readTextFile(desc), file: desc).description
        }
        guard let description else {
            throw StartError("\(path): the recording has no device description; pass --device DESC")
        }
        let source = try ReplaySource(recording: recording, description: description, path: path, speed: options.speed, loop: options.loop)
        if options.waitForClients > 0 {
            pendingSources.append(source)
            log.info("replay of \(path) waits for \(options.waitForClients) client(s)")
        } else {
            try add(source)
        }
    }

    /// A device appears: it gets its own decoder and engine; clients hear `device added`.
    func add(_ source: InputSource) throws {
        let device = Device(id: nextDeviceID, source: source, replayer: try makeReplayer(source, id: nextDeviceID))
        nextDeviceID += 1
        wire(device)
        if let live = source as? LiveSource {
            live.onResync = { [unowned device] in device.replayer.resynced() }
        }
        devices.append(device)
        try source.start(
            loop: loop,
            deliver: { [unowned self, unowned device] batch in self.input(batch, device: device) },
            ended: { [unowned self, unowned device] in self.sourceEnded(device) })
        announce(device, added: true)
        log.info("device \(device.id) added: \(source.description.name) (\(source.node))")
        systemd.notify("STATUS=\(status)")
    }

    /// A device's decoder (with the configured geometry) and engine (with the current regions).
    private func makeReplayer(_ source: InputSource, id: UInt32) throws -> Replayer {
        var configuration = base
        let d = source.description
        configuration.geometry = base.geometry(path: source.node, name: d.name, vendor: d.vendor, product: d.product)
        if let live = source as? LiveSource {
            // udev's LIBINPUT_CALIBRATION_MATRIX and measured size, unless the config says otherwise.
            if configuration.geometry.calibration == [1, 0, 0, 0, 1, 0], let m = live.inputNode.calibration {
                configuration.geometry.calibration = m
            }
            if configuration.geometry.widthMM == nil, let size = live.inputNode.sizeMM {
                configuration.geometry.widthMM = size.width
                configuration.geometry.heightMM = size.height
            }
        }
        var r = try Replayer(description: source.description, configuration: configuration, device: id)
        r.reconfigure(compiled)
        r.tracing = options.verbose
        return r
    }

    private func wire(_ device: Device) {
        let names = { [unowned device] in device.replayer.engine.configuration.gestures.map(\.qualifiedName) }
        device.replayer.onTransition = { [unowned self] t in
            let all = names()
            self.log.trace("\(t.gesture < all.count ? all[t.gesture] : "#\(t.gesture)") \(t.from) --\(t.input)--> \(t.to)\(t.reason.map { " (\($0))" } ?? "")")
        }
        device.replayer.onLine = { [unowned self, unowned device] event, region, bytes in
            self.broadcast(event, region: region, bytes, device: device)
        }
        device.replayer.onFrame = { [unowned self, unowned device] frame in self.frame(frame, device: device) }
    }

    /// A reload changed the geometry ([screen], [device]): each device gets a new decoder. What was
    /// under way ends `cancelled` (the old mapping's positions cannot continue in the new one).
    private func remap() {
        let now = monotonicNanoseconds()
        for d in devices {
            prepare(d)
            d.replayer.deviceRemoved(at: d.source.engineTime(atMonotonic: now))
            d.replayer.writer.reset()
            do {
                d.replayer = try makeReplayer(d.source, id: d.id)
                wire(d)
            } catch {
                log.error("device \(d.id): \(error)")
            }
        }
    }

    private func announce(_ device: Device, added: Bool) {
        writer.reset()
        Messages.device(&writer, added: added, device.summary, time: Double(monotonicNanoseconds()) / 1e9)
        for c in server.allClients where c.devices == nil || c.devices!.contains(device.id) {
            server.enqueue(writer.bytes[...], to: c, since: nil)
        }
        writer.reset()
    }

    // MARK: - Input path

    /// Before the engine runs: lines are formatted only when some client takes gesture lines.
    private func prepare(_ device: Device) {
        device.replayer.encodes = server.allClients.contains { $0.gestures }
    }

    private func input(_ batch: InputBatch, device: Device) {
        if inputSince == nil { inputSince = monotonicNanoseconds() }
        prepare(device)
        device.replayer.feed(batch)
        device.replayer.writer.reset()
    }

    private func frame(_ f: TouchFrame, device: Device) {
        counters.frames += 1
        var first = true
        for c in server.allClients where c.touches && (c.devices == nil || c.devices!.contains(device.id)) {
            if first {
                writer.reset()
                Messages.touch(&writer, device: device.id, frame: f)
                first = false
            }
            server.enqueue(writer.bytes[...], to: c, since: inputSince)
            counters.touchLines += 1
        }
    }

    private func broadcast(_ e: GestureEvent, region: String?, _ bytes: ArraySlice<UInt8>, device: Device) {
        counters.gestureLines += 1
        let regionName = region ?? EngineConfiguration.screenRegionName
        for c in server.allClients where c.gestures {
            if let k = c.kinds, !k.contains(e.kind) { continue }
            if let r = c.regions, !r.contains(regionName) { continue }
            if let d = c.devices, !d.contains(device.id) { continue }
            server.enqueue(bytes, to: c, since: inputSince)
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

    /// A device went away: its gestures end `cancelled`, then clients hear `device removed`.
    private func remove(_ device: Device) {
        if inputSince == nil { inputSince = monotonicNanoseconds() }
        prepare(device)
        device.replayer.deviceRemoved(at: device.source.engineTime(atMonotonic: monotonicNanoseconds()))
        device.replayer.writer.reset()
        device.source.stop()
        devices.removeAll { $0 === device }
        announce(device, added: false)
        log.info("device \(device.id) removed: \(device.source.node)")
        systemd.notify("STATUS=\(status)")
    }

    // MARK: - Live devices

    /// Every input node now: touchscreens are opened, the rest are logged as skipped.
    private func scanDevices() {
        for node in Discovery.nodes() { open(node) }
    }

    private func open(_ node: InputNode) {
        guard !devices.contains(where: { $0.source.node == node.path }) else { return }
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

    private func startHotplug() {
        do {
            let monitor = try HotplugMonitor()
            hotplug = monitor
            try loop.add(monitor.fd) { [unowned self] _ in
                for change in monitor.drain() {
                    switch change {
                    case .added(let path): self.open(Discovery.node(devnode: path))
                    case .removed(let path):
                        if let d = self.devices.first(where: { $0.source.node == path }) { self.remove(d) }
                    }
                }
            }
            log.info("hotplug: \(monitor.mode.rawValue)")
        } catch {
            log.notice("no hotplug: \(error)")
        }
    }

    private func deadlineFired() {
        let now = monotonicNanoseconds()
        if deadline.armedAt > 0 { lateness.add(max(0, now - deadline.armedAt)) }
        deadline.acknowledge()
        if inputSince == nil { inputSince = now }
        for d in devices {
            // Input already due comes first; then each deadline fires at its own time (the engine's
            // clock never runs ahead of input not yet read).
            d.source.deliverDue()
            let engineNow = d.source.engineTime(atMonotonic: now)
            prepare(d)
            while let t = d.replayer.nextDeadline, t <= engineNow {
                d.replayer.advance(to: t)
            }
            d.replayer.writer.reset()
        }
    }

    /// After every wake-up: write what was queued, re-arm the deadline timer, maybe exit.
    private func afterTurn() {
        server.serveBacklog()
        server.flush()
        inputSince = nil
        var next: Int64?
        for d in devices {
            if let t = d.replayer.nextDeadline {
                let m = d.source.monotonic(of: t)
                if next == nil || m < next! { next = m }
            }
        }
        deadline.arm(at: next)
        if options.exitAfterReplay && !devices.isEmpty && devices.allSatisfy({ $0.ended && $0.replayer.isIdle })
            && next == nil
        {
            log.info("the replay is over (--exit-after-replay)")
            loop.stop()
        }
    }

    // MARK: - Signals and reload

    private func signals() {
        while true {
            let sig = cl_signalfd_read(signalFD)
            if sig == 0 { return }
            switch sig {
            case SIGHUP: reload()
            case SIGTERM, SIGINT:
                log.info("signal \(sig): stopping")
                loop.stop()
            default: break
            }
        }
    }

    func reload() {
        guard let path = options.configPath else {
            log.notice("SIGHUP: no --config file to reload; the built-in configuration stays")
            return
        }
        systemd.notify("RELOADING=1")
        defer { systemd.notify("READY=1\nSTATUS=\(status)") }
        do {
            var next = try Self.loadConfiguration(path)
            next.daemon.socket = base.daemon.socket
            let geometryChanged = next.geometry != base.geometry || next.panels != base.panels
            base = next
            lastReloadError = nil
            counters.reloads += 1
            try recompile()
            if geometryChanged { remap() }
            server.settings.maxLineBytes = base.daemon.maxLineBytes
            server.settings.outputBufferBytes = base.daemon.outputBufferBytes
            server.settings.maxClients = clientLimit()
            log.info("reloaded \(path): applies from the next touch sequence")
        } catch {
            counters.reloadFailures += 1
            lastReloadError = "\(error)"
            log.error("reload refused, the old configuration stays: \(error)")
        }
    }

    /// The file's regions plus each client's, in connection order; a client's regions that no
    /// longer fit (a name now taken by the file) are dropped with an error line to that client.
    func recompile() throws {
        var regions = base.engine.regions
        for c in server.allClients where !c.ownedRegions.isEmpty {
            let names = Set(regions.map(\.name))
            if c.ownedRegions.contains(where: { names.contains($0.name) }) {
                c.ownedRegions = []
                writer.reset()
                Messages.error(&writer, id: nil, code: "regions_dropped", message: "your regions clash with the reloaded configuration")
                server.reply(writer.bytes[...], to: c)
                continue
            }
            regions += c.ownedRegions
        }
        compiled = CompiledConfiguration(EngineConfiguration(screen: base.engine.screen, regions: regions))
        for d in devices { d.replayer.reconfigure(compiled) }
    }

    // MARK: - Clients

    private func connected(_ c: Client) {
        writer.reset()
        Messages.hello(&writer, version: daemonVersion, devices: devices.map(\.summary), screen: base.engine.screen)
        server.reply(writer.bytes[...], to: c)
        writer.reset()
        if !pendingSources.isEmpty && server.clientCount >= options.waitForClients {
            let sources = pendingSources
            pendingSources = []
            for s in sources {
                do { try add(s) } catch { log.error("cannot start \(s.node): \(error)") }
            }
        }
        systemd.notify("STATUS=\(status)")
    }

    private func disconnected(_ c: Client) {
        if !c.ownedRegions.isEmpty {
            c.ownedRegions = []
            do { try recompile() } catch { log.error("recompiling without \(c.label)'s regions: \(error)") }
            log.info("\(c.label)'s regions removed")
        }
        systemd.notify("STATUS=\(status)")
    }
}

/// Input-to-write latencies (or deadline lateness) for `stats`: the last 4096 samples, whose
/// percentiles are computed on request, and a histogram of every sample since the start in
/// power-of-two microsecond buckets (bucket k holds [2^(k-1), 2^k) µs; bucket 0 is under 1 µs).
/// Adding a sample allocates nothing.
struct LatencyRing {
    private var samples = [Int64](repeating: 0, count: 4096)
    private var next = 0
    private(set) var count = 0
    private(set) var max: Int64 = 0
    /// Counts per bucket; the last bucket also holds everything slower (2^23 µs ≈ 8 s and up).
    private(set) var buckets = [Int](repeating: 0, count: 24)

    mutating func add(_ ns: Int64) {
        samples[next] = ns
        next = (next + 1) % samples.count
        count += 1
        if ns > max { max = ns }
        let us = UInt64(Swift.max(0, ns / 1000))
        buckets[Swift.min(buckets.count - 1, 64 - us.leadingZeroBitCount)] += 1
    }

    /// The exclusive upper bound (µs) of bucket `k`.
    static func bucketBound(_ k: Int) -> Int { 1 << k }

    func percentile(_ p: Double) -> Int64 {
        let n = Swift.min(count, samples.count)
        guard n > 0 else { return 0 }
        let sorted = samples[0..<n].sorted()
        return sorted[Swift.min(n - 1, Int(Double(n - 1) * p))]
    }
}
