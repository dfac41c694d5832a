import GestureEngine
import Pipeline
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

/// A new panel's route run once, before its first touch, on a made-up stroke
/// (`RehearsalStroke`: a drag, then a pinch), through a copy of everything the panel's touches
/// will go through: its decoder and filters, the wake stage, its mirror's frames, the engine
/// with its configuration, the protocol's touch and gesture lines. The copy is thrown away:
/// its mirror writes to nothing, its lines reach no client, its actions and pointer ops go
/// nowhere, and the panel's own state is untouched.
///
/// Why: the first touch after a start ran the frame path's code for the first time (its pages
/// faulted in, the Swift runtime's lazy set-up, the emulator's translation in the test guest),
/// and came out 10-30 ms late in the guest while later touches took under 1 ms
/// (docs/BENCHMARKS.md, "The first touch"). Rehearsed when the panel is added, that cost is
/// paid before anyone touches.
enum Rehearsal {
    /// What a rehearsal made before it was dropped: frames decoded, the mirror's writes, the
    /// gestures the engine began, and the bytes of the protocol's lines.
    struct Made {
        var frames = 0
        var mirrorWrites = 0
        var gesturesBegan: Set<GestureKind> = []
        var lineBytes = 0

        mutating func note(_ output: borrowing PipelineOutput) {
            frames += output.frameCount
            lineBytes += output.lines.count
            for e in output.events where e.phase == .began { gesturesBegan.insert(e.kind) }
        }
    }

    /// What decides which code a panel's frames run: its protocol, whether it is mirrored, its
    /// geometry and filters. A panel like one rehearsed before runs the same code.
    struct Key: Hashable {
        let kind: DeviceDescription.TouchKind?
        let protocolA: Bool
        let mirrored: Bool
        let geometry: GeometryConfiguration

        init(_ device: borrowing RouteDevice, _ geometry: GeometryConfiguration) {
            let d = device.source.description
            (kind, protocolA, mirrored, self.geometry) = (d.touchKind, d.isProtocolA, device.mirrored, geometry)
        }
    }

    /// Runs `device`'s route, copied, on the stroke; what it made is dropped.
    @discardableResult
    static func run(_ device: borrowing RouteDevice) -> Made {
        let d = device.source.description
        let start = Timestamp(nanoseconds: 1_000_000_000)
        let events = RehearsalStroke.events(for: d, from: start)
        var made = Made()
        guard !events.isEmpty else { return made }
        let sink = DroppedWrites()
        let copy = RouteDevice(
            id: device.id, source: RecordedSource(d, node: device.source.node), pipeline: device.pipeline, health: device.health,
            mirror: device.mirrorCopy(writingTo: sink))
        var state = FrameState(fanout: Fanout(coalesceNs: 0, outputBufferBytes: 1 << 16))
        state.devices.output.wants = .init(touchLines: true, gestureLines: true, transitions: false)
        state.devices.add(copy)
        let clock = RecordingClock()
        var frame: [InputEvent] = []
        frame.reserveCapacity(16)
        for e in events {
            frame.append(e)
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            fireDeadlines(until: e.time.nanoseconds, &state, clock, &made)
            clock.now = e.time.nanoseconds
            // Safe: the frame's events, lent for the call.
            _ = frame.withUnsafeBufferPointer { DeviceTable.run(.read(InputBatch($0)), 0, &state, clock) }
            made.note(state.devices.output)
            _ = state.endTurn(turnClock: clock.now)
            frame.removeAll(keepingCapacity: true)
        }
        fireDeadlines(until: .max, &state, clock, &made)
        made.mirrorWrites = sink.writes
        return made
    }

    /// The copy's deadlines due by `t` (a tap's wait, a long press's), each at its own time. At
    /// most a few hundred: a deadline that did not move the clock on ends the rehearsal.
    private static func fireDeadlines(until t: Int64, _ state: inout FrameState, _ clock: RecordingClock, _ made: inout Made) {
        var fired = 0
        while let due = state.devices.earliestDeadline, due <= t, fired < 256 {
            clock.now = max(clock.now, due)
            _ = DeviceTable.run(.deadlines(monotonic: clock.now), 0, &state, clock)
            made.note(state.devices.output)
            _ = state.endTurn(turnClock: clock.now)
            fired += 1
        }
    }
}

/// A rehearsal's mirror: every write taken and dropped.
final class DroppedWrites: TouchSink {
    private(set) var writes = 0
    func send(_ events: [KernelInputEvent]) -> SystemCallError? {
        writes += 1
        return nil
    }
}
