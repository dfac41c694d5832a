import GestureEngine

/// A calibration matrix fitted to touches on known targets (`touchgesturectl calibrate`, the
/// web bridge's `/calibrate` page): least squares over the points, in libinput's convention (the
/// 2×3 matrix on the panel's normalized axes, applied before `rotation`), with the residual of
/// each point in pixels and millimetres, and refused with its reason when it cannot be trusted.
/// Pure: the tools hand it the touches and the panel's geometry.
public struct CalibrationFit: Sendable {
    /// One touch: where the finger was on the panel's own axes (0…1, `ScreenGeometry.unit`), and
    /// the screen pixel it was asked to touch.
    public struct Point: Sendable, Equatable {
        public var u: Double, v: Double
        public var target: PixelPoint
        public init(u: Double, v: Double, target: PixelPoint) {
            self.u = u
            self.v = v
            self.target = target
        }
    }

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case tooFewPoints(Int)
        case onALine
        case foldsThePanel(determinant: Double)
        case tooLarge
        case missed(point: Int, millimeters: Double, limit: Double)

        public var description: String {
            switch self {
            case .tooFewPoints(let n): "a fit needs 3 touches at least, found \(n)"
            case .onALine: "the touches lie on a line (or on one point): touch targets in the corners, not along one edge"
            case .foldsThePanel(let d):
                "the fit folds the panel onto a line (a·e − b·d = \(format(d)), under 0.001): were the targets touched in order?"
            case .tooLarge:
                "the fit needs a number beyond ±\(Int(CalibrationFit.largestNumber)) (the panel's touches span a sliver of it): were the targets touched on this panel?"
            case .missed(let i, let mm, let limit):
                "touch \(i + 1) is \(format(mm)) mm from where the others put it (at most \(format(limit)) mm): touch each target once, in the order asked, and try again"
            }
        }
    }

    /// The matrix: x' = m[0]·u + m[1]·v + m[2], y' = m[3]·u + m[4]·v + m[5], for `[device]
    /// calibration` or `[[panel]] calibration`.
    public let matrix: [Double]
    /// Each point's distance from its target once calibrated, in screen pixels and in mm.
    public let residualPixels: [Double]
    public let residualMillimeters: [Double]
    public var worstMillimeters: Double { residualMillimeters.max() ?? 0 }
    public var worstPixels: Double { residualPixels.max() ?? 0 }
    public var rmsMillimeters: Double {
        residualMillimeters.isEmpty ? 0 : (residualMillimeters.reduce(0) { $0 + $1 * $1 } / Double(residualMillimeters.count)).squareRoot()
    }

    /// The largest number a calibration matrix may hold: libinput's matrices stay within a few
    /// units (a flip is -1, an offset 1); one that scales by a thousand or more is a typo.
    public static let largestNumber = 1000.0
    /// The smallest |a·e − b·d| a matrix may have: under it the panel folds onto a line.
    public static let smallestDeterminant = 1e-3

    /// What the configuration refuses in a matrix (`.tooLarge` or `.foldsThePanel`), or nil: one
    /// rule for the loader and the fit, so that a fit accepted is a file that loads.
    public static func problem(_ k: [Double]) -> Refusal? {
        guard k.count == 6, k.allSatisfy({ $0.isFinite && abs($0) <= largestNumber }) else { return .tooLarge }
        let det = k[0] * k[4] - k[1] * k[3]
        return abs(det) >= smallestDeterminant ? nil : .foldsThePanel(determinant: det)
    }

    /// The default bound on a point's residual: a fingertip's contact is 8-10 mm across and an
    /// installer aiming at a target lands within a few mm of it; a touch 6 mm off the fit is a
    /// target missed or touched out of order, not the panel's skew.
    public static let defaultLimitMM = 6.0

    /// Fits `points` for a panel of `sizeMM` (its active area) shown on `output` (px) turned by
    /// `rotation` degrees: the matrix that, applied as the configuration applies it, puts each
    /// touch on its target.
    public init(
        _ points: [Point], output: PixelRect, rotation: Int, sizeMM: (width: Double, height: Double), limitMM: Double = defaultLimitMM
    ) throws(Refusal) {
        guard points.count >= 3 else { throw .tooFewPoints(points.count) }
        // Targets back on the unit square before rotation: where the calibration must put them.
        let turn = unitMap(calibration: [1, 0, 0, 0, 1, 0], rotation: rotation)
        let unturn = invert(turn) ?? (1, 0, 0, 0, 1, 0)
        let goals = points.map { p -> (Double, Double) in
            let s = ((p.target.x - output.x) / max(1, output.width), (p.target.y - output.y) / max(1, output.height))
            return apply(unturn, s)
        }
        // Least squares: the normal equations (Σ w wᵀ) m = Σ w·goal for w = (u, v, 1), per axis.
        var a = [[Double]](repeating: [0, 0, 0], count: 3)
        var bx = [0.0, 0, 0], by = [0.0, 0, 0]
        for (p, g) in zip(points, goals) {
            let w = [p.u, p.v, 1]
            for i in 0..<3 {
                for j in 0..<3 { a[i][j] += w[i] * w[j] }
                bx[i] += w[i] * g.0
                by[i] += w[i] * g.1
            }
        }
        guard let x = solve3(a, bx), let y = solve3(a, by) else { throw .onALine }
        let m = [x[0], x[1], x[2], y[0], y[1], y[2]]
        // Checked as the file will hold it (six decimals), by the loader's own rule.
        matrix = m.map { $0.isFinite ? ($0 * 1e6).rounded() / 1e6 : $0 }
        switch Self.problem(matrix) {
        case .tooLarge?: throw .tooLarge
        case .foldsThePanel(let det)?: throw .foldsThePanel(determinant: det)
        default: break
        }
        // Residuals: the calibrated point's distance from its goal, on screen (rotated, scaled
        // to the output) and on the glass (back through the matrix to the panel's mm).
        var px: [Double] = [], mm: [Double] = []
        let inverseLinear = invert((m[0], m[1], 0, m[3], m[4], 0)) ?? (1, 0, 0, 0, 1, 0)
        for (p, g) in zip(points, goals) {
            let e = (m[0] * p.u + m[1] * p.v + m[2] - g.0, m[3] * p.u + m[4] * p.v + m[5] - g.1)
            let r = apply((turn.0, turn.1, 0, turn.3, turn.4, 0), e)
            px.append(hypot(r.0 * output.width, r.1 * output.height))
            let q = apply(inverseLinear, e)
            mm.append(hypot(q.0 * sizeMM.width, q.1 * sizeMM.height))
        }
        residualPixels = px
        residualMillimeters = mm
        if let worst = mm.indices.max(by: { mm[$0] < mm[$1] }), mm[worst] > limitMM {
            throw .missed(point: worst, millimeters: mm[worst], limit: limitMM)
        }
    }

    /// The targets a calibration asks for: the output's four corners (its first pixels' edges and
    /// its far edges, where an axis's minimum and maximum land), or, `inset` (0…0.4 of the
    /// output's size) in from them, targets a page draws. In reading order, as xinput_calibrator
    /// asks for them: top left, top right, bottom left, bottom right (`targetNames`).
    public static func targets(output: PixelRect, inset: Double = 0) -> [PixelPoint] {
        let i = min(max(inset, 0), 0.4)
        let left = output.x + i * output.width, right = output.x + (1 - i) * output.width
        let top = output.y + i * output.height, bottom = output.y + (1 - i) * output.height
        return [PixelPoint(x: left, y: top), PixelPoint(x: right, y: top), PixelPoint(x: left, y: bottom), PixelPoint(x: right, y: bottom)]
    }

    public static let targetNames = ["top left", "top right", "bottom left", "bottom right"]

    /// The fit of four corner touches taken in `targets`' order; when that is refused, the fit
    /// with the last two taken the other way round (bottom right before bottom left: round the
    /// screen, the other common order), if that one fits. `swapped` says which was taken. Two
    /// orders only: any other would be a guess (a mirrored order fits a mirrored panel exactly).
    public static func corners(
        _ points: [Point], output: PixelRect, rotation: Int, sizeMM: (width: Double, height: Double), limitMM: Double = defaultLimitMM
    ) throws(Refusal) -> (fit: CalibrationFit, swapped: Bool) {
        do {
            return (try CalibrationFit(points, output: output, rotation: rotation, sizeMM: sizeMM, limitMM: limitMM), false)
        } catch {
            guard points.count == 4 else { throw error }
            var round = points
            (round[2].target, round[3].target) = (points[3].target, points[2].target)
            guard let fit = try? CalibrationFit(round, output: output, rotation: rotation, sizeMM: sizeMM, limitMM: limitMM) else { throw error }
            return (fit, true)
        }
    }

    /// The matrix with the rotation folded in: what libinput's `LIBINPUT_CALIBRATION_MATRIX`
    /// must be for a compositor reading the panel itself to place touches as the daemon does.
    public static func libinputMatrix(_ calibration: [Double], rotation: Int) -> [Double] {
        let m = unitMap(calibration: calibration, rotation: rotation)
        return [m.0, m.1, m.2, m.3, m.4, m.5].map { ($0 * 1e6).rounded() / 1e6 + 0 }
    }
}

private func apply(_ m: Affine, _ p: (Double, Double)) -> (Double, Double) {
    (m.0 * p.0 + m.1 * p.1 + m.2, m.3 * p.0 + m.4 * p.1 + m.5)
}

/// The inverse of an affine map, nil when it folds the plane.
private func invert(_ m: Affine) -> Affine? {
    let det = m.0 * m.4 - m.1 * m.3
    guard det != 0 && det.isFinite else { return nil }
    let a = m.4 / det, b = -m.1 / det, d = -m.3 / det, e = m.0 / det
    return (a, b, -(a * m.2 + b * m.5), d, e, -(d * m.2 + e * m.5))
}

/// Solves a 3×3 system by Gaussian elimination with partial pivoting; nil when it is singular
/// (the points lie on a line).
private func solve3(_ a: [[Double]], _ b: [Double]) -> [Double]? {
    var m = a, r = b
    let scale = max(1e-12, a.flatMap { $0 }.map(abs).max() ?? 0)
    for col in 0..<3 {
        guard let pivot = (col..<3).max(by: { abs(m[$0][col]) < abs(m[$1][col]) }), abs(m[pivot][col]) > 1e-9 * scale else { return nil }
        m.swapAt(col, pivot)
        r.swapAt(col, pivot)
        for row in (col + 1)..<3 {
            let f = m[row][col] / m[col][col]
            for k in col..<3 { m[row][k] -= f * m[col][k] }
            r[row] -= f * r[col]
        }
    }
    var x = [0.0, 0, 0]
    for row in stride(from: 2, through: 0, by: -1) {
        var s = r[row]
        for k in (row + 1)..<3 { s -= m[row][k] * x[k] }
        x[row] = s / m[row][row]
    }
    return x
}

private func hypot(_ a: Double, _ b: Double) -> Double { (a * a + b * b).squareRoot() }

private func format(_ d: Double) -> String {
    let r = (d * 100).rounded() / 100
    return r == r.rounded() ? String(Int(r)) : String(r)
}
