import GestureConfig
import GestureEngine
import Pipeline
import TouchFrames

/// Everything one replay showed, kept for drawing: the frames, the engine's events and every
/// recognizer transition. It comes from the same `DevicePipeline` that `replay` and the daemon run, so the
/// picture shows the arena's real decisions, not a second implementation of them.
public struct TraceRecording {
    public struct Region {
        public var name: String
        public var rect: PixelRect
        public var depth: Int
    }

    public struct Path {
        public var contact: UInt32
        public var points: [(time: Timestamp, position: PixelPoint)]
        public var isPalm: Bool
    }

    /// One sequence: first finger down to last finger up (with the deadlines that follow it).
    public struct Sequence {
        public var start: Timestamp
        public var end: Timestamp
        public var origin: PixelPoint
    }

    public var screen: PixelRect
    public var regions: [Region]
    /// Qualified names (`region/name`) of the compiled gestures, by index.
    public var gestures: [String]
    public var paths: [Path]
    public var sequences: [Sequence]
    public var events: [GestureEvent]
    public var transitions: [Transition]
    public var start: Timestamp
    public var end: Timestamp
    public var device: String

    /// Replays `recording` and keeps what happened.
    public static func record(_ recording: Recording, description: DeviceDescription, configuration: Configuration)
        throws(DevicePipeline.SetupError) -> TraceRecording
    {
        var out = PipelineOutput(wants: .init(gestureLines: false, frames: true, transitions: true))
        var pipeline = try DevicePipeline(description: description, configuration: configuration)
        for e in recording.eventsLiftedAtEnd { pipeline.feed(e, into: &out) }
        pipeline.advance(to: .distantFuture, into: &out)

        var paths: [Path] = []
        var index: [UInt32: Int] = [:]
        var sequences: [Sequence] = []
        var down = 0
        for frame in out.frames {
            for c in frame.contacts {
                if let i = index[c.id] {
                    paths[i].points.append((frame.time, c.position))
                    paths[i].isPalm = paths[i].isPalm || c.isPalm
                } else {
                    index[c.id] = paths.count
                    paths.append(Path(contact: c.id, points: [(frame.time, c.position)], isPalm: c.isPalm))
                }
            }
            if down == 0 && !frame.contacts.isEmpty {
                sequences.append(Sequence(start: frame.time, end: frame.time, origin: frame.contacts[0].position))
            }
            if !sequences.isEmpty { sequences[sequences.count - 1].end = frame.time }
            down = frame.contacts.count
        }
        let events = out.events
        let transitions = out.transitions

        let compiled = pipeline.engine.configuration
        var end = out.frames.reduce(Timestamp.zero) { max($0, $1.time) }
        for e in events { end = max(end, e.time) }
        for t in transitions where t.time < .distantFuture { end = max(end, t.time) }
        return TraceRecording(
            screen: compiled.screen,
            regions: compiled.regions.map { Region(name: $0.name, rect: $0.rect, depth: $0.depth) },
            gestures: compiled.gestures.map(\.qualifiedName),
            paths: paths, sequences: sequences, events: events, transitions: transitions,
            start: out.frames.first?.time ?? .zero, end: end, device: description.name)
    }

    /// A gesture's name for people: without the `screen/` of the default region.
    public func name(_ g: Int) -> String {
        let q = gestures[g]
        return q.hasPrefix(EngineConfiguration.screenRegionName + "/") ? String(q.dropFirst(7)) : q
    }

    /// Why a gesture failed, with the winner named.
    public func why(_ reason: FailReason) -> String {
        if case .lostTo(let g) = reason { return "lost to \(name(g))" }
        return reason.description
    }

    /// The sequence a moment belongs to: the last one started at or before it.
    public func sequence(at t: Timestamp) -> Int? {
        sequences.lastIndex { $0.start <= t }
    }
}
