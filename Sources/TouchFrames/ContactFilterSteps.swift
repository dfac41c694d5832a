/// One slot through the panel's filters in one frame: the rules of each filter, as functions of
/// the slot's state alone (no access to the filter as a whole, so a frame runs them all on spans
/// of its state taken once).
extension ContactFilter {
    /// Slot `s` at `time` (ns), its contact `down` (and placed) or not: its state `f`, what it
    /// shows `v`.
    static func step(
        _ f: inout FilterSlot, _ v: inout ShownSlot, _ s: inout DecoderSlot, down: Bool, at time: Int64, _ r: borrowing Rules,
        _ tally: inout Tally, _ nextContact: inout UInt32
    ) {
        guard down else { return lifted(&f, &v, r, &tally, at: time) }
        if f.contact != s.contact && !landsAgain(&f, &s, r, &tally, at: time) { land(&f, s, r, &tally, at: time) }
        if let after = r.settings.stuckAfterNs { checkStuck(&f, &s, after: after, r, &tally, &nextContact, at: time) }
        f.down = true
        var shown = ShownSlot(x: v.x, y: v.y, hidden: f.hidden)
        if let g = r.settings.ghostNs, time - f.landedAt < g {
            shown.young = true
            tally.due(f.landedAt + g)
        }
        if !shown.hidden {
            // The raw position, less a bounce's jump (0 unless it landed again), on the panel.
            let x = min(max(Double(s.x) + f.offsetX, r.xRange.lowerBound), r.xRange.upperBound)
            let y = min(max(Double(s.y) + f.offsetY, r.yRange.lowerBound), r.yRange.upperBound)
            if let d = r.settings.dejitter {
                smooth(&f, x, y, d, r.mmPerUnit, &tally.interval, at: time)
            } else {
                (f.x, f.y) = (x, y)
            }
            (shown.x, shown.y) = (nearest(f.x), nearest(f.y))
        }
        v = shown
    }

    /// Stuck: silent (not one unit of movement) for `after` ns, it ends; moving again, it lands
    /// anew (outside a dead zone) under a fresh id, the filter starting from where it is.
    static func checkStuck(
        _ f: inout FilterSlot, _ s: inout DecoderSlot, after: Int64, _ r: borrowing Rules, _ tally: inout Tally,
        _ nextContact: inout UInt32, at time: Int64
    ) {
        if s.x != f.restX || s.y != f.restY {
            (f.restX, f.restY, f.restSince) = (s.x, s.y, time)
            guard f.stuck else { return }
            s.contact = nextContact
            nextContact &+= 1
            land(&f, s, r, &tally, at: time)
        } else if !f.hidden && time - f.restSince >= after {
            f.hidden = true
            f.stuck = true
            tally.counts.stuck += 1
        }
    }

    /// No contact down: a contact shown until the last frame lifts now, or, within the chatter
    /// window, is still shown where it was.
    static func lifted(_ f: inout FilterSlot, _ v: inout ShownSlot, _ r: borrowing Rules, _ tally: inout Tally, at time: Int64) {
        v.lingering = false
        guard f.down else { return }
        // Lifted before the gestures were shown it (and not a contact a filter already hid).
        if v.young && !f.hidden && f.lingerUntil == nil { tally.counts.ghosts += 1 }
        if let window = r.settings.chatterNs, !f.hidden && !v.young {
            let until = f.lingerUntil ?? time + window
            if time < until {
                f.lingerUntil = until
                v.lingering = true
                return tally.due(until)
            }
            // A held lift ends: it happened `window` before.
            let lift = until - window
            tally.releasedLift = max(tally.releasedLift ?? lift, lift)
        }
        f.down = false
        f.lingerUntil = nil
    }

    /// A contact landing while the last one's lift is held, close to where it was: chatter, the
    /// same contact (its id back), going on from where it was held: its jump becomes an offset
    /// to its raw positions (at most `chatter_distance`), so neither the gestures (a tap's slop)
    /// nor the app see the bounce move it, and the smoothing starts again at rest there.
    static func landsAgain(_ f: inout FilterSlot, _ s: inout DecoderSlot, _ r: borrowing Rules, _ tally: inout Tally, at time: Int64) -> Bool {
        guard let until = f.lingerUntil, time < until else { return false }
        let dx = (Double(s.x) - f.x) * r.mmPerUnit.x, dy = (Double(s.y) - f.y) * r.mmPerUnit.y
        guard (dx * dx + dy * dy).squareRoot() <= r.settings.chatterDistanceMM else { return false }
        s.contact = f.contact
        f.lingerUntil = nil
        (f.offsetX, f.offsetY) = (f.x - Double(s.x), f.y - Double(s.y))
        (f.dx, f.dy, f.at) = (0, 0, time)
        tally.counts.chatter += 1
        return true
    }

    /// A new contact: hidden for its life when it lands in a dead zone.
    static func land(_ f: inout FilterSlot, _ s: DecoderSlot, _ r: borrowing Rules, _ tally: inout Tally, at time: Int64) {
        let hidden = r.zones.contains { $0.x.contains(Double(s.x)) && $0.y.contains(Double(s.y)) }
        f = FilterSlot(contact: s.contact, hidden: hidden)
        if hidden { tally.counts.deadZone += 1 }
        (f.restX, f.restY, f.restSince, f.landedAt) = (s.x, s.y, time, time)
        reset(&f, s, at: time)
    }

    static func reset(_ f: inout FilterSlot, _ s: DecoderSlot, at time: Int64) {
        (f.x, f.y, f.dx, f.dy, f.at) = (Double(s.x), Double(s.y), 0, 0, time)
    }

    /// One 1€ step: the speed estimate smoothed at `derivativeCutoff`, the position at a cutoff
    /// that rises with that speed (in mm/s).
    static func smooth(
        _ f: inout FilterSlot, _ x: Double, _ y: Double, _ d: ContactFilterSettings.Dejitter, _ mmPerUnit: (x: Double, y: Double),
        _ interval: inout Double, at time: Int64
    ) {
        var dt = Double(time - f.at) / 1e9
        f.at = time
        // A panel reports every 2 to 50 ms: a time apart in that range teaches the interval
        // (slowly: one late frame moves it little); a shorter one is a burst, taken at it.
        if dt >= 0.002 && dt <= 0.05 { interval = interval == 0 ? dt : interval + 0.1 * (dt - interval) }
        dt = max(dt, interval)
        guard dt > 0 else { return }
        let rawDX = (x - f.x) / dt, rawDY = (y - f.y) / dt
        let ad = alpha(d.derivativeCutoff, dt)
        f.dx += ad * (rawDX - f.dx)
        f.dy += ad * (rawDY - f.dy)
        let speed = ((f.dx * mmPerUnit.x) * (f.dx * mmPerUnit.x) + (f.dy * mmPerUnit.y) * (f.dy * mmPerUnit.y)).squareRoot()
        let a = alpha(d.minCutoff + d.speedCoefficient * speed, dt)
        f.x += a * (x - f.x)
        f.y += a * (y - f.y)
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
