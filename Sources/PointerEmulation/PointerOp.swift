import GestureEngine

/// One thing the virtual pointer does: one evdev frame of it (docs/PROTOCOL.md, "pointer").
public struct PointerOp: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// The pointer jumps to a screen position (absolute motion).
        case move(PixelPoint)
        case press(PointerButton)
        case release(PointerButton)
        /// The wheel turns (`PointerWheel`).
        case wheel(PointerWheel)
        /// Ctrl goes down or up (around a zoom's wheel steps).
        case ctrl(pressed: Bool)
    }

    /// Engine time (the gesture's, or a kinetic tail's tick).
    public var time: Timestamp
    public var kind: Kind
    /// Which pointer region made it (an index into the pipeline's list of them).
    public var region: Int

    public init(time: Timestamp, kind: Kind, region: Int) {
        (self.time, self.kind, self.region) = (time, kind, region)
    }
}

/// A turn of the wheel in high-resolution units (120 a notch; REL_WHEEL_HI_RES and
/// REL_HWHEEL_HI_RES), with the whole notches the turn completes (REL_WHEEL and REL_HWHEEL, for
/// readers without high resolution). Signs are the kernel's: `vertical` > 0 scrolls up (the
/// content moves down, as under a finger moving down), `horizontal` > 0 scrolls right.
public struct PointerWheel: Hashable, Sendable {
    public var vertical: Int32
    public var horizontal: Int32
    public var verticalNotches: Int32
    public var horizontalNotches: Int32

    /// High-resolution units in a notch: the kernel's (REL_WHEEL_HI_RES), Windows' and libinput's
    /// v120.
    public static let unitsPerNotch: Int32 = 120

    public init(vertical: Int32, horizontal: Int32, verticalNotches: Int32 = 0, horizontalNotches: Int32 = 0) {
        self.vertical = vertical
        (self.horizontal, self.verticalNotches, self.horizontalNotches) = (horizontal, verticalNotches, horizontalNotches)
    }
}

/// Finger travel turned into wheel units, exactly: the units sent so far are always the travel
/// so far, rounded (no rounding error builds up), and a notch is sent each time the units sent
/// cross a multiple of 120.
struct WheelAccumulator: Hashable, Sendable {
    let pixelsPerNotch: Double
    /// The units sent so far on each axis.
    private(set) var sentVertical: Int64 = 0
    private(set) var sentHorizontal: Int64 = 0

    init(pixelsPerNotch: Double) { self.pixelsPerNotch = pixelsPerNotch }

    /// The turn that brings the units sent to `travel` (px, since the scroll began; natural
    /// direction: content follows the finger), or nil when it is under one unit.
    mutating func turn(to travel: PixelPoint) -> PointerWheel? {
        let perNotch = Int64(PointerWheel.unitsPerNotch)
        let v = Self.units(travel.y, pixelsPerNotch), h = Self.units(-travel.x, pixelsPerNotch)
        guard v != sentVertical || h != sentHorizontal else { return nil }
        let wheel = PointerWheel(
            vertical: Int32(clamping: v - sentVertical), horizontal: Int32(clamping: h - sentHorizontal),
            verticalNotches: Int32(clamping: v / perNotch - sentVertical / perNotch),
            horizontalNotches: Int32(clamping: h / perNotch - sentHorizontal / perNotch))
        sentVertical = v
        sentHorizontal = h
        return wheel
    }

    /// The most units a scroll may stand for on an axis: 2^40 (a billion notches), far past any
    /// travel, and far from where converting a Double to Int64 would trap.
    static let maxUnits = Double(1 << 40)

    /// `pixels` of travel in wheel units, rounded, within ±`maxUnits` (NaN: none).
    static func units(_ pixels: Double, _ pixelsPerNotch: Double) -> Int64 {
        let u = (pixels * Double(PointerWheel.unitsPerNotch) / pixelsPerNotch).rounded()
        guard !u.isNaN else { return 0 }
        return Int64(min(max(u, -maxUnits), maxUnits))
    }
}
