import GestureEngine

/// A rectangle of the picture (x, y its top left).
struct Box {
    var x, y, w, h: Double

    func overlaps(_ b: Box) -> Bool { x < b.x + b.w && b.x < x + w && y < b.y + b.h && b.y < y + h }

    func contains(_ p: (Double, Double)) -> Bool { p.0 >= x && p.0 <= x + w && p.1 >= y && p.1 <= y + h }

    /// Whether the segment from `a` to `b` crosses the box (Liang–Barsky clipping).
    func meets(_ a: (Double, Double), _ b: (Double, Double)) -> Bool {
        if contains(a) || contains(b) { return true }
        let dx = b.0 - a.0, dy = b.1 - a.1
        var t0 = 0.0, t1 = 1.0
        for (p, q) in [(-dx, a.0 - x), (dx, x + w - a.0), (-dy, a.1 - y), (dy, y + h - a.1)] {
            if p == 0 {
                if q < 0 { return false }
                continue
            }
            let r = q / p
            if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
            if t0 > t1 { return false }
        }
        return true
    }
}

/// What a gesture label must not cover: the contact paths (as segments), the gesture marks and
/// the labels already placed, each bucketed in a coarse grid so that a place is tried against
/// what lies near it only (a long recording has many of each).
struct LabelObstacles {
    static let cell = 48.0
    var segments: [((Double, Double), (Double, Double))] = []
    var grid: [Int: [Int]] = [:]
    var boxes: [Box] = []
    var boxGrid: [Int: [Int]] = [:]

    static func key(_ cx: Int, _ cy: Int) -> Int { cx &* 100_003 &+ cy }

    static func cells(_ b: Box) -> [Int] {
        let x0 = Int((b.x / cell).rounded(.down)), x1 = Int(((b.x + b.w) / cell).rounded(.down))
        let y0 = Int((b.y / cell).rounded(.down)), y1 = Int(((b.y + b.h) / cell).rounded(.down))
        return (x0...max(x0, x1)).flatMap { cx in (y0...max(y0, y1)).map { key(cx, $0) } }
    }

    /// A path's segments, each in the cells it crosses (walked half a cell at a time: a segment
    /// across the screen is in a line of cells, not in every cell of its bounding box).
    mutating func add(path points: [(Double, Double)]) {
        for (a, b) in zip(points, points.dropFirst()) {
            let i = segments.count
            segments.append((a, b))
            let steps = max(1, Int((max(abs(b.0 - a.0), abs(b.1 - a.1)) / (Self.cell / 2)).rounded(.up)))
            var cells = Set<Int>()
            var from = a
            for s in 1...steps {
                let f = Double(s) / Double(steps)
                let to = (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f)
                cells.formUnion(Self.cells(Box(x: min(from.0, to.0), y: min(from.1, to.1), w: abs(from.0 - to.0), h: abs(from.1 - to.1))))
                from = to
            }
            for k in cells { grid[k, default: []].append(i) }
        }
        if points.count == 1, let p = points.first { add(box: Box(x: p.0 - 5, y: p.1 - 5, w: 10, h: 10)) }
    }

    /// A mark or a placed label.
    mutating func add(box b: Box) {
        for k in Self.cells(b) { boxGrid[k, default: []].append(boxes.count) }
        boxes.append(b)
    }

    func isFree(_ b: Box, ofPaths: Bool) -> Bool {
        let near = Self.cells(b)
        for k in near { for i in boxGrid[k] ?? [] where boxes[i].overlaps(b) { return false } }
        guard ofPaths else { return true }
        for k in near { for i in grid[k] ?? [] where b.meets(segments[i].0, segments[i].1) { return false } }
        return true
    }
}

extension TraceSVG {
    /// A label placed: its mark, its box, and whether it sits away from the mark (then a thin line
    /// joins them).
    struct PlacedLabel {
        var anchor: (Double, Double)
        var box: Box
        var text: String
        var color: String
        var moved: Bool
    }

    /// At most this many gestures are labelled (a long recording says how many more it has).
    static let labelLimit = 300

    /// Gesture labels where each gesture ended (or was recognized). Each goes to the first place
    /// near its mark, then farther out, that covers no other label, gesture mark or contact path,
    /// inside the screen; failing that, one that covers no label; a label away from its mark is
    /// joined to it by a thin line.
    static func drawLabels(_ trace: TraceRecording, _ l: Layout, _ svg: inout Canvas) {
        var obstacles = LabelObstacles()
        for p in trace.rawPaths + trace.paths { obstacles.add(path: p.points.map { (l.sx($0.position.x), l.sy($0.position.y)) }) }
        let all = gestureEnds(trace)
        let ends = all.prefix(labelLimit)
        for (_, last) in ends {
            let x = l.sx(last.position.x), y = l.sy(last.position.y)
            obstacles.add(box: Box(x: x - 6, y: y - 6, w: 12, h: 12))
        }
        let bounds = Box(x: l.sx(trace.screen.x), y: l.sy(trace.screen.y), w: trace.screen.width * l.k, h: trace.screen.height * l.k)
        var placed: [PlacedLabel] = []
        for (first, last) in ends {
            let text = label(trace, first: first, last: last)
            let anchor = (l.sx(last.position.x), l.sy(last.position.y))
            let (box, moved) = place(width: Double(text.count) * 6.9 + 8, near: anchor, in: bounds, &obstacles)
            placed.append(PlacedLabel(anchor: anchor, box: box, text: text, color: last.phase == .cancelled ? "#b00020" : "#111111", moved: moved))
        }
        for p in placed where p.moved {
            let to = (min(max(p.anchor.0, p.box.x), p.box.x + p.box.w), min(max(p.anchor.1, p.box.y), p.box.y + p.box.h))
            svg.line(p.anchor.0, p.anchor.1, to.0, to.1, stroke: "#777777")
        }
        for p in placed { svg.diamond(p.anchor.0, p.anchor.1, 5, fill: p.color) }
        for p in placed {
            svg.rect(p.box.x, p.box.y, p.box.w, p.box.h, fill: "#ffffffd9", stroke: nil)
            svg.text(p.box.x + 3, p.box.y + 12, p.text, size: 12, fill: p.color, weight: "bold")
        }
        if all.count > ends.count {
            svg.text(bounds.x + 4, bounds.y + bounds.h - 6, "the first \(ends.count) of \(all.count) gestures labelled", size: 11, fill: "#555")
        }
    }

    /// Where a label `width` wide goes near `anchor`: beside it (right, then left), above, below,
    /// each tried 14 px farther out at a time up to 300 px; the first place free of everything,
    /// else the first free of labels, else beside the mark. The place is then an obstacle.
    static func place(width w: Double, near anchor: (Double, Double), in bounds: Box, _ obstacles: inout LabelObstacles) -> (Box, Bool) {
        let h = 16.0, (ax, ay) = anchor
        var candidates: [Box] = []
        for step in 0...21 {
            let d = Double(step) * 14
            candidates += [
                Box(x: ax + 8, y: ay - 18 - d, w: w, h: h), Box(x: ax + 8, y: ay + 2 + d, w: w, h: h),
                Box(x: ax - 8 - w, y: ay - 18 - d, w: w, h: h), Box(x: ax - 8 - w, y: ay + 2 + d, w: w, h: h),
                Box(x: ax - w / 2, y: ay - 26 - d, w: w, h: h), Box(x: ax - w / 2, y: ay + 10 + d, w: w, h: h),
            ]
        }
        let inside = candidates.filter {
            $0.x >= bounds.x && $0.x + $0.w <= max(bounds.x + bounds.w, width - margin) && $0.y >= bounds.y && $0.y + $0.h <= bounds.y + bounds.h
        }
        let box = inside.first { obstacles.isFree($0, ofPaths: true) } ?? inside.first { obstacles.isFree($0, ofPaths: false) } ?? candidates[0]
        obstacles.add(box: box)
        let moved = box.x > ax + 10 || box.x + box.w < ax - 10 || box.y > ay + 4 || box.y + box.h < ay - 20
        return (box, moved)
    }

    /// Each gesture's first and last event, in order of first appearance (one pass).
    static func gestureEnds(_ trace: TraceRecording) -> [(GestureEvent, GestureEvent)] {
        var index: [UInt64: Int] = [:]
        var out: [(GestureEvent, GestureEvent)] = []
        for e in trace.events {
            if let i = index[e.id] {
                out[i].1 = e
            } else {
                index[e.id] = out.count
                out.append((e, e))
            }
        }
        return out
    }

    /// "pan ended · 4 fingers", "double_tap ×2", "swipe left · 1 finger".
    static func label(_ trace: TraceRecording, first: GestureEvent, last: GestureEvent) -> String {
        let name = trace.name(last.gesture)
        let fingers = "\(last.fingers) finger" + (last.fingers == 1 ? "" : "s")
        switch last.kind {
        case .tap: return "\(name)\(last.count > 1 ? " ×\(last.count)" : "") · \(fingers)"
        case .swipe: return "\(name) \(last.direction?.rawValue ?? "") · \(fingers)"
        case .pinch: return "\(name) \(last.phase.rawValue) · scale \(format(last.scale, 2)), \(format(last.rotation, 0))°"
        case .edgeSwipe: return "\(name) from \(last.edge?.rawValue ?? "?") \(last.phase.rawValue) · \(fingers)"
        case .pan:
            let rest = last.target.map { " → rests at (\(format($0.x, 0)), \(format($0.y, 0)))" } ?? ""
            return "\(name) \(last.phase.rawValue) · \(fingers)\(rest)"
        case .longPress: return "\(name) \(last.phase.rawValue) · \(fingers)"
        case .stroke:
            let shape = last.shape >= 0 && last.shape < trace.shapes.count ? trace.shapes[last.shape] : "?"
            return "\(name) \(shape) · score \(format(last.score, 2)) · \(fingers)"
        }
    }
}
