/// Where each region's dragged content rests, for drag constraints: a pan's events in a region
/// with `[region.drag]` get the constrained offset and, at its end, the rest target.
struct DragRests {
    /// Per region: where its dragged content rests (px).
    private var rest: [PixelPoint]
    /// Per region: it has drag constraints (looked up per pan event; asking the optional
    /// constraints themselves copied them).
    private var dragged: [Bool]

    init(_ c: CompiledConfiguration) {
        rest = c.regions.map { $0.drag?.initial ?? .zero }
        dragged = c.regions.map { $0.drag != nil }
    }

    /// Gives a pan event of region `r` its offset (and on ended/cancelled its target).
    @inline(__always)
    /// Whether region `r` constrains drags (else `apply` changes nothing).
    func isDragged(_ r: Int) -> Bool { dragged[r] }

    mutating func apply(to e: inout GestureEvent, region r: Int, _ c: CompiledConfiguration) {
        guard e.kind == .pan, dragged[r], let drag = c.regions[r].drag else { return }
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
