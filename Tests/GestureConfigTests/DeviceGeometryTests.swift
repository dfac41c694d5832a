import GestureEngine
import Testing
import TouchFrames

@testable import GestureConfig

/// A device's geometry and whether it is ignored, as the daemon and `devices --local` and
/// `calibrate --node` all take them (`Configuration.geometry(of:)`, `ignoreReason`).
@Suite struct DeviceGeometryTests {
    /// 3840 × 2160 units; at 15 units/mm a 256 × 144 mm panel, at 0 no resolution.
    func panel(_ name: String, resolution: Int32) -> DeviceDescription {
        .multitouchPanel(name: name, maxX: 3839, maxY: 2159, slots: 10, resolution: resolution)
    }

    func size(_ c: Configuration, _ d: DeviceDescription, udev: (width: Double, height: Double)? = nil) -> (Int, Int, ScreenGeometry.SizeSource) {
        let g = c.geometry(of: d, path: "/dev/input/event5", systemSizeMM: udev, systemCalibration: nil)
        let axes = d.positionAxes!
        let s = ScreenGeometry(x: axes.x, y: axes.y, configuration: g)
        return (Int(s.sizeMM.width.rounded()), Int(s.sizeMM.height.rounded()), s.sizeSource)
    }

    @Test func theSize_followsTheDaemonsPrecedence() throws {
        let c = try ConfigLoader.parse(
            """
            [device]
            width_mm = 300
            height_mm = 200
            [[panel]]
            match = "Measured*"
            width_mm = 222
            height_mm = 125
            """, file: "f.toml")
        // A [[panel]]'s size wins over the axes' resolution and udev's.
        #expect(size(c, panel("Measured panel", resolution: 15), udev: (400, 300)) == (222, 125, .configuration))
        // Else the axes' resolution over [device]'s size and udev's.
        #expect(size(c, panel("Other", resolution: 15), udev: (400, 300)) == (256, 144, .resolution))
        // Without a resolution, [device]'s size over udev's.
        #expect(size(c, panel("Other", resolution: 0), udev: (400, 300)) == (300, 200, .configuration))
        // With no size configured, udev's stands in only where the axes give none.
        let plain = Configuration.standard
        #expect(size(plain, panel("Other", resolution: 0), udev: (400, 300)) == (400, 300, .configuration))
        #expect(size(plain, panel("Other", resolution: 15), udev: (400, 300)) == (256, 144, .resolution))
        #expect(size(plain, panel("Other", resolution: 0)).2 == .fallback)
    }

    @Test func udevsCalibration_standsInOnlyWhereTheConfigurationSetsNone() throws {
        let udev: [Double] = [0, 1, 0, -1, 0, 1]
        let plain = Configuration.standard.geometry(of: panel("P", resolution: 0), path: "/dev/input/event5", systemSizeMM: nil, systemCalibration: udev)
        #expect(plain.calibration == udev)
        let c = try ConfigLoader.parse("[device]\ncalibration = [1.1, 0, 0, 0, 1.1, 0]\n", file: "f.toml")
        #expect(c.geometry(of: panel("P", resolution: 0), path: "/dev/input/event5", systemSizeMM: nil, systemCalibration: udev).calibration == [1.1, 0, 0, 0, 1.1, 0])
        // The identity, set, cancels a wrong udev matrix (for every panel, or for one).
        let identity = try ConfigLoader.parse("[device]\ncalibration = [1, 0, 0, 0, 1, 0]\n", file: "f.toml")
        #expect(identity.geometry(of: panel("P", resolution: 0), path: "/dev/input/event5", systemSizeMM: nil, systemCalibration: udev).calibration == [1, 0, 0, 0, 1, 0])
        let one = try ConfigLoader.parse("[[panel]]\nmatch = \"P\"\ncalibration = [1, 0, 0, 0, 1, 0]\n", file: "f.toml")
        #expect(one.geometry(of: panel("P", resolution: 0), path: "/dev/input/event5", systemSizeMM: nil, systemCalibration: udev).calibration == [1, 0, 0, 0, 1, 0])
        #expect(one.geometry(of: panel("Q", resolution: 0), path: "/dev/input/event5", systemSizeMM: nil, systemCalibration: udev).calibration == udev)
    }

    @Test func ignoreDevices_saysThePatternThatExcludes() throws {
        let c = try ConfigLoader.parse("[daemon]\nignore_devices = [\"/dev/input/event9\", \"Bezel*\"]\n", file: "f.toml")
        #expect(c.ignoreReason(path: "/dev/input/event3", panel("Bezel buttons", resolution: 0)) == "config ignore_devices \"Bezel*\"")
        #expect(c.ignoreReason(path: "/dev/input/event9", panel("Any", resolution: 0)) == "config ignore_devices \"/dev/input/event9\"")
        #expect(c.ignoreReason(path: "/dev/input/event3", panel("Any", resolution: 0)) == nil)
    }
}
