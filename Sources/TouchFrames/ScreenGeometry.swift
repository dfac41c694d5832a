import GestureEngine

/// How a panel's device units land on the screen, and how large a touch is a palm, as
/// configured (`[screen]` and `[device]` in the config file).
public struct GeometryConfiguration: Hashable, Sendable {
    /// The screen in pixels.
    public var screenWidth: Double = 1920
    public var screenHeight: Double = 1080
    /// Clockwise rotation of the panel relative to the screen: 0, 90, 180 or 270 degrees.
    public var rotation: Int = 0
    /// A 2×3 matrix in libinput's LIBINPUT_CALIBRATION_MATRIX convention, applied to normalized
    /// device coordinates (0…1): x' = a·x + b·y + c, y' = d·x + e·y + f. Applied before rotation.
    public var calibration: [Double] = [1, 0, 0, 0, 1, 0]
    /// The configuration sets `calibration` (the identity too: it cancels a wrong udev
    /// LIBINPUT_CALIBRATION_MATRIX, which applies only where none is set).
    public var calibrationIsSet = false
    /// The part of the screen the panel covers (px); nil for the whole screen.
    public var output: PixelRect?
    /// Physical width and height (mm) of the panel's active area along its own X and Y axes:
    /// given for this panel (`sizeIsThePanels`), they win over its axis resolution (a cheap
    /// panel's may be wrong); else (`[device]`, udev) they stand in for one it lacks.
    public var widthMM: Double?
    public var heightMM: Double?
    /// `widthMM` × `heightMM` were measured on this panel (its `[[panel]]`, the doctor's
    /// `--width-mm`), not given for every panel.
    public var sizeIsThePanels = false
    /// A contact whose ABS_MT_TOUCH_MAJOR (its touch ellipse's long axis) is longer than this
    /// (mm) is a palm, handled as the panel's MT_TOOL_PALM is; 0 turns it off. Read by
    /// `FrameDecoder`, only for panels that report the axis. None of the recordings in
    /// shared/recordings reports a touch size (EP0430M09 and the QUANTA panel send positions
    /// only), so the value comes from elsewhere: ChromeOS's touchpad palm classifier takes a
    /// contact wider than 21.2 mm for a palm ("Palm Width"), libinput's touchpad palm size
    /// quirks lie in the same range, and a flat adult thumb pad is 20-25 mm long. Kiosk glass is
    /// pressed flat, hurriedly, sometimes in gloves, so we stay above every thumb: 30 mm (a
    /// palm's heel is 40 mm and more). Default 30 mm.
    public var palmSize: Double = 30
    /// What the panel's contacts go through before anyone sees them (none by default).
    public var filters = ContactFilterSettings()

    public init() {}


    /// Used when neither the axis resolution nor the configuration gives a size: a 15.6-inch 16:9
    /// panel (344.2 × 193.6 mm), the most common kiosk size. Gestures still work on other sizes,
    /// but thresholds then are off by the ratio of sizes: set `width_mm`/`height_mm`.
    public static let defaultPanelSize = (width: 344.2, height: 193.6)

    public var screen: PixelRect { PixelRect(x: 0, y: 0, width: screenWidth, height: screenHeight) }
}

/// The mapping from one device's units to screen pixels, and the millimetres a pixel spans.
///
/// Every device value lands on a pixel of the screen. The axes map linearly onto the output
/// rectangle as libinput maps them for a compositor (each of an axis's span + 1 units covers an
/// equal part of it: the minimum on the first pixel's edge, the maximum one unit short of the far
/// edge), so a gesture's position is the position the app under a compositor sees for the same
/// touch. The position is then clamped to the output's pixels within the screen, first to last:
/// a calibration matrix that points past the output lands on its edge (a finger at the bezel is
/// at the screen's edge), and the last row and column are inside every region that reaches them.
public struct ScreenGeometry: Sendable {
    public let xAxis: AbsAxis
    public let yAxis: AbsAxis
    /// The affine map from normalized device coordinates (0…1) to screen pixels:
    /// px = m0·u + m1·v + m2, py = m3·u + m4·v + m5.
    private let m: Affine
    /// Each axis's minimum, span (maximum − minimum) and count of units (span + 1, what a
    /// position is normalized over), converted once (`normalize` runs for every contact).
    private let xMinimum: Int64, yMinimum: Int64
    private let xSpan: Double, ySpan: Double
    private let xUnits: Double, yUnits: Double
    /// The pixels a position may take: the output within the screen, first to last pixel.
    private let low: PixelPoint, high: PixelPoint
    /// The part of the screen the panel covers (its `output` within the screen): its edges are
    /// where its edge swipes start.
    public let output: PixelRect
    public let scale: MillimetersPerPixel
    /// Where the panel's physical size came from, for `devices` and logs.
    public let sizeSource: SizeSource
    public let sizeMM: (width: Double, height: Double)
    /// Millimetres per unit of the panel's surface (the mean of both axes): the unit of
    /// ABS_MT_TOUCH_MAJOR when that axis reports no resolution of its own.
    public var millimetersPerSurfaceUnit: Double {
        ((xSpan > 0 ? sizeMM.width / xSpan : 0) + (ySpan > 0 ? sizeMM.height / ySpan : 0)) / 2
    }

    public enum SizeSource: String, Sendable {
        case resolution = "axis resolution"
        case configuration = "configuration"
        case fallback = "default panel size"
        /// The axes report a resolution whose size no touchscreen has (`isPlausible`).
        case implausibleResolution = "default panel size (the axis resolution's is implausible)"

        /// The size is the 15.6-inch guess.
        public var isGuess: Bool { self == .fallback || self == .implausibleResolution }
    }

    /// A size (mm) a panel may have: each side within the configuration's range for
    /// `width_mm` (10 mm, a watch, to 4 m, a wall), at most 10 to 1.
    public static func isPlausible(_ w: Double, _ h: Double) -> Bool {
        (10...4_000).contains(w) && (10...4_000).contains(h) && max(w, h) / min(w, h) <= 10
    }

    public init(x: AbsAxis, y: AbsAxis, configuration c: GeometryConfiguration) {
        xAxis = x
        yAxis = y
        xMinimum = Int64(x.minimum)
        yMinimum = Int64(y.minimum)
        xSpan = Double(Int64(x.maximum) - Int64(x.minimum))
        ySpan = Double(Int64(y.maximum) - Int64(y.minimum))
        xUnits = max(1, xSpan + 1)
        yUnits = max(1, ySpan + 1)
        // Physical size: the panel's own configured one, else a plausible axis resolution, else
        // one configured for every panel, else the documented default.
        var configured: (Double, Double)?
        if let w = c.widthMM, let h = c.heightMM, w > 0, h > 0 { configured = (w, h) }
        var resolved: (Double, Double)?
        if let rw = x.lengthInMillimeters, let rh = y.lengthInMillimeters {
            // Of the span + 1 units a position is normalized over.
            resolved = (rw * xUnits / xSpan, rh * yUnits / ySpan)
        }
        if let size = configured, c.sizeIsThePanels {
            (sizeMM, sizeSource) = (size, .configuration)
        } else if let (w, h) = resolved, w > 0, h > 0, Self.isPlausible(w, h) {
            (sizeMM, sizeSource) = ((w, h), .resolution)
        } else if let size = configured {
            (sizeMM, sizeSource) = (size, .configuration)
        } else {
            sizeMM = GeometryConfiguration.defaultPanelSize
            sizeSource = resolved == nil ? .fallback : .implausibleResolution
        }

        let out = c.output.flatMap { $0.clipped(to: c.screen) } ?? c.screen
        output = out
        // Compose: output ∘ rotation ∘ calibration.
        let rc = unitMap(calibration: c.calibration, rotation: c.rotation)
        m = compose((out.width, 0, out.x, 0, out.height, out.y), rc)
        low = PixelPoint(x: out.x, y: out.y)
        high = PixelPoint(x: out.x + max(0, out.width - 1), y: out.y + max(0, out.height - 1))

        // mm per pixel: invert the linear part, then scale normalized units by the panel size.
        let det = m.0 * m.4 - m.1 * m.3
        if det != 0 && det.isFinite {
            // Inverse linear part applied to screen unit vectors gives normalized (u, v) steps.
            let ux = m.4 / det, vx = -m.3 / det  // for (1, 0)
            let uy = -m.1 / det, vy = m.0 / det  // for (0, 1)
            let sx = ((ux * sizeMM.width) * (ux * sizeMM.width) + (vx * sizeMM.height) * (vx * sizeMM.height)).squareRoot()
            let sy = ((uy * sizeMM.width) * (uy * sizeMM.width) + (vy * sizeMM.height) * (vy * sizeMM.height)).squareRoot()
            scale = MillimetersPerPixel(x: sx, y: sy)
        } else {
            scale = MillimetersPerPixel(x: sizeMM.width / max(1, out.width), y: sizeMM.height / max(1, out.height))
        }
    }

    /// Device units to screen pixels. Values outside the axis range are clamped first, and the
    /// position, after calibration, to the output's pixels.
    @inline(__always)
    public func map(x rawX: Int32, y rawY: Int32) -> PixelPoint {
        let u = Self.normalize(xAxis.clamp(rawX), xMinimum, xUnits)
        let v = Self.normalize(yAxis.clamp(rawY), yMinimum, yUnits)
        let x = m.0 * u + m.1 * v + m.2, y = m.3 * u + m.4 * v + m.5
        return PixelPoint(x: min(max(x, low.x), high.x), y: min(max(y, low.y), high.y))
    }

    /// Device units on the panel's own axes, 0…1 (clamped to the axes, normalized over span + 1,
    /// before calibration and rotation): what a calibration matrix is applied to, and what a
    /// calibrator fits one from.
    public func unit(x rawX: Int32, y rawY: Int32) -> (u: Double, v: Double) {
        (Self.normalize(xAxis.clamp(rawX), xMinimum, xUnits), Self.normalize(yAxis.clamp(rawY), yMinimum, yUnits))
    }

    @inline(__always)
    private static func normalize(_ v: Int32, _ minimum: Int64, _ units: Double) -> Double {
        Double(Int64(v) - minimum) / units
    }
}

/// a ∘ b for 2×3 affine maps (apply b, then a).
/// An affine map of the plane: x' = a.0·x + a.1·y + a.2, y' = a.3·x + a.4·y + a.5.
public typealias Affine = (Double, Double, Double, Double, Double, Double)

/// The map on the unit square a panel's calibration (libinput's convention; identity unless it
/// has six numbers) then its clockwise rotation (0, 90, 180 or 270 degrees) make: normalized
/// device coordinates to normalized screen coordinates. The daemon's gestures and the mirror use
/// the same one.
public func unitMap(calibration: [Double], rotation: Int) -> Affine {
    let k = calibration.count == 6 ? calibration : [1, 0, 0, 0, 1, 0]
    let r: Affine
    switch ((rotation % 360) + 360) % 360 {
    case 90: r = (0, -1, 1, 1, 0, 0)  // (u, v) -> (1 - v, u)
    case 180: r = (-1, 0, 1, 0, -1, 1)
    case 270: r = (0, 1, 0, -1, 0, 1)  // (u, v) -> (v, 1 - u)
    default: r = (1, 0, 0, 0, 1, 0)
    }
    return compose(r, (k[0], k[1], k[2], k[3], k[4], k[5]))
}

/// `a` after `b`.
func compose(_ a: Affine, _ b: Affine) -> Affine {
    (
        a.0 * b.0 + a.1 * b.3, a.0 * b.1 + a.1 * b.4, a.0 * b.2 + a.1 * b.5 + a.2,
        a.3 * b.0 + a.4 * b.3, a.3 * b.1 + a.4 * b.4, a.3 * b.2 + a.4 * b.5 + a.5
    )
}
