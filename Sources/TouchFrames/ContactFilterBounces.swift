/// Bounces the panel puts in another slot: drivers that slot a contact by the controller's own
/// id, which may change at a bounce, land a finger again in a free slot, or in a slot a new finger
/// took. The held lift (the chatter window) then moves to the slot its bounce landed in, where
/// `ContactFilter.step` takes the landing as its bounce: one contact for everyone (the gestures
/// and the mirror follow ids, not slots). Landings only: nothing a frame otherwise.
extension ContactFilter {
    /// A landing in slot `k` (the chatter filter on): a contact the landing replaced in its slot
    /// within one frame is lifted first (`replaced`); a slot holding a lift this is not the
    /// bounce of hands the lift on first (`handOver`); a free one may take another slot's held
    /// lift (`takeBounce`); then the slot's step. A contact that came from another slot and goes
    /// on here is not new to the gestures (its view `moved`).
    @inline(never)  // kept out of the frame's loop
    static func landing(
        _ k: Int, _ st: inout MutableSpan<FilterSlot>, _ sh: inout MutableSpan<ShownSlot>, _ ds: inout MutableSpan<DecoderSlot>, _ n: Int,
        fresh: Bool, _ r: borrowing Rules, _ tally: inout Tally, _ nextContact: inout UInt32, at time: Int64
    ) {
        if st[k].down && st[k].lingerUntil == nil { replaced(k, &st, &sh, ds, r, &tally, at: time) }
        if st[k].down { handOver(k, &st, &sh, ds, n, r, tally, at: time) }
        if !st[k].down { _ = takeBounce(k, &st, &sh, ds, n, r, &tally, at: time) }
        var lone = true
        for j in 0..<n where j != k && (st[j].down || ds[j].trackingID >= 0) { lone = false }
        tally.lone = lone
        step(&st[k], &sh[k], &ds[k], down: true, at: time, fresh: fresh, r, &tally, &nextContact)
        tally.lone = false
        // (A landing that was not the moved contact's bounce made a new one: `land` cleared it.)
        if st[k].moved { (sh[k].moved, st[k].moved) = (true, false) }
    }

    /// Slot `k`'s contact, down in the last frame, replaced in this one by a new tracking id (the
    /// panel's lift and landing in one report, or a new id with no lift at all: a bounce with no
    /// frame between): its lift is taken now, where its raw path last was (`follow`), and held as
    /// any lift, so the landing may be its bounce.
    static func replaced(
        _ k: Int, _ st: inout MutableSpan<FilterSlot>, _ sh: inout MutableSpan<ShownSlot>, _ ds: borrowing MutableSpan<DecoderSlot>,
        _ r: borrowing Rules, _ tally: inout Tally, at time: Int64
    ) {
        // Where its raw path last was (`follow`), else (no panel frame of it followed yet: its
        // landing, a reload's adopted contact) where it was smoothed to; never the new landing's.
        var last = ds[k]
        let (x, y) = st[k].reports > 0 ? (st[k].rawX, st[k].rawY) : (st[k].x, st[k].y)
        (last.x, last.y) = (nearest(x - st[k].offsetX), nearest(y - st[k].offsetY))
        lifted(&st[k], &sh[k], last, r, &tally, at: time)
    }

    /// A landing in free slot `k`: the held lift closest to it (within `chatter_distance`, as
    /// `landsAgain` measures) of another slot moves here, the free slot's state to that slot. A
    /// slot lifting in this very frame but not yet stepped is held first, as its own step would;
    /// one whose panel slot a new finger took in this frame is a candidate too (its own landing
    /// is then a new contact). False: none is close.
    static func takeBounce(
        _ k: Int, _ st: inout MutableSpan<FilterSlot>, _ sh: inout MutableSpan<ShownSlot>, _ ds: borrowing MutableSpan<DecoderSlot>, _ n: Int,
        _ r: borrowing Rules, _ tally: inout Tally, at time: Int64
    ) -> Bool {
        var best = -1, bestDistance = r.settings.chatterDistanceMM
        for j in 0..<n where j != k && st[j].down {
            let panelDown = ds[j].trackingID >= 0 && ds[j].hasX && ds[j].hasY
            if panelDown {
                // Down in its panel slot: a candidate only while held, its slot taken by another.
                guard st[j].lingerUntil != nil && ds[j].contact != st[j].contact else { continue }
            } else if st[j].lingerUntil == nil {
                lifted(&st[j], &sh[j], ds[j], r, &tally, at: time)
            }
            guard let d = heldDistance(st[j], ds[k], young: sh[j].young, r, tally, at: time), d <= bestDistance else { continue }
            // Its own slot's landing closer: that one is its bounce (a second finger landed here).
            if panelDown, let own = heldDistance(st[j], ds[j], young: sh[j].young, r, tally, at: time), own < d { continue }
            (best, bestDistance) = (j, d)
        }
        guard best >= 0 else { return false }
        exchange(k, best, &st, &sh)
        return true
    }

    /// Slot `k` holds a lift and a landing that is not its bounce, or not the closest: the lift
    /// moves to the later slot where its bounce lands in this frame (the closest; a second finger
    /// landing in the lift's slot as the first lands again in another is not taken for its
    /// bounce), that slot's state (free, or another held lift, whose bounce this landing may be)
    /// to `k`. Nothing when no later landing is closer (the lift then ends as before when its own
    /// is not its bounce: a new contact took its slot).
    static func handOver(
        _ k: Int, _ st: inout MutableSpan<FilterSlot>, _ sh: inout MutableSpan<ShownSlot>, _ ds: borrowing MutableSpan<DecoderSlot>, _ n: Int,
        _ r: borrowing Rules, _ tally: Tally, at time: Int64
    ) {
        guard let own = heldDistance(st[k], ds[k], young: sh[k].young, r, tally, at: time) else { return }
        var bestDistance = min(own, r.settings.chatterDistanceMM)
        var best = -1
        for j in (k + 1)..<n where ds[j].trackingID >= 0 && ds[j].hasX && ds[j].hasY && ds[j].contact != st[j].contact {
            // That slot's own state: free, or a held lift (not a contact lifting unseen in this
            // frame), only when this slot's landing is not the bounce (else the other lift, moved
            // here, would end at once or be taken by this landing).
            guard !st[j].down || st[j].lingerUntil != nil && own > r.settings.chatterDistanceMM else { continue }
            guard let d = heldDistance(st[k], ds[j], young: sh[k].young, r, tally, at: time), d < bestDistance else { continue }
            (best, bestDistance) = (j, d)
        }
        if best >= 0 { exchange(k, best, &st, &sh) }
    }

    /// Slots `a` and `b` exchange their contacts' states and views; a contact the gestures saw
    /// before is marked `moved` in its new slot (`landing` passes it to the slot's view).
    static func exchange(_ a: Int, _ b: Int, _ st: inout MutableSpan<FilterSlot>, _ sh: inout MutableSpan<ShownSlot>) {
        st.swapAt(a, b)
        sh.swapAt(a, b)
        if st[a].down { st[a].moved = !sh[a].young && !sh[a].hidden }
        if st[b].down { st[b].moved = !sh[b].young && !sh[b].hidden }
    }

    /// A moving contact's bounce offset (its predicted landing's miss, up to `chatter_distance`)
    /// closed over the panel's reports from the one it lands with (its move the predicted one),
    /// by at most half of each report's own move: a swipe that bounced ends where the finger
    /// lifted, as one that did not, while the path shown never steps back nor runs ahead of the
    /// finger by more than half its speed. At rest (not `isMoving`) it stays: there the offset is
    /// what keeps a bounce from moving the contact (`Settling`). The raw path is carried over to
    /// the new offset, so its speed is the finger's. A report `follow` passes over (within 1 ms of
    /// the last) closes nothing: its move would be counted again at the next.
    @inline(never)  // a bounced contact's frames only
    static func closeOffset(_ f: inout FilterSlot, _ s: DecoderSlot, _ r: borrowing Rules, at time: Int64) {
        guard f.reports > 0 && time - f.rawAt >= 1_000_000 && isMoving(f, r) else { return }
        let mx = (Double(s.x) + f.offsetX - f.rawX) * r.mmPerUnit.x, my = (Double(s.y) + f.offsetY - f.rawY) * r.mmPerUnit.y
        let ox = f.offsetX * r.mmPerUnit.x, oy = f.offsetY * r.mmPerUnit.y
        let budget = 0.5 * (mx * mx + my * my).squareRoot(), offset = (ox * ox + oy * oy).squareRoot()
        let keep = offset <= budget ? 0 : 1 - budget / offset
        let (cx, cy) = (f.offsetX * keep - f.offsetX, f.offsetY * keep - f.offsetY)
        (f.offsetX, f.offsetY) = (f.offsetX + cx, f.offsetY + cy)
        (f.rawX, f.rawY, f.priorX, f.priorY) = (f.rawX + cx, f.rawY + cy, f.priorX + cx, f.priorY + cy)
        (f.firstX, f.firstY) = (f.firstX + cx, f.firstY + cy)
    }

    /// The raw path's least travel for `alongPath` (mm): at ±1.5 mm of noise a resting finger's
    /// reports lie this far apart about once in fifty, and then seldom in a line.
    static let alongPathTravelMM = 6.0

    /// A landing at `(lx, ly)` (units, with the offsets) of a held contact that was setting off,
    /// too far from where it lifted and from its prediction for `landingDistance`: a finger still
    /// speeding up when it dropped out, 30-70 ms after landing, lands 10-16 mm past where its raw
    /// path's speed puts it (at 60 Hz, two or three reports of a swipe reaching 300-800 mm/s).
    /// Its bounce when it lies ahead on the raw path's line from where the finger left, within
    /// `chatter_distance` of the line and at most four times the path's speed over the gap (plus
    /// that distance, 40 mm at most) along it, outside the dead zones. Only for a contact that set
    /// off at most 100 ms before it lifted, moving until then (its last report within two report
    /// intervals of the lift), and alone on the panel in this frame (`Tally.lone`): with another
    /// finger down or held, a landing on the line may be that finger's (a pinch's, a two-finger
    /// swipe's), and the other rules pair them; and moving from its landing on (the first of the
    /// path's reports 1 mm or more from the landing, that way; 2 mm lost half the swipes this
    /// mends), not a tap rolling off as it lifts after a rest. The path: its last two or three
    /// reports (`follow`), 6 mm or more (`alongPathTravelMM`) at 100 mm/s or more, the middle one
    /// between the others (3 mm let one finger's rollover to a key 12-30 mm away, at ±1.5 mm of noise,
    /// become the first's drag about once in forty). Gives the distance off the line and the
    /// place on it the contact goes on from (nil: not on its way).
    @inline(never)  // a landing too far for the other rules only
    static func alongPath(_ f: FilterSlot, _ r: borrowing Rules, _ tally: Tally, lx: Double, ly: Double, at time: Int64) -> (mm: Double, x: Double, y: Double)? {
        guard tally.lone, f.reports >= 2, f.liftAt - f.segmentAt <= 100_000_000, f.liftAt - f.rawAt <= recentNs(tally) else { return nil }
        guard !r.zones.contains(where: { $0.x.contains(lx) && $0.y.contains(ly) }) else { return nil }
        let (mx, my) = r.mmPerUnit
        let (bx, by, bt, _) = rawBase(f)
        let fromFirst = fromFirstReport(f)
        let (tx, ty) = ((f.rawX - bx) * mx, (f.rawY - by) * my)
        let travel = (tx * tx + ty * ty).squareRoot(), dt = Double(f.rawAt - bt) / 1e9
        guard travel >= alongPathTravelMM, dt >= 0.001, travel >= snapSpeed * dt else { return nil }
        if fromFirst {
            let middle = (f.priorX - bx) * mx * tx + (f.priorY - by) * my * ty
            guard middle >= 0 && middle <= travel * travel else { return nil }
        }
        let (ux, uy) = (tx / travel, ty / travel)
        // Moving from its landing on: a path that begins after reports at rest is a tap's roll
        // as it lifts (the next key's finger may land ahead of it).
        if bt > f.segmentAt && (bx - f.landX) * mx * ux + (by - f.landY) * my * uy < 1 { return nil }
        let gap = Double(min(time - f.rawAt, 100_000_000)) / 1e9
        let (dx, dy) = ((lx - f.liftX) * mx, (ly - f.liftY) * my)
        let along = dx * ux + dy * uy, off = abs(dx * uy - dy * ux)
        let reach = min(4 * travel / dt * gap + r.settings.chatterDistanceMM, 40)
        guard along >= 0 && along <= reach && off <= r.settings.chatterDistanceMM else { return nil }
        return (off, f.liftX + along * ux / mx, f.liftY + along * uy / my)
    }
}
