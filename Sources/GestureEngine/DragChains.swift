/// Scroll chaining (`DragChain`): one stroke's motion shared among nested drags, by Android's
/// rule. Each move of the inner pan, along the chained axis, goes first to whoever the rule
/// says (toward the link's `outerFirst`: the outer; the other way: the inner), up to that drag's
/// bound; the rest goes on to the next; what is left past every bound goes to the last in line,
/// which shows it as its bounds do (clamped or rubber-banded). So the offsets never jump, and
/// what the drags consumed adds up to the finger's travel. At the lift the release velocity goes
/// where the motion would: a drag with snap points snaps with its projection; one without
/// (a list) glides `velocity × projection` and, reaching its bound, hands the velocity left (as
/// an exponential glide has it there) to the next (Android's pre-fling).
extension DragRests {
    /// Each region's chain (its span of `slots`), the slots (paths and the orders a move each
    /// way reaches their levels) and each region's level facts.
    static func chains(_ c: CompiledConfiguration) -> ([ChainSpan], [Int], [ChainLevel]) {
        var spans: [ChainSpan] = [], slots: [Int] = []
        var levels = [ChainLevel](repeating: ChainLevel(), count: c.regions.count)
        for r in c.regions.indices {
            var path: [Int] = []
            var signs: [Double] = []
            var at = r
            let vertical = c.regions[r].chain?.vertical
            // Links on the same axis only, each region once (a chain is a path outward).
            while let link = c.regions[at].chain, link.vertical == vertical, !path.contains(link.outer), path.count <= c.regions.count {
                if path.isEmpty { path.append(at) }
                path.append(link.outer)
                signs.append(link.outerFirstSign)
                at = link.outer
            }
            spans.append(ChainSpan(start: slots.count, count: path.count))
            guard let v = vertical, path.count > 1 else { continue }
            slots += path + motionOrder(path, signs, towardPositive: true) + motionOrder(path, signs, towardPositive: false)
            for (k, level) in path.enumerated() {
                levels[level].vertical = v
                levels[level].bounds = (v ? c.regions[level].drag?.y : c.regions[level].drag?.x)?.bounds
                if k > 0, let g = c.regions[path[k - 1]].chain?.outerGesture { levels[level].outerGesture = g }
            }
        }
        return (spans, slots, levels)
    }

    /// A chained inner region `r`'s pan event `out[i]`: its move shared along the chain by the
    /// rule, then the chain's lines: each enclosing level's pan gets a line with its own id,
    /// offset, consumed motion and, at the end, target. At began and at the end every level
    /// gets one; in between, the levels the move moved (one a frame but at a hand-off), the
    /// inner's own event becoming the first of them when the inner did not move: a region that
    /// did not move has nothing to draw, and a chained stroke costs the socket what an unchained
    /// pan does. `ids` numbers the enclosing levels' lines at began; `sequences` is each
    /// gesture's sequence.
    mutating func applyChain(
        _ out: inout [GestureEvent], at i: Int, region r: Int, _ c: CompiledConfiguration, sequences: [Int], ids: inout UInt64
    ) {
        let span = chainSpan[r]
        let phase = out[i].phase
        let vertical = levels[r].vertical
        if phase == .began { begin(span, vertical, ids: &ids) }
        push(to: Self.along(out[i].translation, vertical), span, r)
        switch phase {
        case .ended: end(span, vertical, velocity: Self.along(out[i].velocity, vertical), c)
        case .cancelled: cancel(span, vertical)
        case .began, .changed, .recognized: break
        }
        let everyLevel = phase != .changed
        var taken = everyLevel || levels[r].consumed != 0
        if taken { write(&out[i], level: r, gesture: nil, sequence: 0) }
        for k in 1..<span.count {
            let level = slots[span.start + k]
            let gesture = levels[level].outerGesture
            guard gesture >= 0, everyLevel || levels[level].consumed != 0 else { continue }
            if taken {
                out.append(out[i])
                write(&out[out.count - 1], level: level, gesture: gesture, sequence: sequences[gesture])
            } else {
                write(&out[i], level: level, gesture: gesture, sequence: sequences[gesture])
                taken = true
            }
        }
        if !taken { write(&out[i], level: r, gesture: nil, sequence: 0) }  // nothing moved
    }

    /// Region `level`'s line: its offset, consumed motion and at the end its target; for an
    /// enclosing level (`gesture` given), also its pan's id, index and sequence.
    private func write(_ e: inout GestureEvent, level: Int, gesture: Int?, sequence: Int) {
        let l = levels[level]
        let p = rest[level]
        if let gesture { (e.id, e.gesture, e.sequence) = (l.id, gesture, sequence) }
        e.offset = Self.placing(l.bounds?.constrain(l.raw) ?? l.raw, in: p, l.vertical)
        e.consumed = l.vertical ? PixelPoint(x: 0, y: l.consumed) : PixelPoint(x: l.consumed, y: 0)
        e.target = e.phase == .ended || e.phase == .cancelled ? Self.placing(l.target, in: p, l.vertical) : nil
    }

    /// A chained stroke begins: every level's raw offset from where it rests, each enclosing
    /// level's lines a new id.
    private mutating func begin(_ span: ChainSpan, _ vertical: Bool, ids: inout UInt64) {
        for k in 0..<span.count {
            let level = slots[span.start + k]
            levels[level].raw = Self.along(rest[level], vertical)
            if k > 0 {
                levels[level].id = ids
                ids += 1
            }
        }
        levels[slots[span.start]].lastTranslation = 0
    }

    /// The stroke ends: the release velocity shared (`fling`), every level resting at its target.
    private mutating func end(_ span: ChainSpan, _ vertical: Bool, velocity: Double, _ c: CompiledConfiguration) {
        fling(velocity, span, c)
        for k in 0..<span.count {
            let level = slots[span.start + k]
            rest[level] = Self.placing(levels[level].target, in: rest[level], vertical)
        }
    }

    /// The stroke is cancelled: every level back where it rested.
    private mutating func cancel(_ span: ChainSpan, _ vertical: Bool) {
        for k in 0..<span.count {
            let level = slots[span.start + k]
            levels[level].target = Self.along(rest[level], vertical)
        }
    }

    /// Moves the drags of inner region `r`'s chain by the pan's move since the last event (to
    /// translation `t`), by the rule: in the order a move that way reaches them, each takes
    /// what it can before its bound; the last takes everything left (past its bounds).
    /// (Android's rule, link by link: toward a link's outer-first direction the outer side
    /// first, else the inner; `motionOrder` lays the links' choices out in one list.) Every
    /// level's `consumed` is what it took (0 when the pan did not move).
    @inline(__always)
    private mutating func push(to t: Double, _ span: ChainSpan, _ r: Int) {
        let d = t - levels[r].lastTranslation
        levels[r].lastTranslation = t
        var left = d
        let order = span.order(d)
        let last = span.count - 1
        for k in 0...last {
            let level = slots[order + k]
            let take = k == last ? left : room(level, left)
            levels[level].raw += take
            levels[level].consumed = take
            left -= take
        }
    }

    /// The part of `d` that region `level`'s drag takes before it reaches its bound that way.
    private func room(_ level: Int, _ d: Double) -> Double {
        let l = levels[level]
        guard let b = l.bounds else { return d }
        return d > 0 ? min(d, max(0, b.max - l.raw)) : max(d, -max(0, l.raw - b.min))
    }

    /// The release velocity `velocity` (px/s along the axis) shared along a chain in the order
    /// motion that way goes; every level gets its target. Once a stroke.
    private mutating func fling(_ velocity: Double, _ span: ChainSpan, _ c: CompiledConfiguration) {
        var v = velocity
        for k in 0..<span.count {
            let level = slots[span.start + k]
            levels[level].target = restOf(level, velocity: 0, c)
        }
        let order = span.order(v)
        for k in 0..<span.count where v != 0 {
            let level = slots[order + k]
            let l = levels[level]
            guard let drag = c.regions[level].drag, let b = l.bounds else { continue }
            let offset = b.constrain(l.raw)
            let room = v > 0 ? b.max - offset : offset - b.min
            if room <= 0.5 { continue }  // at its bound: the velocity goes on
            let tau = drag.projection.secondsDouble
            let snaps = !((l.vertical ? drag.y : drag.x)?.snapPoints.isEmpty ?? true)
            if snaps || tau <= 0 {
                levels[level].target = restOf(level, velocity: v, c)
                return
            }
            let glide = v * tau
            if abs(glide) <= room {
                levels[level].target = offset + glide
                return
            }
            levels[level].target = v > 0 ? b.max : b.min
            v -= (v > 0 ? room : -room) / tau  // the glide's speed when it meets the bound
        }
    }

    /// Where region `level` rests after the stroke moving at `velocity` (its snap points and
    /// projection, else its bounds).
    private func restOf(_ level: Int, velocity: Double, _ c: CompiledConfiguration) -> Double {
        let l = levels[level]
        guard let drag = c.regions[level].drag, let a = l.vertical ? drag.y : drag.x else { return l.raw }
        return a.rest(offset: a.constrain(l.raw), velocity: velocity, projection: drag.projection)
    }

    /// The levels of `path` in the order a move that way reaches them.
    static func motionOrder(_ path: [Int], _ signs: [Double], towardPositive: Bool, from k: Int = 0) -> [Int] {
        guard k < path.count - 1 else { return [path[k]] }
        let rest = motionOrder(path, signs, towardPositive: towardPositive, from: k + 1)
        return towardPositive == (signs[k] > 0) ? rest + [path[k]] : [path[k]] + rest
    }

    static func along(_ p: PixelPoint, _ vertical: Bool) -> Double { vertical ? p.y : p.x }

    static func placing(_ v: Double, in p: PixelPoint, _ vertical: Bool) -> PixelPoint {
        vertical ? PixelPoint(x: p.x, y: v) : PixelPoint(x: v, y: p.y)
    }
}
