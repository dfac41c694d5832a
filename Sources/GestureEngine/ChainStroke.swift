/// One chain of nested drags (`DragChain`) and its stroke, kept per inner region as one value:
/// the levels by position (0 the inner region, then outward), the order a move each way
/// reaches them, and each level's offset in the stroke. Inline storage of fixed capacity
/// (`most` levels), so a frame touches one value in place: one bounds check and one uniqueness
/// check of the array that holds it, no array of its own to retain. The methods that only read
/// are `mutating` too: a non-mutating one reads an element of an inline array by copying the
/// whole array first (Swift 6.3), a mutating one reads it where it lies (scripts/count-engine).
struct ChainStroke {
    /// Per-level storage, inline.
    typealias Levels<T> = InlineArray<4, T>
    /// The deepest chain: a list in a sheet in a page in a pane (the configuration refuses more).
    static let most = Levels<Int>.count

    /// Levels in the chain (0: no chain ends at this region).
    var count = 0
    var vertical = true
    /// Per position: its region, the pan its lines are given as (position 0: the stroke's own;
    /// every enclosing level has one, the configuration refuses a chain without), and its bounds
    /// on the chained axis (every level has some, likewise).
    var regions = Levels<Int>(repeating: 0)
    var gestures = Levels<Int>(repeating: -1)
    var bounds = Levels<AxisConstraint.Bounds>(repeating: .none)
    /// The positions in the order a move toward positive, and toward negative, reaches them.
    var towardPositive = Levels<Int>(repeating: 0)
    var towardNegative = Levels<Int>(repeating: 0)
    /// The stroke, per position: the offset before the bounds (raw), what the last event moved
    /// it by, its target at the end, its offset on the other axis (where it rests), and the id
    /// of its lines; and the pan's translation on the chained axis at the last event.
    var raw = Levels<Double>(repeating: 0)
    var consumed = Levels<Double>(repeating: 0)
    var target = Levels<Double>(repeating: 0)
    var across = Levels<Double>(repeating: 0)
    var ids = Levels<UInt64>(repeating: 0)
    var lastTranslation = 0.0

    /// Moves the levels by the pan's move since the last event (to translation `t`), by the
    /// rule: in the order a move that way reaches them, each takes what it can before its bound;
    /// the last takes everything left (past its bounds). (Android's rule, link by link: toward a
    /// link's outer-first direction the outer side first, else the inner; `motionOrder` lays the
    /// links' choices out in one list.) Every level's `consumed` is what it took (0 when the pan
    /// did not move).
    @inline(__always)
    mutating func push(to t: Double) {
        var left = t - lastTranslation
        lastTranslation = t
        let positive = left > 0
        let last = count - 1
        for k in 0...last {
            let p = positive ? towardPositive[k] : towardNegative[k]
            let take = k == last ? left : room(p, left)
            raw[p] += take
            consumed[p] = take
            left -= take
        }
    }

    /// The part of `d` that position `p`'s drag takes before it reaches its bound that way.
    mutating func room(_ p: Int, _ d: Double) -> Double {
        let b = bounds[p]
        return d > 0 ? min(d, max(0, b.max - raw[p])) : max(d, -max(0, raw[p] - b.min))
    }

    /// A `changed` event `out[i]` of the stroke, its move pushed: a line for each level it moved,
    /// the inner's own event becoming the first of them when the inner did not move (and staying
    /// the inner's when none moved).
    mutating func changed(_ out: inout [GestureEvent], at i: Int, to t: Double, sequences: [Int]) {
        push(to: t)
        var taken = consumed[0] != 0
        if taken { line(&out[i], 0, sequence: 0, ends: false) }
        for p in 1..<count where consumed[p] != 0 {
            if taken {
                out.append(out[i])
                line(&out[out.count - 1], p, sequence: sequences[gestures[p]], ends: false)
            } else {
                line(&out[i], p, sequence: sequences[gestures[p]], ends: false)
                taken = true
            }
        }
        if !taken { line(&out[i], 0, sequence: 0, ends: false) }
    }

    /// A began, ended or cancelled event `out[i]`: a line for every level.
    mutating func allLines(_ out: inout [GestureEvent], at i: Int, sequences: [Int]) {
        let ends = out[i].phase == .ended || out[i].phase == .cancelled
        line(&out[i], 0, sequence: 0, ends: ends)
        for p in 1..<count {
            out.append(out[i])
            line(&out[out.count - 1], p, sequence: sequences[gestures[p]], ends: ends)
        }
    }

    /// Position `p`'s line: its offset, consumed motion and (`ends`) target; for an enclosing
    /// level, also its pan's id, index and sequence.
    mutating func line(_ e: inout GestureEvent, _ p: Int, sequence: Int, ends: Bool) {
        if p > 0 { (e.id, e.gesture, e.sequence) = (ids[p], gestures[p], sequence) }
        e.offset = place(bounds[p].constrain(raw[p]), p)
        e.consumed = vertical ? PixelPoint(x: 0, y: consumed[p]) : PixelPoint(x: consumed[p], y: 0)
        if ends { e.target = place(target[p], p) }
    }

    /// A point with `v` on the chained axis, position `p`'s rest on the other.
    mutating func place(_ v: Double, _ p: Int) -> PixelPoint {
        vertical ? PixelPoint(x: across[p], y: v) : PixelPoint(x: v, y: across[p])
    }

    /// A stroke begins with every level where it rests (`rest`, per region); each enclosing
    /// level's lines get a new id from `ids`.
    mutating func begin(rest: [PixelPoint], ids next: inout UInt64) {
        for p in 0..<count {
            let at = rest[regions[p]]
            (raw[p], across[p]) = vertical ? (at.y, at.x) : (at.x, at.y)
            if p > 0 {
                ids[p] = next
                next += 1
            }
        }
        lastTranslation = 0
    }
}

extension CompiledConfiguration {
    /// The chain from region `i` outward (`i` first; `[i]` alone when it declares none), on the
    /// axis of its first link, each region once, and each link's outer-first sign: the one walk
    /// both the depth check and the engine's chains (`DragRests.chains`) take.
    static func chainPath(from i: Int, in regions: [CompiledRegion]) -> (levels: [Int], signs: [Double]) {
        var levels = [i], signs: [Double] = []
        let vertical = regions[i].chain?.vertical
        var at = i
        while let link = regions[at].chain, link.vertical == vertical, !levels.contains(link.outer) {
            levels.append(link.outer)
            signs.append(link.outerFirstSign)
            at = link.outer
        }
        return (levels, signs)
    }

    /// A chain deeper than a stroke holds (`ChainStroke.most` levels on one axis) is refused at
    /// its inner end, which then chains to nothing.
    static func refuseDeepChains(_ regions: inout [CompiledRegion], _ problems: inout [String?]) {
        for i in regions.indices where regions[i].chain != nil {
            let levels = chainPath(from: i, in: regions).levels
            guard levels.count > ChainStroke.most else { continue }
            let names = levels.map { "'\(regions[$0].name)'" }.joined(separator: " in ")
            problems[i] = "region '\(regions[i].name)''s chain goes \(levels.count) levels deep (\(names)); at most \(ChainStroke.most)"
            regions[i].chain = nil
        }
    }
}
