/// Where each region's dragged content rests, for drag constraints: a pan's events in a region
/// with `[region.drag]` get the constrained offset and, at its end, the rest target. A region
/// whose drag is chained to enclosing ones (`DragChain`) shares each move of its pan among
/// them and gives the enclosing regions' lines (`DragChains.swift`, `applyChain`).
///
/// What a pan event reads every frame is kept in flat arrays of plain values (bounds, not the
/// configuration's constraints, whose snap points are arrays to retain and release); the
/// configuration is read at a stroke's end only.
struct DragRests {
    /// Per region: where its dragged content rests (px).
    var rest: [PixelPoint]
    /// Per region: its drag bounds on each axis (nil: the region constrains no drag).
    private var axes: [DragAxes?]
    /// Per region: whether it constrains drags, and whether a chain ends there (asked for every
    /// event of every gesture: a flag, not the bounds or the chain read to see).
    private var dragged: [Bool]
    private var chained: [Bool]
    /// Per region: the chain of which it is the inner end, and its stroke (`ChainStroke`).
    var strokes: [ChainStroke]

    init(_ c: CompiledConfiguration) {
        rest = c.regions.map { $0.drag?.initial ?? .zero }
        axes = c.regions.map { r in r.drag.map { DragAxes(x: $0.x?.bounds, y: $0.y?.bounds) } }
        strokes = Self.chains(c)
        dragged = axes.map { $0 != nil }
        chained = strokes.map { $0.count > 1 }
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

    /// Whether region `r`'s drag is the inner end of a chain.
    func isChained(_ r: Int) -> Bool { chained[r] }

    /// Gives a pan event of region `r` (not chained: `applyChain`) its offset (and on
    /// ended/cancelled its target).
    mutating func apply(to e: inout GestureEvent, region r: Int, _ c: CompiledConfiguration) {
        guard e.kind == .pan, let a = axes[r] else { return }
        let raw = rest[r] + e.translation
        let offset = PixelPoint(x: a.x?.constrain(raw.x) ?? raw.x, y: a.y?.constrain(raw.y) ?? raw.y)
        e.offset = offset
        switch e.phase {
        case .ended:
            guard let drag = c.regions[r].drag else { return }
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

/// A region's drag bounds on each axis (nil: that axis moves freely).
struct DragAxes {
    var x: AxisConstraint.Bounds?
    var y: AxisConstraint.Bounds?
}
