/// One slot through the panel's filters in one frame: the rules of each filter, as functions of
/// the slot's state alone (no access to the filter as a whole, so a frame runs them all on spans
/// of its state taken once).
extension ContactFilter {
    /// Slot `s` at `time` (ns), its contact `down` (and placed) or not: its state `f`, what it
    /// shows `v`; `fresh`: a position the panel sent (not a filter's own frame).
    @inline(always)
    static func step(
        _ f: inout FilterSlot, _ v: inout ShownSlot, _ s: inout DecoderSlot, down: Bool, at time: Int64, fresh: Bool, _ r: borrowing Rules,
        _ tally: inout Tally, _ nextContact: inout UInt32
    ) {
        guard down else { return lifted(&f, &v, s, r, &tally, at: time) }
        if f.contact != s.contact && !landsAgain(&f, &s, young: v.young, r, &tally, at: time) {
            // The slot's last contact, if it was never shown (young) and not hidden, was a ghost.
            if f.down && v.young && !f.hidden { tally.counts.ghosts += 1 }
            land(&f, s, r, &tally, at: time)
        }
        if let after = r.settings.stuckAfterNs { checkStuck(&f, &s, after: after, fresh: fresh, r, &tally, &nextContact, at: time) }
        if f.steady && !f.hidden { return steadyStep(&f, &v, s, fresh: fresh, r, &tally, at: time) }
        if fresh && f.settling.until != 0 { settle(&f, s, r, at: time) }
        f.down = true
        var shown = ShownSlot(x: v.x, y: v.y, hidden: f.hidden)
        // Young (the ghost filter), or shown for the first time now that it is old enough.
        var comesOfAge = false
        if let g = r.settings.ghostNs {
            if time - f.landedAt < g {
                shown.young = true
                tally.due(comingOfAge(f.landedAt + g, report: tally.interval.seconds, at: time))
            } else {
                comesOfAge = v.young
            }
        }
        if !shown.hidden {
            if fresh && (f.offsetX != 0 || f.offsetY != 0) && f.settling.until == 0 { closeOffset(&f, s, r, at: time) }
            // The raw position, less a bounce's jump (0 unless it landed again), on the panel.
            let x = min(max(Double(s.x) + f.offsetX, r.xRange.lowerBound), r.xRange.upperBound)
            let y = min(max(Double(s.y) + f.offsetY, r.yRange.lowerBound), r.yRange.upperBound)
            if fresh && (shown.young || comesOfAge) && f.samples < Int32.max { (f.sumX, f.sumY, f.samples) = (f.sumX + x, f.sumY + y, f.samples + 1) }
            if fresh && r.settings.chatterNs != nil { follow(&f, x, y, at: time) }
            if comesOfAge && firstShown(&f, x, y, r, at: time) {
                // Placed where the gestures and the app first see it.
            } else if let d = r.settings.dejitter {
                smooth(&f, x, y, d, r.mmPerUnit, tally.interval.seconds, at: time)
            } else {
                (f.x, f.y) = (x, y)
            }
            (shown.x, shown.y) = (nearest(f.x), nearest(f.y))
        }
        f.steady = !shown.hidden && !shown.young && f.settling.until == 0 && f.offsetX == 0 && f.offsetY == 0 && f.lingerUntil == nil
        v = shown
    }

    /// `step` of a contact down and shown as before (`FilterSlot.steady`: no bounce's offset or
    /// settling, past the ghost filter, not hidden), most of a frame's contacts: the same rules
    /// with what cannot apply left out.
    @inline(__always)
    static func steadyStep(
        _ f: inout FilterSlot, _ v: inout ShownSlot, _ s: DecoderSlot, fresh: Bool, _ r: borrowing Rules, _ tally: inout Tally, at time: Int64
    ) {
        f.down = true
        let x = min(max(Double(s.x), r.xRange.lowerBound), r.xRange.upperBound)
        let y = min(max(Double(s.y), r.yRange.lowerBound), r.yRange.upperBound)
        if fresh && r.settings.chatterNs != nil { follow(&f, x, y, at: time) }
        if let d = r.settings.dejitter { smooth(&f, x, y, d, r.mmPerUnit, tally.interval.seconds, at: time) } else { (f.x, f.y) = (x, y) }
        v = ShownSlot(x: nearest(f.x), y: nearest(f.y))
    }

    /// Where a contact coming of age (the ghost filter) is first shown. A resting one (now within
    /// `restingSpreadMM` of where it landed, or within half that of its young positions' mean),
    /// with the dejitter filter, at that mean: not at its landing, one noisy sample the smoothed path would then drift away
    /// from by the noise (a long press failing as a pan on a noisy panel). A moving one at its
    /// landing, the filter given its speed since (so it catches up at once): an edge swipe starts
    /// at the edge and a flick keeps its speed, where showing it from its 40th ms lost the path
    /// before. False: shown as on any frame.
    /// (Not with `ghost_on_mirror` off: the app already saw its young path.)
    static func firstShown(_ f: inout FilterSlot, _ x: Double, _ y: Double, _ r: borrowing Rules, at time: Int64) -> Bool {
        guard r.settings.ghostOnMirror else { return false }
        let n = Double(max(f.samples, 1))
        let (mx, my) = (f.sumX / n, f.sumY / n)
        let dx = (x - f.landX) * r.mmPerUnit.x, dy = (y - f.landY) * r.mmPerUnit.y
        let ex = (x - mx) * r.mmPerUnit.x, ey = (y - my) * r.mmPerUnit.y
        // Moving: far from its landing, and still going away from the mean of its path (a
        // straight path's mean is halfway; a rest whose landing sample was an outlier has its
        // last samples close to the mean).
        let limit = restingSpreadMM * restingSpreadMM
        if dx * dx + dy * dy <= limit || ex * ex + ey * ey <= limit / 4 {
            guard r.settings.dejitter != nil else { return false }
            // The speed the filter estimated while it was young stays: a slower finger than
            // this test tells from a resting one goes on at it.
            (f.x, f.y, f.at, f.warm) = (mx, my, time, max(f.samples, 1))
            // Its travel (`isMoving`) from there too: a path smoothed from a landing report far
            // off the rest reads as a fast one, and its lift was snapped to its last noisy report.
            (f.anchorX, f.anchorY, f.pendX, f.pendY, f.pendAt) = (mx, my, mx, my, time)
            return true
        }
        let dt = max(Double(time - f.landedAt) / 1e9, 0.001)
        (f.dx, f.dy) = ((x - f.landX) / dt, (y - f.landY) / dt)
        (f.x, f.y, f.at) = (f.landX, f.landY, time)
        return true
    }

    /// When a young contact, `age` (ns) its coming of age, wants a frame of the filter's own,
    /// stepped at `time` on a panel reporting every `report` s (0: not learnt): at its age, or,
    /// where the panel's next report is due within `comingOfAgeSlackNs` of then (`ghost_under` a
    /// whole number of its intervals), that much later, so the report shows it with its new
    /// position and no frame of the filter's own comes a fraction of a millisecond ahead of it. A
    /// still finger (no report due then) is shown at its age, so a still touch lifting just past
    /// it is a touch.
    @inline(__always)
    static func comingOfAge(_ age: Int64, report: Double, at time: Int64) -> Int64 {
        guard report > 0 else { return age }
        let next = time + Int64(report * 1e9)
        return abs(next - age) <= comingOfAgeSlackNs ? age + comingOfAgeSlackNs : age
    }

    static let comingOfAgeSlackNs: Int64 = 2_000_000

    /// How far (mm) a young contact may be from where it landed and still be a finger at rest
    /// (`firstShown`): two samples of a resting finger's noise on a cheap panel (±1.5 mm) are
    /// almost never this far apart; a finger faster than 200 mm/s over a 40 ms ghost window is.
    static let restingSpreadMM = 8.0

    /// Stuck: still (never past `stuckDistanceMM` from where it came to rest) for `after` ns, it
    /// ends; moving again, it lands anew (outside a dead zone) under a fresh id, the filter
    /// starting from where it is. (A stuck contact on a cheap panel flickers by a unit or two:
    /// "not one unit" would never end it.) One panel report away and back is a glitch, no move: the
    /// rest moves at the second report away, or at once for a move past four times the distance (a
    /// stuck contact that jumped half a millimetre every 2 s was never ended).
    static func checkStuck(
        _ f: inout FilterSlot, _ s: inout DecoderSlot, after: Int64, fresh: Bool, _ r: borrowing Rules, _ tally: inout Tally,
        _ nextContact: inout UInt32, at time: Int64
    ) {
        // A contact that sends nothing more (the kernel drops values equal to the last: a stuck
        // one may be silent) is ended at its time all the same, by a frame of the filters' own,
        // due at the next `stuckTickNs` past it: a moving contact's due moves that often only,
        // not at each of its frames (each move would re-arm the daemon's timer).
        defer {
            // (A hidden one is never ended as stuck; a due already past is one tick on.)
            if !f.stuck && !f.hidden {
                let due = (f.restSince + after) / stuckTickNs * stuckTickNs + stuckTickNs
                tally.due(due > time ? due : time + stuckTickNs)
            }
        }
        let ux = Double(s.x) - Double(f.restX), uy = Double(s.y) - Double(f.restY)
        let dx = ux * r.mmPerUnit.x, dy = uy * r.mmPerUnit.y
        let limit = r.stuckLimit
        let squared = dx * dx + dy * dy
        if squared > limit * limit && (abs(ux) > 2 || abs(uy) > 2) {
            var since = time
            if fresh {
                // One under 1 ms after the last is the same report (a driver that sends a frame
                // a contact): no second report away.
                if let away = f.awayAt, time - away < 1_000_000 { return }
                if f.awayAt == nil && squared <= 16 * limit * limit {
                    f.awayAt = time
                    return
                }
            } else {
                // A filter's own frame repeats the panel's last: no second report away. But one
                // report away and nothing since for a quarter second (a finger that stopped there,
                // silent; a glitch is back at the next report) rests there since that report (a
                // stuck contact waits for a second report).
                guard !f.stuck, let away = f.awayAt, time - away >= stuckTickNs else { return }
                since = away
            }
            f.awayAt = nil
            (f.restX, f.restY, f.restSince) = (s.x, s.y, since)
            guard f.stuck else { return }
            s.contact = nextContact
            nextContact &+= 1
            land(&f, s, r, &tally, at: time)
        } else {
            f.awayAt = nil
            guard !f.hidden && time - f.restSince >= after else { return }
            f.hidden = true
            (f.stuck, f.stuckAt, tally.stuckNow, tally.stuckAt) = (true, time, true, time)
            tally.counts.stuck += 1
        }
    }

    /// The step of a stuck contact's due time (ns): it is ended up to this late when silent.
    static let stuckTickNs: Int64 = 250_000_000

    /// No contact down: a contact shown until the last frame lifts now, or, within the chatter
    /// window, is still shown where it was (a fast one where it lifted). A young contact's lift
    /// is held the same way, unseen: landing again, it is the same contact, its age its time on
    /// the glass (a tap whose two halves are each shorter than `ghost_under` is one tap); not
    /// landing again, it was a ghost.
    static func lifted(
        _ f: inout FilterSlot, _ v: inout ShownSlot, _ s: DecoderSlot, _ r: borrowing Rules, _ tally: inout Tally, at time: Int64
    ) {
        (v.lingering, f.steady) = (false, false)
        guard f.down else { return }
        let ofAge = v.young && !f.hidden && f.lingerUntil == nil && comesOfAgeAtLift(&f, &v, s, r, at: time)
        // A young contact's lift is held only after a stretch on the glass of half `ghost_under`
        // (a bouncing finger's): a one-frame blink is a ghost at once, so a blinking ghost never
        // adds up to a touch (on a panel whose report takes half `ghost_under` or more, a blink
        // cannot be told from a bounce: CONFIG.md says to keep `ghost_under` above two reports).
        // The time, not the frames: the kernel sends none while a finger holds still. One coming
        // of age at its lift is shown this frame and lifts at the next (the filters' own, 1 ns on).
        if let window = chatterWindow(r, tally) ?? (ofAge || f.lingerUntil != nil ? 1 : nil), !f.hidden,
            !v.young || 2 * (time - f.segmentAt) >= (r.settings.ghostNs ?? 0)
        {
            let until = f.lingerUntil ?? time + window
            if time < until {
                if f.lingerUntil == nil {
                    // Where and when the finger left: a landing again is measured from there.
                    f.liftAt = time
                    f.liftX = min(max(Double(s.x) + f.offsetX, r.xRange.lowerBound), r.xRange.upperBound)
                    f.liftY = min(max(Double(s.y) + f.offsetY, r.yRange.lowerBound), r.yRange.upperBound)
                    tally.handLift.add(f, r, tally, at: time)
                    if !v.young { snap(&f, &v, s, r) }
                }
                f.lingerUntil = until
                v.lingering = true
                return tally.due(until)
            }
            // A held lift ends: it happened at `liftAt`.
            if !v.young { tally.releasedLift = max(tally.releasedLift ?? f.liftAt, f.liftAt) }
        }
        // Lifted before it was shown to the gestures (and not a contact a filter already hid).
        if v.young && !f.hidden { tally.counts.ghosts += 1 }
        f.down = false
        f.lingerUntil = nil
    }

    /// A young contact lifting at `time` after `ghost_under` or more on the glass (its coming of
    /// age was due in a frame of the panel's, and the panel's frame then was its lift: a 25 Hz
    /// panel's one-report tap) is a touch, not a ghost: shown where `step` would have shown it.
    static func comesOfAgeAtLift(_ f: inout FilterSlot, _ v: inout ShownSlot, _ s: DecoderSlot, _ r: borrowing Rules, at time: Int64) -> Bool {
        guard let g = r.settings.ghostNs, time - f.landedAt >= g else { return false }
        let x = min(max(Double(s.x) + f.offsetX, r.xRange.lowerBound), r.xRange.upperBound)
        let y = min(max(Double(s.y) + f.offsetY, r.yRange.lowerBound), r.yRange.upperBound)
        _ = firstShown(&f, x, y, r, at: time)
        (v.x, v.y, v.young) = (nearest(f.x), nearest(f.y), false)
        return true
    }

    /// A held lift of a moving contact (the smoothed speed at least `snapSpeed` mm/s) is shown
    /// where the finger lifted (its last raw position), so a fast swipe ends there on the virtual
    /// touchscreen rather than a filter's lag behind; a still one stays where it was smoothed.
    /// The gestures see that last move too (their motion and travel), so a quick short drag the
    /// smoothing held back is no tap.
    static func snap(_ f: inout FilterSlot, _ v: inout ShownSlot, _ s: DecoderSlot, _ r: borrowing Rules) {
        guard isMoving(f, r) else { return }
        // The filter goes on from there too: a bounce landing again is measured from, and
        // continues, what the app was shown (no step back).
        f.x = min(max(Double(s.x) + f.offsetX, r.xRange.lowerBound), r.xRange.upperBound)
        f.y = min(max(Double(s.y) + f.offsetY, r.yRange.lowerBound), r.yRange.upperBound)
        (v.x, v.y) = (nearest(f.x), nearest(f.y))
    }

    /// mm/s: above a resting finger's speed as the filter estimates it on a noisy panel (about
    /// 35 mm/s at ±1.5 mm and 60 Hz), below a swipe's.
    static let snapSpeed = 100.0

    /// The raw path's last three positions, from the panel's frames, for chatter's prediction
    /// (a frame within a millisecond of the last is passed over: a driver that sends a frame a
    /// contact, the others' unchanged). Stores only: the speed is worked out at a bounce.
    @inline(__always)
    static func follow(_ f: inout FilterSlot, _ x: Double, _ y: Double, at time: Int64) {
        if f.reports > 0 && time - f.rawAt < 1_000_000 { return }
        (f.firstX, f.firstY, f.firstAt) = (f.priorX, f.priorY, f.priorAt)
        (f.priorX, f.priorY, f.priorAt) = (f.rawX, f.rawY, f.rawAt)
        (f.rawX, f.rawY, f.rawAt) = (x, y, time)
        if f.reports < 3 { f.reports += 1 }
    }

    /// The raw path's speed (units/s) over its last three frames (two, or none, when the panel
    /// sent fewer within 150 ms): a swipe's at once, where the 1€ filter's estimate takes a
    /// tenth of a second; over two intervals, a noisy panel's prediction strays half as far.
    static func rawSpeed(_ f: FilterSlot) -> (x: Double, y: Double) {
        let base = rawBase(f)
        let dt = Double(f.rawAt - base.2) / 1e9
        guard base.3 && dt >= 0.001 && dt <= 0.15 else { return (0, 0) }
        return ((f.rawX - base.0) / dt, (f.rawY - base.1) / dt)
    }

    /// Where the raw path's speed and travel are measured from: its first kept report, within
    /// 150 ms of its last, else the one before the last (x, y, ns, and false when there is none).
    @inline(__always)
    static func rawBase(_ f: FilterSlot) -> (Double, Double, Int64, Bool) {
        fromFirstReport(f) ? (f.firstX, f.firstY, f.firstAt, true) : (f.priorX, f.priorY, f.priorAt, f.reports >= 2)
    }

    /// Whether `rawBase` is the first of the three reports kept (`follow`: there are three, and
    /// the first within 150 ms of the last).
    @inline(__always)
    static func fromFirstReport(_ f: FilterSlot) -> Bool { f.reports >= 3 && f.rawAt - f.firstAt <= 150_000_000 }

    /// The contact moves: the dejitter filter's speed estimate at least `snapSpeed`, and its
    /// filtered position `movingTravelMM` or more from where it was 100-200 ms ago (on a fast
    /// noisy panel, 200 Hz at ±1.5 mm, a resting finger's noise reads to the estimate as 100 mm/s
    /// one frame in five, while the filtered position holds within a millimetre). Or, the
    /// estimate still behind a finger that just set off (it takes a tenth of a second: a swipe
    /// first shown as a rest at 40 ms that drops out a frame later), the raw path's speed
    /// (`rawSpeed`) at least `snapSpeed` and its last position `restingSpreadMM` or more from
    /// there, or `chatter_distance` where that is more (the doctor sets it from the panel's noise
    /// at 3.5 standard deviations), the report before it 2 mm or more that way too, or its
    /// landing: a resting finger's noise almost never does both. Never without the filter.
    static func isMoving(_ f: FilterSlot, _ r: borrowing Rules) -> Bool {
        guard r.settings.dejitter != nil else { return false }
        let sx = f.dx * r.mmPerUnit.x, sy = f.dy * r.mmPerUnit.y
        if sx * sx + sy * sy >= snapSpeed * snapSpeed {
            let tx = (f.x - f.anchorX) * r.mmPerUnit.x, ty = (f.y - f.anchorY) * r.mmPerUnit.y
            if tx * tx + ty * ty >= movingTravelMM * movingTravelMM { return true }
        }
        guard f.reports > 0 else { return false }
        let ux = (f.rawX - f.anchorX) * r.mmPerUnit.x, uy = (f.rawY - f.anchorY) * r.mmPerUnit.y
        let far = max(restingSpreadMM, r.settings.chatterDistanceMM), squared = ux * ux + uy * uy
        guard squared >= far * far else { return false }
        // Not one outlying report: the one before lay 2 mm or more that way too, or was its
        // landing (its second report: a flick of one report between landing and lift, as at 30
        // Hz, shown where it landed; not snapped, it was a tap where the user flicked).
        let px = (f.priorX - f.anchorX) * r.mmPerUnit.x, py = (f.priorY - f.anchorY) * r.mmPerUnit.y
        guard f.reports >= 2 && (f.reports == 2 || px * ux + py * uy >= 2 * squared.squareRoot()) else { return false }
        let v = rawSpeed(f), vx = v.x * r.mmPerUnit.x, vy = v.y * r.mmPerUnit.y
        return vx * vx + vy * vy >= snapSpeed * snapSpeed
    }

    /// mm in 100-200 ms (15-30 mm/s): far under a swipe's, far over a resting finger's filtered noise.
    static let movingTravelMM = 3.0

    /// A new contact: hidden for its life when it lands in a dead zone.
    static func land(_ f: inout FilterSlot, _ s: DecoderSlot, _ r: borrowing Rules, _ tally: inout Tally, at time: Int64) {
        let hidden = r.zones.contains { $0.x.contains(Double(s.x)) && $0.y.contains(Double(s.y)) }
        f = FilterSlot(contact: s.contact, hidden: hidden)
        if hidden { tally.counts.deadZone += 1 }
        (f.restX, f.restY, f.restSince, f.landedAt, f.segmentAt) = (s.x, s.y, time, time, time)
        (f.landX, f.landY) = (Double(s.x), Double(s.y))
        reset(&f, s, at: time)
    }

    static func reset(_ f: inout FilterSlot, _ s: DecoderSlot, at time: Int64) {
        (f.x, f.y, f.dx, f.dy, f.at) = (Double(s.x), Double(s.y), 0, 0, time)
        (f.anchorX, f.anchorY, f.pendX, f.pendY, f.pendAt) = (f.x, f.y, f.x, f.y, time)
    }

    /// One 1€ step: the speed estimate smoothed at `derivativeCutoff`, the position at a cutoff
    /// that rises with that speed (in mm/s) past `restSpeed`.
    static func smooth(
        _ f: inout FilterSlot, _ x: Double, _ y: Double, _ d: ContactFilterSettings.Dejitter, _ mmPerUnit: (x: Double, y: Double),
        _ interval: Double, at time: Int64
    ) {
        // A shorter time apart than the panel's interval is a burst, taken at the interval.
        let dt = max(Double(time - f.at) / 1e9, interval)
        f.at = time
        guard dt > 0 else { return }
        let rawDX = (x - f.x) / dt, rawDY = (y - f.y) / dt
        let ad = alpha(d.derivativeCutoff, dt)
        f.dx += ad * (rawDX - f.dx)
        f.dy += ad * (rawDY - f.dy)
        let speed = ((f.dx * mmPerUnit.x) * (f.dx * mmPerUnit.x) + (f.dy * mmPerUnit.y) * (f.dy * mmPerUnit.y)).squareRoot()
        var a = alpha(d.minCutoff + d.speedCoefficient * max(0, speed - d.restSpeed), dt)
        if f.warm > 0 {
            // Starting: the mean of the positions so far while that moves faster than the 1€
            // step (at most `warmLimit` of them).
            f.warm &+= 1  // up to warmLimit
            let mean = 1 / Double(f.warm)
            if mean > a && f.warm < warmLimit { a = mean } else { f.warm = 0 }
        }
        f.x += a * (x - f.x)
        f.y += a * (y - f.y)
        if time - f.pendAt >= 100_000_000 {
            (f.anchorX, f.anchorY) = (f.pendX, f.pendY)
            (f.pendX, f.pendY, f.pendAt) = (f.x, f.y, time)
        }
    }

    /// The most positions a starting estimate averages (`FilterSlot.warm`): the 1€ step takes
    /// over by then at any cutoff from 0.05 Hz and report rate to 200 Hz.
    static let warmLimit: Int32 = 1_000

    /// `v` rounded half up (⌊v + ½⌋), without a libm call or a conversion's range checks: `v`
    /// lies between raw Int32 values (each filter step moves toward one), far inside ±2⁵¹, where
    /// the sum with 1.5 · 2⁵² holds 2⁵¹ plus the nearest integer (a half to even) in its 52 low
    /// bits; taken one down where that rounded up.
    @inline(__always) static func nearest(_ v: Double) -> Int32 {
        let up = v + 0.5
        let r = Int64(bitPattern: (up + 0x1.8p52).bitPattern & 0xF_FFFF_FFFF_FFFF) &- 0x8_0000_0000_0000
        return Int32(truncatingIfNeeded: Double(r) > up ? r &- 1 : r)
    }

    /// How long a lift is held (ns; nil: no chatter filter): `chatter_window`, and at least 1.25
    /// of the panel's report intervals as the filters have seen them, up to 50 ms. A bounce lasts
    /// a report at least: on a 30 Hz panel 33 ms and its jitter, past a 35 ms window one time in
    /// six (a rest's bounce two contacts, a tap a double tap).
    static func chatterWindow(_ r: borrowing Rules, _ tally: Tally) -> Int64? {
        guard let window = r.settings.chatterNs else { return nil }
        let interval = tally.interval.seconds
        return interval > 0 ? max(window, min(50_000_000, Int64(interval * 1.25e9))) : window
    }

    /// The smoothing factor of a first-order low-pass at `cutoff` Hz over `dt` s.
    /// (1 / (1 + τ/dt) with τ = 1 / (2π · cutoff), written with one division.)
    static func alpha(_ cutoff: Double, _ dt: Double) -> Double {
        let k = 2 * Double.pi * cutoff * dt
        return k / (k + 1)
    }
}
