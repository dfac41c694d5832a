/// Where the mirror (pass-through) puts a panel's touches when a calibration or a rotation is
/// set for the panel: calibrated and rotated as the daemon's own gestures see them, on axes of
/// the mirror's own, so the compositor under it needs no setting of its own and lands each touch
/// where the finger is. Pure: the pass-through asks it for every position it writes.
///
/// Both of the mirror's axes run from 0 to `range`, the larger of the panel's two spans: no
/// position the panel can tell apart is merged, and a quarter turn maps either panel axis onto
/// the full range of the other. A calibration that points past the screen lands on its edge, as
/// in `ScreenGeometry`.
public struct MirrorGeometry: Hashable, Sendable {
    public let range: Int32
    /// The mirror's units a millimetre along its X and Y (0 when the panel reports none), so a
    /// compositor reading sizes in mm reads the panel's, turned with it.
    public let xResolution: Int32
    public let yResolution: Int32
    private let xMinimum: Int64, yMinimum: Int64
    private let xSpan: Double, ySpan: Double
    private let m0: Double, m1: Double, m2: Double, m3: Double, m4: Double, m5: Double

    /// Nil when the calibration is the identity and there is no rotation: the mirror then keeps
    /// the panel's own axes and positions, untouched.
    public init?(x: AbsAxis, y: AbsAxis, calibration: [Double], rotation: Int) {
        let m = unitMap(calibration: calibration, rotation: rotation)
        guard m != (1, 0, 0, 0, 1, 0), [m.0, m.1, m.2, m.3, m.4, m.5].allSatisfy(\.isFinite) else { return nil }
        (m0, m1, m2, m3, m4, m5) = m
        xMinimum = Int64(x.minimum)
        yMinimum = Int64(y.minimum)
        xSpan = Double(max(0, Int64(x.maximum) - Int64(x.minimum)))
        ySpan = Double(max(0, Int64(y.maximum) - Int64(y.minimum)))
        range = Int32(max(1, min(Double(Int32.max), max(xSpan, ySpan))))
        // A quarter turn puts the panel's height along the mirror's X.
        let turned = ((rotation % 360) + 360) % 360 == 90 || ((rotation % 360) + 360) % 360 == 270
        let (widthMM, heightMM) = turned ? (y.lengthInMillimeters, x.lengthInMillimeters) : (x.lengthInMillimeters, y.lengthInMillimeters)
        xResolution = Self.resolution(range, over: widthMM)
        yResolution = Self.resolution(range, over: heightMM)
    }

    private static func resolution(_ range: Int32, over mm: Double?) -> Int32 {
        guard let mm, mm > 0 else { return 0 }
        return Int32(max(1, min(Double(Int32.max), (Double(range) / mm).rounded())))
    }

    /// The mirror's position for the panel's `x`, `y` (values outside the panel's axes are
    /// clamped to them first, as the daemon's gestures see them).
    public func map(x: Int32, y: Int32) -> (x: Int32, y: Int32) {
        let u = xSpan > 0 ? Double(max(0, min(Int64(x) - xMinimum, Int64(xSpan)))) / xSpan : 0
        let v = ySpan > 0 ? Double(max(0, min(Int64(y) - yMinimum, Int64(ySpan)))) / ySpan : 0
        let mx = min(max(m0 * u + m1 * v + m2, 0), 1), my = min(max(m3 * u + m4 * v + m5, 0), 1)
        return (Int32((mx * Double(range)).rounded()), Int32((my * Double(range)).rounded()))
    }

    /// The mirror's X and Y axes.
    public var xAxis: AbsAxis { AbsAxis(minimum: 0, maximum: range, resolution: xResolution) }
    public var yAxis: AbsAxis { AbsAxis(minimum: 0, maximum: range, resolution: yResolution) }

    /// The panel's description as the mirror advertises it: its position axes (multitouch and
    /// single-touch) replaced by the mirror's, everything else kept.
    public func mirroring(_ panel: DeviceDescription) -> DeviceDescription {
        var d = panel
        for code in [Evdev.ABS_X, Evdev.ABS_MT_POSITION_X] where d.axes[code] != nil { d.axes[code] = xAxis }
        for code in [Evdev.ABS_Y, Evdev.ABS_MT_POSITION_Y] where d.axes[code] != nil { d.axes[code] = yAxis }
        return d
    }
}
