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

    /// Per region on a chain: its axis, its bounds there, and the pan it is given as.
    static func chainFacts(_ c: CompiledConfiguration, _ paths: [[Int]]) -> ([Bool], [AxisConstraint.Bounds?], [Int]) {
        var vertical = [Bool](repeating: true, count: c.regions.count)
        var bounds = [AxisConstraint.Bounds?](repeating: nil, count: c.regions.count)
        var gesture = [Int](repeating: -1, count: c.regions.count)
        for path in paths where path.count > 1 {
            let v = c.regions[path[0]].chain!.vertical
            for (k, level) in path.enumerated() {
                vertical[level] = v
                bounds[level] = (v ? c.regions[level].drag?.y : c.regions[level].drag?.x)?.bounds
                if k > 0, let g = c.regions[path[k - 1]].chain?.outerGesture { gesture[level] = g }
            }
        }
        return (vertical, bounds, gesture)
    }

    /// A chained inner region's pan event: its move shared along the chain, its own offset and
    /// consumed motion, and at its end every level's target (`target(of:)`).
    mutating func applyChained(to e: inout GestureEvent, region r: Int, _ c: CompiledConfiguration) {
        let vertical = chainVertical[r]
        let t = vertical ? e.translation.y : e.translation.x
        let levels = paths[r].count
        let began = e.phase == .began
        for k in 0..<levels {
            let level = paths[r][k]
            if began { raw[level] = Self.along(rest[level], vertical) }
            consumed[level] = 0
        }
        if began { lastTranslation[r] = 0 }
        let d = t - lastTranslation[r]
        lastTranslation[r] = t
        if d != 0 { _ = push(d, r, 0, overflow: true) }
        switch e.phase {
        case .ended:
            fling(Self.along(e.velocity, vertical), r, c)
            for k in 0..<levels { rest[paths[r][k]] = Self.placing(targets[paths[r][k]], in: rest[paths[r][k]], vertical) }
        case .cancelled:
            for k in 0..<levels { targets[paths[r][k]] = Self.along(rest[paths[r][k]], vertical) }
        case .began, .changed, .recognized:
            break
        }
        e.offset = offset(of: r)
        e.consumed = consumedPoint(of: r)
        if e.phase == .ended || e.phase == .cancelled { e.target = target(of: r) }
    }

    /// Region `level`'s offset in the stroke (its other axis where it rests).
    func offset(of level: Int) -> PixelPoint {
        let shown = chainBounds[level]?.constrain(raw[level]) ?? raw[level]
        return Self.placing(shown, in: rest[level], chainVertical[level])
    }

    /// What the last event moved region `level`'s raw offset by.
    func consumedPoint(of level: Int) -> PixelPoint {
        chainVertical[level] ? PixelPoint(x: 0, y: consumed[level]) : PixelPoint(x: consumed[level], y: 0)
    }

    /// Where region `level` comes to rest (after a stroke's end).
    func target(of level: Int) -> PixelPoint {
        Self.placing(targets[level], in: rest[level], chainVertical[level])
    }

    /// Moves the drags of region `r`'s chain from position `k` on by `d`, by the rule; returns
    /// what none of them took. With `overflow`, the last in line takes everything left (past its
    /// bounds).
    private mutating func push(_ d: Double, _ r: Int, _ k: Int, overflow: Bool) -> Double {
        let level = paths[r][k]
        if k == paths[r].count - 1 {
            let take = overflow ? d : room(level, d)
            move(level, by: take)
            return d - take
        }
        if (d > 0) == (signs[r][k] > 0) {
            // Toward the link's outer-first direction: the outer ones first, up to their bounds.
            let left = push(d, r, k + 1, overflow: false)
            let take = overflow ? left : room(level, left)
            move(level, by: take)
            return left - take
        }
        let take = room(level, d)
        move(level, by: take)
        return push(d - take, r, k + 1, overflow: overflow)
    }

    private mutating func move(_ level: Int, by d: Double) {
        raw[level] += d
        consumed[level] += d
    }

    /// The part of `d` that region `level`'s drag takes before it reaches its bound that way.
    private func room(_ level: Int, _ d: Double) -> Double {
        guard let b = chainBounds[level] else { return d }
        return d > 0 ? min(d, max(0, b.max - raw[level])) : max(d, -max(0, raw[level] - b.min))
    }

    /// The release velocity `velocity` (px/s along the axis) shared along region `r`'s chain in
    /// the order motion that way goes; every level gets its target. Once a stroke.
    private mutating func fling(_ velocity: Double, _ r: Int, _ c: CompiledConfiguration) {
        var v = velocity
        let path = paths[r]
        for level in path { targets[level] = restOf(level, velocity: 0, c) }
        for level in Self.motionOrder(path, signs[r], towardPositive: v > 0) where v != 0 {
            guard let drag = c.regions[level].drag, let b = chainBounds[level] else { continue }
            let offset = b.constrain(raw[level])
            let room = v > 0 ? b.max - offset : offset - b.min
            if room <= 0.5 { continue }  // at its bound: the velocity goes on
            let tau = drag.projection.secondsDouble
            let snaps = !((chainVertical[level] ? drag.y : drag.x)?.snapPoints.isEmpty ?? true)
            if snaps || tau <= 0 {
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
        guard let drag = c.regions[level].drag, let a = chainVertical[level] ? drag.y : drag.x else { return raw[level] }
        return a.rest(offset: a.constrain(raw[level]), velocity: velocity, projection: drag.projection)
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
