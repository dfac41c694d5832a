/// Scroll chaining (`DragChain`): one stroke's motion shared among nested drags, by Android's
/// rule. Each move of the inner pan, along the chained axis, goes first to whoever the rule
/// says (toward the link's `outerFirst`: the outer; the other way: the inner), up to that drag's
/// bound; the rest goes on to the next; what is left past every bound goes to the last in line,
/// which shows it as its bounds do (clamped or rubber-banded). So the offsets never jump, and
/// what the drags consumed adds up to the finger's travel. At the lift the release velocity goes
/// where the motion would: a drag with snap points snaps with its projection; one without
/// (a list) glides `velocity × projection` and, reaching its bound, hands the velocity left (as
/// an exponential glide has it there) to the next (Android's pre-fling).
///
/// The lines: each enclosing level's pan gets lines with its own id, offset, consumed motion
/// and, at the end, target. At began and at the end every level gets one; in between, the
/// levels the frame moved (one a frame but at a hand-off), the inner's own event becoming the
/// first of them when the inner did not move: a region that did not move has nothing to draw,
/// and a chained stroke costs the socket what an unchained pan does.
extension DragRests {
    /// Each region's chain, as the inner end of it (count 0: none ends there).
    static func chains(_ c: CompiledConfiguration) -> [ChainStroke] {
        c.regions.indices.map { r in
            let (path, signs) = CompiledConfiguration.chainPath(from: r, in: c.regions)
            var s = ChainStroke()
            // (Deeper than a stroke holds: refused with the configuration, never here.)
            guard let v = c.regions[r].chain?.vertical, path.count > 1, path.count <= ChainStroke.most else { return s }
            s.count = path.count
            s.vertical = v
            let positions = Array(path.indices)
            let up = motionOrder(positions, signs, towardPositive: true), down = motionOrder(positions, signs, towardPositive: false)
            for (p, region) in path.enumerated() {
                s.regions[p] = region
                s.bounds[p] = (v ? c.regions[region].drag?.y : c.regions[region].drag?.x)?.bounds ?? .none
                s.towardPositive[p] = up[p]
                s.towardNegative[p] = down[p]
                if p > 0, let g = c.regions[path[p - 1]].chain?.outerGesture { s.gestures[p] = g }
            }
            return s
        }
    }

    /// A chained inner region `r`'s pan event `out[i]`: its move shared along the chain by the
    /// rule, then the chain's lines (above). `ids` numbers the enclosing levels' lines at
    /// began; `sequences` is each gesture's sequence.
    mutating func applyChain(
        _ out: inout [GestureEvent], at i: Int, region r: Int, _ c: CompiledConfiguration, sequences: [Int], ids: inout UInt64
    ) {
        let e = (phase: out[i].phase, translation: out[i].translation)
        guard e.phase == .changed else { return applyChainEdge(&out, at: i, region: r, c, sequences: sequences, ids: &ids) }
        strokes[r].changed(&out, at: i, to: strokes[r].vertical ? e.translation.y : e.translation.x, sequences: sequences)
    }

    /// A chained stroke's began, ended or cancelled event: the levels set where they rest
    /// (began), the move shared, the release velocity shared and every level resting at its
    /// target (ended) or back where it rested (cancelled); and a line for every level. Apart
    /// from the frames in between, which it would slow.
    @inline(never)
    private mutating func applyChainEdge(
        _ out: inout [GestureEvent], at i: Int, region r: Int, _ c: CompiledConfiguration, sequences: [Int], ids: inout UInt64
    ) {
        let phase = out[i].phase
        let vertical = strokes[r].vertical
        if phase == .began { strokes[r].begin(rest: rest, ids: &ids) }
        strokes[r].push(to: Self.along(out[i].translation, vertical))
        switch phase {
        case .ended:
            fling(Self.along(out[i].velocity, vertical), r, c)
            for p in 0..<strokes[r].count { rest[strokes[r].regions[p]] = strokes[r].place(strokes[r].target[p], p) }
        case .cancelled:
            for p in 0..<strokes[r].count { strokes[r].target[p] = Self.along(rest[strokes[r].regions[p]], vertical) }
        case .began, .changed, .recognized:
            break
        }
        strokes[r].allLines(&out, at: i, sequences: sequences)
    }

    /// The release velocity `velocity` (px/s along the axis) shared along region `r`'s chain in
    /// the order motion that way goes; every level gets its target. Once a stroke.
    private mutating func fling(_ velocity: Double, _ r: Int, _ c: CompiledConfiguration) {
        var s = strokes[r]
        defer { strokes[r] = s }
        var v = velocity
        for p in 0..<s.count { s.target[p] = Self.restOf(s, p, velocity: 0, c) }
        for k in 0..<s.count where v != 0 {
            let p = v > 0 ? s.towardPositive[k] : s.towardNegative[k]
            guard let drag = c.regions[s.regions[p]].drag else { continue }
            let b = s.bounds[p]
            let offset = b.constrain(s.raw[p])
            let room = v > 0 ? b.max - offset : offset - b.min
            if room <= 0.5 { continue }  // at its bound: the velocity goes on
            let tau = drag.projection.secondsDouble
            let snaps = !((s.vertical ? drag.y : drag.x)?.snapPoints.isEmpty ?? true)
            if snaps || tau <= 0 {
                s.target[p] = Self.restOf(s, p, velocity: v, c)
                return
            }
            let glide = v * tau
            if abs(glide) <= room {
                s.target[p] = offset + glide
                return
            }
            s.target[p] = v > 0 ? b.max : b.min
            v -= (v > 0 ? room : -room) / tau  // the glide's speed when it meets the bound
        }
    }

    /// Where position `p` of stroke `s` rests after it moving at `velocity` (its snap points and
    /// projection, else its bounds).
    private static func restOf(_ s: ChainStroke, _ p: Int, velocity: Double, _ c: CompiledConfiguration) -> Double {
        guard let drag = c.regions[s.regions[p]].drag, let a = s.vertical ? drag.y : drag.x else { return s.raw[p] }
        return a.rest(offset: a.constrain(s.raw[p]), velocity: velocity, projection: drag.projection)
    }

    /// The levels of `path` in the order a move that way reaches them.
    static func motionOrder(_ path: [Int], _ signs: [Double], towardPositive: Bool, from k: Int = 0) -> [Int] {
        guard k < path.count - 1 else { return [path[k]] }
        let rest = motionOrder(path, signs, towardPositive: towardPositive, from: k + 1)
        return towardPositive == (signs[k] > 0) ? rest + [path[k]] : [path[k]] + rest
    }

    static func along(_ p: PixelPoint, _ vertical: Bool) -> Double { vertical ? p.y : p.x }
}
