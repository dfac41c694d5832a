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
    /// Each region's chain outward and its links' outer-first signs (empty: not chained).
    static func chainPaths(_ c: CompiledConfiguration) -> (paths: [[Int]], signs: [[Double]]) {
        var paths: [[Int]] = [], signs: [[Double]] = []
        for r in c.regions.indices {
            var path: [Int] = []
            var sign: [Double] = []
            var at = r
            let vertical = c.regions[r].chain?.vertical
            // Links on the same axis only, each region once (a chain is a path outward).
            while let link = c.regions[at].chain, link.vertical == vertical, !path.contains(link.outer), path.count <= c.regions.count {
                if path.isEmpty { path.append(at) }
                path.append(link.outer)
                sign.append(link.outerFirstSign)
                at = link.outer
            }
            paths.append(path)
            signs.append(sign)
        }
        return (paths, signs)
    }

    /// A chained inner region's pan event: its move shared along the chain, its own offset and
    /// consumed motion, and at its end every level's target (`target(of:)`).
    mutating func applyChained(to e: inout GestureEvent, region r: Int, _ chain: CompiledChain, _ c: CompiledConfiguration) {
        let vertical = chain.vertical
        let t = vertical ? e.translation.y : e.translation.x
        let path = paths[r]
        if e.phase == .began {
            for level in path { raw[level] = Self.along(rest[level], vertical) }
            lastTranslation[r] = 0
        }
        for level in path { consumed[level] = 0 }
        let d = t - lastTranslation[r]
        lastTranslation[r] = t
        if d != 0 { _ = push(d, path, signs[r], 0, overflow: true, c) }
        switch e.phase {
        case .ended:
            fling(Self.along(e.velocity, vertical), path, signs[r], c)
            for level in path { rest[level] = Self.placing(targets[level], in: rest[level], vertical) }
        case .cancelled:
            for level in path { targets[level] = Self.along(rest[level], vertical) }
        case .began, .changed, .recognized:
            break
        }
        e.offset = offset(of: r, c)
        e.consumed = consumedPoint(of: r, c)
        if e.phase == .ended || e.phase == .cancelled { e.target = target(of: r, c) }
    }

    /// Region `level`'s offset in the stroke (its other axis where it rests).
    func offset(of level: Int, _ c: CompiledConfiguration) -> PixelPoint {
        let vertical = chainVertical(level, c)
        let bounds = vertical ? c.regions[level].drag?.y : c.regions[level].drag?.x
        return Self.placing(bounds?.constrain(raw[level]) ?? raw[level], in: rest[level], vertical)
    }

    /// What the last event moved region `level`'s raw offset by.
    func consumedPoint(of level: Int, _ c: CompiledConfiguration) -> PixelPoint {
        chainVertical(level, c) ? PixelPoint(x: 0, y: consumed[level]) : PixelPoint(x: consumed[level], y: 0)
    }

    /// Where region `level` comes to rest (after a stroke's end).
    func target(of level: Int, _ c: CompiledConfiguration) -> PixelPoint {
        Self.placing(targets[level], in: rest[level], chainVertical(level, c))
    }

    /// The axis of the chain region `level` takes part in (its own link's, else its child's).
    private func chainVertical(_ level: Int, _ c: CompiledConfiguration) -> Bool {
        if let v = c.regions[level].chain?.vertical { return v }
        for r in c.regions.indices where c.regions[r].chain?.outer == level { return c.regions[r].chain!.vertical }
        return true
    }

    /// Moves the drags of `path` from position `k` on by `d`, by the rule; returns what none of
    /// them took. With `overflow`, the last in line takes everything left (past its bounds).
    private mutating func push(_ d: Double, _ path: [Int], _ signs: [Double], _ k: Int, overflow: Bool, _ c: CompiledConfiguration) -> Double {
        let level = path[k]
        if k == path.count - 1 {
            let take = overflow ? d : room(level, d, c)
            move(level, by: take)
            return d - take
        }
        if (d > 0) == (signs[k] > 0) {
            // Toward the link's outer-first direction: the outer ones first, up to their bounds.
            let left = push(d, path, signs, k + 1, overflow: false, c)
            let take = overflow ? left : room(level, left, c)
            move(level, by: take)
            return left - take
        }
        let take = room(level, d, c)
        move(level, by: take)
        return push(d - take, path, signs, k + 1, overflow: overflow, c)
    }

    private mutating func move(_ level: Int, by d: Double) {
        raw[level] += d
        consumed[level] += d
    }

    /// The part of `d` that region `level`'s drag takes before it reaches its bound that way.
    private func room(_ level: Int, _ d: Double, _ c: CompiledConfiguration) -> Double {
        let bounds = chainVertical(level, c) ? c.regions[level].drag?.y : c.regions[level].drag?.x
        guard let b = bounds else { return d }
        return d > 0 ? min(d, max(0, b.max - raw[level])) : max(d, -max(0, raw[level] - b.min))
    }

    /// The release velocity `v` (px/s along the axis) shared along `path` in the order motion
    /// that way goes; every level gets its target.
    private mutating func fling(_ velocity: Double, _ path: [Int], _ signs: [Double], _ c: CompiledConfiguration) {
        var v = velocity
        let order = Self.motionOrder(path, signs, towardPositive: v > 0)
        for level in path { targets[level] = restOf(level, velocity: 0, c) }
        for level in order where v != 0 {
            let vertical = chainVertical(level, c)
            guard let drag = c.regions[level].drag, let b = vertical ? drag.y : drag.x else { continue }
            let offset = b.constrain(raw[level])
            let room = v > 0 ? b.max - offset : offset - b.min
            if room <= 0.5 { continue }  // at its bound: the velocity goes on
            let tau = drag.projection.secondsDouble
            if !b.snapPoints.isEmpty || tau <= 0 {
                targets[level] = restOf(level, velocity: v, c)
                return
            }
            let glide = v * tau
            if abs(glide) <= room {
                targets[level] = offset + glide
                return
            }
            targets[level] = v > 0 ? b.max : b.min
            v -= (v > 0 ? room : -room) / tau  // the glide's speed when it meets the bound
        }
    }

    /// Where region `level` rests after the stroke moving at `velocity` (its snap points and
    /// projection, else its bounds).
    private func restOf(_ level: Int, velocity: Double, _ c: CompiledConfiguration) -> Double {
        guard let drag = c.regions[level].drag, let b = chainVertical(level, c) ? drag.y : drag.x else { return raw[level] }
        return b.rest(offset: b.constrain(raw[level]), velocity: velocity, projection: drag.projection)
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
