/// A point of a stroke's path on the glass, in millimetres: shapes are matched in mm, so a panel
/// whose pixels are not square does not bend them.
public struct StrokePoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
}

/// How a path is made comparable with a template, after Protractor (Y. Li, CHI 2010), the
/// closed-form successor of Wobbrock's $1: resampled to `pointCount` points equally spaced along
/// it, moved so that their centroid is the origin, and scaled to unit length as one vector
/// (x0, y0, x1, y1, ...). Position, size and speed then no longer matter; direction and the order
/// the path was drawn in still do (a clockwise circle is not a counter-clockwise one).
public enum StrokeShape {
    /// Points of a normalized path. $1 resamples to 64, Protractor to 16; 32 keeps the corners of
    /// a star or a zigzag and halves the match's cost against 64.
    public static let pointCount = 32
    /// Numbers in a normalized path's vector.
    public static let vectorLength = 2 * pointCount

    /// The normalized vector of `path` written into `out` (emptied first, its storage kept: no
    /// allocation once it has held a vector); false when the path has no length.
    @discardableResult
    public static func normalize(_ path: borrowing Span<StrokePoint>, into out: inout [Double]) -> Bool {
        out.removeAll(keepingCapacity: true)
        var length = 0.0
        var i = 1
        while i < path.count {
            length += distance(path[i - 1], path[i])
            i += 1
        }
        guard path.count >= 2, length > 0 else { return false }
        resample(path, step: length / Double(pointCount - 1), into: &out)
        var cx = 0.0, cy = 0.0
        var k = 0
        while k < out.count {
            cx += out[k]
            cy += out[k + 1]
            k += 2
        }
        cx /= Double(pointCount)
        cy /= Double(pointCount)
        var norm = 0.0
        k = 0
        while k < out.count {
            out[k] -= cx
            out[k + 1] -= cy
            norm += out[k] * out[k] + out[k + 1] * out[k + 1]
            k += 2
        }
        let scale = 1 / norm.squareRoot()
        for j in out.indices { out[j] *= scale }
        return true
    }

    /// `normalize`, for a path held in an array (tools and tests).
    public static func normalized(_ path: [StrokePoint]) -> [Double]? {
        var out: [Double] = []
        return normalize(path.span, into: &out) ? out : nil
    }

    /// `pointCount` points `step` apart along the path (its first and last point included).
    private static func resample(_ path: borrowing Span<StrokePoint>, step: Double, into out: inout [Double]) {
        out.append(path[0].x)
        out.append(path[0].y)
        var carried = 0.0
        var from = path[0]
        var i = 1
        while i < path.count && out.count < vectorLength - 2 {
            let to = path[i]
            let d = distance(from, to)
            if d > 0 && carried + d >= step {
                let t = (step - carried) / d
                from = StrokePoint(x: from.x + t * (to.x - from.x), y: from.y + t * (to.y - from.y))
                out.append(from.x)
                out.append(from.y)
                carried = 0
            } else {
                carried += d
                from = to
                i += 1
            }
        }
        // Rounding can leave the last point short: the path's end closes it.
        let last = path[path.count - 1]
        while out.count < vectorLength {
            out.append(last.x)
            out.append(last.y)
        }
    }

    static func distance(_ a: StrokePoint, _ b: StrokePoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The sign of a normalized path's turning: the shoelace sum of the closed polygon its points
    /// make. Positive turns clockwise on a y-down screen.
    public static func turnsClockwise(_ v: borrowing Span<Double>) -> Bool {
        var area = 0.0
        var k = 0
        while k + 1 < v.count {
            let n = (k + 2) % v.count
            area += v[k] * v[n + 1] - v[n] * v[k + 1]
            k += 2
        }
        return area > 0
    }
}

/// One example of a named shape: a normalized path (`StrokeShape`), and how it may be drawn.
/// Several templates may share a name (examples of one shape); the best of them is its score.
public struct StrokeTemplate: Hashable, Sendable {
    public var name: String
    /// `StrokeShape.vectorLength` numbers: x0, y0, x1, y1, ...
    public var vector: [Double]
    /// Matched at any angle; otherwise turned at most `Thresholds.strokeRotationTolerance`.
    public var rotationInvariant: Bool
    /// Matched drawn either way round (a circle clockwise or not); otherwise as it was drawn.
    public var eitherDirection: Bool

    public init(name: String, vector: [Double], rotationInvariant: Bool = false, eitherDirection: Bool = false) {
        (self.name, self.vector, self.rotationInvariant, self.eitherDirection) = (name, vector, rotationInvariant, eitherDirection)
    }

    /// A template from a path (a recording's stroke); nil when the path has no length.
    public init?(name: String, path: [StrokePoint], rotationInvariant: Bool = false, eitherDirection: Bool = false) {
        guard let v = StrokeShape.normalized(path) else { return nil }
        self.init(name: name, vector: v, rotationInvariant: rotationInvariant, eitherDirection: eitherDirection)
    }

    /// Is `vector` a normalized path (the right length, finite, centred, of unit length)? A
    /// template file is checked with this before it is used.
    public static func isNormalized(_ vector: [Double]) -> Bool {
        guard vector.count == StrokeShape.vectorLength, vector.allSatisfy(\.isFinite) else { return false }
        var cx = 0.0, cy = 0.0, norm = 0.0
        var k = 0
        while k < vector.count {
            cx += vector[k]
            cy += vector[k + 1]
            norm += vector[k] * vector[k] + vector[k + 1] * vector[k + 1]
            k += 2
        }
        // Within what six decimals a number (as `strokes learn` writes them) leave.
        let slack = 1e-3
        return abs(cx) < slack && abs(cy) < slack && abs(norm - 1) < slack
    }

    /// The shapes every configuration has without a template file: `circle`, one finger round
    /// once, either way, at any angle (so from any starting point).
    public static let builtIn: [StrokeTemplate] = [circle]

    static var circle: StrokeTemplate {
        let n = 2 * StrokeShape.pointCount
        let path = (0...n).map { i -> StrokePoint in
            let (c, s) = Angle.cosineAndSine(2 * Angle.pi * Double(i) / Double(n))
            return StrokePoint(x: c, y: s)
        }
        return StrokeTemplate(name: "circle", path: path, rotationInvariant: true, eitherDirection: true)!
    }
}

/// Trigonometry by the standard library alone (GestureEngine imports no Glibc).
enum Angle {
    static let pi = 3.141_592_653_589_793
    /// Terms of the series: the 23rd of sin π is under 1e-20.
    static let seriesTerms = 24.0

    /// cos x and sin x by their series after reducing x to -π...π (exact to ~1e-15 there).
    static func cosineAndSine(_ x: Double) -> (cos: Double, sin: Double) {
        guard x.isFinite else { return (.nan, .nan) }
        var r = x.truncatingRemainder(dividingBy: 2 * pi)
        if r > pi { r -= 2 * pi }
        if r < -pi { r += 2 * pi }
        var c = 1.0, s = r
        var termC = 1.0, termS = r
        var k = 1.0
        while k < Self.seriesTerms {
            termC *= -r * r / ((2 * k - 1) * (2 * k))
            termS *= -r * r / ((2 * k) * (2 * k + 1))
            c += termC
            s += termS
            k += 1
        }
        return (c, s)
    }
}
