import GestureConfig
import GestureEngine
import Pipeline
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

/// What the virtual touchscreen would show the compositor for a recording under a configuration,
/// worked out offline by the daemon's own route as pass-through runs it (the panel's filters,
/// the touches system gestures take or hold, calibration and rotation), the recording's
/// timestamps its clock: `touchgesturectl replay --mirror`.
public struct MirrorReplay: ~Copyable {
    /// The virtual touchscreen's description, named as the daemon names it.
    public let described: DeviceDescription
    private var state: FrameState
    private let clock = RecordingClock()
    private let sink = KeptWrites()

    public init(description d: DeviceDescription, configuration: Configuration, path: String) throws {
        var c = configuration.applied(toPath: path, name: d.name, vendor: d.vendor, product: d.product)
        c.daemon.mode = .passthrough
        let g = c.geometry
        let mapped = d.positionAxes.flatMap { MirrorGeometry(x: $0.x, y: $0.y, calibration: g.calibration, rotation: g.rotation) }
        var described = VirtualTouchscreen.description(mirroring: mapped?.mirroring(d) ?? d, unfuzzed: !g.filters.isEmpty)
        let mirror = Mirror(screen: sink, described: described, cancel: c.daemon.cancel, geometry: mapped)
        described.name = VirtualTouchscreen.name(mirroring: d.name)
        self.described = described
        let pipeline = try DevicePipeline(description: d, configuration: c, device: 1)
        state = FrameState(fanout: Fanout(coalesceNs: 0, outputBufferBytes: 1 << 20))
        let health = PanelHealth(.init(name: d.name, vendor: d.vendor, product: d.product, node: path))
        state.devices.add(RouteDevice(id: 1, source: RecordedSource(d, node: path), pipeline: pipeline, health: health, mirror: mirror))
    }

    /// What is wrong with the panel's dead zones at its size, as the daemon logs it when the
    /// panel opens (`ContactFilterSettings.deadZoneProblem`).
    public var deadZoneProblem: String? { state.devices.all[0].pipeline.decoder.deadZoneProblem }

    /// The recording, a read a frame at its time, each deadline due before it fired at its own;
    /// then the deadlines left. Contacts still down at the end are lifted (`eventsLiftedAtEnd`).
    public mutating func play(_ events: [InputEvent]) {
        var frame: [InputEvent] = []
        for e in events {
            frame.append(e)
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            fireDeadlines(until: e.time.nanoseconds)
            clock.now = e.time.nanoseconds
            sink.at = clock.now
            // Safe: the frame's events, lent for the call.
            _ = frame.withUnsafeBufferPointer { DeviceTable.run(.read(InputBatch($0)), 0, &state, clock) }
            _ = state.endTurn(turnClock: clock.now)
            frame.removeAll()
        }
        fireDeadlines(until: .max)
    }

    private mutating func fireDeadlines(until t: Int64) {
        while let d = state.devices.earliestDeadline, d <= t {
            clock.now = d
            sink.at = d
            _ = DeviceTable.run(.deadlines(monotonic: d), 0, &state, clock)
            _ = state.endTurn(turnClock: d)
        }
    }

    /// What the virtual touchscreen was written, each event at the time of the input (a frame
    /// or a deadline) behind its write.
    public var events: [InputEvent] { sink.kept }
}

/// The clock of a replay: the recording's own times, set by `MirrorReplay`. Nothing of the
/// daemon's runs (no log, no action).
final class RecordingClock: RouteEnvironment {
    var now: Int64 = 0
    var turnStarted: Int64 { now }
    func daemonStage(_ k: Int, _ report: RouteReport, _ state: inout FrameState) {}
}

/// A recording's panel as the route's source: its times are the recording's; `MirrorReplay`
/// (and the route's tests) hand its frames to the route themselves.
final class RecordedSource: InputSource {
    let description: DeviceDescription
    let node: String
    /// As a live panel's reads would come (a test's stand-in for one), or as a replay's.
    let deliversKernelLayout: Bool
    init(_ d: DeviceDescription, node: String, kernelLayout: Bool = false) {
        (description, self.node, deliversKernelLayout) = (d, node, kernelLayout)
    }
    func monotonic(of t: Timestamp) -> Int64 { t.nanoseconds }
    func engineTime(atMonotonic ns: Int64) -> Timestamp { Timestamp(nanoseconds: ns) }
    func start(loop: EventLoop, id: UInt32, deliver: @escaping Delivery, ended: @escaping (inout FrameState) -> Void) throws {}
    var systemCalibration: [Double]? { nil }
    var systemSizeMM: (width: Double, height: Double)? { nil }
    func stop() {}
    var removesWhenEnded: Bool { false }
    var errorCount: Int { 0 }
    func deliverDue(_ state: inout FrameState) {}
}

/// The virtual touchscreen's writes, kept as evdev events stamped with `at`.
final class KeptWrites: TouchSink {
    var at: Int64 = 0
    private(set) var kept: [InputEvent] = []
    func send(_ events: [KernelInputEvent]) -> SystemCallError? {
        kept += events.map { InputEvent(time: Timestamp(nanoseconds: at), type: $0.type, code: $0.code, value: $0.value) }
        return nil
    }
}
