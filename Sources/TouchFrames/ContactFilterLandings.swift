/// A landing while a lift is held (the chatter filter): whether it is that contact's bounce, how
/// far it lies from where the finger left or would be by now, and where the contact goes on from.
extension ContactFilter {
    /// A contact landing while the last one's lift is held, close to where it was (or, moving,
    /// would be): chatter, the same contact (its id back), going on from where it was held: its
    /// jump becomes an offset to its raw positions (at most `chatter_distance`), so neither the
    /// gestures (a tap's slop) nor the app see the bounce move it, and the smoothing starts
    /// again from there (at rest, or at its speed).
    /// A young contact's age is its time on the glass: the time it was lifted does not count
    /// (a panel's blinking ghost never comes of age by blinking).
    static func landsAgain(
        _ f: inout FilterSlot, _ s: inout DecoderSlot, young: Bool, _ r: borrowing Rules, _ tally: inout Tally, at time: Int64
    ) -> Bool {
        guard let until = f.lingerUntil, time < until else { return false }
        let (distance, px, py, moving) = landingDistance(f, s, young: young, r, tally, lift: f.liftAt, at: time)
        guard distance <= r.settings.chatterDistanceMM else { return false }
        s.contact = f.contact
        if young { f.landedAt += time - f.liftAt }
        f.segmentAt = time
        f.lingerUntil = nil
        // The raw path goes on from where `landingDistance` says (each jump at most
        // `chatter_distance`): the bounce moves nothing. (A resting finger's from its smoothed
        // position: the jump between two noisy samples, kept as the offset, shifted the contact
        // for the rest of its touch by their noise, up to 4 mm at ±1.5 mm, a long press lost.)
        (f.offsetX, f.offsetY) = (px - Double(s.x), py - Double(s.y))
        if !moving { (f.dx, f.dy) = (0, 0) }
        // At rest, held where it was smoothed: the offset is then worked out over the reports to come.
        f.settling = !moving && r.settings.dejitter != nil ? Settling(held: (px, py), landing: s, at: time) : Settling()
        f.at = time
        tally.counts.chatter += 1
        return true
    }

    /// How far (mm) landing `s` is from held contact `f`, and from where its path goes on (both
    /// with the offsets of the bounces before): from where the finger left (not the smoothed
    /// position, which lags a moving finger); moving, also from where it would be by now
    /// (`predictedLift`), going on from the nearer; at rest with the 1€ filter, also from the
    /// smoothed position, going on from there (two noisy samples lie further apart than a sample
    /// and the smoothed rest: at ±1.5 mm of noise one bounce in eight came past 5 mm and a tap
    /// became two; and the path goes on with the landing's noise alone). Also whether it moves.
    static func landingDistance(
        _ f: FilterSlot, _ s: DecoderSlot, young: Bool, _ r: borrowing Rules, _ tally: Tally, lift: Int64, at time: Int64
    ) -> (mm: Double, x: Double, y: Double, moving: Bool) {
        let (px, py, moving) = predictedLift(f, r, tally, lift: lift, at: time)
        let (lx, ly) = (Double(s.x) + f.offsetX, Double(s.y) + f.offsetY)
        func mm(_ x: Double, _ y: Double) -> Double {
            let dx = (lx - x) * r.mmPerUnit.x, dy = (ly - y) * r.mmPerUnit.y
            return (dx * dx + dy * dy).squareRoot()
        }
        let left = mm(f.liftX, f.liftY)
        var best: (mm: Double, x: Double, y: Double, moving: Bool)
        if moving {
            let ahead = mm(px, py)
            best = ahead <= left ? (ahead, px, py, true) : (left, f.liftX, f.liftY, true)
            if best.mm > r.settings.chatterDistanceMM, let bent = curving(f, r, tally, lx: lx, ly: ly, carried: (px, py)) {
                // Its path curved: it goes on from the landing (its bounces' offset as it was, none added).
                best = (bent, lx, ly, true)
            }
        } else if r.settings.dejitter != nil {
            // A contact young at its lift (never shown) rests where its reports lay, as it is first
            // shown (`firstShown`): its smoothed path starts at its landing's one report, and held
            // there a bounce went on from that report's noise (4.5 mm off: a tap past its slop).
            let n = Double(max(f.samples, 1))
            let (hx, hy) = young && r.settings.ghostOnMirror && f.samples > 0 ? (f.sumX / n, f.sumY / n) : (f.x, f.y)
            best = (min(left, mm(hx, hy)), hx, hy, false)
        } else {
            best = (left, f.liftX, f.liftY, false)
        }
        guard best.mm > r.settings.chatterDistanceMM, let along = alongPath(f, r, tally, lx: lx, ly: ly, at: time) else { return best }
        return (along.mm, along.x, along.y, true)
    }

    /// A landing at (`lx`, `ly`) off the straight line that `predictedLift` carried the finger
    /// along, to `carried`, s mm from where it left: as far along as that (within
    /// `chatter_distance`), and to the side of it by at most `chatter_distance` plus what a path
    /// curving on a radius of `curveRadiusMM` strays (about s²/R: the arc's s²/2R, and as much
    /// again because the speed's direction from the last reports lags the turn), at most s/2 and
    /// `maximumBendMM`. Its distance then (the larger of the two misses, the bend taken off the
    /// side's); nil when it lies elsewhere. Only along and beside the path, outside the dead
    /// zones, and alone on the panel in this frame (`Tally.lone`, as `alongPath`): beside another
    /// finger the landing may be that one's (the fingers of a two-finger swipe that drop out
    /// together land on each other's curves), and the rules that pair them measure straight.
    /// (A 500 mm/s thumb on a 60 mm arc dropping out for a report at 30 Hz lands 18 mm off the
    /// line: two contacts, a lift and a tap for the app, before.)
    static func curving(_ f: FilterSlot, _ r: borrowing Rules, _ tally: Tally, lx: Double, ly: Double, carried: (x: Double, y: Double)) -> Double? {
        guard tally.lone, !r.zones.contains(where: { $0.x.contains(lx) && $0.y.contains(ly) }) else { return nil }
        let (mx, my) = r.mmPerUnit
        let (cx, cy) = ((carried.x - f.liftX) * mx, (carried.y - f.liftY) * my)
        let s = (cx * cx + cy * cy).squareRoot()
        guard s > 0 else { return nil }
        let (dx, dy) = ((lx - f.liftX) * mx, (ly - f.liftY) * my)
        let along = (dx * cx + dy * cy) / s, side = abs(dx * cy - dy * cx) / s
        let bend = min(s * s / curveRadiusMM, s / 2, maximumBendMM), limit = r.settings.chatterDistanceMM
        guard abs(along - s) <= limit && side <= limit + bend else { return nil }
        return max(abs(along - s), side - bend)
    }

    /// mm: the most a curving path is followed off its line (`curving`): a 60 mm arc's at 30 Hz,
    /// not a fast flick's whole fan (1 m/s carried 100 mm would reach 50 mm to each side).
    static let maximumBendMM = 20.0

    /// mm: the tightest curve a swipe's path is followed on through a dropout (a thumb sweeping
    /// from its joint).
    static let curveRadiusMM = 60.0

    /// How far (mm) a landing `s` is from held contact `f` (`landingDistance`); nil when `f`'s
    /// lift is not held.
    static func heldDistance(_ f: FilterSlot, _ s: DecoderSlot, young: Bool, _ r: borrowing Rules, _ tally: Tally, at time: Int64) -> Double? {
        guard let until = f.lingerUntil, time < until else { return nil }
        return landingDistance(f, s, young: young, r, tally, lift: f.liftAt, at: time).mm
    }

    /// Moving when it lifted at `lift` (`isMoving`), the panel's last frame of it within two
    /// report intervals of the lift (a jittered one being up to 1.5 long; 50 ms before the
    /// interval is known: a finger that stopped on a quiet panel sends nothing, and its speeds
    /// are still the swipe's).
    static func movingAtLift(_ f: FilterSlot, _ r: borrowing Rules, _ tally: Tally, lift: Int64) -> Bool {
        lift - f.rawAt <= recentNs(tally) && isMoving(f, r)
    }

    /// Two report intervals (ns), 50 ms before the interval is known.
    static func recentNs(_ tally: Tally) -> Int64 { tally.interval.isLearnt ? Int64(tally.interval.seconds * 2e9) : 50_000_000 }

    /// Where a held contact that lifted at `lift` would be at `time`: where the finger left, or,
    /// moving when it lifted (`movingAtLift`), that place carried on at its raw path's speed
    /// (`rawSpeed`): a finger that drops out for a frame mid-swipe lands on along its path, 5-17
    /// mm on at 500 mm/s. Fingers of one hand dropping out in one report, one of them moving,
    /// carried on at their mean speed, each that goes as they do (`HandLift.speed`): two or
    /// three reports of a finger at ±1.5 mm of noise misread its speed by a third, and a
    /// two-finger swipe's fingers, each carried its own way, lost a bounce or came back apart
    /// (a pinch for the gestures).
    static func predictedLift(_ f: FilterSlot, _ r: borrowing Rules, _ tally: Tally, lift: Int64, at time: Int64) -> (x: Double, y: Double, moving: Bool) {
        let gap = Double(min(time - f.rawAt, 100_000_000)) / 1e9
        if let v = tally.handLift.speed(of: f, r, tally, lift: lift) ?? (movingAtLift(f, r, tally, lift: lift) ? rawSpeed(f) : nil) {
            return (f.liftX + v.x * gap, f.liftY + v.y * gap, true)
        }
        return (f.liftX, f.liftY, false)
    }
}

extension ContactFilter {
    /// The held lifts of one report (the chatter filter) whose raw paths went somewhere (`goes`):
    /// how many, their raw speeds added up, and whether one of them was moving (`isMoving`).
    struct HandLift {
        var at: Int64 = .min
        var count = 0
        var vx = 0.0, vy = 0.0
        var moving = false

        /// Contact `f` lifted at `time`, its lift now held.
        mutating func add(_ f: FilterSlot, _ r: borrowing Rules, _ tally: Tally, at time: Int64) {
            if at != time { self = HandLift(at: time) }
            guard Self.goes(f, r, tally, lift: time) else { return }
            let v = ContactFilter.rawSpeed(f)
            (count, vx, vy) = (count + 1, vx + v.x, vy + v.y)
            moving = moving || ContactFilter.isMoving(f, r)
        }

        /// The hand's mean speed (units/s) for contact `f` lifted at `lift`: two or more lifted
        /// then going somewhere, one of them moving, the mean at `snapSpeed` or more, and `f`
        /// among them, its own raw speed within a quarter of the mean's of it (a pinch's fingers,
        /// going apart, keep their own, and so do fingers at 500 and 200 mm/s, both carried at
        /// 350 within half of it).
        func speed(of f: FilterSlot, _ r: borrowing Rules, _ tally: Tally, lift: Int64) -> (x: Double, y: Double)? {
            guard at == lift, count >= 2, moving, Self.goes(f, r, tally, lift: lift) else { return nil }
            let n = Double(count), own = ContactFilter.rawSpeed(f)
            let mean: (x: Double, y: Double) = (vx / n, vy / n)
            let dx: Double = (own.x - mean.x) * r.mmPerUnit.x, dy: Double = (own.y - mean.y) * r.mmPerUnit.y
            let sx: Double = mean.x * r.mmPerUnit.x, sy: Double = mean.y * r.mmPerUnit.y
            let squared = sx * sx + sy * sy
            guard squared >= ContactFilter.snapSpeed * ContactFilter.snapSpeed, 16 * (dx * dx + dy * dy) <= squared else { return nil }
            return mean
        }

        /// Contact `f`'s raw path (over `rawSpeed`'s reports, its last one recent at the lift)
        /// went three quarters of the way that calls a contact moving (`isMoving`: 8 mm, or
        /// `chatter_distance` where that is more, the panel's noise at 3.5 standard deviations),
        /// 6 mm at ±1.5 mm of noise, whose two samples lie at most 4.2 mm apart: a finger resting
        /// beside a swiping hand is no part of it (carried at its speed, its noise pointing that
        /// way, a resting key's finger took the next key's tap 12 mm on for its bounce; counted
        /// into the mean, it slowed the swiping fingers' prediction).
        static func goes(_ f: FilterSlot, _ r: borrowing Rules, _ tally: Tally, lift: Int64) -> Bool {
            guard r.settings.dejitter != nil, f.reports > 0, lift - f.rawAt <= ContactFilter.recentNs(tally) else { return false }
            let (bx, by, bt, known) = ContactFilter.rawBase(f)
            guard known, f.rawAt - bt >= 1_000_000, f.rawAt - bt <= 150_000_000 else { return false }
            let tx = (f.rawX - bx) * r.mmPerUnit.x, ty = (f.rawY - by) * r.mmPerUnit.y
            let far = 0.75 * max(ContactFilter.restingSpreadMM, r.settings.chatterDistanceMM)
            return tx * tx + ty * ty >= far * far
        }
    }
}
