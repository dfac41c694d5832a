import TouchInput
import GestureEngine
import GestureProtocol
import Logging
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// Plays an evemu recording at its recorded pace (× `speed`), optionally in a loop, as a virtual
/// device. A timerfd is armed at each next event's time: no polling, no sleeping.
final class ReplaySource: InputSource {
    let description: DeviceDescription
    let node: String
    var deliversKernelLayout: Bool { false }
    var removesWhenEnded: Bool { false }
    var errorCount: Int { 0 }
    private let timer: DeadlineTimer
    private weak var loop: EventLoop?
    /// Where the replay is, in one value (one access a wake-up). Its timeline is kept apart too,
    /// read by the pipeline (`monotonic(of:)`) while the playback hands events over.
    private var playback: Playback
    private var timeline: ReplayTimeline
    private var deliver: Delivery?
    private var ended: ((inout FrameState) -> Void)?
    var passes: Int { playback.passes }
    private let log: Logger

    init(recording: Recording, description: DeviceDescription, path: String, speed: Double, loop: Bool, log: Logger) throws {
        self.log = log
        self.description = description
        node = "replay:" + path
        // The recording read as the panel it is replayed as (`--device`: its lift at the end).
        var described = recording
        described.description = description
        playback = Playback(recording: described, speed: speed, loops: loop)
        timeline = playback.timeline
        timer = try DeadlineTimer()
    }

    func monotonic(of t: Timestamp) -> Int64 { timeline.monotonic(of: t) }
    func engineTime(atMonotonic ns: Int64) -> Timestamp { timeline.engineTime(atMonotonic: ns) }

    var systemCalibration: [Double]? { nil }
    var systemSizeMM: (width: Double, height: Double)? { nil }

    func start(loop: EventLoop, id _: UInt32, deliver: @escaping Delivery, ended: @escaping (inout FrameState) -> Void) throws {
        self.loop = loop
        self.deliver = deliver
        self.ended = ended
        playback.timeline.startMonotonic = monotonicNanoseconds()
        timeline = playback.timeline
        // Unowned: the handler is removed in stop(), before the devices let the source go.
        try loop.add(timer.fd) { [unowned self] _, state in self.fire(&state) }
        // A recording of no event ends at once (its end is told at the first wake-up).
        arm(playback.nextDue ?? monotonicNanoseconds())
    }

    func stop() {
        if let e = loop?.remove(timer.fd) { log.warning("\(node): \(e)") }
        if let e = timer.arm(at: nil) { log.warning("\(node): \(e)") }
        deliver = nil
    }

    private func arm(_ next: Int64?) {
        if let e = timer.arm(at: next) { log.error("\(node): the replay stalls: \(e)") }
    }

    private func fire(_ state: inout FrameState) {
        timer.acknowledge()
        deliverDue(&state)
    }

    func deliverDue(_ state: inout FrameState) {
        guard let deliver else { return }
        let (next, over) = playback.deliverDue(now: monotonicNanoseconds()) { batch in deliver(batch, &state) }
        if over {
            // Told once: the route asks again at each of its deadlines (a kinetic tail's).
            let end = ended
            ended = nil
            end?(&state)
            return
        }
        arm(next)
    }
}

/// A replay's position on its timeline: the recording's events, the next one due, the offset of
/// the current pass, and the buffer a wake-up's due events go out in.
struct Playback {
    private let events: [InputEvent]
    private let loops: Bool
    /// The recording's first event to its latest (ns).
    private let span: Int64
    private var index = 0
    /// Added to the recording's timestamps on each pass of a loop, so time never runs backwards.
    private var offset: Int64 = 0
    var timeline: ReplayTimeline
    private(set) var passes = 0
    private var due: [InputEvent] = []

    init(recording: Recording, speed: Double, loops: Bool) {
        events = recording.eventsLiftedAtEnd
        self.loops = loops
        let first = recording.events.first?.time.nanoseconds ?? 0
        timeline = ReplayTimeline(first: first, speed: speed > 0 ? speed : 1)
        // A pass lasts to its latest event, however the recording's times run (backwards in a
        // bad one: the next pass must still start later, never at once and forever).
        let latest = recording.events.reduce(first) { max($0, $1.time.nanoseconds) }
        span = latest &- first
        due.reserveCapacity(256)
    }

    private func monotonic(of t: Timestamp) -> Int64 { timeline.monotonic(of: t) }

    /// The monotonic time of the next event, nil at the end.
    var nextDue: Int64? {
        index < events.count ? monotonic(of: Timestamp(nanoseconds: events[index].time.nanoseconds + offset)) : nil
    }

    /// Hands every event due by `now` to `deliver`, in batches (as a live device's read does, a
    /// frame at a time at recorded pace); the next event's time, and whether the replay is over.
    mutating func deliverDue(now: Int64, to deliver: (InputBatch) -> Void) -> (next: Int64?, over: Bool) {
        due.removeAll(keepingCapacity: true)
        while index < events.count {
            var e = events[index]
            e.time = Timestamp(nanoseconds: e.time.nanoseconds + offset)
            guard monotonic(of: e.time) <= now else { break }
            index += 1
            due.append(e)
            if due.count == 256 { flushDue(deliver) }
        }
        if !due.isEmpty { flushDue(deliver) }
        if index >= events.count {
            passes += 1
            guard loops && events.count > 0 else { return (nil, true) }
            // The next pass starts a second after this one ended, on the same timeline.
            offset &+= span &+ 1_000_000_000
            index = 0
        }
        return (nextDue, false)
    }

    private mutating func flushDue(_ deliver: (InputBatch) -> Void) {
        InputBatch.lending(due) { deliver($0) }
        due.removeAll(keepingCapacity: true)
    }
}

/// A replay's mapping between the recording's time (engine time, so its lines equal
/// `touchgesturectl replay`'s) and monotonic time, by its start and speed.
struct ReplayTimeline {
    let first: Int64
    let speed: Double
    var startMonotonic: Int64 = 0

    func monotonic(of t: Timestamp) -> Int64 {
        startMonotonic &+ Self.clamped((Double(t.nanoseconds &- first) / speed).rounded(.up))
    }

    func engineTime(atMonotonic ns: Int64) -> Timestamp {
        Timestamp(nanoseconds: first &+ Self.clamped((Double(ns &- startMonotonic) * speed).rounded(.down)))
    }

    /// A time in ns from a Double, clamped to a range no timestamp arithmetic here overflows in
    /// (a recording spanning 1e9 s at speed 0.001 is past Int64).
    private static func clamped(_ ns: Double) -> Int64 {
        guard ns.isFinite else { return ns > 0 ? Int64.max / 4 : Int64.min / 4 }
        return Int64(max(min(ns, Double(Int64.max / 4)), Double(Int64.min / 4)))
    }
}
