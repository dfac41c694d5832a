import GestureConfig
import GestureEngine
import GestureProtocol
import PointerEmulation

/// What a device's pipeline made of some input, in order: the buffer its owner passes to
/// `DevicePipeline.feed`/`advance`/`deviceRemoved` and reads afterwards, as `Engine` fills an
/// event array. The pipeline only appends; the owner says what it wants made (`wants`) and clears
/// the buffer (`removeAll`) once it has used it. Capacity is kept, so a frame allocates nothing.
public struct PipelineOutput {
    /// What to make beyond the gesture events themselves. The owner sets these when its needs
    /// change (a client subscribes or leaves), never around a call.
    public struct Wants: Equatable, Sendable {
        /// A `touch` line per frame (some client takes touch lines).
        public var touchLines = false
        /// A `gesture` line per event (some client takes gesture lines).
        public var gestureLines = true
        /// Every frame kept in `frames` (a trace).
        public var frames = false
        /// Every recognizer transition kept in `transitions` (`--verbose`, a trace).
        public var transitions = false
        /// A `pointer` line per pointer op (`touchgesturectl replay`; the daemon writes the ops
        /// to its virtual pointer instead).
        public var pointerLines = false
        public init(
            touchLines: Bool = false, gestureLines: Bool = true, frames: Bool = false, transitions: Bool = false, pointerLines: Bool = false
        ) {
            self.touchLines = touchLines
            self.gestureLines = gestureLines
            (self.frames, self.transitions, self.pointerLines) = (frames, transitions, pointerLines)
        }
    }

    /// Which configuration an event's `gesture` index belongs to, and its region as lines name it
    /// (`region(of:)`).
    public struct Origin: Sendable {
        /// `CompiledConfiguration.serial` of the configuration the event was recognized under.
        public var configuration: Int
        /// Index into `regionNames`; -1 for the default `screen` region.
        var regionSlot: Int32
    }

    /// An `[[action]]` that the event just before fires (its index in `events`), before any
    /// cooldown: the daemon runs it, `replay --actions` prints it.
    public struct Firing {
        public var action: Action
        public var event: Int
        public var gesture: String
        /// The region's name, nil for the default `screen` region.
        public var region: String?
    }

    /// One item of output, in the order it happened. Plain values only (names and actions live
    /// in arrays beside), so copying, reading and emptying items costs no reference counting.
    public enum Item {
        /// A frame's `touch` line (made when `wants.touchLines`): its bytes in `text`, written by
        /// the client-lines consumer (`JSONLines`) once the frame is made.
        case touch(Range<Int>)
        /// An engine event (its index in `events`) and its `gesture` line's bytes in `text`
        /// (empty unless `wants.gestureLines`, and until `JSONLines` encoded it).
        case gesture(Int, line: Range<Int>, origin: Origin)
        /// An action fires: its index in `firings`.
        case action(Int)
        /// A pointer op (its index in `pointerOps`) and its `pointer` line's bytes in `text`
        /// (empty unless `wants.pointerLines`).
        case pointer(Int, line: Range<Int>)
    }

    public var wants: Wants
    /// The encoded lines, each with its newline; items point into it. What was made since the
    /// last `removeAll` starts at `textStart` (the buffer is emptied only once it is half full:
    /// emptying an array costs more than the lines of a frame).
    public private(set) var text: JSONLineWriter
    public private(set) var textStart = 0
    private let textLimit: Int
    /// The lines made since the last `removeAll`.
    public var lines: ArraySlice<UInt8> { text.bytes[textStart...] }
    public internal(set) var items = FrameList<Item>(capacity: 64)
    /// The item of the last frame's touch line, until `JSONLines` writes it; the items before
    /// `encodedItems` have their lines (`JSONLines.gestureLines`).
    public internal(set) var pendingTouch: Int?
    public internal(set) var encodedItems = 0
    /// The actions fired, in order (`Item.action` points here).
    public private(set) var firings: [Firing] = []
    /// The contacts a system gesture took (`cancels_touches`, or a pointer region's): the
    /// mirror ends them and never shows them again.
    public internal(set) var takenContacts: [UInt32] = []
    /// The contacts a gesture that delays touches may still take, after the last frame
    /// (`delays_touches_began`), and the longest of those gestures' bounds (ns).
    public internal(set) var heldContacts: [UInt32] = []
    public internal(set) var holdBound: Int64 = 0
    /// What the virtual pointer is to do, in order (regions with `emulate = "pointer"`).
    public internal(set) var pointerOps: [PointerOp] = []
    /// The pointer regions' names, for the `pointer` lines (`wants.pointerLines`).
    var pointerRegionNames: [String] = []
    /// The names of the regions gestures came from, other than `screen` (`Origin` points here).
    public private(set) var regionNames: [String] = []
    /// The engine's events, appended by the engine itself (no copy on the way out).
    public internal(set) var events: [GestureEvent] = []
    /// Frames decoded (all of them, whether kept or not), and the evdev events they came from.
    public private(set) var frameCount = 0
    /// The time of the first frame decoded (its SYN_REPORT's timestamp, engine time): where the
    /// latency of the lines it led to starts.
    public private(set) var firstFrameTime: Timestamp?
    /// The time of the last frame decoded (the daemon's input pacing reads the frame rate off it).
    public private(set) var lastFrameTime: Timestamp?
    /// The last frame decoded with a touch in it as the filters show it, or the lift of one
    /// (touch to wake's clock, a panel's `last_frame_age`): frames of contacts the filters hide
    /// are none.
    public private(set) var lastTouchTime: Timestamp?
    public var eventCount = 0
    /// The frames themselves, when `wants.frames`.
    public private(set) var frames: [TouchFrame] = []
    /// The recognizer transitions, when `wants.transitions`.
    public private(set) var transitions: [Transition] = []
    /// The contacts' landings with their sequences, when `wants.transitions`.
    public private(set) var landings: [Landing] = []

    public init(wants: Wants = Wants(), capacity: Int = 1 << 15) {
        self.wants = wants
        text = JSONLineWriter(capacity: capacity)
        textLimit = capacity / 2
        events.reserveCapacity(64)
    }

    /// The region an event came from; nil for the default `screen` region.
    public func region(of origin: Origin) -> String? { Self.region(of: origin, in: regionNames) }

    /// The same, from the names alone (`regionNames`).
    public static func region(of origin: Origin, in names: [String]) -> String? {
        origin.regionSlot < 0 ? nil : names[Int(origin.regionSlot)]
    }

    /// The bytes of a line of `text`.
    public subscript(line: Range<Int>) -> ArraySlice<UInt8> { text.bytes[line] }

    /// Nothing was made since the last `removeAll`. Inlinable: asked after every read, and a
    /// call into this module copied the buffer's header to ask.
    @inlinable public var isEmpty: Bool {
        eventCount == 0 && items.isEmpty && events.isEmpty && firings.isEmpty && frames.isEmpty && transitions.isEmpty
            && landings.isEmpty && pointerOps.isEmpty
            && text.bytes.count == textStart
    }

    /// Empties the buffer, keeping its capacity and its wants (what is empty already is left
    /// alone: the daemon calls this for every read).
    public mutating func removeAll() {
        if text.bytes.count > textLimit {
            text.reset()
            textStart = 0
        } else {
            textStart = text.bytes.count
        }
        items.removeAll()
        pendingTouch = nil
        encodedItems = 0
        if !events.isEmpty { events.removeAllKeepingCapacity() }
        if !frames.isEmpty { frames.removeAllKeepingCapacity() }
        if !transitions.isEmpty { transitions.removeAllKeepingCapacity() }
        if !landings.isEmpty { landings.removeAllKeepingCapacity() }
        if !firings.isEmpty { firings.removeAllKeepingCapacity() }
        if !pointerOps.isEmpty { pointerOps.removeAll(keepingCapacity: true) }
        if !takenContacts.isEmpty { takenContacts.removeAll(keepingCapacity: true) }
        if !heldContacts.isEmpty { heldContacts.removeAll(keepingCapacity: true) }
        holdBound = 0
        if !regionNames.isEmpty { regionNames.removeAllKeepingCapacity() }
        frameCount = 0
        eventCount = 0
        firstFrameTime = nil
        lastFrameTime = nil
        lastTouchTime = nil
    }

    // MARK: - Filled by the pipeline

    /// A frame decoded: counted, kept when asked for, and its touch line's place unless it is
    /// `swallowed` (touch to wake: the frame goes to no one).
    mutating func frame(_ f: TouchFrame, swallowed: Bool = false, touched: Bool) {
        if frameCount == 0 { firstFrameTime = f.time }
        lastFrameTime = f.time
        if touched { lastTouchTime = f.time }
        frameCount += 1
        if swallowed { return }
        if wants.frames { frames.append(f) }
        guard wants.touchLines else { return }
        pendingTouch = items.count
        items.append(.touch(0..<0))
    }

    /// Event `i` of `events`: the item that points to it (its line is `JSONLines`'s), and the
    /// actions it fires. `encoder`: the names and regions of the configuration it ran under.
    @inline(__always)  // a line a frame, from `DevicePipeline.flush`
    mutating func gesture(_ i: Int, encoder: GestureLineEncoder, configuration: Int, actions: ActionTable) {
        var origin = Origin(configuration: configuration, regionSlot: -1)
        let g = events[i].gesture
        if encoder.hasRegion(g), let name = encoder.region(ofGesture: g) {
            origin.regionSlot = Int32(regionNames.count)
            regionNames.append(name)
        }
        items.append(.gesture(i, line: 0..<0, origin: origin))
        guard !actions.isEmpty else { return }
        for a in actions.bound(to: g) where a.fires(for: events[i], shapeName: actions.shapeName(of: events[i])) {
            items.append(.action(firings.count))
            firings.append(Firing(action: a, event: i, gesture: encoder.name(of: events[i]), region: region(of: origin)))
        }
    }

    /// The pointer ops from `first` on (just appended): an item each (its line is `JSONLines`'s,
    /// when wanted, with the pointer regions' `names`).
    mutating func pointerOpsAdded(from first: Int, names: [String]) {
        if wants.pointerLines { pointerRegionNames = names }
        for i in first..<pointerOps.count { items.append(.pointer(i, line: 0..<0)) }
    }

    mutating func landings(_ log: [Landing]) {
        landings.append(contentsOf: log)
    }

    mutating func transitions(_ log: [Transition]) {
        transitions.append(contentsOf: log)
    }
}

// MARK: - Written by the client-lines consumer (JSONLines)

extension PipelineOutput {
    /// Writes the pending touch line: `write` appends it to `text`.
    mutating func writeTouch(_ write: (inout JSONLineWriter) -> Void) {
        guard let t = pendingTouch else { return }
        pendingTouch = nil
        let start = text.bytes.count
        write(&text)
        items[t] = .touch(start..<text.bytes.count)
    }

    /// Writes the line of each gesture item not yet written, with the encoder of the
    /// configuration its origin names (`current`, or `previous` when its serial is that one's),
    /// and each pointer item's when `wants.pointerLines`: in the items' order, so the text is too.
    mutating func writeGestures(_ encoders: borrowing LineEncoders) {
        defer { encodedItems = items.count }
        guard wants.gestureLines || wants.pointerLines else { return }
        // The events are read where they lie: `events` is moved out for the loop (a swap, not a
        // copy), so that `text` can be written while it is read.
        var list: [GestureEvent] = []
        swap(&list, &events)
        // Safe: the array's own storage, lent for the loop; `events` is not touched inside it.
        list.withUnsafeBufferPointer { events in
            for k in encodedItems..<items.count {
                switch items[k] {
                case .gesture(let i, _, let origin) where wants.gestureLines:
                    let start = text.bytes.count
                    // Safe: `i` indexes `events` (the item was made for its event); used in this call only.
                    encoders.encode(at: events.baseAddress! + i, configuration: origin.configuration, into: &text)
                    items[k] = .gesture(i, line: start..<text.bytes.count, origin: origin)
                case .pointer(let i, _) where wants.pointerLines:
                    writePointerLine(k, i)
                default:
                    continue
                }
            }
        }
        swap(&list, &events)
    }

    /// Pointer item `k`'s `pointer` line (`touchgesturectl replay`), for op `i`.
    private mutating func writePointerLine(_ k: Int, _ i: Int) {
        let start = text.bytes.count
        let r = pointerOps[i].region
        PointerLine.encode(pointerOps[i], region: r >= 0 && r < pointerRegionNames.count ? pointerRegionNames[r] : "", into: &text)
        items[k] = .pointer(i, line: start..<text.bytes.count)
    }
}
