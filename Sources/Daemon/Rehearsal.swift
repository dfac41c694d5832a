import Synchronization
import GestureEngine
import Pipeline
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

/// A new panel's route run once, before its first touch, on a made-up stroke
/// (`RehearsalStroke`: a drag, then a pinch), through a copy of everything the panel's touches
/// will go through: its decoder and filters, the wake stage, its mirror's frames, the engine
/// with its configuration, the protocol's touch and gesture lines. The copy runs in a frame
/// state of its own, through the same calls a live read makes (`DeviceLifecycle.delivered`, in
/// the panel's own event layout), and is thrown away: its mirror writes to nothing, its lines
/// reach no client, its actions and pointer ops go nowhere (the daemon's stage is skipped), and
/// the panel's own state is untouched.
///
/// Why: the first touch after a start ran the frame path's code for the first time (its pages
/// faulted in, the Swift runtime's lazy set-up, the emulator's translation in the test guest),
/// and came out 10-30 ms late in the guest while later touches took under 1 ms
/// (docs/BENCHMARKS.md, "The first touch"). Rehearsed when the panel is added, that cost is
/// paid before anyone touches.
enum Rehearsal {
    /// What decides which code a panel's frames run: its protocol and event layout, whether it
    /// is mirrored, its filters, whether it is calibrated or turned. A panel like one rehearsed
    /// before runs the same code.
    struct Key: Hashable {
        let kind: DeviceDescription.TouchKind?
        let protocolA: Bool
        let kernelLayout: Bool
        let mirrored: Bool
        let filters: ContactFilterSettings
        let calibrated: Bool
        let rotation: Int

        init(_ device: borrowing RouteDevice, _ geometry: GeometryConfiguration) {
            let d = device.source.description
            (kind, protocolA, kernelLayout, mirrored) = (d.touchKind, d.isProtocolA, device.source.deliversKernelLayout, device.mirrored)
            (filters, calibrated, rotation) = (geometry.filters, geometry.calibration != [1, 0, 0, 0, 1, 0], geometry.rotation)
        }
    }

    /// The lifecycle's part: whether a rehearsal runs (the daemon's stage then does nothing),
    /// and the kinds rehearsed, at most `most` (then forgotten: each reload with other filters
    /// adds one).
    struct Stage {
        var running = false
        var kinds: Set<Key> = []
        /// Rehearsals run so far.
        var runs = 0
        static let most = 32

        /// Whether a route of this kind is still to be rehearsed (and now counts as rehearsed).
        mutating func isNew(_ key: Key) -> Bool {
            if kinds.count >= Self.most { kinds.removeAll() }
            return kinds.insert(key).inserted
        }
    }

    /// What a rehearsal made before it was dropped: frames decoded, the mirror's writes, the
    /// gestures the engine began, and the bytes of the protocol's lines.
    struct Made {
        var frames = 0
        var mirrorWrites = 0
        var gesturesBegan: Set<GestureKind> = []
        var lineBytes = 0
        /// Reads fed in the kernel's layout (a live panel's), not as decoded events.
        var kernelLayoutReads = 0

        mutating func note(_ output: borrowing PipelineOutput) {
            frames += output.frameCount
            lineBytes += output.lines.count
            for e in output.events where e.phase == .began { gesturesBegan.insert(e.kind) }
        }
    }

    /// The stroke's frames, each a read's events, from `start` (engine time).
    static func frames(for d: DeviceDescription, from start: Timestamp) -> [[InputEvent]] {
        var frames: [[InputEvent]] = [], frame: [InputEvent] = []
        for e in RehearsalStroke.events(for: d, from: start) {
            frame.append(e)
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            frames.append(frame)
            frame.removeAll()
        }
        return frames
    }
}

/// A rehearsal's mirror: every write taken and dropped (counted).
final class DroppedWrites: TouchSink, Sendable {
    private let count = Atomic<Int>(0)
    var writes: Int { count.load(ordering: .relaxed) }
    func send(_ events: [KernelInputEvent]) -> SystemCallError? {
        count.add(1, ordering: .relaxed)
        return nil
    }
}
