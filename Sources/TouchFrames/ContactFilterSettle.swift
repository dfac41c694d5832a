/// A bounce at rest settling (the chatter filter with the dejitter filter): where the contact
/// landed again is worked out over its reports to come, not from its landing's one noisy report.
/// The bounce goes on from where the contact was smoothed (`ContactFilter.landsAgain`): its
/// offset is that place less where the finger landed again. Taken from the landing report alone,
/// that report's noise (up to 3-4 mm at ±1.5 mm) moved the resting place for the rest of the
/// touch: a long press drifting on the virtual touchscreen, a tap past its slop. For `settleNs`
/// it is the mean of the landing and the reports that stay near the ones after it (a lone
/// outlier passed over); a finger moving off (a drag, a swipe, a roll: `settle`) puts the offset
/// back to the landing report's, exact for a moving finger, and there it stays. A panel that
/// sends nothing while the finger rests (its landing report is then as good as any) is left so.
extension ContactFilter {
    /// The reports of a contact since it landed again at rest (positions in units from the
    /// landing's report), those after the landing in two halves of its time.
    struct Settling {
        /// Until when (ns) reports are taken (0: none, settled), where its second half begins,
        /// the last report's time.
        var until: Int64 = 0, half: Int64 = 0, lastAt: Int64 = 0
        /// Where the contact was held (units, as it goes on) and its landing's raw report.
        var heldX = 0.0, heldY = 0.0, firstX = 0.0, firstY = 0.0
        /// The reports after the landing taken in each half, and their sums; whether the last
        /// one lay away, and how far from their mean (mm, along each axis).
        var n1 = 0.0, sx1 = 0.0, sy1 = 0.0, n2 = 0.0, sx2 = 0.0, sy2 = 0.0
        var away = false, awayX = 0.0, awayY = 0.0

        /// None: a contact that is not settling.
        init() {}

        init(held: (x: Double, y: Double), landing s: DecoderSlot, at time: Int64) {
            (until, half, lastAt) = (time + ContactFilter.settleNs, time + ContactFilter.settleNs / 2, time)
            (heldX, heldY, firstX, firstY) = (held.x, held.y, Double(s.x), Double(s.y))
        }

        /// How far (mm, along each axis) report (`x`, `y`) lies from the reports after the
        /// landing (their mean; the landing report before the first: it may be the outlier), and
        /// whether that is away: past half `distance` once there are three (fewer are too noisy a
        /// mean), past `distance` before.
        func fromReports(_ x: Double, _ y: Double, distance: Double, _ mmPerUnit: (x: Double, y: Double)) -> (x: Double, y: Double, away: Bool) {
            let n = n1 + n2
            let (mx, my) = n > 0 ? ((sx1 + sx2) / n, (sy1 + sy2) / n) : (0, 0)
            let dx = (x - mx) * mmPerUnit.x, dy = (y - my) * mmPerUnit.y
            let bound = n >= 3 ? distance / 2 : distance
            return (dx, dy, dx * dx + dy * dy > bound * bound)
        }

        /// A report away (`dx`, `dy`) after one away: a finger moving off goes on the same way,
        /// further (two noisy reports past the bound rarely do both).
        func movesOff(_ dx: Double, _ dy: Double) -> Bool {
            away && dx * awayX + dy * awayY > 0 && dx * dx + dy * dy > awayX * awayX + awayY * awayY
        }

        /// Whether the two halves' means lie more than `limit` (mm) apart, three reports or more in
        /// each: a finger drifting off.
        func drifts(_ limit: Double, _ mmPerUnit: (x: Double, y: Double)) -> Bool {
            guard n1 >= 3 && n2 >= 3 else { return false }
            let dx = (sx2 / n2 - sx1 / n1) * mmPerUnit.x, dy = (sy2 / n2 - sy1 / n1) * mmPerUnit.y
            return dx * dx + dy * dy > limit * limit
        }
    }

    /// How long (ns) a bounce at rest settles: 9 reports at 60 Hz, 30 at 200 Hz (its place a
    /// third, a fifth as noisy as one report's), within a tap's time on the glass.
    static let settleNs: Int64 = 150_000_000

    /// Slot state `f`, settling, takes the panel's report `s`: its offset from the mean so far,
    /// or, the finger moving off, from its landing report, settled then. Moving off: two reports in
    /// a row away, the second further on the same way (`Settling.movesOff`), up to the first report
    /// after the time; or that report (within 50 ms of the time: a later one is a finger that
    /// rested silent) away, or the halves' means then over three eighths of `chatter_distance`
    /// apart. No report in the first half: a quiet panel, left as it landed.
    static func settle(_ f: inout FilterSlot, _ s: DecoderSlot, _ r: borrowing Rules, at time: Int64) {
        // One report a millisecond: a driver that sends a frame a contact repeats the others'.
        guard time - f.settling.lastAt >= 1_000_000 else { return }
        f.settling.lastAt = time
        let x = Double(s.x) - f.settling.firstX, y = Double(s.y) - f.settling.firstY
        let distance = r.settings.chatterDistanceMM
        let (dx, dy, isAway) = f.settling.fromReports(x, y, distance: distance, r.mmPerUnit)
        let movesOff = isAway && f.settling.movesOff(dx, dy)
        if time > f.settling.until {
            let inTime = time - f.settling.until <= 50_000_000
            if movesOff || inTime && (isAway || f.settling.drifts(distance * 3 / 8, r.mmPerUnit)) {
                (f.offsetX, f.offsetY) = (f.settling.heldX - f.settling.firstX, f.settling.heldY - f.settling.firstY)
            }
            return f.settling.until = 0
        }
        if time >= f.settling.half && f.settling.n1 == 0 { return f.settling.until = 0 }
        if movesOff {
            (f.offsetX, f.offsetY) = (f.settling.heldX - f.settling.firstX, f.settling.heldY - f.settling.firstY)
            return f.settling.until = 0
        }
        (f.settling.away, f.settling.awayX, f.settling.awayY) = (isAway, dx, dy)
        if isAway { return }
        if time < f.settling.half {
            (f.settling.n1, f.settling.sx1, f.settling.sy1) = (f.settling.n1 + 1, f.settling.sx1 + x, f.settling.sy1 + y)
        } else {
            (f.settling.n2, f.settling.sx2, f.settling.sy2) = (f.settling.n2 + 1, f.settling.sx2 + x, f.settling.sy2 + y)
        }
        // The landing counted once among the reports (its own noise then weighs as any one's).
        let n = f.settling.n1 + f.settling.n2 + 1
        f.offsetX = f.settling.heldX - (f.settling.firstX + (f.settling.sx1 + f.settling.sx2) / n)
        f.offsetY = f.settling.heldY - (f.settling.firstY + (f.settling.sy1 + f.settling.sy2) / n)
    }
}
