/// A bounce at rest settling (the chatter filter with the dejitter filter): where the contact
/// lands again is worked out over its reports to come, not from its landing's one noisy sample.
/// The bounce goes on from where the contact was smoothed (`ContactFilter.landsAgain`): its
/// offset is that place less where the finger landed again. Taken from the landing report alone,
/// that noise (up to 3-4 mm at ±1.5 mm) moved the resting place for the rest of the touch: a long
/// press drifting on the virtual touchscreen, a tap past its slop. Over `settleNs` of reports it
/// is the mean of a resting finger's reports, or, once they slope (a finger moving off), the start of the
/// straight line through them, and then it stays.
extension ContactFilter {
    /// The reports of a contact since it landed again at rest, as sums for a least-squares line
    /// through them along each axis (time in s from the landing, positions in units from the
    /// landing's report).
    struct Settling {
        /// Until when (ns) reports are taken (0: none, settled); the landing's time and the last report's.
        var until: Int64 = 0, landedAt: Int64 = 0, lastAt: Int64 = 0
        /// Where the contact was held (units, as it goes on) and its landing's raw report.
        var heldX = 0.0, heldY = 0.0, firstX = 0.0, firstY = 0.0
        var n = 1.0, st = 0.0, stt = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, stx = 0.0, sty = 0.0

        /// None: a contact that is not settling.
        init() {}

        init(held: (x: Double, y: Double), landing s: DecoderSlot, at time: Int64) {
            (until, landedAt, lastAt) = (time + ContactFilter.settleNs, time, time)
            (heldX, heldY, firstX, firstY) = (held.x, held.y, Double(s.x), Double(s.y))
        }

        mutating func add(_ s: DecoderSlot, at time: Int64) {
            let t = Double(time - landedAt) / 1e9, x = Double(s.x) - firstX, y = Double(s.y) - firstY
            (n, st, stt) = (n + 1, st + t, stt + t * t)
            (sx, sy, sxx, syy, stx, sty) = (sx + x, sy + y, sxx + x * x, syy + y * y, stx + t * x, sty + t * y)
            lastAt = time
        }

        /// Where the finger landed (raw units): the mean of the reports while they lie flat (a
        /// resting finger), the start of the line through them once it slopes, at least 20 mm/s
        /// and five of its standard errors on an axis (from six reports over 50 ms; earlier, a
        /// resting finger's noise too often reads as a slope): then `moving`.
        func landing(_ mmPerUnit: (x: Double, y: Double)) -> (x: Double, y: Double, moving: Bool) {
            let (mt, mx, my) = (st / n, sx / n, sy / n)
            let ctt = stt - n * mt * mt
            guard n >= 6 && Double(lastAt - landedAt) >= 5e7 && ctt > 0 else { return (firstX + mx, firstY + my, false) }
            let slopeX = (stx - n * mt * mx) / ctt, slopeY = (sty - n * mt * my) / ctt
            func slopes(_ b: Double, _ sumSquares: Double, _ mean: Double, _ ctx: Double, _ mm: Double) -> Bool {
                let residual = max(0, sumSquares - n * mean * mean - b * ctx) / (n - 2)
                return abs(b) * mm >= 20 && b * b * ctt > 25 * residual
            }
            let moving =
                slopes(slopeX, sxx, mx, stx - n * mt * mx, mmPerUnit.x) || slopes(slopeY, syy, my, sty - n * mt * my, mmPerUnit.y)
            guard moving else { return (firstX + mx, firstY + my, false) }
            return (firstX + mx - slopeX * mt, firstY + my - slopeY * mt, true)
        }
    }

    /// How long (ns) a bounce at rest settles: 9 reports at 60 Hz, 30 at 200 Hz (its place a
    /// third, a fifth as noisy as one report's), within a tap's time on the glass.
    static let settleNs: Int64 = 150_000_000

    /// Slot state `f`, settling, takes the panel's report `s`: its offset from where the reports
    /// so far say it landed; settled once they slope or its time is up.
    static func settle(_ f: inout FilterSlot, _ s: DecoderSlot, _ mmPerUnit: (x: Double, y: Double), at time: Int64) {
        // One report a millisecond: a driver that sends a frame a contact repeats the others'.
        guard time - f.settling.lastAt >= 1_000_000 else { return }
        guard time <= f.settling.until else { return f.settling.until = 0 }
        f.settling.add(s, at: time)
        let (x, y, moving) = f.settling.landing(mmPerUnit)
        (f.offsetX, f.offsetY) = (f.settling.heldX - x, f.settling.heldY - y)
        if moving { f.settling.until = 0 }
    }
}
