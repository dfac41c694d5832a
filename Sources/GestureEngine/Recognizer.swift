/// How a frame changed the contacts down, as recognizers and their tables name it.
enum ContactChange {
    /// Contacts landed (none lifted).
    case began
    /// The same contacts, moved or not.
    case moved
    /// Contacts lifted (none landed).
    case ended
    /// One contact lifted and another landed between two SYN_REPORTs, others staying down.
    case replaced

    init(_ s: borrowing FrameSummary) {
        switch (s.added > 0, s.removed > 0) {
        case (true, false): self = .began
        case (false, true): self = .ended
        case (true, true): self = .replaced
        case (false, false): self = .moved
        }
    }
}

/// What a recognizer is told, all through one `handle`: a frame (how it changed the contacts;
/// its summary is `handle`'s other argument), that one of its deadlines has come, or the arena's
/// word (accepted: it may fire; rejected: it is out, and an active gesture is cancelled).
enum RecognizerInput {
    case contact(ContactChange)
    case deadline(Timestamp)
    case accepted(Timestamp)
    case rejected(Timestamp, FailReason)

    /// The input's name in transition logs and state diagrams.
    var name: RecognizerInputName {
        switch self {
        case .contact(.began): return .contactBegan
        case .contact(.moved): return .contactMoved
        case .contact(.ended): return .contactEnded
        case .contact(.replaced): return .contactReplaced
        case .deadline: return .deadline
        case .accepted: return .accepted
        case .rejected: return .rejected
        }
    }

    /// When it happened: a frame's time is its summary's.
    func time(_ s: borrowing FrameSummary) -> Timestamp {
        switch self {
        case .contact: return s.time
        case .deadline(let t), .accepted(let t), .rejected(let t, _): return t
        }
    }
}

/// The inputs by name, as transition logs, tables and diagrams show them.
public enum RecognizerInputName: String, Sendable, CaseIterable, CustomStringConvertible {
    case contactBegan, contactMoved, contactEnded, contactReplaced, deadline, accepted, rejected
    public var description: String { rawValue }
}

/// Every recognizer state by name. Each recognizer's state enum maps onto these; the tables
/// and the logs use them, so a state's name is written once.
public enum RecognizerStateName: String, Sendable, CaseIterable, CustomStringConvertible {
    case idle
    /// Deciding: fingers down (tap, long press).
    case pressing
    /// A multi-tap between taps.
    case waitingForNextTap
    /// Deciding: fingers moving (pan, swipe, pinch, edge swipe).
    case tracking
    case ready, readyLifted, active, ended, recognized, failed
    public var description: String { rawValue }
}

/// One row of a recognizer's transition table.
typealias TransitionRow = (from: RecognizerStateName, input: RecognizerInputName, to: RecognizerStateName)

/// How the tables of recognizers that decide alike begin.
enum TransitionRows {
    /// Fingers held (tap, long press): landing, more fingers, moving within the slop, a finger
    /// replaced.
    static let pressing: [TransitionRow] = [
            (.idle, .contactBegan, .pressing), (.idle, .contactBegan, .failed),
            (.pressing, .contactBegan, .pressing), (.pressing, .contactBegan, .failed),
            (.pressing, .contactMoved, .pressing), (.pressing, .contactMoved, .failed),
            (.pressing, .contactReplaced, .pressing),
    ]
    /// Fingers moving toward a threshold (edge swipe, pinch): landing, more fingers (which may
    /// make it ready), moving.
    static let tracking: [TransitionRow] = [
            (.idle, .contactBegan, .tracking), (.idle, .contactBegan, .failed),
            (.tracking, .contactBegan, .tracking), (.tracking, .contactBegan, .failed),
            (.tracking, .contactBegan, .ready),
            (.tracking, .contactMoved, .tracking), (.tracking, .contactReplaced, .tracking), (.tracking, .contactMoved, .ready),
    ]
}

/// Why a recognizer failed (or was cancelled); shown in logs and in `trace` pictures.
public enum FailReason: Hashable, Sendable, CustomStringConvertible {
    case moved
    case heldTooLong
    case tooManyFingers
    case tooFewFingers
    case liftedTooSoon
    case waitedTooLong
    case tooFarFromFirstTap
    case wrongAxis
    case tooShort
    case tooSlow
    case wrongDirection
    case notAtEdge
    /// A stroke smaller than `strokeMinSize`.
    case tooSmall
    /// A stroke no shape matched well enough, or more like a line or an arc than a shape.
    case noShape
    /// The arena gave the sequence to another gesture (index into the compiled gestures).
    case lostTo(Int)
    case palm
    case deviceRemoved
    case eventsLost
    /// A recognizer was given an input its state cannot take (a bug, logged, never a trap).
    case invalidInput(state: RecognizerStateName, input: RecognizerInputName)

    public var description: String {
        switch self {
        case .moved: return "moved too far"
        case .heldTooLong: return "held too long"
        case .tooManyFingers: return "too many fingers"
        case .tooFewFingers: return "too few fingers"
        case .liftedTooSoon: return "lifted too soon"
        case .waitedTooLong: return "next tap too late"
        case .tooFarFromFirstTap: return "next tap too far away"
        case .wrongAxis: return "moved along the other axis"
        case .tooShort: return "too short"
        case .tooSlow: return "too slow"
        case .wrongDirection: return "wrong direction"
        case .notAtEdge: return "did not start at an edge"
        case .tooSmall: return "too small"
        case .noShape: return "no shape matched"
        case .lostTo(let g): return "lost to gesture #\(g)"
        case .palm: return "palm"
        case .deviceRemoved: return "device removed"
        case .eventsLost: return "events lost"
        case .invalidInput(let s, let i): return "invalid input \(i) in state \(s)"
        }
    }
}

/// How a recognizer stands, as the arena sees it. Derived from the recognizer's state.
enum RecognizerStatus: Equatable {
    /// Still deciding.
    case possible
    /// Wants to fire (begin or be recognized) and waits for the arena.
    case ready
    /// As `ready`, with its fingers lifted: it takes no more frames (a new sequence in its
    /// region is not its), only the arena's word.
    case readyLifted
    /// Accepted and still running (a continuous gesture between began and ended).
    case active
    /// Accepted and done.
    case finished
    case failed

    /// Waits for the arena to fire it.
    var isReady: Bool { self == .ready || self == .readyLifted }
}

/// A recognizer is a value with a private state machine. It owns no timer and calls no one:
/// it reports its deadline and appends what it emits (at most two events: a gesture accepted
/// after its fingers lifted begins and ends at once); the engine and the arena do the rest.
protocol Recognizer {
    /// The current state's name, for transition logs.
    var stateName: RecognizerStateName { get }
    var status: RecognizerStatus { get }
    /// When the recognizer must be told the time again, if ever.
    var deadline: Timestamp? { get }
    /// Why it failed, once it has.
    var failure: FailReason? { get }
    /// Every input, one exhaustive switch over (state, input); emitted events go to `out`. `s` is
    /// the frame's summary for a `.contact` input, for the others an empty one no one reads. It
    /// is `inout` only so that it is passed by address: Swift 6.3 copies a borrowed trivial
    /// value (~160 bytes here) before a call whenever it cannot prove the memory unchanged, and
    /// an `inout`'s exclusivity proves it. Recognizers read it, never write it (their helpers
    /// take it `borrowing`, which the compiler holds them to).
    mutating func handle(_ input: RecognizerInput, _ s: inout FrameSummary, into out: inout [GestureEvent])
    /// Back to idle, for the next sequence.
    mutating func reset()
    /// Every transition the state machine can make: (from, input, to). State diagrams in
    /// docs/diagrams are generated from these tables, and tests check the code keeps to them.
    static var transitions: [TransitionRow] { get }
}

/// Least-squares velocity over a short horizon, in a fixed inline buffer (no heap).
struct VelocityTracker {
    private static let capacity = 20
    private var times = InlineArray<20, Int64>(repeating: 0)
    private var xs = InlineArray<20, Double>(repeating: 0)
    private var ys = InlineArray<20, Double>(repeating: 0)
    private var count = 0
    private var head = 0  // index of the newest sample
    /// The first frame of held lifts only since the last sample (`sample`), in ns; nil: none.
    private var heldSince: Int64?

    /// A sample closer than this to the one before the newest replaces the newest, so the kept
    /// samples stay at least this far apart and 20 of them span the horizon even at a 1 kHz report
    /// rate (horizon / capacity); the newest sample is always the latest position.
    private let minimumSpacing: Int64
    /// The horizon in ns (converted once: `Duration`'s 128-bit arithmetic is not free per frame).
    private let horizon: Int64

    init(horizon: Duration) {
        self.horizon = horizon.nanosecondsClamped
        minimumSpacing = max(1, self.horizon / Int64(Self.capacity))
    }

    mutating func reset() {
        count = 0
        head = 0
        heldSince = nil
    }

    /// A frame's point `p` of the fingers' path (at `time`, `fingers` down). A frame of held lifts only
    /// (`FrameSummary.onlyHeld`: the chatter filter holds a lift while another contact's frames
    /// come) is no point of it: the finger left at the first such frame, and a release after
    /// them is sampled there, and its velocity read there (`releaseTime`), as a lift shown at
    /// once would be (frames of held lifts only, sampled, halved a swipe's speed).
    /// (Handed the summary's three values, inlined: a call copied the ~180-byte summary.)
    @inline(__always)
    mutating func sample(_ time: Timestamp, fingers: Int, onlyHeld: Bool, _ p: PixelPoint) {
        if onlyHeld {
            if heldSince == nil { heldSince = time.nanoseconds }
            return
        }
        if let lift = heldSince {
            if fingers == 0 { return add(Timestamp(nanoseconds: min(lift, time.nanoseconds)), p) }
            heldSince = nil
        }
        add(time, p)
    }

    /// Where a velocity at `time` is read: at the lift when frames of held lifts only came before
    /// the release (`sample`).
    func releaseTime(_ time: Timestamp) -> Timestamp {
        heldSince.map { Timestamp(nanoseconds: min($0, time.nanoseconds)) } ?? time
    }

    // The ring's indices (`head`, and `i` below) stay in 0..<capacity by construction; the
    // subscripts check it all the same (a few instructions a sample, measured in BENCHMARKS.md).
    mutating func add(_ time: Timestamp, _ p: PixelPoint) {
        // Spacing is measured from the sample before the newest: measured from the newest (which
        // each replacement moves forward), samples faster than the spacing would replace it
        // forever, keep only the first and the latest, and give a release velocity of 0 at
        // 200 Hz and up.
        // Indices stay in 0..<capacity and counts at most capacity, and timestamps are far from
        // Int64's ends (microseconds of uptime): the arithmetic below is not checked.
        if count > 1 && time.nanoseconds &- times[head == 0 ? Self.capacity &- 1 : head &- 1] < minimumSpacing {
            times[head] = time.nanoseconds
            xs[head] = p.x
            ys[head] = p.y
            return
        }
        head = head == Self.capacity &- 1 ? 0 : head &+ 1
        times[head] = time.nanoseconds
        xs[head] = p.x
        ys[head] = p.y
        count = min(count &+ 1, Self.capacity)
    }

    /// How far back a fit reads (ns): the horizon, or on a panel slower than 25 Hz (its report
    /// interval, the median of the three spacings before the newest sample, at least 40 ms) two
    /// and a half report intervals, up to twice the horizon, so a fit at a lift that came a late
    /// report after the last one still holds two reports. The median, so one pause among short
    /// spacings (a finger that stopped, then twitched) is no interval; the newest sample left
    /// out, as it may be the lift's.
    /// (`mutating` so that `times` is read where it lies, not copied as a getter would; the
    /// common case, a spacing under `slowInterval`, inlined into `velocity`, the median out of line.)
    @inline(__always)
    private mutating func reach() -> Int64 {
        guard count > 4 else { return horizon }
        let i = head == 0 ? Self.capacity &- 1 : head &- 1
        guard times[i] &- times[i == 0 ? Self.capacity &- 1 : i &- 1] >= Self.slowInterval else { return horizon }
        return slowReach(from: i)
    }

    /// `reach` where the spacing before the newest sample (at `i`) is a slow panel's.
    @inline(never)
    private mutating func slowReach(from newest: Int) -> Int64 {
        var i = newest
        var gaps = (Int64(0), Int64(0), Int64(0))
        for k in 0..<3 {
            let before = i == 0 ? Self.capacity &- 1 : i &- 1
            let gap = times[i] &- times[before]
            if k == 0 { gaps.0 = gap } else if k == 1 { gaps.1 = gap } else { gaps.2 = gap }
            i = before
        }
        let median = max(min(gaps.0, gaps.1), min(max(gaps.0, gaps.1), gaps.2))
        guard median >= Self.slowInterval else { return horizon }
        return min(2 &* horizon, max(horizon, median &* 5 / 2))
    }

    /// A report interval this long or longer (ns) is a slow panel's (25 Hz and slower).
    static let slowInterval: Int64 = 40_000_000

    /// Velocity (px/s) at `now` from the samples no older than `reach()`; zero with fewer than
    /// two. Least squares in one pass over the samples, with times relative to `now` and positions
    /// relative to the newest sample: the sums stay small, and fingers at rest give exactly 0.
    /// `mutating` only so that callers read it in place (it changes nothing); inlined into the
    /// pan's frame (a call of its own costs about 40 instructions a frame).
    @inline(__always)
    mutating func velocity(at now: Timestamp) -> PixelPoint {
        let oldest = now.nanoseconds - reach()
        let x0 = xs[head], y0 = ys[head]
        var n = 0, st = 0.0, sx = 0.0, sy = 0.0, stt = 0.0, stx = 0.0, sty = 0.0
        var i = head
        while n < count && times[i] >= oldest {
            let t = Double(times[i] &- now.nanoseconds)  // ns: no division per sample
            let x = xs[i] - x0, y = ys[i] - y0
            st += t
            sx += x
            sy += y
            stt += t * t
            stx += t * x
            sty += t * y
            n &+= 1
            i = i == 0 ? Self.capacity &- 1 : i &- 1
        }
        guard n >= 2 else { return .zero }
        let count = Double(n)
        let vtt = stt - st * st / count
        guard vtt > 0 else { return .zero }
        let perSecond = 1e9 / vtt
        return PixelPoint(x: (stx - st * sx / count) * perSecond, y: (sty - st * sy / count) * perSecond)
    }
}
