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
        /// Speeds (mm/s) up to this are rest: the cutoff rises with the speed past it (0: the
        /// filter as published). A resting finger's noise on a cheap panel reads as a speed of
        /// 20-60 mm/s, which opened the cutoff and let half the noise through; past the floor a
        /// swipe loses little (500 mm/s is filtered at 23.5 Hz rather than 26 with 0.05 and 50).
        public var restSpeed = 0.0

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
    /// A contact that has not moved past `stuckDistanceMM` from where it came to rest for this
    /// long (ns) is ended for everyone; if it moves again it lands anew with a fresh id.
    /// Checked on the panel's frames.
    public var stuckAfterNs: Int64?
    /// How far (mm) a contact may flicker about its resting place and still be still (0: any
    /// change of a unit is a move).
    public var stuckDistanceMM = 0.5
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

    /// What is wrong with `zones` on a panel of `width` × `height` mm: one off the panel (a
    /// size or a zone mistyped), or zones covering all of it, one alone or together (no touch
    /// would ever be seen).
    public static func deadZoneProblem(_ zones: [DeadZone], width: Double, height: Double) -> String? {
        let size = "\(Int(width.rounded())) × \(Int(height.rounded())) mm"
        if let z = zones.first(where: { $0.x >= width || $0.y >= height }) {
            return "the dead zone at (\(z.x), \(z.y)) mm lies off the panel (\(size))"
        }
        if zones.contains(where: { $0.x <= 0 && $0.y <= 0 && $0.x + $0.width >= width && $0.y + $0.height >= height }) {
            return "a dead zone covers the whole panel (\(size)): no touch would ever be seen"
        }
        if zones.count > 1 && covers(zones, width: width, height: height) {
            return "the dead zones together cover the whole panel (\(size)): no touch would ever be seen"
        }
        return nil
    }

    /// Whether `zones` together leave no point of the panel uncovered: the panel cut at every
    /// zone's edges into cells, each cell's middle inside some zone. (At most 16 zones a panel,
    /// `ConfigLimits.deadZones`: a check at load of at most 33 × 33 cells, not per frame.)
    static func covers(_ zones: [DeadZone], width: Double, height: Double) -> Bool {
        let xs = Set([0, width] + zones.flatMap { [$0.x, $0.x + $0.width] }.filter { $0 > 0 && $0 < width }).sorted()
        let ys = Set([0, height] + zones.flatMap { [$0.y, $0.y + $0.height] }.filter { $0 > 0 && $0 < height }).sorted()
        for (x0, x1) in zip(xs, xs.dropFirst()) {
            for (y0, y1) in zip(ys, ys.dropFirst()) {
                let (mx, my) = ((x0 + x1) / 2, (y0 + y1) / 2)
                guard zones.contains(where: { mx >= $0.x && mx <= $0.x + $0.width && my >= $0.y && my <= $0.y + $0.height }) else { return false }
            }
        }
        return true
    }
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
/// any other. A frame's work is one pass over the slots, each through `ContactFilter.step`
/// (ContactFilterSteps.swift) on spans of the state taken once a frame.
struct ContactFilter {
    /// What the filters are set to, read by every step.
    struct Rules {
        let settings: ContactFilterSettings
        /// Millimetres a unit along X and Y (the panel's size: its resolution, the configured
        /// size, or the 15.6-inch guess).
        let mmPerUnit: (x: Double, y: Double)
        /// The dead zones in the panel's units.
        let zones: [(x: ClosedRange<Double>, y: ClosedRange<Double>)]
        /// The axes' ranges: a position carried by a bounce's offset stays on the panel.
        let xRange: ClosedRange<Double>, yRange: ClosedRange<Double>
        /// How far (mm) a stuck contact may flicker and still be still (`checkStuck`): the
        /// configured distance, and at least two units (a coarse panel's unit may be half a
        /// millimetre; two units on each axis: a stuck contact flickering ±1 about its place on
        /// both, 2.8 units across, is still).
        let stuckLimit: Double
    }
    let rules: Rules
    var settings: ContactFilterSettings { rules.settings }
    var mmPerUnit: (x: Double, y: Double) { rules.mmPerUnit }
    /// What the filters keep of each slot (read and written by a frame's pass, `run`).
    var state: ContiguousArray<FilterSlot>
    /// What each slot shows this frame (`FrameDecoder` collects the contacts from it).
    var shown: ContiguousArray<ShownSlot>
    /// What the filters did so far, when they next want a frame, the report interval.
    var tally = Tally()

    /// What a frame of filtering changes beside the slots.
    struct Tally {
        var counts = FilterCounts()
        /// When a held lift or a young contact is next due (ns): the decoder makes a frame then.
        var nextTick: Int64?
        /// The panel's report interval, from the spacing of its frames while a contact is down
        /// (or lifts in the frame; `report`): frames that come closer together than it (a burst
        /// the kernel stamped at once, a reader that fell behind) are smoothed as that far apart,
        /// not frozen (the 1€ filter barely moves at dt ≈ 0); a lift is held 1.25 of it at least.
        /// The filters' own frames teach nothing.
        var interval = ReportInterval()
        /// The panel's last frame with a contact down (ns; nil: none was), and its last frame.
        var reportAt: Int64?
        var lastFrame: Int64?
        /// The latest lift time (ns) among the held lifts this frame ended: a frame the filters
        /// made on their own to end them is stamped then for the gestures (`FrameDecoder.tick`).
        var releasedLift: Int64?
        /// Contacts were ended as stuck in this frame, at `stuckAt` (ns; their slots' `stuckAt`):
        /// the mirror ends them as it ends a touch a system gesture takes (`[device] cancel`).
        var stuckNow = false
        var stuckAt: Int64 = 0
        /// The landing being stepped is the panel's only contact in this frame (none other down
        /// or held): a landing far along its held lift's path may be its bounce (`alongPath`).
        var lone = false
        /// The held lifts of the panel's last report with lifts (`HandLift`): fingers of one
        /// hand that drop out together move alike (`predictedLift`).
        var handLift = HandLift()

        /// A frame is wanted at `t` (the earliest asked for since the frame began).
        mutating func due(_ t: Int64) { nextTick = min(nextTick ?? t, t) }

        /// The panel's frame at `time` (ns), a contact `down` in it or not, before its contacts
        /// are stepped: the time since its last one with a contact down is a report interval (the
        /// lift's frame too: the first touch after a start that lifts after one report teaches
        /// one, so a slow panel's first bounce is held long enough); one past
        /// `ReportInterval.longestNs` after its last frame (a pause between touches) ends a run of
        /// long spacings. (A time of 0 is a time: a recording starts there.)
        @inline(__always) mutating func report(at time: Int64, down: Bool) {
            if let last = lastFrame, time - last > ReportInterval.longestNs { interval.pause() }
            if let r = reportAt { interval.learn(Double(time - r) / 1e9) }
            (reportAt, lastFrame) = (down ? time : nil, time)
        }
    }

    /// A slot as the filters leave it: where its contact is shown, or whether it is hidden (for
    /// its life: a dead zone, stuck), young (the ghost filter) or lingering (a held lift).
    struct ShownSlot {
        var x: Int32 = 0, y: Int32 = 0
        var hidden = false, young = false, lingering = false
        /// Its contact, shown to the gestures before, came from another slot this frame (a bounce
        /// the panel slotted elsewhere, ContactFilterBounces.swift): not new to them.
        var moved = false
    }

    /// What the filter keeps of a slot's contact.
    struct FilterSlot {
        /// The contact these values belong to (0: none yet).
        var contact: UInt32 = 0
        var hidden = false
        /// Hidden because it stuck (not for a dead zone), and when.
        var stuck = false
        var stuckAt: Int64 = 0
        /// 1€: the filtered position and speed (units, units/s), and the last frame's time.
        var x = 0.0, y = 0.0, dx = 0.0, dy = 0.0
        var at: Int64 = 0
        /// Where the filtered position was 100-200 ms ago (`anchor`), and the place and time
        /// it takes next (`pend`): what `isMoving` measures travel from.
        var anchorX = 0.0, anchorY = 0.0, pendX = 0.0, pendY = 0.0
        var pendAt: Int64 = 0
        /// A bounce's jump (units): where the contact was held (a moving one: where it would be by
        /// now) less where it landed again, added to its raw positions, so the landing moves
        /// nothing for anyone (a pan's translation is that of the same pan without the bounce).
        /// At rest it stays until the lift; a moving finger closes it as it goes on (`closeOffset`).
        var offsetX = 0.0, offsetY = 0.0
        /// A bounce at rest whose offset is still being worked out (ContactFilterSettle.swift;
        /// `until` 0: none).
        var settling = Settling()
        /// Stuck: where it last moved by a unit, and when; `awayAt`: when the panel's last report
        /// came past the stuck distance from there (a second one is a move, `checkStuck`).
        var restX: Int32 = 0, restY: Int32 = 0
        var restSince: Int64 = 0
        var awayAt: Int64?
        /// Where it landed (raw, units), and the sum of its positions while young: where a resting
        /// contact is first shown (`settles`).
        var landX = 0.0, landY = 0.0, sumX = 0.0, sumY = 0.0
        var samples: Int32 = 0
        /// The positions the dejitter filter's estimate stands for while it starts (0: started):
        /// each step takes at least 1/n of the new one, the mean of all so far, until the 1€
        /// factor is larger (`smooth`). An average started on one noisy sample, or a young rest's
        /// few, drifts off it for a second: a resting contact's spread on the mirror.
        var warm: Int32 = 1
        /// When it landed (ghosts), whether it was down at the last frame, and until when its
        /// lift is held (chatter).
        var landedAt: Int64 = 0
        /// When it last landed (its first landing, or a bounce's).
        var segmentAt: Int64 = 0
        /// Where the finger left (raw, with the bounce's offset) when its lift is held.
        var liftX = 0.0, liftY = 0.0
        /// The raw path's last three positions (with the offset) and when the panel sent them:
        /// where a finger that dropped out would be by now.
        var rawX = 0.0, rawY = 0.0, priorX = 0.0, priorY = 0.0, firstX = 0.0, firstY = 0.0
        var rawAt: Int64 = 0, priorAt: Int64 = 0, firstAt: Int64 = 0
        /// The panel's reports of it since it landed (as `follow` keeps them; at most 3): how
        /// many of raw, prior and first hold one (a time of 0 is a time: a recording starts there).
        var reports: Int8 = 0
        var down = false
        var lingerUntil: Int64?
        /// When the held lift began (the finger left).
        var liftAt: Int64 = 0
        /// Down and shown at its last step with nothing but the common rules to apply (no
        /// bounce's offset or settling, past the ghost filter, not hidden, no held lift): its
        /// next step is `steadyStep`.
        var steady = false
        /// It came from another slot in this frame, shown to the gestures before
        /// (ContactFilterBounces.swift): its view says so (`ShownSlot.moved`) once it landed.
        var moved = false
    }

    var counts: FilterCounts {
        get { tally.counts }
        set { tally.counts = newValue }
    }
    var nextTick: Int64? { tally.nextTick }

    init(_ settings: ContactFilterSettings, slots: Int, x: AbsAxis, y: AbsAxis, sizeMM: (width: Double, height: Double)) {
        let ux = sizeMM.width / (Double(x.maximum) - Double(x.minimum) + 1)
        let uy = sizeMM.height / (Double(y.maximum) - Double(y.minimum) + 1)
        let zones = settings.deadZones.map { z in
            let x0 = Double(x.minimum) + z.x / ux, y0 = Double(y.minimum) + z.y / uy
            return (x0...(x0 + z.width / ux), y0...(y0 + z.height / uy))
        }
        rules = Rules(
            settings: settings, mmPerUnit: (ux, uy), zones: zones, xRange: Double(x.minimum)...Double(x.maximum),
            yRange: Double(y.minimum)...Double(y.maximum), stuckLimit: max(settings.stuckDistanceMM, 2 * max(ux, uy)))
        state = ContiguousArray(repeating: FilterSlot(), count: max(1, slots))
        shown = ContiguousArray(repeating: ShownSlot(), count: max(1, slots))
    }

    /// A single-touch panel's one contact at `time` (ns), `down` or not, through the filters into
    /// `shown` (a multitouch panel's slots: `run(_:count:...)`, ContactFilterPass.swift).
    mutating func run(one s: inout DecoderSlot, down: Bool, at time: Int64, fresh: Bool, nextContact: inout UInt32) {
        if fresh { tally.report(at: time, down: down) }
        guard down || state[0].down else { return }
        tally.lone = true  // one contact at most
        Self.step(&state[0], &shown[0], &s, down: down, at: time, fresh: fresh, rules, &tally, &nextContact)
        tally.lone = false
    }

    /// Contacts already down (a reload made these filters): each as landed long ago, where it is.
    mutating func adopt(_ slots: [DecoderSlot], down: [Bool], at time: Int64) {
        for k in 0..<min(slots.count, down.count, state.count) where down[k] && slots[k].hasX && slots[k].hasY {
            let s = slots[k]
            state[k] = FilterSlot(contact: s.contact, hidden: false)
            (state[k].restX, state[k].restY, state[k].restSince, state[k].landedAt, state[k].down) = (s.x, s.y, time, Int64.min / 2, true)
            Self.reset(&state[k], s, at: time)
            shown[k] = ShownSlot(x: s.x, y: s.y)
        }
    }

    /// Slot `k` holds a contact (down, or its lift held) the next frame must step.
    func holds(_ k: Int) -> Bool { k < state.count && state[k].down }

    /// A frame's filtering begins: what it asks for is due anew.
    mutating func startFrame() { (tally.nextTick, tally.releasedLift, tally.stuckNow) = (nil, nil, false) }

    /// The slots (a bit each, the first 64) whose contact was ended as stuck in this frame.
    var endedAsStuck: UInt64 {
        guard tally.stuckNow else { return 0 }
        var bits: UInt64 = 0
        for k in 0..<min(state.count, 64) where state[k].stuck && state[k].stuckAt == tally.stuckAt { bits |= 1 << UInt64(k) }
        return bits
    }
}
