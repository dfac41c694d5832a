import GestureEngine
import Testing
import TouchFrames
import TouchMirror

/// The mirror's positions when a panel is calibrated or rotated: where a compositor mapping the
/// mirror onto the screen puts a touch is where the daemon's own gestures see it.
@Suite struct MirrorGeometryTests {
    /// The project's virtual panel: 3840 × 2160 units, 15 a mm.
    static let x = AbsAxis(minimum: 0, maximum: 3839, resolution: 15)
    static let y = AbsAxis(minimum: 0, maximum: 2159, resolution: 15)

    @Test func identity_andNoRotation_isNoMirrorGeometry() {
        #expect(MirrorGeometry(x: Self.x, y: Self.y, calibration: [1, 0, 0, 0, 1, 0], rotation: 0) == nil)
        #expect(MirrorGeometry(x: Self.x, y: Self.y, calibration: [], rotation: 360) == nil)
        #expect(MirrorGeometry(x: Self.x, y: Self.y, calibration: [1, 0, 0, 0, 1, 0], rotation: 90) != nil)
    }

    @Test func quarterTurn_swapsTheAxes_andMapsTheCornersOntoTheirFullRange() throws {
        let g = try #require(MirrorGeometry(x: Self.x, y: Self.y, calibration: [], rotation: 90))
        // The mirror's X is the panel's Y (range and resolution), and the other way round.
        #expect(g.xAxis == Self.y && g.yAxis == Self.x)
        // Clockwise: the panel's top left is the screen's top right (units as libinput's
        // calibration puts them: normalized over the span plus one).
        #expect(g.map(x: 0, y: 0) == (2159, 0))
        #expect(g.map(x: 3839, y: 0) == (2159, 3839))
        #expect(g.map(x: 0, y: 2159) == (1, 0))
        #expect(g.map(x: 3839, y: 2159) == (1, 3839))
    }

    @Test func aFlippedY_landsOnTheUnitLibinputsCalibrationWould() throws {
        // udev's "1 0 0 0 -1 1": libinput puts y at 2160 − y (its normalization: span + 1).
        let g = try #require(MirrorGeometry(x: Self.x, y: Self.y, calibration: [1, 0, 0, 0, -1, 1], rotation: 0))
        #expect(g.xAxis == Self.x && g.yAxis == Self.y)
        #expect(g.map(x: 1900, y: 1000) == (1900, 1160))
        #expect(g.map(x: 1900, y: 0) == (1900, 2159))
    }

    @Test func aCalibrationPastTheScreen_landsOnItsEdge_andValuesOutsideTheAxesAreClamped() throws {
        let g = try #require(MirrorGeometry(x: Self.x, y: Self.y, calibration: [1.1, 0, -0.05, 0, 1.1, -0.05], rotation: 0))
        #expect(g.map(x: 0, y: 0) == (0, 0))
        #expect(g.map(x: 3839, y: 2159) == (3839, 2159))
        #expect(g.map(x: -500, y: 9000) == (0, 2159))
    }

    /// Every rotation and a skewed calibration: the mirror's position, scaled onto the screen as
    /// a compositor maps a touchscreen, is the daemon's own within a pixel.
    @Test(arguments: [0, 90, 180, 270])
    func theMirror_landsWhereTheDaemonSees(rotation: Int) throws {
        let calibration = [0.98, 0.02, 0.01, -0.015, 1.03, -0.02]
        var c = GeometryConfiguration()
        c.rotation = rotation
        c.calibration = calibration
        let screen = ScreenGeometry(x: Self.x, y: Self.y, configuration: c)
        let g = try #require(MirrorGeometry(x: Self.x, y: Self.y, calibration: calibration, rotation: rotation))
        for (px, py) in [(0, 0), (3839, 2159), (1900, 1000), (100, 2000), (3700, 50), (2500, 1500)] {
            let daemon = screen.map(x: Int32(px), y: Int32(py))
            let m = g.map(x: Int32(px), y: Int32(py))
            // libinput's: (unit − minimum) × pixels / (span + 1).
            let cx = min(Double(m.x - g.xAxis.minimum) / Double(g.xAxis.maximum - g.xAxis.minimum + 1) * c.screenWidth, c.screenWidth - 1)
            let cy = min(Double(m.y - g.yAxis.minimum) / Double(g.yAxis.maximum - g.yAxis.minimum + 1) * c.screenHeight, c.screenHeight - 1)
            // Within a pixel, and one panel unit (0.9 px here) at the far edges: the daemon
            // normalizes over an axis's span, libinput over the span plus one.
            #expect(abs(cx - daemon.x) <= 1.5 && abs(cy - daemon.y) <= 1.5, "\(px),\(py): mirror \(cx),\(cy), daemon \(daemon.x),\(daemon.y)")
        }
    }

    @Test func mirroring_replacesThePositionAxesOnly() throws {
        var panel = DeviceDescription(name: "panel")
        panel.axes[Evdev.ABS_MT_POSITION_X] = Self.x
        panel.axes[Evdev.ABS_MT_POSITION_Y] = Self.y
        panel.axes[Evdev.ABS_X] = Self.x
        panel.axes[Evdev.ABS_Y] = Self.y
        panel.axes[Evdev.ABS_MT_SLOT] = AbsAxis(minimum: 0, maximum: 9)
        let g = try #require(MirrorGeometry(x: Self.x, y: Self.y, calibration: [], rotation: 270))
        let d = g.mirroring(panel)
        #expect(d.axes[Evdev.ABS_MT_POSITION_X] == g.xAxis && d.axes[Evdev.ABS_X] == g.xAxis)
        #expect(d.axes[Evdev.ABS_MT_POSITION_Y] == g.yAxis && d.axes[Evdev.ABS_Y] == g.yAxis)
        #expect(d.axes[Evdev.ABS_MT_SLOT] == AbsAxis(minimum: 0, maximum: 9))
        #expect(d.name == panel.name)
    }
}
