import GestureEngine
import Testing

@testable import TouchFrames

/// The calibrator's fit: a skewed panel's touches on the corners give back its matrix, and the
/// geometry with that matrix puts each touch on its target.
@Suite struct CalibrationFitTests {
    let screen = PixelRect(x: 0, y: 0, width: 1920, height: 1080)
    let size = (width: 344.2, height: 193.6)
    /// The skew of the test panel: where a finger on the screen's normalized (p, q) is on the
    /// panel's axes (the inverse of the calibration a fit must find). The glass reaches past the
    /// display on every side, as a skewed panel's does: the screen's corners are inside its range.
    let skew: (Double, Double, Double, Double, Double, Double) = (0.9, 0.02, 0.04, -0.01, 0.92, 0.05)

    /// The panel's normalized position of a finger on screen pixel `t` (rotation undone first).
    func touch(_ t: PixelPoint, output: PixelRect, rotation: Int = 0) -> CalibrationFit.Point {
        var p = ((t.x - output.x) / output.width, (t.y - output.y) / output.height)
        switch rotation {
        case 90: p = (p.1, 1 - p.0)
        case 180: p = (1 - p.0, 1 - p.1)
        case 270: p = (1 - p.1, p.0)
        default: break
        }
        let s = skew
        return CalibrationFit.Point(u: s.0 * p.0 + s.1 * p.1 + s.2, v: s.3 * p.0 + s.4 * p.1 + s.5, target: t)
    }

    /// Raw units of a 0…4095 axis for a normalized position (as the panel would report it).
    func units(_ u: Double) -> Int32 { Int32((u * 4096).rounded(.down)) }

    @Test(arguments: [0, 90, 180, 270])
    func fourCorners_ofASkewedPanel_landOnTheCorners(rotation: Int) throws {
        let targets = CalibrationFit.targets(output: screen)
        let fit = try CalibrationFit(targets.map { touch($0, output: screen, rotation: rotation) }, output: screen, rotation: rotation, sizeMM: size)
        #expect(fit.worstPixels < 0.01 && fit.worstMillimeters < 0.01)
        // The geometry the daemon builds from the matrix puts the panel's units on each corner.
        var g = GeometryConfiguration()
        g.calibration = fit.matrix
        g.rotation = rotation
        let axis = AbsAxis(minimum: 0, maximum: 4095)
        let geometry = ScreenGeometry(x: axis, y: axis, configuration: g)
        for t in targets {
            let p = touch(t, output: screen, rotation: rotation)
            let at = geometry.map(x: units(p.u), y: units(p.v))
            // Within 1 px (the far edges clamp to the last pixel, 1919 and 1079).
            #expect(abs(at.x - min(t.x, 1919)) <= 1 && abs(at.y - min(t.y, 1079)) <= 1, "\(t) -> \(at)")
        }
    }

    @Test func targetsInsetOnAnOutput_fitThatOutput() throws {
        let right = PixelRect(x: 1920, y: 0, width: 1080, height: 1920)
        let targets = CalibrationFit.targets(output: right, inset: 0.1)
        #expect(targets[0] == PixelPoint(x: 2028, y: 192))
        let fit = try CalibrationFit(targets.map { touch($0, output: right) }, output: right, rotation: 0, sizeMM: size)
        let inverse = [1 / 0.9, 0, 0, 0, 1 / 0.92, 0]
        #expect(abs(fit.matrix[0] - inverse[0]) < 0.03 && abs(fit.matrix[4] - inverse[4]) < 0.03, "\(fit.matrix)")
        #expect(fit.worstPixels < 0.01)
    }

    @Test func aTouchOffByAFewMillimetres_isShownInTheResidual() throws {
        var points = CalibrationFit.targets(output: screen).map { touch($0, output: screen) }
        points[2].u += 3 / size.width  // 3 mm right of where the finger was asked to be
        let fit = try CalibrationFit(points, output: screen, rotation: 0, sizeMM: size)
        // Least squares shares the error among the four: each point is off by 0.75 mm.
        #expect(abs(fit.worstMillimeters - 0.75) < 0.05, "\(fit.residualMillimeters)")
        #expect(fit.worstPixels > 3 && fit.worstPixels < 5)
    }

    @Test func cornersTouchedOutOfOrder_areRefused() {
        let ordered = CalibrationFit.targets(output: screen).map { touch($0, output: screen) }
        var points = ordered
        // Two neighbouring corners swapped (top left and top right: no symmetry of the screen, so
        // no affine map, takes one order to the other; a mirror or a turn would fit exactly).
        (points[0].u, points[0].v, points[1].u, points[1].v) = (points[1].u, points[1].v, points[0].u, points[0].v)
        // Swapped corners fold the fit (or, with other points, leave one far off it).
        #expect(throws: CalibrationFit.Refusal.self) {
            try CalibrationFit(points, output: screen, rotation: 0, sizeMM: size)
        }
        var five = ordered + [touch(PixelPoint(x: 960, y: 540), output: screen)]
        five[4].target = PixelPoint(x: 1900, y: 60)  // the middle touched for the top right corner
        #expect {
            try CalibrationFit(five, output: screen, rotation: 0, sizeMM: size)
        } throws: { error in
            guard case .missed(_, let mm, let limit)? = error as? CalibrationFit.Refusal else { return false }
            return mm > limit
        }
    }

    @Test func cornersTakenRoundTheScreen_areFitted_andSaidSwapped() throws {
        let targets = CalibrationFit.targets(output: screen)
        #expect(CalibrationFit.targetNames == ["top left", "top right", "bottom left", "bottom right"])
        var points = targets.map { touch($0, output: screen) }
        let inOrder = try CalibrationFit.corners(points, output: screen, rotation: 0, sizeMM: size)
        #expect(!inOrder.swapped && inOrder.fit.worstPixels < 0.01)
        // The installer touched bottom right when asked for bottom left, then bottom left.
        (points[2].u, points[2].v, points[3].u, points[3].v) = (points[3].u, points[3].v, points[2].u, points[2].v)
        let round = try CalibrationFit.corners(points, output: screen, rotation: 0, sizeMM: size)
        #expect(round.swapped && round.fit.matrix == inOrder.fit.matrix)
    }

    @Test func tooFew_orOnALine_areRefused() {
        let points = CalibrationFit.targets(output: screen).map { touch($0, output: screen) }
        #expect(throws: CalibrationFit.Refusal.tooFewPoints(2)) {
            try CalibrationFit(Array(points.prefix(2)), output: screen, rotation: 0, sizeMM: size)
        }
        let line = (0..<4).map { CalibrationFit.Point(u: 0.5, v: 0.5, target: points[$0].target) }
        #expect(throws: CalibrationFit.Refusal.onALine) {
            try CalibrationFit(line, output: screen, rotation: 0, sizeMM: size)
        }
    }

    @Test func theLibinputMatrix_foldsTheRotationIn() {
        #expect(CalibrationFit.libinputMatrix([1, 0, 0, 0, 1, 0], rotation: 90) == [0, -1, 1, 1, 0, 0])
        #expect(CalibrationFit.libinputMatrix([1, 0, 0, 0, -1, 1], rotation: 0) == [1, 0, 0, 0, -1, 1])
    }
}
