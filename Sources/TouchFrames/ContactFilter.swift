import GestureEngine

#if canImport(Glibc)
    import Glibc
#endif

/// What a panel's contacts go through before anyone sees them (`[device]`, `[[panel]]`):
/// every consumer (the mirror, the gestures, the pointer, touch lines, wake) reads the filtered
/// contacts, so they agree on each one. All off by default: each filter trades something (lag,
/// a hidden strip, an ended touch) only the panel's owner can weigh. docs/CONFIG.md, "Filters".
public struct ContactFilterSettings: Hashable, Sendable {
    /// The 1€ filter (Casiez, Roussel, Vogel, CHI 2012) on each contact's position.
    public struct Dejitter: Hashable, Sendable {
        /// The cutoff (Hz) at rest: lower holds a resting finger stiller, with more lag.
        public var minCutoff: Double
        /// How much the cutoff rises with speed (Hz per mm/s): higher follows a fast swipe
        /// closer. At 0.05 a 500 mm/s swipe is filtered at 26 Hz (about 6 ms behind).
        public var speedCoefficient = 0.05
        /// The cutoff (Hz) of the speed estimate itself (the paper's 1 Hz).
        public var derivativeCutoff = 1.0

        public init(minCutoff: Double) { self.minCutoff = minCutoff }
    }

    /// A rectangle of the panel (mm from its corner at the axes' minimum, along its own X and Y
    /// axes) where a landing is ignored: the contact is shown to no one until it lifts.
    public struct DeadZone: Hashable, Sendable {
        public var x, y, width, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }
    }

    public var dejitter: Dejitter?
    public var deadZones: [DeadZone] = []
    /// A contact that has not moved by one unit for this long (ns) is ended for everyone; if it
    /// moves again it lands anew with a fresh id. Checked on the panel's frames.
    public var stuckAfterNs: Int64?
    /// Chatter: a lift is shown this long (ns) after it happened; a contact landing again in
    /// its slot within it and within `chatterDistanceMM` is the same contact (the same id).
    public var chatterNs: Int64?
    public var chatterDistanceMM = 5.0
    /// Ghosts: a contact is shown to the gestures and the virtual touchscreen only once it has
    /// been down this long (ns); one that lifts sooner is no touch. Without `ghostOnMirror` the
    /// virtual touchscreen shows it at once (touch to wake and the touches a system gesture
    /// holds then cannot keep it from the app).
    public var ghostNs: Int64?
    public var ghostOnMirror = true

    public init() {}

    public var isEmpty: Bool { dejitter == nil && deadZones.isEmpty && stuckAfterNs == nil && chatterNs == nil && ghostNs == nil }
}

/// What a panel's filters did since it was opened, by reason: the fleet's view of a failing
/// panel (`stats` `panels[]`, `touchgestured_device_filtered_total`).
public struct FilterCounts: Equatable, Sendable {
    /// Contacts shorter than `ghost_under`, never shown to the gestures.
    public var ghosts = 0
    /// Lifts and landings again merged into one contact.
    public var chatter = 0
    /// Contacts ended as stuck.
    public var stuck = 0
    /// Landings in a dead zone.
    public var deadZone = 0
    /// Contacts kept from the app by a region's `max_contacts` (counted by the pipeline).
    public var contactLimit = 0
    public init() {}

    public static func += (a: inout FilterCounts, b: FilterCounts) {
        (a.ghosts, a.chatter, a.stuck, a.deadZone) = (a.ghosts + b.ghosts, a.chatter + b.chatter, a.stuck + b.stuck, a.deadZone + b.deadZone)
        a.contactLimit += b.contactLimit
    }
}

/// The filters of one panel at work, a state a slot: run by `FrameDecoder` on each frame's
/// slots before it makes the frame every consumer reads. Positions stay in the panel's units
/// (rounded once filtered), so the mirror writes them as they are and the gestures map them as
/// any other.
struct ContactFilter {
    let settings: ContactFilterSettings
    /// Millimetres a unit along X and Y (the panel's size: its resolution, the configured size,
    /// or the 15.6-inch guess).
    let mmPerUnit: (x: Double, y: Double)
    /// The dead zones in the panel's units.
    private let zones: [(x: ClosedRange<Double>, y: ClosedRange<Double>)]
    private var state: [FilterSlot]
    /// What they did so far.
    var counts = FilterCounts()
    /// The panel's report interval as the dejitter has seen it (s; 0 before the first): frames
    /// that come closer together than it (a burst the kernel stamped at once, a reader that fell
    /// behind) are smoothed as that far apart, not frozen (the 1€ filter barely moves at dt ≈ 0).
    private var interval = 0.0
    /// What each slot shows this frame (`FrameDecoder` collects the contacts from it).
    private(set) var shown: [ShownSlot]

    /// A slot as the filters leave it: where its contact is shown, or whether it is hidden (for
    /// its life: a dead zone, stuck), young (the ghost filter) or lingering (a held lift).
    struct ShownSlot {
        var x: Int32 = 0, y: Int32 = 0
        var hidden = false, young = false, lingering = false
    }

    /// What the filter keeps of a slot's contact.
    struct FilterSlot {
        /// The contact these values belong to (0: none yet).
        var contact: UInt32 = 0
        var hidden = false
        /// Hidden because it stuck (not for a dead zone).
        var stuck = false
        /// 1€: the filtered position and speed (units, units/s), and the last frame's time.
        var x = 0.0, y = 0.0, dx = 0.0, dy = 0.0
        var at: Int64 = 0
        /// Stuck: where it last moved by a unit, and when.
        var restX: Int32 = 0, restY: Int32 = 0
        var restSince: Int64 = 0
        /// When it landed (ghosts), whether it was down at the last frame, and until when its
        /// lift is held (chatter).
        var landedAt: Int64 = 0
        var down = false
        var lingerUntil: Int64?
    }

    /// When a held lift or a young contact is next due (ns): the decoder makes a frame then.
    private(set) var nextTick: Int64?

    init(_ settings: ContactFilterSettings, slots: Int, x: AbsAxis, y: AbsAxis, sizeMM: (width: Double, height: Double)) {
        self.settings = settings
        let ux = sizeMM.width / (Double(x.maximum) - Double(x.minimum) + 1)
        let uy = sizeMM.height / (Double(y.maximum) - Double(y.minimum) + 1)
        mmPerUnit = (ux, uy)
        zones = settings.deadZones.map { z in
            let x0 = Double(x.minimum) + z.x / ux, y0 = Double(y.minimum) + z.y / uy
            return (x0...(x0 + z.width / ux), y0...(y0 + z.height / uy))
        }
        state = [FilterSlot](repeating: FilterSlot(), count: max(1, slots))
        shown = [ShownSlot](repeating: ShownSlot(), count: max(1, slots))
        shownBefore = []
        shownBefore.reserveCapacity(max(1, slots))
    }

    /// Slot `k` at `time` (ns), its contact `down` (and placed) or not: what it shows into
    /// `shown[k]`. A stuck
    /// contact that moves again gets the id `nextContact` (which then counts on); one that lands
    /// again as chatter gets its old id back.
    mutating func apply(_ s: inout DecoderSlot, slot k: Int, down: Bool, at time: Int64, nextContact: inout UInt32) {
        guard k < state.count else { return }
        guard down else { return lifted(&s, slot: k, at: time) }
        if state[k].contact != s.contact && !landsAgain(&s, slot: k, at: time) { land(s, slot: k, at: time) }
        if let after = settings.stuckAfterNs { checkStuck(&s, slot: k, after: after, at: time, nextContact: &nextContact) }
        // The common path on copies, written back once: one uniqueness check an array, not one a
        // field. (No closure over `self` here, nor a method of `self` given a part of it
        // `inout`: either copied the whole filter, and then its arrays, every contact.)
        var f = state[k]
        f.down = true
        var v = ShownSlot(x: shown[k].x, y: shown[k].y, hidden: f.hidden)
        if let g = settings.ghostNs, time - f.landedAt < g {
            v.young = true
            due(f.landedAt + g)
        }
        if !v.hidden {
            if let d = settings.dejitter {
                Self.smooth(&f, s, d, mmPerUnit, &interval, at: time)
            } else {
                (f.x, f.y) = (Double(s.x), Double(s.y))
            }
            (v.x, v.y) = (Self.nearest(f.x), Self.nearest(f.y))
        }
        state[k] = f
        shown[k] = v
    }

    /// Stuck: silent (not one unit of movement) for `after` ns, it ends; moving again, it lands
    /// anew (outside a dead zone) under a fresh id, the filter starting from where it is.
    private mutating func checkStuck(_ s: inout DecoderSlot, slot k: Int, after: Int64, at time: Int64, nextContact: inout UInt32) {
        if Int64(s.x) != Int64(state[k].restX) || Int64(s.y) != Int64(state[k].restY) {
            (state[k].restX, state[k].restY, state[k].restSince) = (s.x, s.y, time)
            guard state[k].stuck else { return }
            s.contact = nextContact
            nextContact &+= 1
            land(s, slot: k, at: time)
        } else if !state[k].hidden && time - state[k].restSince >= after {
            state[k].hidden = true
            state[k].stuck = true
            counts.stuck += 1
        }
    }

    /// Slot `k` has no contact down: a contact shown until the last frame lifts now, or, within
    /// the chatter window, is still shown where it was.
    private mutating func lifted(_ s: inout DecoderSlot, slot k: Int, at time: Int64) {
        shown[k].lingering = false
        guard state[k].down else { return }
        // Lifted before the gestures were shown it (and not a contact a filter already hid).
        if shown[k].young && !state[k].hidden && state[k].lingerUntil == nil { counts.ghosts += 1 }
        if let window = settings.chatterNs, !state[k].hidden && !shown[k].young {
            let until = state[k].lingerUntil ?? time + window
            if time < until {
                state[k].lingerUntil = until
                shown[k].lingering = true
                return due(until)
            }
        }
        state[k].down = false
        state[k].lingerUntil = nil
    }

    /// A contact landing in slot `k` while the last one's lift is held, close to where it was:
    /// chatter, the same contact (its id back).
    private mutating func landsAgain(_ s: inout DecoderSlot, slot k: Int, at time: Int64) -> Bool {
        guard let until = state[k].lingerUntil, time < until else { return false }
        let dx = (Double(s.x) - state[k].x) * mmPerUnit.x, dy = (Double(s.y) - state[k].y) * mmPerUnit.y
        guard (dx * dx + dy * dy).squareRoot() <= settings.chatterDistanceMM else { return false }
        s.contact = state[k].contact
        state[k].lingerUntil = nil
        counts.chatter += 1
        return true
    }

    /// A frame is wanted at `t` (the earliest asked for since `startFrame`).
    private mutating func due(_ t: Int64) { nextTick = min(nextTick ?? t, t) }

    /// Contacts already down (a reload made these filters): each as landed long ago, where it is.
    mutating func adopt(_ slots: [DecoderSlot], down: [Bool], at time: Int64) {
        for k in 0..<min(slots.count, down.count, state.count) where down[k] && slots[k].hasX && slots[k].hasY {
            let s = slots[k]
            state[k] = FilterSlot(contact: s.contact, hidden: false)
            (state[k].restX, state[k].restY, state[k].restSince, state[k].landedAt, state[k].down) = (s.x, s.y, time, Int64.min / 2, true)
            reset(k, s, at: time)
            shown[k] = ShownSlot(x: s.x, y: s.y)
        }
    }

    /// A frame's filtering begins: what it asks for is due anew; `shown` are the contacts the
    /// last frame showed the gestures.
    mutating func startFrame(shown: borrowing FrameList<Contact>) {
        nextTick = nil
        shownBefore.removeAll(keepingCapacity: true)
        for i in shown.indices { shownBefore.append(shown[i].id) }
    }

    /// The contacts the last frame showed the gestures (room for a slot each, made once).
    private var shownBefore: [UInt32]

    func wasShown(_ id: UInt32) -> Bool { shownBefore.contains(id) }

    private func inZone(_ s: DecoderSlot) -> Bool {
        zones.contains { $0.x.contains(Double(s.x)) && $0.y.contains(Double(s.y)) }
    }

    /// A new contact in slot `k`: hidden for its life when it lands in a dead zone.
    private mutating func land(_ s: DecoderSlot, slot k: Int, at time: Int64) {
        state[k] = FilterSlot(contact: s.contact, hidden: inZone(s))
        if state[k].hidden { counts.deadZone += 1 }
        (state[k].restX, state[k].restY, state[k].restSince, state[k].landedAt) = (s.x, s.y, time, time)
        reset(k, s, at: time)
    }

    private mutating func reset(_ k: Int, _ s: DecoderSlot, at time: Int64) {
        (state[k].x, state[k].y, state[k].dx, state[k].dy, state[k].at) = (Double(s.x), Double(s.y), 0, 0, time)
    }

    /// One 1€ step: the speed estimate smoothed at `derivativeCutoff`, the position at a cutoff
    /// that rises with that speed (in mm/s).
    private static func smooth(
        _ f: inout FilterSlot, _ s: DecoderSlot, _ d: ContactFilterSettings.Dejitter, _ mmPerUnit: (x: Double, y: Double),
        _ interval: inout Double, at time: Int64
    ) {
        var dt = Double(time - f.at) / 1e9
        f.at = time
        // A panel reports every 2 to 50 ms: a time apart in that range teaches the interval
        // (slowly: one late frame moves it little); a shorter one is a burst, taken at it.
        if dt >= 0.002 && dt <= 0.05 { interval = interval == 0 ? dt : interval + 0.1 * (dt - interval) }
        dt = max(dt, interval)
        guard dt > 0 else { return }
        let rawDX = (Double(s.x) - f.x) / dt, rawDY = (Double(s.y) - f.y) / dt
        let ad = Self.alpha(d.derivativeCutoff, dt)
        f.dx += ad * (rawDX - f.dx)
        f.dy += ad * (rawDY - f.dy)
        let speed = ((f.dx * mmPerUnit.x) * (f.dx * mmPerUnit.x) + (f.dy * mmPerUnit.y) * (f.dy * mmPerUnit.y)).squareRoot()
        let a = Self.alpha(d.minCutoff + d.speedCoefficient * speed, dt)
        f.x += a * (Double(s.x) - f.x)
        f.y += a * (Double(s.y) - f.y)
    }

    /// `v` rounded half up, without a libm call: `v` lies between raw Int32 values (each filter
    /// step moves toward one), so the conversions cannot overflow.
    static func nearest(_ v: Double) -> Int32 {
        let up = v + 0.5, t = Int32(up)
        return Double(t) > up ? t - 1 : t  // truncation went up for a negative value
    }

    /// The smoothing factor of a first-order low-pass at `cutoff` Hz over `dt` s.
    static func alpha(_ cutoff: Double, _ dt: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / dt)
    }
}
