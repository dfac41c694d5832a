/// Where each region's dragged content rests, for drag constraints: a pan's events in a region
/// with `[region.drag]` get the constrained offset and, at its end, the rest target. A region
/// whose drag is chained to enclosing ones (`DragChain`) shares each move of its pan among
/// them (`DragChains.swift`); the engine gives the enclosing regions' lines from what is kept
/// here (`chainLevels`, `offset(of:)`, `consumed(of:)`, `target(of:)`).
struct DragRests {
    /// Per region: where its dragged content rests (px).
    var rest: [PixelPoint]
    /// Per region: it has drag constraints (looked up per pan event; asking the optional
    /// constraints themselves copied them).
    private var dragged: [Bool]
    /// Per region: its drag is the inner end of a chain; `paths[r]` is the chain from it
    /// outward (r first), `signs[r][k]` the outer-first sign of link k (path[k] → path[k + 1]).
    var chained: [Bool]
    var paths: [[Int]]
    var signs: [[Double]]
    /// Per region, during a chained stroke, on the chained axis: the offset before the bounds
    /// (raw), what the last event moved it by, and its target at the stroke's end.
    var raw: [Double]
    var consumed: [Double]
    var targets: [Double]
    /// Per inner region: its pan's translation on the chained axis at the last event.
    var lastTranslation: [Double]
    /// Per enclosing region: the id its lines carry during the chained stroke.
    var chainIDs: [UInt64]
    /// Per region taking part in a chain, read every chained event without touching the
    /// configuration (whose regions and constraints hold arrays to retain): its chain's axis,
    /// its bounds on it, and the pan its lines are given as when it encloses the stroke's region.
    var chainVertical: [Bool]
    var chainBounds: [AxisConstraint.Bounds?]
    var outerGesture: [Int]

    init(_ c: CompiledConfiguration) {
        rest = c.regions.map { $0.drag?.initial ?? .zero }
        dragged = c.regions.map { $0.drag != nil }
        chained = c.regions.map { $0.chain != nil }
        (paths, signs) = Self.chainPaths(c)
        raw = [Double](repeating: 0, count: c.regions.count)
        consumed = raw
        targets = raw
        lastTranslation = raw
        chainIDs = [UInt64](repeating: 0, count: c.regions.count)
        (chainVertical, chainBounds, outerGesture) = Self.chainFacts(c, paths)
    }

    /// For a new configuration (a reload, a client's `set_regions`: a list's range growing with
    /// its content): each region of the same name that drags still rests where it came to rest.
    init(_ c: CompiledConfiguration, keeping old: DragRests, of previous: CompiledConfiguration) {
        self.init(c)
        for (i, r) in c.regions.enumerated() where r.drag != nil {
            guard let j = previous.regions.firstIndex(where: { $0.name == r.name }), previous.regions[j].drag != nil else { continue }
            rest[i] = old.rest[j]
        }
    }

    /// Whether region `r` constrains drags (else `apply` changes nothing).
    func isDragged(_ r: Int) -> Bool { dragged[r] }

    /// Gives a pan event of region `r` its offset (and on ended/cancelled its target).
    mutating func apply(to e: inout GestureEvent, region r: Int, _ c: CompiledConfiguration) {
        guard e.kind == .pan, dragged[r], let drag = c.regions[r].drag else { return }
        if chained[r] { return applyChained(to: &e, region: r, c) }
        let raw = rest[r] + e.translation
        let offset = PixelPoint(x: drag.x?.constrain(raw.x) ?? raw.x, y: drag.y?.constrain(raw.y) ?? raw.y)
        e.offset = offset
        switch e.phase {
        case .ended:
            let target = PixelPoint(
                x: drag.x?.rest(offset: offset.x, velocity: e.velocity.x, projection: drag.projection) ?? offset.x,
                y: drag.y?.rest(offset: offset.y, velocity: e.velocity.y, projection: drag.projection) ?? offset.y)
            e.target = target
            rest[r] = target
        case .cancelled:
            e.target = rest[r]
        case .began, .changed, .recognized:
            break
        }
    }
}
