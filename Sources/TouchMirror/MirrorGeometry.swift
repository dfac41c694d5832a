import TouchFrames

/// Where the mirror (pass-through) puts a panel's touches when a calibration or a rotation is
/// set for the panel: calibrated and rotated as the daemon's own gestures see them, so the
/// compositor under it needs no setting of its own and lands each touch where the finger is.
/// Pure: the pass-through asks it for every position it writes.
///
/// The mirror's axes are the panel's, swapped by a quarter turn (the mirror's X is then the
/// panel's Y, with its range and resolution): no position the panel tells apart is merged, each
/// axis keeps its size in mm, and a turn maps either panel axis onto the full range of the other.
/// Positions are normalized as libinput normalizes them for its calibration (over the axis's
/// span plus one), so a calibration the daemon applies lands on the unit libinput's would. A
/// calibration that points past the screen lands on its edge.
public struct MirrorGeometry: Hashable, Sendable {
    public let xAxis: AbsAxis
    public let yAxis: AbsAxis
    private let xMinimum: Int64, yMinimum: Int64
    private let xSize: Double, ySize: Double
    private let m0: Double, m1: Double, m2: Double, m3: Double, m4: Double, m5: Double

    /// Nil when the calibration is the identity and there is no rotation: the mirror then keeps
    /// the panel's own axes and positions, untouched.
    public init?(x: AbsAxis, y: AbsAxis, calibration: [Double], rotation: Int) {
        let m = unitMap(calibration: calibration, rotation: rotation)
        guard m != (1, 0, 0, 0, 1, 0), [m.0, m.1, m.2, m.3, m.4, m.5].allSatisfy(\.isFinite) else { return nil }
        (m0, m1, m2, m3, m4, m5) = m
        xMinimum = Int64(x.minimum)
        yMinimum = Int64(y.minimum)
        xSize = Double(max(1, Int64(x.maximum) - Int64(x.minimum) + 1))
        ySize = Double(max(1, Int64(y.maximum) - Int64(y.minimum) + 1))
        let degrees = ((rotation % 360) + 360) % 360
        let turned = degrees == 90 || degrees == 270
        xAxis = AbsAxis(minimum: (turned ? y : x).minimum, maximum: (turned ? y : x).maximum, resolution: (turned ? y : x).resolution)
        yAxis = AbsAxis(minimum: (turned ? x : y).minimum, maximum: (turned ? x : y).maximum, resolution: (turned ? x : y).resolution)
    }

    /// The mirror's position for the panel's `x`, `y` (values outside the panel's axes are
    /// clamped to them first, as the daemon's gestures see them). Inlined: a call was given the
    /// whole geometry (~130 bytes) on the stack, for every contact of every frame.
    @inline(__always)
    public func map(x: Int32, y: Int32) -> (x: Int32, y: Int32) {
        let u = Double(max(0, min(Int64(x) - xMinimum, Int64(xSize) - 1))) / xSize
        let v = Double(max(0, min(Int64(y) - yMinimum, Int64(ySize) - 1))) / ySize
        return (Self.place(m0 * u + m1 * v + m2, on: xAxis), Self.place(m3 * u + m4 * v + m5, on: yAxis))
    }

    /// A normalized position on `axis`: its unit, the axis's edge for a position past it.
    private static func place(_ t: Double, on axis: AbsAxis) -> Int32 {
        let size = Double(Int64(axis.maximum) - Int64(axis.minimum) + 1)
        let unit = Int64((t * size).rounded()) + Int64(axis.minimum)
        return Int32(min(max(unit, Int64(axis.minimum)), Int64(axis.maximum)))
    }

    /// The panel's description as the mirror advertises it: its position axes (multitouch and
    /// single-touch) replaced by the mirror's, everything else kept.
    public func mirroring(_ panel: DeviceDescription) -> DeviceDescription {
        var d = panel
        for code in [Evdev.ABS_X, Evdev.ABS_MT_POSITION_X] where d.axes[code] != nil { d.axes[code] = xAxis }
        for code in [Evdev.ABS_Y, Evdev.ABS_MT_POSITION_Y] where d.axes[code] != nil { d.axes[code] = yAxis }
        return d
    }
}
