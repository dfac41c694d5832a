/// A bounce at rest settling (the chatter filter with the dejitter filter): where the contact
/// landed again is worked out over its reports to come, not from its landing's one noisy report.
/// The bounce goes on from where the contact was smoothed (`ContactFilter.landsAgain`): its
/// offset is that place less where the finger landed again. Taken from the landing report alone,
/// that report's noise (up to 3-4 mm at ±1.5 mm) moved the resting place for the rest of the
/// touch: a long press drifting on the virtual touchscreen, a tap past its slop. For `settleNs`
/// it is the mean of the reports that stay near it (a lone outlier passed over); a finger moving
/// off (a drag, a swipe, a roll: `settle`) puts the offset back to the landing report's, exact
/// for a moving finger, and there it stays.
extension ContactFilter {
    /// The reports of a contact since it landed again at rest (positions in units from the
    /// landing's report), in two halves of its time.
    struct Settling {
        /// Until when (ns) reports are taken (0: none, settled), where its second half begins,
        /// the last report's time.
        var until: Int64 = 0, half: Int64 = 0, lastAt: Int64 = 0
        /// Where the contact was held (units, as it goes on) and its landing's raw report.
        var heldX = 0.0, heldY = 0.0, firstX = 0.0, firstY = 0.0
        /// The reports taken in each half, and their sums; whether the last one lay away.
        var n1 = 1.0, sx1 = 0.0, sy1 = 0.0, n2 = 0.0, sx2 = 0.0, sy2 = 0.0
        var away = false

        /// None: a contact that is not settling.
        init() {}

        init(held: (x: Double, y: Double), landing s: DecoderSlot, at time: Int64) {
            (until, half, lastAt) = (time + ContactFilter.settleNs, time + ContactFilter.settleNs / 2, time)
            (heldX, heldY, firstX, firstY) = (held.x, held.y, Double(s.x), Double(s.y))
        }

        var mean: (x: Double, y: Double) { ((sx1 + sx2) / (n1 + n2), (sy1 + sy2) / (n1 + n2)) }

        /// How far (mm) report (`x`, `y`) lies from the reports since the landing (their mean),
        /// over `limit`: past it, away. The first is measured from the landing report, twice as far
        /// (that report may be the outlier, and a finger moving off is gone from it by then).
        func isAway(_ x: Double, _ y: Double, limit: Double, _ mmPerUnit: (x: Double, y: Double)) -> Bool {
            let after = n1 + n2 - 1
            let (mx, my) = after > 0 ? ((sx1 + sx2) / after, (sy1 + sy2) / after) : (0, 0)
            let dx = (x - mx) * mmPerUnit.x, dy = (y - my) * mmPerUnit.y
            let bound = after > 0 ? limit : 2 * limit
            return dx * dx + dy * dy > bound * bound
        }

        /// How far (mm) the second half's mean lies from the first's (0 before it has one).
        func drift(_ mmPerUnit: (x: Double, y: Double)) -> Double {
            guard n2 > 0 else { return 0 }
            let dx = (sx2 / n2 - sx1 / n1) * mmPerUnit.x, dy = (sy2 / n2 - sy1 / n1) * mmPerUnit.y
            return (dx * dx + dy * dy).squareRoot()
        }
    }

    /// How long (ns) a bounce at rest settles: 9 reports at 60 Hz, 30 at 200 Hz (its place a
    /// third, a fifth as noisy as one report's), within a tap's time on the glass.
    static let settleNs: Int64 = 150_000_000

    /// Slot state `f`, settling, takes the panel's report `s`: its offset from the mean of the
    /// reports so far, or, the finger moving off, from its landing report, settled then. Moving
    /// off: two reports in a row further than half `chatter_distance` from the reports' mean
    /// (`Settling.isAway`), or, when
    /// the time is up, the first report after it that far, or the two halves' means more than a
    /// quarter of it apart (a slow drift, or a panel that sends nothing while the finger rests).
    static func settle(_ f: inout FilterSlot, _ s: DecoderSlot, _ r: borrowing Rules, at time: Int64) {
        // One report a millisecond: a driver that sends a frame a contact repeats the others'.
        guard time - f.settling.lastAt >= 1_000_000 else { return }
        f.settling.lastAt = time
        let x = Double(s.x) - f.settling.firstX, y = Double(s.y) - f.settling.firstY
        let limit = r.settings.chatterDistanceMM / 2
        let isAway = f.settling.isAway(x, y, limit: limit, r.mmPerUnit)
        let over = time > f.settling.until
        if isAway && (f.settling.away || over) || over && f.settling.drift(r.mmPerUnit) > limit / 2 {
            (f.offsetX, f.offsetY) = (f.settling.heldX - f.settling.firstX, f.settling.heldY - f.settling.firstY)
            return f.settling.until = 0
        }
        guard !over else { return f.settling.until = 0 }
        if isAway { return f.settling.away = true }
        f.settling.away = false
        if time < f.settling.half {
            (f.settling.n1, f.settling.sx1, f.settling.sy1) = (f.settling.n1 + 1, f.settling.sx1 + x, f.settling.sy1 + y)
        } else {
            (f.settling.n2, f.settling.sx2, f.settling.sy2) = (f.settling.n2 + 1, f.settling.sx2 + x, f.settling.sy2 + y)
        }
        let settled = f.settling.mean
        (f.offsetX, f.offsetY) = (f.settling.heldX - (f.settling.firstX + settled.x), f.settling.heldY - (f.settling.firstY + settled.y))
    }
}
