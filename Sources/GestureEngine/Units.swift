// Units live in types: a time is a `Timestamp`, a length on the glass is `Millimeters`,
// a position or displacement on the screen is a `PixelPoint`. No bare Double crosses an API
// where it could be mm or pixels.

/// A point on a monotonic clock, in nanoseconds. The engine never reads a clock: every
/// timestamp comes in with a frame or with `advance(to:)`.
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// A timestamp from whole seconds plus microseconds (the evdev `timeval` form).
    public init(seconds: Int64, microseconds: Int64 = 0) {
        nanoseconds = seconds &* 1_000_000_000 &+ microseconds &* 1_000
    }

    public static let zero = Timestamp(nanoseconds: 0)
    /// A moment later than any real input; `advance(to: .distantFuture)` fires every deadline.
    public static let distantFuture = Timestamp(nanoseconds: Int64.max / 2)

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (t: Timestamp, d: Duration) -> Timestamp {
        Timestamp(nanoseconds: t.nanoseconds &+ d.nanosecondsClamped)
    }

    /// `self` plus `ns` nanoseconds (a threshold's `Thresholds.ns`).
    @inline(__always) public func after(_ ns: Int64) -> Timestamp { Timestamp(nanoseconds: nanoseconds &+ ns) }

    public static func - (a: Timestamp, b: Timestamp) -> Duration {
        .nanoseconds(a.nanoseconds &- b.nanoseconds)
    }

    public var description: String { "\(seconds)s" }
}

extension Duration {
    /// The duration in nanoseconds, clamped to Int64 (durations here are config thresholds).
    public var nanosecondsClamped: Int64 {
        let c = components
        let (s, o1) = c.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if o1 { return c.seconds < 0 ? Int64.min / 2 : Int64.max / 2 }
        return s &+ c.attoseconds / 1_000_000_000
    }

    /// The duration in seconds as a Double, for rates (mm per second).
    public var secondsDouble: Double { Double(nanosecondsClamped) / 1e9 }

    /// Whole milliseconds, for config files and logs.
    public var milliseconds: Double { Double(nanosecondsClamped) / 1e6 }
}

/// A length on the glass, in millimetres. Thresholds are physical so that a gesture feels the
/// same on a 7-inch and on a 32-inch panel.
public struct Millimeters: Comparable, Hashable, Sendable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public var value: Double
    public init(_ value: Double) { self.value = value }
    public init(floatLiteral value: Double) { self.value = value }
    public init(integerLiteral value: Int) { self.value = Double(value) }
    public static func < (a: Millimeters, b: Millimeters) -> Bool { a.value < b.value }
    public var description: String { "\(value) mm" }
}

/// A position or a displacement on the screen, in pixels (x to the right, y down).
public struct PixelPoint: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        (self.x, self.y) = (x, y)
    }
    /// The origin (computed and inlinable: a stored `static let` is reached through a lazy
    /// accessor at every use, several a frame).
    @inlinable public static var zero: PixelPoint { PixelPoint(x: 0, y: 0) }
    public static func + (a: PixelPoint, b: PixelPoint) -> PixelPoint { PixelPoint(x: a.x + b.x, y: a.y + b.y) }
    public static func - (a: PixelPoint, b: PixelPoint) -> PixelPoint { PixelPoint(x: a.x - b.x, y: a.y - b.y) }
    public static func * (a: PixelPoint, k: Double) -> PixelPoint { PixelPoint(x: a.x * k, y: a.y * k) }
    public static func += (a: inout PixelPoint, b: PixelPoint) { a = a + b }
    public var length: Double { (x * x + y * y).squareRoot() }
    public var description: String { "(\(x), \(y))" }
}

/// A screen rectangle in pixels.
public struct PixelRect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
    public func contains(_ p: PixelPoint) -> Bool {
        p.x >= x && p.y >= y && p.x < x + width && p.y < y + height
    }
    public func contains(_ r: PixelRect) -> Bool {
        r.x >= x && r.y >= y && r.x + r.width <= x + width && r.y + r.height <= y + height
    }
    public var area: Double { width * height }

    /// The part of this rectangle inside `r`, or nil when they do not overlap.
    public func clipped(to r: PixelRect) -> PixelRect? {
        let left = max(x, r.x), top = max(y, r.y)
        let right = min(x + width, r.x + r.width), bottom = min(y + height, r.y + r.height)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

/// How many millimetres one screen pixel spans on the glass, per screen axis. It comes with every
/// frame from the device's geometry (axis resolution, configured size, or the documented default).
public struct MillimetersPerPixel: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        (self.x, self.y) = (x, y)
    }
    /// One pixel is one millimetre: handy for tests that think in millimetres.
    public static let identity = MillimetersPerPixel(x: 1, y: 1)

    public func length(_ v: PixelPoint) -> Millimeters {
        let mx = v.x * x
        let my = v.y * y
        return Millimeters((mx * mx + my * my).squareRoot())
    }
    public func horizontal(_ v: PixelPoint) -> Millimeters { Millimeters(v.x * x) }
    public func vertical(_ v: PixelPoint) -> Millimeters { Millimeters(v.y * y) }
    /// The mean of both axes, for isotropic quantities such as a pinch's span.
    public var mean: Double { (x + y) / 2 }
}

extension Array {
    /// Empties the array and keeps its storage, cheaply for the few elements a frame leaves:
    /// `removeAll(keepingCapacity: true)` goes through the general `replaceSubrange` (about
    /// 80–170 instructions even for one element); popping a handful costs a few each. Public,
    /// not `package`: scripts/fuzz builds the modules with swiftc, without a package name.
    @inlinable
    public mutating func removeAllKeepingCapacity() {
        if count > 8 {
            removeAll(keepingCapacity: true)
        } else {
            while popLast() != nil {}
        }
    }
}
