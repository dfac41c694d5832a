/// What every recognizer needs to know about one frame, computed once by the engine so that
/// recognizers stay small values with no per-contact storage.
///
/// Motion is measured over the contacts present in both this frame and the previous one, so a
/// finger landing or lifting never makes the centroid jump.
struct FrameSummary {
    var time: Timestamp
    /// Fingers down after this frame (palms excluded).
    var count = 0
    /// Contacts down after this frame, palms included (a poisoned view waits for this to be 0).
    var present = 0
    /// Every finger counted down is a held lift (`Contact.isLifted`: the chatter filter holds a
    /// lift, and the panel sent a frame for another contact): a frame of no motion but a held
    /// lift's last move (`takeLifted`), whose time is no sample of the fingers' path (a velocity
    /// fitted over it would fall).
    var onlyHeld = false
    /// Contacts that landed / lifted in this frame.
    var added = 0
    var removed = 0
    /// Centroid of the fingers down (px); after the last lift, the centroid before it.
    var centroid: PixelPoint = .zero
    /// Motion of the centroid of the contacts common to this and the previous frame (px).
    var delta: PixelPoint = .zero
    /// Ratio of the common contacts' mean distance from their centroid, this frame over the last.
    var spreadRatio: Double = 1
    /// Change of the common contacts' span (twice their mean distance from their centroid; for
    /// two fingers, their distance) since the last frame (mm). A contact that just landed is in
    /// no common pair yet, so it never stretches the span: it counts from its first movement.
    var spanDelta: Millimeters = 0
    /// Change of angle (radians, clockwise on screen) of the line through the first two common contacts.
    var rotationDelta: Double = 0
    /// The farthest any finger down has travelled from where it landed (mm).
    var maxTravel: Millimeters = 0
    var scale: MillimetersPerPixel = .identity
    /// A palm is on the glass.
    var hasPalm = false
    /// Position of the view's first contact in this frame (px): where an edge swipe starts.
    var firstContact: PixelPoint = .zero
    /// The centroid before this frame (where lifted fingers were).
    var previousCentroid: PixelPoint = .zero

    init(time: Timestamp) { self.time = time }
}

/// Which of a frame's contacts a `ContactTracker` follows: those of one region's sequence, or
/// those a gesture claimed (`Claim`). Asked once per contact per frame.
protocol ContactView {
    /// Does the frame's contact at `index` belong to this view?
    func includes(_ index: Int, _ contact: Contact) -> Bool
}

/// Follows the contacts of one view (a region's sequence, or one gesture's claimed contacts) and
/// summarizes each frame over them. Two buffers are swapped frame by frame, so steady state
/// allocates nothing.
struct ContactTracker {
    struct Tracked {
        var id: UInt32
        var down: PixelPoint
        var last: PixelPoint
        /// Where it was in the frame before, if it was down then (`common`).
        var previous: PixelPoint
        var common: Bool
        /// A held lift (`Contact.isLifted`): in no motion after its first held frame (which may
        /// move it: `takeLifted`), nor in the one it lands again in.
        var held = false
        static let none = Tracked(id: 0, down: .zero, last: .zero, previous: .zero, common: false)
    }

    /// The contacts down after the last frame: the first `count` of `current`. The buffers only
    /// grow (to the most contacts seen) and are written through spans, one access a frame.
    private var current: [Tracked] = []
    private var next: [Tracked] = []
    private(set) var count = 0
    /// Contacts down after the last frame, palms included.
    private(set) var present = 0
    /// Fingers that landed in the last frame.
    private(set) var landedThisFrame = 0
    private var lastCentroid: PixelPoint = .zero

    init(capacity: Int = 16) {
        current = [Tracked](repeating: .none, count: max(1, capacity))
        // A buffer of its own (a copy of `current` would share it until the first write).
        next = [Tracked](repeating: .none, count: max(1, capacity))
    }

    mutating func reset() {
        count = 0
        present = 0
        landedThisFrame = 0
    }

    /// The fingers down after the last frame (for a claim taken from this view).
    var contacts: ArraySlice<Tracked> { current[0..<count] }

    /// A tracker of the given contacts as they are now (where they landed kept): a gesture's
    /// claim, cut from the view it was seen in.
    init(claiming tracked: [Tracked]) {
        self.init(capacity: tracked.count)
        for (i, t) in tracked.enumerated() { current[i] = t }
        count = tracked.count
        present = tracked.count
        // The fingers on the glass, as `update` places them (held lifts too when there is nothing else).
        let live = tracked.filter { !$0.held }
        let placed = live.isEmpty ? tracked : live
        var sum = PixelPoint.zero
        for t in placed { sum += t.last }
        lastCentroid = placed.isEmpty ? .zero : sum * (1 / Double(placed.count))
    }

    /// The summary of `frame` over the contacts `view` includes, stamped `time` (the engine's,
    /// which never runs backwards), written into `s` where it lies (a summary is ~180 bytes).
    /// `shape`: the fingers' span and rotation (`spreadRatio`, `spanDelta`, `rotationDelta`) are
    /// worked out too; without it they keep their values for no change (1, 0, 0), which is
    /// what they are anyway in a frame with fewer than two fingers common to the last.
    @inline(never)  // inlined into `SequenceTable.read`, its buffers were retained and released each frame
    mutating func update<V: ContactView>(
        _ frame: TouchFrame, at time: Timestamp, view: V, shape: Bool = true, into s: inout FrameSummary
    ) {
        s = FrameSummary(time: time)
        s.scale = frame.scale
        s.previousCentroid = lastCentroid
        if next.count < frame.contacts.count {
            next += [Tracked](repeating: .none, count: frame.contacts.count - next.count)
        }
        // Worked on as locals (swapped out of `self` and back, not copied: no retain).
        var previousBuffer: [Tracked] = [], nextBuffer: [Tracked] = []
        swap(&previousBuffer, &current)
        swap(&nextBuffer, &next)
        let previousCount = count
        var m = Matching()
        do {
            // Spans of the two local buffers (bounds-checked, lent for this block only).
            var nextSpan = nextBuffer.mutableSpan
            let previous = previousBuffer.span.extracting(0..<previousCount)
            for index in 0..<frame.contacts.count {
                let c = frame.contacts[index]
                if view.includes(index, c) { m.take(c, from: previous, scale: frame.scale, into: &nextSpan, summary: &s) }
            }
        }
        do {
            let down = nextBuffer.span.extracting(0..<m.n)
            if m.common > 0 {
                let k = Double(m.common)
                let prevC = m.prevSum * (1 / k)
                let curC = m.curSum * (1 / k)
                s.delta = curC - prevC
                if m.common >= 2 && shape {
                    Self.spreadChange(down, from: prevC, to: curC, common: k, frame.scale, into: &s)
                    s.rotationDelta = angleBetween(m.secondPrev - m.firstPrev, m.secondCur - m.firstCur)
                }
            }
            // A held lift's last move: in the centroid's motion (not its shape: no pinch).
            if m.heldMoved > 0 {
                s.delta = (m.curSum - m.prevSum + m.heldCurSum - m.heldPrevSum) * (1 / Double(m.common &+ m.heldMoved))
            }
            // Over the fingers still on the glass: with only held lifts left, the centroid before,
            // moved as they last moved (a pan's position stays its landing plus its translation).
            if m.live > 0 {
                lastCentroid = m.liveSum * (1 / Double(m.live))
            } else if m.heldMoved > 0 {
                lastCentroid += s.delta
            }
        }
        s.count = m.n
        if m.held != 0 { s.onlyHeld = m.live == 0 }
        s.present = m.present
        s.removed = max(0, previousCount &- m.common &- m.held)  // each previous contact matched at most once
        s.maxTravel = Millimeters(m.maxTravelSquared.squareRoot())
        s.centroid = lastCentroid
        // The new contacts become current; the old buffer is the next frame's scratch.
        swap(&current, &nextBuffer)
        swap(&next, &previousBuffer)
        count = m.n
        present = m.present
        landedThisFrame = s.added
    }
}

extension ContactTracker {
    /// One frame's contacts matched to the last frame's, a contact at a time: what the summary is
    /// made of (sums over the common contacts, the first two of them for the rotation, the
    /// largest travel from where a contact landed).
    fileprivate struct Matching {
        var n = 0
        var present = 0
        var common = 0
        /// Held lifts that were down before (`takeLifted`), and held lifts landing again: not
        /// lifted, in no motion.
        var held = 0
        /// The fingers on the glass (not held lifts): their count and summed positions.
        var live = 0
        var liveSum = PixelPoint.zero
        /// Held lifts moved in their first held frame (`takeLifted`): their count and summed
        /// positions, in the centroid's motion beside the common contacts (not in the shape's).
        var heldMoved = 0
        var heldPrevSum = PixelPoint.zero
        var heldCurSum = PixelPoint.zero
        var prevSum = PixelPoint.zero
        var curSum = PixelPoint.zero
        var firstPrev = PixelPoint.zero, firstCur = PixelPoint.zero
        var secondPrev = PixelPoint.zero, secondCur = PixelPoint.zero
        /// The largest squared travel; its root is the largest travel (the root is monotonic).
        var maxTravelSquared = 0.0
        /// Contacts keep their order from frame to frame: the one after the last found is
        /// looked at first.
        var hint = 0

        mutating func take(
            _ c: Contact, from current: borrowing Span<Tracked>, scale: MillimetersPerPixel,
            into next: inout MutableSpan<Tracked>, summary s: inout FrameSummary
        ) {
            present &+= 1  // counts here are bounded by the frame's contacts: no overflow check
            if !c.isOrdinary {
                if c.isPalm {
                    s.hasPalm = true
                    return
                }
                return takeLifted(c, from: current, scale: scale, into: &next, summary: &s)
            }
            if n == 0 { s.firstContact = c.position }
            var i = hint < current.count && current[hint].id == c.id ? hint : -1
            if i < 0 {
                for k in current.indices where current[k].id == c.id {
                    i = k
                    break
                }
            }
            var t = Tracked(id: c.id, down: c.position, last: c.position, previous: .zero, common: false)
            if i >= 0 {
                hint = i &+ 1
                let before = current[i]  // read once: one bounds check
                t.down = before.down
                if before.held {
                    // A held lift landing again (a bounce the chatter filter merged): down all
                    // along, but its jump from where it was held is no motion of the fingers.
                    held &+= 1
                } else {
                    let prev = before.last
                    t.previous = prev
                    t.common = true
                    prevSum += prev
                    curSum += c.position
                    if common == 0 {
                        firstPrev = prev
                        firstCur = c.position
                    } else if common == 1 {
                        secondPrev = prev
                        secondCur = c.position
                    }
                    common &+= 1
                }
            } else {
                s.added &+= 1
            }
            let mx = (c.position.x - t.down.x) * scale.x, my = (c.position.y - t.down.y) * scale.y
            maxTravelSquared = max(maxTravelSquared, mx * mx + my * my)
            liveSum += c.position
            live &+= 1
            next[n] = t
            n &+= 1
        }

        /// A held lift (`Contact.isLifted`): still down, so its lift is the frame the hold ends,
        /// but not `common` (no motion after this frame), kept apart in `held`. In its first
        /// held frame it may move: the chatter filter shows a fast contact's held lift where the
        /// finger lifted, ahead of the smoothing's lag. That move is the fingers' motion and
        /// travel (a quick short drag the smoothing held under the slops is no tap); the frame is
        /// still `onlyHeld` when nothing else is down (a pan's path is sampled again at the
        /// lift's time, where it now ends). One this view never saw down (a sequence begun during
        /// the hold) is a finger already up: not taken (it is only `present`). Not inlined: a rare
        /// frame's work, which inlined into `take` left `take` a call of its own from `update`
        /// (+65 instructions a frame).
        @inline(never)
        mutating func takeLifted(
            _ c: Contact, from current: borrowing Span<Tracked>, scale: MillimetersPerPixel, into next: inout MutableSpan<Tracked>,
            summary s: inout FrameSummary
        ) {
            guard let i = current.indices.first(where: { current[$0].id == c.id }) else { return }
            hint = i &+ 1
            if n == 0 { s.firstContact = c.position }
            let before = current[i]
            if !before.held && before.last != c.position {
                heldPrevSum += before.last
                heldCurSum += c.position
                heldMoved &+= 1
                let mx = (c.position.x - before.down.x) * scale.x, my = (c.position.y - before.down.y) * scale.y
                maxTravelSquared = max(maxTravelSquared, mx * mx + my * my)
            }
            next[n] = Tracked(id: c.id, down: before.down, last: c.position, previous: .zero, common: false, held: true)
            held &+= 1
            n &+= 1
        }
    }

    /// The common contacts' mean distance from their centroid, before (around `prevC`) and now
    /// (around `curC`): in px for the spread's ratio, in mm for the span's change.
    @inline(__always)
    fileprivate static func spreadChange(
        _ down: borrowing Span<Tracked>, from prevC: PixelPoint, to curC: PixelPoint, common k: Double,
        _ scale: MillimetersPerPixel, into s: inout FrameSummary
    ) {
        var prevSpread = 0.0, curSpread = 0.0
        var prevMM = 0.0, curMM = 0.0
        for i in down.indices where down[i].common {
            let t = down[i]
            prevSpread += (t.previous - prevC).length
            curSpread += (t.last - curC).length
            prevMM += scale.length(t.previous - prevC).value
            curMM += scale.length(t.last - curC).value
        }
        prevSpread /= k
        curSpread /= k
        if prevSpread > 0 && curSpread > 0 { s.spreadRatio = curSpread / prevSpread }
        s.spanDelta = Millimeters(2 * (curMM - prevMM) / k)
    }
}

/// The signed angle (radians) that turns `a` onto `b`; positive is clockwise on a y-down screen.
func angleBetween(_ a: PixelPoint, _ b: PixelPoint) -> Double {
    let cross = a.x * b.y - a.y * b.x
    let dot = a.x * b.x + a.y * b.y
    if cross == 0 && dot == 0 { return 0 }
    return arcTangent2(cross, dot)
}

/// atan2 by the standard library alone (GestureEngine imports no Glibc; this also keeps output
/// identical across libm versions).
func arcTangent2(_ y: Double, _ x: Double) -> Double {
    let pi = 3.141_592_653_589_793
    if x == 0 { return y > 0 ? pi / 2 : (y < 0 ? -pi / 2 : 0) }
    let base = arcTangent(y / x)
    if x > 0 { return base }
    return y >= 0 ? base + pi : base - pi
}

func arcTangent(_ v: Double) -> Double {
    let pi = 3.141_592_653_589_793
    if v.isNaN { return v }
    if v > 1 { return pi / 2 - arcTangent(1 / v) }
    if v < -1 { return -pi / 2 - arcTangent(1 / v) }
    // Halve the angle twice: atan(x) = 2·atan(x / (1 + √(1 + x²))), then a short series.
    var x = v
    var factor = 1.0
    for _ in 0..<2 {
        x = x / (1 + (1 + x * x).squareRoot())
        factor *= 2
    }
    let x2 = x * x
    var term = x
    var sum = x
    var k = 1.0
    while k < 12 {
        term *= -x2
        sum += term / (2 * k + 1)
        k += 1
    }
    return sum * factor
}
