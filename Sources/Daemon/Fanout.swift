import GestureEngine
import GestureProtocol
import Logging
import Pipeline

/// What the devices produce, out to the subscribers that take it, in one value (in the frame state, beside the devices):
/// each line (a gesture line written here once, as it is first queued; a touch line by the
/// route's client-lines stage) queued to every subscriber it passes,
/// written once a turn with continuous updates coalesced, the input pacing, the latency samples
/// and the line counters. Everything per frame happens inside one `mutating` call on it, so the
/// per-frame path begins one access, not one per client field.
///
/// It never calls out: a subscriber that fails or falls too far behind is marked `gone` and
/// reported in `notices`, which the server handles at the end of the turn (closing the
/// connection, removing the client's regions). Nothing is reconfigured while lines are queued.
struct Fanout: ~Copyable {
    /// By slot (a client's `slot`); free slots are reused.
    var subscribers: [Subscriber] = []
    /// The gesture lines, each written once as it is first queued; a subscriber with nothing
    /// queued takes them in place (`Subscriber.inPlace`), a copy is made only for the others.
    /// Emptied once past `scratchLimit`, its runs in place copied out first.
    private(set) var turnLines = JSONLineWriter(capacity: 2 * Fanout.scratchLimit)
    /// What happened to subscribers since the server last looked (`Server.settle`).
    var notices: [Notice] = []
    enum Notice {
        /// Dropped (a failed write, too slow, its peer closed and all was written).
        case gone(slot: Int, reason: String, level: Logger.Level)
        /// Its write side changed (blocked on the kernel, or unblocked): the epoll interest.
        case interest(slot: Int)
        /// Its queue went back under the bound: its requests may be served again.
        case resumed(slot: Int)

        var slot: Int {
            switch self {
            case .gone(let s, _, _), .interest(let s), .resumed(let s): s
            }
        }
    }

    var coalesceNs: Int64
    var outputBufferBytes: Int
    /// An upper bound of every subscriber's coalescing window (the longest there has been since
    /// the last reload): the input pacing looks no further on a panel slower than it allows.
    var longestWindow: Int64
    /// Reading a fast panel a few frames at a time when no subscriber takes every frame, unless
    /// `paceInput` is off (pass-through or pointer emulation: the compositor reads each frame as
    /// it comes).
    var pacing = InputPacing()
    var paceInput = true

    /// Input-to-write latency (ns) of writes (`stats`), sampled: a write is measured when its
    /// oldest line's input is at least `latencySpacing` after the last measured one's. Where
    /// the clock has no vDSO path (HPET, acpi_pm: virtual machines) a clock read is a system
    /// call; ≤ 250 Hz panels still have every write measured.
    var latencies = LatencyRing()
    var latencySampledAt: Int64?
    static let latencySpacing: Int64 = 4_000_000

    /// Counters for `stats`.
    var writes = 0
    private(set) var droppedSlow = 0
    private(set) var touchLines = 0
    private(set) var gestureLines = 0
    private(set) var gestures = GestureCounts()

    /// The newest input time this turn (monotonic ns), set as lines from input are queued: the
    /// clock continuous updates are held against, read without a system call.
    var inputNow: Int64?
    /// Some subscriber has continuous updates held after the last `flush`.
    var holding = false
    /// A time known to have passed at that flush (monotonic ns: its input's, or the newest frame
    /// read): the loop's wait for the held lines' release counts from it.
    var heldAt: Int64 = 0
    /// The input time of the last `flush`'s turn, nil without input (for `pacingBound()`).
    var flushedInput: Int64?
    /// The end of the input pacing's pause before this turn (monotonic ns; the loop slept to
    /// it): a time known to have passed, read without a system call. A held write due then goes
    /// out in this turn, though the newest frame read was stamped a little before it (else it
    /// waited for the next frame, or the loop's wait to time out: a wake-up more a write at 1 kHz). The
    /// window is kept in the input's time, for which this stands in: a write after one whose
    /// frames were read late (a loaded machine) may come that lag early.
    var pacedUntil: Int64?
    /// How far past a held write's due time the pause before this turn may have ended (half
    /// the panel's frame period when it was taken: `InputPacing.readAgain`).
    var pauseLateness: Int64 = 0

    init(coalesceNs: Int64, outputBufferBytes: Int) {
        self.coalesceNs = coalesceNs
        self.outputBufferBytes = outputBufferBytes
        longestWindow = coalesceNs
    }

    // MARK: - Subscribers

    /// A new subscriber's slot.
    mutating func open(_ kind: Subscriber.Kind) -> Int {
        let s = Subscriber(kind: kind)
        if let free = subscribers.firstIndex(where: { $0.link == .free }) {
            subscribers[free] = s
            return free
        }
        subscribers.append(s)
        return subscribers.count - 1
    }

    /// The slot's subscriber is gone for good (its connection closed): the slot is free again.
    mutating func release(_ slot: Int) {
        subscribers[slot] = .empty
        // What was reported of it is moot, and must not reach the slot's next subscriber.
        notices.removeAll { $0.slot == slot }
    }

    /// What the pipelines must make: touch lines, gesture lines (`--verbose` adds transitions).
    func wants(transitions: Bool) -> PipelineOutput.Wants {
        var wants = PipelineOutput.Wants(touchLines: false, gestureLines: false, transitions: transitions)
        for s in subscribers where s.isLive {
            wants.touchLines = wants.touchLines || s.subscription.touches
            wants.gestureLines = wants.gestureLines || s.subscription.gestures
        }
        return wants
    }

    /// A subscriber's own coalescing window (nil: the daemon's).
    mutating func setCoalescing(_ ns: Int64?, of slot: Int) {
        subscribers[slot].coalesceNs = ns
        longestWindow = max(longestWindow, ns ?? 0)
    }

    /// New settings (a reload): the longest window is worked out again.
    mutating func configure(coalesceNs: Int64, outputBufferBytes: Int) {
        self.coalesceNs = coalesceNs
        self.outputBufferBytes = outputBufferBytes
        longestWindow = subscribers.reduce(coalesceNs) { max($0, $1.isLive ? $1.coalesceNs ?? 0 : 0) }
    }

    // MARK: - Lines in

    /// A device's output, queued to each subscriber it passes. `since` is the monotonic time of
    /// the input behind it (the first frame's kernel timestamp, or this turn for a deadline);
    /// `lastFrame` the monotonic time of its last frame. `out` is only read: it is `inout` so
    /// that it is passed by address (as a borrow of the table's buffer it was copied, 176
    /// bytes, every frame).
    /// `turnLines` is emptied once it passed this size.
    static let scratchLimit = 4096

    /// The output's lines queued to each subscriber that takes them, each gesture line written
    /// into `turnLines` (`encoders`: the device's configurations' names) as it is first queued.
    mutating func deliver(
        _ out: inout PipelineOutput, encoders: borrowing LineEncoders, device: UInt32, since: Int64, lastFrame: Int64
    ) {
        if out.frameCount > 0 {
            inputNow = max(inputNow ?? since, since)
            pacing.frames(first: since, last: lastFrame, count: out.frameCount, device: device)
        }
        // Lines are queued from the buffer in place, and events are read where they lie (an
        // event is ~190 bytes; a method of `self` asked per line copied the fan-out, ~190 more,
        // and `out` handed on in here was copied too: only its region names go in).
        let regionNames = out.regionNames
        let linesWanted = out.wants.gestureLines
        // Safe: both arrays are lent for the loop and not changed inside it; every range comes from the pipeline's items.
        out.events.withUnsafeBufferPointer { events in
            out.text.bytes.withUnsafeBufferPointer { text in
                for item in out.items {
                    switch item {
                    case .touch(let line):
                        // Safe: `line` is a range of `text` the pipeline's item holds.
                        let bytes = UnsafeBufferPointer(rebasing: text[line])
                        for s in subscribers.indices where Self.takesTouches(subscribers, s, device) {
                            enqueue(bytes, to: s, since: since, continuous: true)
                            touchLines += 1
                        }
                    case .gesture(let i, _, let origin):
                        // Safe: `i` indexes `events` (the pipeline made the item for its event),
                        // and the pointer is used inside this call only.
                        let e = events.baseAddress! + i
                        gestureLines += 1
                        gestures.add(e.pointee.kind, e.pointee.phase)
                        guard linesWanted else { continue }
                        let continuous = e.pointee.phase == .changed
                        var line: Range<Int>?
                        for s in subscribers.indices where Self.takes(subscribers, s, e, origin, device, regionNames) {
                            if line == nil {
                                // The line, written once, at the first subscriber that takes it.
                                makeRoomForLines()
                                let start = turnLines.bytes.count
                                encoders.encode(at: e, configuration: origin.configuration, into: &turnLines)
                                line = start..<turnLines.bytes.count
                            }
                            queueLine(line!, to: s, since: since, continuous: continuous)
                        }
                    case .action, .pointer:
                        continue  // run by the daemon (actions) and written to its pointer (DeviceTable)
                    }
                }
            }
        }
    }

    /// The buffer emptied once it passed its size (emptying an array costs more than a line),
    /// the runs still in it copied out first.
    private mutating func makeRoomForLines() {
        guard turnLines.bytes.count > Self.scratchLimit else { return }
        emptyLines()
    }

    /// `turnLines` emptied, every run in place copied out of it first.
    mutating func emptyLines() {
        for s in subscribers.indices where subscribers[s].inPlace != nil { subscribers[s].settle(turnLines.bytes) }
        turnLines.reset()
    }

    /// Line `line` of `turnLines` for slot `s`: in place where it can be, else copied.
    private mutating func queueLine(_ line: Range<Int>, to s: Int, since: Int64, continuous: Bool) {
        let limit = outputBufferBytes + subscribers[s].replyAllowance
        if subscribers[s].takeInPlace(line, within: limit, since: since, continuous: continuous) { return }
        let lines = turnLines.bytes
        // Safe: the buffer's bytes (held by `lines`), lent for the enqueue, which copies them.
        lines.withUnsafeBufferPointer { enqueue(UnsafeBufferPointer(rebasing: $0[line]), to: s, since: since, continuous: continuous) }
    }

    /// Does subscriber `s` take the touch lines of `device`? Static, over the list where it
    /// lies: asked per line, so nothing is copied to ask it.
    @inline(__always)
    private static func takesTouches(_ subscribers: borrowing [Subscriber], _ s: Int, _ device: UInt32) -> Bool {
        // Safe: `s` is one of the list's indices (the callers loop over them).
        subscribers.withUnsafeBufferPointer { subs in
            subs[s].isLive && subs[s].subscription.touches && subs[s].subscription.takes(device: device)
        }
    }

    /// Does subscriber `s` take the gesture line of event `e`? (As `takesTouches`.)
    @inline(__always)
    private static func takes(
        // Safe: `e` points into the events lent by `deliver` for its loop.
        _ subscribers: borrowing [Subscriber], _ s: Int, _ e: UnsafePointer<GestureEvent>, _ origin: PipelineOutput.Origin,
        _ device: UInt32, _ regionNames: [String]
    ) -> Bool {
        // Safe: as in `takesTouches`; `e` points into the pipeline's events for the caller's loop.
        subscribers.withUnsafeBufferPointer { subs in
            subs[s].isLive
                && (subs[s].subscription.takesEveryGesture
                    || (subs[s].subscription.takes(e.pointee, origin: origin, regionNames: regionNames)
                        && subs[s].subscription.takes(device: device)))
        }
    }

    /// A device line (added, removed) for every subscriber that takes the device.
    /// A line (`idle`, `wake`, `keyboard`) to every subscriber that takes gesture lines; how
    /// many those were.
    // Safe: the array is lent for the call; the bytes are copied into each queue.
    @discardableResult
    mutating func broadcast(_ bytes: [UInt8], orTouches: Bool = false) -> Int { bytes.withUnsafeBufferPointer { broadcast($0, orTouches: orTouches) } }

    /// A device's line (added, removed) to every subscriber that takes that device.
    // Safe: the array is lent for the call; the bytes are copied into each queue.
    mutating func announce(_ bytes: [UInt8], device: UInt32) { bytes.withUnsafeBufferPointer { announce($0, device: device) } }

    // Safe: callers lend a buffer valid for the call; `enqueue` copies it.
    @discardableResult
    /// (`orTouches`: and to every one that takes touch lines: the screen's change.)
    mutating func broadcast(_ bytes: UnsafeBufferPointer<UInt8>, orTouches: Bool = false) -> Int {
        var sent = 0
        for s in subscribers.indices
        where subscribers[s].isLive && (subscribers[s].subscription.gestures || (orTouches && subscribers[s].subscription.touches)) {
            enqueue(bytes, to: s, since: nil)
            sent += 1
        }
        return sent
    }

    // Safe: as `broadcast`.
    mutating func announce(_ bytes: UnsafeBufferPointer<UInt8>, device: UInt32) {
        for s in subscribers.indices where subscribers[s].isLive && subscribers[s].subscription.takes(device: device) {
            enqueue(bytes, to: s, since: nil)
        }
    }

    /// Queues a stream line (gesture, touch, device) for slot `s`. `since` is the monotonic time
    /// of the input behind it; `continuous` marks an update the next one supersedes (a gesture's
    /// `changed` line, a touch line), which may be held back (`flush`). A subscriber whose queue
    /// would pass the bound is dropped, but only once the kernel has refused to take it: one
    /// turn can make more than the bound for a client that reads everything (a replay catching
    /// up hands over many frames at once, and held lines wait in the queue), so the queue is
    /// written first, and only what the socket did not take counts against it.
    // Safe: a buffer valid for the call, copied into the subscriber's queue.
    mutating func enqueue(_ bytes: UnsafeBufferPointer<UInt8>, to s: Int, since: Int64?, continuous: Bool = false) {
        guard subscribers[s].isLive else { return }
        subscribers[s].settle(turnLines.bytes)
        let limit = outputBufferBytes + subscribers[s].replyAllowance
        if subscribers[s].fits(bytes.count, limit) { return subscribers[s].queue(bytes, since: since, continuous: continuous) }
        if subscribers[s].link == .open {
            write(s)
            guard subscribers[s].isLive else { return }
        }
        if !subscribers[s].fits(bytes.count, limit) {
            droppedSlow += 1
            let queued = subscribers[s].queued
            drop(s, reason: "stopped reading: \(queued) bytes queued and a line of \(bytes.count) more, over the limit of \(limit)", level: .warning)
            return
        }
        subscribers[s].queue(bytes, since: since, continuous: continuous)
    }

    /// Queues a reply (to a request, or the hello): always whole; the client's requests pause
    /// while its queue is past the bound.
    mutating func reply(_ bytes: ArraySlice<UInt8>, to s: Int) {
        guard subscribers[s].isLive else { return }
        subscribers[s].settle(turnLines.bytes)
        // Safe: the slice is lent for the call and copied.
        bytes.withUnsafeBufferPointer { subscribers[s].output.append($0) }
        subscribers[s].replyAllowance += bytes.count
        subscribers[s].urgent = true
    }

    /// Marks slot `s` gone and tells the server; nothing more is queued or written for it.
    mutating func drop(_ s: Int, reason: String, level: Logger.Level = .info) {
        guard subscribers[s].isLive else { return }
        subscribers[s].link = .gone
        subscribers[s].output.removeAll(keepingUpTo: 0)
        subscribers[s].inPlace = nil
        notices.append(.gone(slot: s, reason: reason, level: level))
    }
}
