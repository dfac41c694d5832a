import GestureEngine

/// A picture of a stroke over the template it matched (`touchgesturectl strokes trace`): both
/// normalized paths in a 480 × 500 picture, fitted with a margin, the template wide and grey, the
/// stroke blue with a dot where it began, the title above.
public enum StrokeSVG {
    public static func render(path: [StrokePoint], template: [StrokePoint], title: String) -> String {
        let extent = (path + template).reduce(0.0) { max($0, abs($1.x), abs($1.y)) }
        let scale = extent > 0 ? 200 / extent : 1
        func place(_ p: StrokePoint) -> (Double, Double) { (240 + p.x * scale, 260 + p.y * scale) }
        var c = Canvas()
        c.open(width: 480, height: 500)
        c.text(12, 24, title, size: 16)
        c.polyline(template.map(place), stroke: "#999999", width: 6)
        c.polyline(path.map(place), stroke: "#1565c0", width: 2.5)
        if let first = path.first {
            let (x, y) = place(first)
            c.circle(x, y, 5, fill: "#1565c0")
        }
        c.close()
        return c.out
    }
}
