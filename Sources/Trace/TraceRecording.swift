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
        /// The innermost sequence it belongs to (an index into `sequences`); nil when it landed
        /// in no region with gestures.
        public var sequence: Int?
    }

    /// One region's sequence, as the engine numbered it: from the first of its contacts down to
    /// the last up, with the deadlines that follow it.
    public struct Sequence {
        /// The engine's number (gesture lines' `sequence`).
        public var id: Int
        public var region: String
        public var start: Timestamp
        public var end: Timestamp
        public var origin: PixelPoint
        public var contacts: [UInt32]
    }

    public var screen: PixelRect
    public var regions: [Region]
    /// Qualified names (`region/name`) of the compiled gestures, by index.
    public var gestures: [String]
    /// The shapes' names (a stroke event's `shape` indexes them).
    public var shapes: [String] = []
    public var paths: [Path]
    /// The contacts as the panel reported them, before its filters (`[device.filters]`): empty
    /// for a panel without filters (they are `paths`).
    public var rawPaths: [Path] = []
    public var sequences: [Sequence]
    public var events: [GestureEvent]
    public var transitions: [Transition]
    public var start: Timestamp
    public var end: Timestamp
    public var device: String
    /// What is wrong with the panel's dead zones on its size (`FrameDecoder.deadZoneProblem`),
    /// for the notice `replay` gives too.
    public var deadZoneProblem: String?

    /// Replays `recording` and keeps what happened.
    public static func record(_ recording: Recording, description: DeviceDescription, configuration: Configuration)
        throws(DevicePipeline.SetupError) -> TraceRecording
    {
        var out = PipelineOutput(wants: .init(gestureLines: false, frames: true, transitions: true))
        var pipeline = try DevicePipeline(description: description, configuration: configuration)
        for e in recording.eventsLiftedAtEnd(as: description) { pipeline.feed(e, into: &out) }
        pipeline.finishReplay(into: &out)

        var (paths, index) = Self.paths(out.frames)
        let events = out.events
        let transitions = out.transitions
        let sequences = Self.sequences(out.landings, &paths, index, regions: pipeline.engine.configuration.regions.map(\.name))

        let compiled = pipeline.engine.configuration
        var end = out.frames.reduce(Timestamp.zero) { max($0, $1.time) }
        for e in events { end = max(end, e.time) }
        for t in transitions where t.time < .distantFuture { end = max(end, t.time) }
        // Each sequence's end: its last event or transition (one pass over each, not one a sequence).
        var ends: [Int: Timestamp] = [:]
        for e in events { ends[e.sequence] = max(ends[e.sequence] ?? e.time, e.time) }
        for t in transitions where t.time < .distantFuture { ends[t.sequence] = max(ends[t.sequence] ?? t.time, t.time) }
        var trace = TraceRecording(
            screen: compiled.screen,
            regions: compiled.regions.map { Region(name: $0.name, rect: $0.rect, depth: $0.depth) },
            gestures: compiled.gestures.map(\.qualifiedName),
            paths: paths, sequences: sequences.map { s in
                var s = s
                if let e = ends[s.id] { s.end = max(s.end, e) }
                return s
            }, events: events, transitions: transitions,
            start: out.frames.first?.time ?? .zero, end: end, device: description.name)
        trace.shapes = compiled.shapeNames
        trace.deadZoneProblem = pipeline.decoder.deadZoneProblem
        if pipeline.decoder.isFiltered { trace.rawPaths = Self.rawPaths(recording, description, configuration) }
        return trace
    }

    /// Each contact's path through `frames`, and where each contact's path is.
    static func paths(_ frames: [TouchFrame]) -> ([Path], [UInt32: Int]) {
        var paths: [Path] = []
        var index: [UInt32: Int] = [:]
        for frame in frames {
            for c in frame.contacts {
                if let i = index[c.id] {
                    paths[i].points.append((frame.time, c.position))
                    paths[i].isPalm = paths[i].isPalm || c.isPalm
                } else {
                    index[c.id] = paths.count
                    paths.append(Path(contact: c.id, points: [(frame.time, c.position)], isPalm: c.isPalm))
                }
            }
        }
        return (paths, index)
    }

    /// The recording's contacts through the same geometry without the filters.
    static func rawPaths(_ recording: Recording, _ description: DeviceDescription, _ configuration: Configuration) -> [Path] {
        var g = configuration.geometry
        g.filters = ContactFilterSettings()
        guard var decoder = FrameDecoder(description: description, geometry: g) else { return [] }
        var frames: [TouchFrame] = []
        for e in recording.eventsLiftedAtEnd(as: description) {
            if let f = decoder.feed(e) { frames.append(f) }
        }
        return paths(frames).0
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

    /// The place in `sequences` of the sequence the engine numbered `id`.
    public func sequenceIndex(_ id: Int) -> Int? { sequences.firstIndex { $0.id == id } }

    /// The engine's sequences from its landings, in the order they started; each path learns
    /// its innermost one.
    static func sequences(_ landings: [Landing], _ paths: inout [Path], _ index: [UInt32: Int], regions: [String]) -> [Sequence] {
        var sequences: [Sequence] = []
        var byID: [Int: Int] = [:]
        for l in landings {
            let path = index[l.contact]
            let i: Int
            if let known = byID[l.sequence] {
                i = known
            } else {
                i = sequences.count
                byID[l.sequence] = i
                let origin = path.map { paths[$0].points[0].position } ?? .zero
                sequences.append(
                    Sequence(id: l.sequence, region: regions[l.region], start: l.time, end: l.time, origin: origin, contacts: []))
            }
            sequences[i].contacts.append(l.contact)
            if let p = path {
                if paths[p].sequence == nil { paths[p].sequence = i }
                sequences[i].end = max(sequences[i].end, paths[p].points.last!.time)
            }
        }
        return sequences
    }
}
