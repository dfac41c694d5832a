import CLinux
import GestureEngine
import GestureProtocol
import Logging
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// Something that produces a touch device's evdev events: a recording played as a virtual device
/// (`--replay`), and, with live input, a /dev/input node read with libevdev. The daemon treats both
/// alike: events go through the same frame decoder and engine.
public protocol InputSource: AnyObject {
    var description: DeviceDescription { get }
    /// Where the events come from: `/dev/input/eventN`, or `replay:FILE`.
    var node: String { get }
    /// The monotonic time (ns) at which engine time `t` happens. Live devices stamp events with
    /// CLOCK_MONOTONIC, so it is `t` itself; a replay keeps the recording's own timeline (so its
    /// lines equal `touchgesturectl replay`'s) and maps it by its start and speed.
    func monotonic(of t: Timestamp) -> Int64
    /// The engine time now, for firing deadlines.
    func engineTime(atMonotonic ns: Int64) -> Timestamp
    /// Starts delivering events, in batches (a live device hands on each `read(2)` at once; the
    /// buffer is valid during the call only; after lost events (SYN_DROPPED) the batch that
    /// carries the kernel's state is marked `resynced`); `ended` when the source has no more (a
    /// finished replay, an unplugged device).
    func start(loop: EventLoop, deliver: @escaping (InputBatch) -> Void, ended: @escaping () -> Void) throws
    /// What the system knows of the panel's geometry (udev's LIBINPUT_CALIBRATION_MATRIX and
    /// measured size); nothing for a replay.
    var systemCalibration: [Double]? { get }
    var systemSizeMM: (width: Double, height: Double)? { get }
    func stop()
    /// A live device is removed when it ends (unplugged); a finished replay stays, idle.
    var removesWhenEnded: Bool { get }
    /// Read errors so far (a live device's failed reads; none for a replay).
    var errorCount: Int { get }
    /// Delivers every event already due (before the engine's deadlines fire, so that input and
    /// deadlines keep their order whatever order their timers woke in).
    func deliverDue()
}

/// Plays an evemu recording at its recorded pace (× `speed`), optionally in a loop, as a virtual
/// device. A timerfd is armed at each next event's time: no polling, no sleeping.
public final class ReplaySource: InputSource {
    public let description: DeviceDescription
    public let node: String
    public var removesWhenEnded: Bool { false }
    public var errorCount: Int { 0 }
    private let events: [InputEvent]
    private let speed: Double
    private let loops: Bool
    private let timer: DeadlineTimer
    private weak var loop: EventLoop?
    private var index = 0
    /// Added to the recording's timestamps on each pass of a loop, so time never runs backwards.
    private var offset: Int64 = 0
    private var startMonotonic: Int64 = 0
    private let first: Int64
    private var deliver: ((InputBatch) -> Void)?
    private var ended: (() -> Void)?
    public private(set) var passes = 0
    private var due: [InputEvent] = []
    /// The recording's first event to its latest (ns).
    private let span: Int64

    private let log: Logger

    public init(
        recording: Recording, description: DeviceDescription, path: String, speed: Double, loop: Bool, log: Logger
    ) throws {
        self.log = log
        self.description = description
        node = "replay:" + path
        events = recording.eventsLiftedAtEnd
        self.speed = speed > 0 ? speed : 1
        loops = loop
        first = recording.events.first?.time.nanoseconds ?? 0
        // A pass lasts to its latest event, however the recording's times run (backwards in a
        // bad one: the next pass must still start later, never at once and forever).
        let latest = recording.events.reduce(first) { max($0, $1.time.nanoseconds) }
        span = latest &- first
        timer = try DeadlineTimer()
        due.reserveCapacity(256)
    }

    public func monotonic(of t: Timestamp) -> Int64 {
        startMonotonic &+ Self.clamped((Double(t.nanoseconds &- first) / speed).rounded(.up))
    }

    public func engineTime(atMonotonic ns: Int64) -> Timestamp {
        Timestamp(nanoseconds: first &+ Self.clamped((Double(ns &- startMonotonic) * speed).rounded(.down)))
    }

    /// A time in ns from a Double, clamped to a range no timestamp arithmetic here overflows in
    /// (a recording spanning 1e9 s at speed 0.001 is past Int64).
    private static func clamped(_ ns: Double) -> Int64 {
        guard ns.isFinite else { return ns > 0 ? Int64.max / 4 : Int64.min / 4 }
        return Int64(max(min(ns, Double(Int64.max / 4)), Double(Int64.min / 4)))
    }

    public var systemCalibration: [Double]? { nil }
    public var systemSizeMM: (width: Double, height: Double)? { nil }

    public func start(
        loop: EventLoop, deliver: @escaping (InputBatch) -> Void, ended: @escaping () -> Void
    ) throws {
        self.loop = loop
        self.deliver = deliver
        self.ended = ended
        startMonotonic = monotonicNanoseconds()
        try loop.add(timer.fd) { [unowned self] _ in self.fire() }
        armNext()
    }

    public func stop() {
        if let e = loop?.remove(timer.fd) { log.warning("\(node): \(e)") }
        if let e = timer.arm(at: nil) { log.warning("\(node): \(e)") }
    }

    private func armNext() {
        let next = index < events.count ? monotonic(of: Timestamp(nanoseconds: events[index].time.nanoseconds + offset)) : nil
        if let e = timer.arm(at: next) { log.error("\(node): the replay stalls: \(e)") }
    }

    private func deliverBatch() {
        due.withUnsafeBufferPointer { deliver?(InputBatch($0)) }
        due.removeAll(keepingCapacity: true)
    }

    private func fire() {
        timer.acknowledge()
        deliverDue()
    }

    public func deliverDue() {
        guard deliver != nil else { return }
        let now = monotonicNanoseconds()
        // What is due goes as one batch, as a live device's read does (a frame at a time at
        // recorded pace); the buffer keeps its capacity.
        due.removeAll(keepingCapacity: true)
        while index < events.count {
            var e = events[index]
            e.time = Timestamp(nanoseconds: e.time.nanoseconds + offset)
            guard monotonic(of: e.time) <= now else { break }
            index += 1
            due.append(e)
            if due.count == 256 { deliverBatch() }
        }
        if !due.isEmpty { deliverBatch() }
        if index >= events.count {
            passes += 1
            if loops && events.count > 0 {
                // The next pass starts a second after this one ended, on the same timeline.
                offset &+= span &+ 1_000_000_000
                index = 0
            } else {
                ended?()
                return
            }
        }
        armNext()
    }
}
