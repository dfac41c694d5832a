import PointerDevice
import Foundation
import GestureConfig
import GestureEngine
import Logging
import Pipeline
import PointerEmulation
import SystemCalls
import TestSupport
import Testing
import TouchFrames
import TouchInput
import TouchMirror

@testable import Daemon

/// The route's environment in a test: a clock the test sets, and the daemon's stage recorded.
final class TestEnvironment: RouteEnvironment {
    var now: Int64 = 0
    var turnStarted: Int64 { now }
    private(set) var reports: [RouteReport] = []
    private(set) var firedActions: [String] = []

    func daemonStage(_ k: Int, _ report: RouteReport, _ state: inout FrameState) {
        reports.append(report)
        firedActions += state.devices.output.firings.map(\.action.name)
    }
}

/// Where a mirror's or the pointer's writes go in a test: kept, write by write.
final class TestSink: TouchSink, PointerSink {
    private(set) var writes: [[KernelInputEvent]] = []
    private(set) var ops: [PointerOp] = []
    func send(_ events: [KernelInputEvent]) -> SystemCallError? {
        writes.append(events)
        return nil
    }
    func send(_ ops: [PointerOp]) -> SystemCallError? {
        self.ops += ops
        return nil
    }
}

/// One device on the real route (`DeviceTable.run`, every stage), driven frame by frame with
/// the test's clock: deadlines fire between reads when the clock passes them, as the daemon's
/// timer fires them.
struct RouteRig: ~Copyable {
    var state: FrameState
    let env = TestEnvironment()
    let mirror = TestSink()
    /// Every line a client of the daemon's got, in order (one subscriber on a socket pair).
    var lines: [String] = []
    private let client: (ours: Int32, peer: Int32)

    init(_ recording: String, config: String = "", mirrored: Bool = false) throws {
        let path = Paths.fixtures + "/" + recording + ".events"
        try self.init(recording: try Evemu.parse(try String(contentsOfFile: path, encoding: .utf8), file: path), config: config, mirrored: mirrored)
    }

    init(recording rec: Recording, config: String = "", mirrored: Bool = false) throws {
        let d = try #require(rec.description)
        let configuration = try ConfigLoader.parse(config, file: "route.toml")
        let pipeline = try DevicePipeline(description: d, configuration: configuration, device: 1)
        let m = mirrored ? Mirror(screen: mirror, described: VirtualTouchscreen.description(mirroring: d), cancel: .lift) : nil
        events = rec.eventsLiftedAtEnd
        client = FanoutTests.pair()
        state = FrameState(fanout: Fanout(coalesceNs: 0, outputBufferBytes: 1 << 20))
        _ = state.fanout.open(.socket(fd: client.ours))
        state.devices.output.wants = state.fanout.wants(transitions: false)
        state.devices.add(RouteDevice(id: 1, source: RecordedSource(d, node: "test"), pipeline: pipeline, health: PanelHealth(.init(name: "t", vendor: 0, product: 0, node: "test")), mirror: m))
    }

    let events: [InputEvent]

    /// The recording, a read a frame, each at its frame's time; then the deadlines left.
    mutating func playAll() {
        var frame: [InputEvent] = []
        for e in events {
            frame.append(e)
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            read(frame, at: e.time.nanoseconds)
            frame.removeAll()
        }
        fireDeadlines(until: .max)
    }

    /// The recording's reads, each at its frame's time, all in one loop turn (a replay catching
    /// up): the turn ends once, after the last.
    mutating func playInOneTurn() {
        var frame: [InputEvent] = []
        for e in events {
            frame.append(e)
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            env.now = e.time.nanoseconds
            _ = frame.withUnsafeBufferPointer { DeviceTable.run(.read(InputBatch($0)), 0, &state, env) }
            frame.removeAll()
        }
        endTurn()
    }

    /// One read at `at` (monotonic ns), deadlines due before it fired first.
    mutating func read(_ events: [InputEvent], at: Int64) {
        fireDeadlines(until: at)
        env.now = at
        events.withUnsafeBufferPointer { run(.read(InputBatch($0))) }
    }

    /// One live read (the kernel's layout) at `at`: whether the route stopped at a SYN_DROPPED
    /// in it (the reader then resynchronizes).
    mutating func readKernel(_ events: [InputEvent], at: Int64) -> Bool {
        env.now = at
        let kernel = events.map {
            KernelInputEvent(seconds: Int($0.time.nanoseconds / 1_000_000_000), microseconds: Int($0.time.nanoseconds % 1_000_000_000 / 1000),
                type: $0.type, code: $0.code, value: $0.value)
        }
        let lost = kernel.withUnsafeBufferPointer { DeviceTable.run(.read(InputBatch(kernel: $0)), 0, &state, env) }
        _ = state.endTurn(turnClock: env.now)
        lines += FanoutTests.read(client.peer).split(separator: "\n").map(String.init)
        return lost
    }

    mutating func fireDeadlines(until t: Int64) {
        while let d = state.devices.earliestDeadline, d <= t {
            env.now = d
            run(.deadlines(monotonic: d))
        }
    }

    private mutating func run(_ input: RouteInput) {
        DeviceTable.run(input, 0, &state, env)
        endTurn()
    }

    /// The loop turn's end: the fan-out's writes, and what the client got of them.
    mutating func endTurn() {
        _ = state.endTurn(turnClock: env.now)
        // No line stays in the fan-out's buffer past its turn (written, or copied to a queue).
        #expect(state.fanout.subscribers.allSatisfy { $0.inPlace == nil })
        lines += FanoutTests.read(client.peer).split(separator: "\n").map(String.init)
    }

    deinit {
        close(client.ours)
        close(client.peer)
    }
}

typealias Paths = Repository
