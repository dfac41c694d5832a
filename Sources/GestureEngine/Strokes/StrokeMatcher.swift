/// What a stroke matched: the template's shape, its score, and how the ordinary gestures scored.
public struct StrokeMatch: Hashable, Sendable {
    /// The best template's place in the matcher's templates, and its shape's name.
    public var template: Int
    public var name: String
    /// The cosine similarity at the best allowed angle: 1 is the template itself; drawings of
    /// the shape score about 0.9 to 1, of other shapes mostly less (docs/BENCHMARKS.md, "Strokes").
    public var score: Double
    /// The best score of a straight line, a plain arc or a scroll out and back (a pan, a swipe). A stroke more like one
    /// of them than like its best template is no shape, whatever its score.
    public var ordinaryScore: Double
    /// The path turns clockwise on the screen (the sign of the area it encloses).
    public var clockwise: Bool

    /// The stroke is the shape: it beats the ordinary gestures and reaches `minScore`.
    public func isShape(minScore: Double) -> Bool { score > ordinaryScore && score >= minScore }
}

/// Matches normalized paths against templates (Protractor: the cosine similarity of two vectors
/// at the angle that best aligns them, found in closed form, Li 2010), and against the paths of
/// ordinary gestures (straight lines, arcs bowing either way up to a half circle's depth, scrolls
/// out and back): a reject model, so that a swipe is not taken for the nearest shape (a straight
/// flick scores about 0.95 against a check mark; it scores about 1 against a line).
public struct StrokeMatcher: Sendable {
    public let templates: [StrokeTemplate]
    /// The most a rotation-sensitive template is turned, as its cosine and sine.
    private let toleranceCos: Double, toleranceSin: Double
    private let ordinary: [[Double]]

    /// `tolerance`: the most (degrees) a template that is not rotation-invariant may be turned
    /// to match; a hand's tilt (docs/CONFIG.md, `stroke_rotation_tolerance`).
    public init(templates: [StrokeTemplate], tolerance: Double) {
        self.templates = templates
        let t = min(max(tolerance, 0), 180) * Angle.pi / 180
        (toleranceCos, toleranceSin) = Angle.cosineAndSine(t)
        var paths: [[StrokePoint]] = []
        for depth in Self.ordinaryDepths { paths.append(Self.arc(depth, from: 0, to: 1)) }
        // Out along a line or a shallow arc, then back over it to `back` of the way.
        for depth in Self.scrollBackDepths {
            for back in Self.scrollBackEnds { paths.append(Self.arc(depth, from: 0, to: 1) + Self.arc(depth, from: 1, to: back)) }
        }
        ordinary = paths.compactMap { StrokeShape.normalized($0) }
    }

    /// A parabola bowing by `depth` of its length, walked from `from` to `to` (0...1 along it).
    static func arc(_ depth: Double, from: Double, to: Double) -> [StrokePoint] {
        (0...ordinarySegments).map { i in
            let u = from + (to - from) * Double(i) / Double(ordinarySegments)
            return StrokePoint(x: u, y: depth * 4 * u * (1 - u))
        }
    }

    /// The reject model's paths: parabolas bowing by this share of their length either way (0: a
    /// straight line; 0.4: nearly a half circle, the deepest a scroll or a flick bows), each drawn
    /// with `ordinarySegments` segments before it is normalized as a stroke is; and a scroll out
    /// and back (a list pulled down and pushed up again), along a line or a shallow arc, back to
    /// where it began or to `scrollBackEnds` of the way.
    static let ordinaryDepths = [0, 0.1, 0.2, 0.3, 0.4, -0.1, -0.2, -0.3, -0.4]
    static let scrollBackDepths = [0, 0.1, -0.1]
    static let scrollBackEnds = [0, 0.3]
    static let ordinarySegments = 40

    /// The best template for a normalized path (`StrokeShape.normalize`); nil with no template.
    public func match(_ v: borrowing Span<Double>) -> StrokeMatch? {
        guard v.count == StrokeShape.vectorLength else { return nil }
        guard !templates.isEmpty else { return nil }
        var best = (index: 0, score: -Double.infinity)
        for (i, t) in templates.enumerated() {
            var score = similarity(t.vector.span, v, invariant: t.rotationInvariant, reversed: false)
            if t.eitherDirection {
                score = max(score, similarity(t.vector.span, v, invariant: t.rotationInvariant, reversed: true))
            }
            if score > best.score { best = (i, score) }
        }
        var ordinaryScore = -1.0
        for o in ordinary {
            ordinaryScore = max(ordinaryScore, similarity(o.span, v, invariant: true, reversed: false))
        }
        return StrokeMatch(
            // A cosine below 0 (a path unlike the template at every allowed angle) is no likeness: 0.
            template: best.index, name: templates[best.index].name, score: max(0, best.score), ordinaryScore: ordinaryScore,
            clockwise: StrokeShape.turnsClockwise(v))
    }

    /// How template `index` lies best on path `v`: the angle (radians, clockwise on screen) that
    /// turns the path onto the template within what the template allows, and whether the path
    /// is read from its end (for a picture of the match: `touchgesturectl strokes trace`).
    public func alignment(of index: Int, with v: [Double]) -> (angle: Double, reversed: Bool) {
        let t = templates[index]
        let forward = similarity(t.vector.span, v.span, invariant: t.rotationInvariant, reversed: false)
        let reversed = t.eitherDirection && similarity(t.vector.span, v.span, invariant: t.rotationInvariant, reversed: true) > forward
        var a = 0.0, b = 0.0
        let n = StrokeShape.pointCount
        for i in 0..<n {
            let j = reversed ? n - 1 - i : i
            a += t.vector[2 * i] * v[2 * j] + t.vector[2 * i + 1] * v[2 * j + 1]
            b += t.vector[2 * i] * v[2 * j + 1] - t.vector[2 * i + 1] * v[2 * j]
        }
        var angle = arcTangent2(b, a)
        let limit = arcTangent2(toleranceSin, toleranceCos)
        if !t.rotationInvariant { angle = min(max(angle, -limit), limit) }
        return (-angle, reversed)
    }

    /// The cosine similarity of template `t` and path `v` (both normalized) at the best angle
    /// allowed: any angle when `invariant`, else within the tolerance. `reversed`: `v` read from
    /// its end.
    func similarity(_ t: borrowing Span<Double>, _ v: borrowing Span<Double>, invariant: Bool, reversed: Bool) -> Double {
        // a = Σ t·v, b = Σ t×v; turning v by θ gives a cos θ + b sin θ, largest at θ = atan2(b, a)
        // where it is √(a² + b²).
        var a = 0.0, b = 0.0
        let n = StrokeShape.pointCount
        var i = 0
        while i < n {
            let j = reversed ? n - 1 - i : i
            let tx = t[2 * i], ty = t[2 * i + 1]
            let vx = v[2 * j], vy = v[2 * j + 1]
            a += tx * vx + ty * vy
            b += tx * vy - ty * vx
            i += 1
        }
        let best = (a * a + b * b).squareRoot()
        // θ within ±tolerance: cos θ = a / √(a² + b²) ≥ cos tolerance.
        if invariant || a >= best * toleranceCos { return best }
        // Otherwise the best allowed angle is the nearest bound (the similarity is a sinusoid
        // of θ with one peak), turned toward θ's side. θ = -tol turns by -b sin tol.
        return a * toleranceCos + abs(b) * toleranceSin
    }
}
