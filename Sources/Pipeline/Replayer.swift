import GestureConfig
import GestureEngine
import GestureProtocol
import TouchFrames

/// The whole offline pipeline, the same one the daemon runs on live input: evdev events →
/// frame decoder → engine (deadlines fired between events at their exact time) → JSON lines.
public struct Replayer {
    public private(set) var engine: Engine
    public private(set) var decoder: FrameDecoder
    private var encoder: GestureLineEncoder
    private var encoderGeneration = 0
    /// The encoder of the configuration before, for events emitted just before a switch.
    private var previousEncoder: GestureLineEncoder?
    private var events: [GestureEvent] = []
    /// Output lines, appended; the caller drains `writer.bytes`.
    public var writer = JSONLineWriter()
    /// Receives each recognizer transition when set (for `--verbose` and `trace`).
    public var onTransition: ((Transition) -> Void)?
    /// Receives each engine event as it is encoded (for `trace`).
    public var onEvent: ((GestureEvent) -> Void)?
    /// Receives each encoded line with its event and region (the daemon's fan-out to clients).
    public var onLine: ((GestureEvent, String?, ArraySlice<UInt8>) -> Void)?
    /// Receives each frame (for `trace`).
    public var onFrame: ((TouchFrame) -> Void)?
    /// When false, events are not encoded: `onLine` gets each event with no region and no bytes
    /// (the daemon with no client that takes gesture lines does not format them for no one).
    public var encodes = true

    public enum SetupError: Error, CustomStringConvertible {
        case notATouchscreen(String)
        public var description: String {
            switch self {
            case .notATouchscreen(let name):
                return "'\(name)' is not a usable touchscreen (no ABS_MT_POSITION_X/Y, nor ABS_X/Y with BTN_TOUCH, or a position axis whose minimum equals its maximum)"
            }
        }
    }

    public init(description: DeviceDescription, configuration: Configuration, device: UInt32 = 0) throws(SetupError) {
        guard let decoder = FrameDecoder(description: description, geometry: configuration.geometry, device: device) else {
            throw .notATouchscreen(description.name)
        }
        self.decoder = decoder
        let compiled = CompiledConfiguration(configuration.engine)
        engine = Engine(compiled: compiled)
        encoder = GestureLineEncoder(configuration: compiled)
        events.reserveCapacity(64)
    }

    /// The engine's next deadline, read in place (reading `engine.nextDeadline` from another
    /// module copied the whole engine, retaining each of its arrays, on every wake-up).
    public var nextDeadline: Timestamp? { engine.nextDeadline }
    /// No gesture is under way or pending.
    public var isIdle: Bool { engine.isIdle }
    /// The engine's bug counters, read in place: impossible (state, input) pairs, and decisions
    /// the arena was asked to take twice. Both stay 0 unless there is a bug.
    public var anomalies: Int { engine.invalidInputs + engine.arenaViolations }

    public var tracing: Bool {
        get { engine.transitionLog != nil }
        set { engine.transitionLog = newValue ? [] : nil }
    }

    /// Feeds one event; lines for any gestures it completes are appended to `writer`.
    public mutating func feed(_ e: InputEvent) {
        guard let frame = decoder.feed(e) else { return }
        onFrame?(frame)
        engine.handle(frame, into: &events)
        flush()
    }

    /// Feeds events in order (a live device's `read(2)` at once): the same as feeding each.
    public mutating func feed(_ batch: UnsafeBufferPointer<InputEvent>) {
        for e in batch { feed(e) }
    }

    /// Events were lost and the live reader resynchronized: what is under way is cancelled at
    /// the next frame, which carries the kernel's exact contacts.
    public mutating func resynced() {
        decoder.markDiscontinuity()
    }

    /// Fires deadlines up to `time` (the daemon's timer, or the end of a recording).
    public mutating func advance(to time: Timestamp) {
        engine.advance(to: time, into: &events)
        flush()
    }

    /// A new configuration (a reload, a client's regions): applies from the next sequence.
    public mutating func reconfigure(_ compiled: CompiledConfiguration) {
        engine.reconfigure(compiled)
    }

    /// The device went away: active gestures are cancelled.
    public mutating func deviceRemoved(at time: Timestamp) {
        engine.deviceRemoved(at: time, into: &events)
        flush()
    }

    private mutating func flush() {
        if let log = engine.transitionLog, !log.isEmpty {
            if let f = onTransition { for t in log { f(t) } }
            engine.transitionLog!.removeAll(keepingCapacity: true)
        }
        if encoderGeneration != engine.configurationGeneration {
            previousEncoder = encoder
            encoder = GestureLineEncoder(configuration: engine.configuration)
            encoderGeneration = engine.configurationGeneration
        }
        for e in events {
            onEvent?(e)
            guard encodes else {
                onLine?(e, nil, [])
                continue
            }
            let enc = e.generation == encoderGeneration ? encoder : (previousEncoder ?? encoder)
            let start = writer.bytes.count
            enc.encode(e, into: &writer)
            onLine?(e, enc.region(of: e), writer.bytes[start...])
        }
        events.removeAll(keepingCapacity: true)
    }

    /// Replays a whole recording and returns its lines; contacts still down at its end are
    /// lifted, and every deadline left after the last event fires (a tap waiting for a double
    /// tap is still reported).
    public static func run(
        _ recording: Recording, description: DeviceDescription, configuration: Configuration,
        onTransition: ((Transition) -> Void)? = nil
    ) throws(SetupError) -> String {
        var r = try Replayer(description: description, configuration: configuration)
        if let onTransition {
            r.tracing = true
            r.onTransition = onTransition
        }
        for e in recording.eventsLiftedAtEnd { r.feed(e) }
        r.advance(to: .distantFuture)
        return String(decoding: r.writer.bytes, as: UTF8.self)
    }

    /// The name of a compiled gesture (for logs).
    public func gestureName(_ g: Int) -> String { engine.configuration.gestures[g].qualifiedName }
}
