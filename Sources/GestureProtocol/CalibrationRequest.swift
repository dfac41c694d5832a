import GestureEngine

/// `calibrate` (docs/PROTOCOL.md): touches on targets, for the daemon to fit a panel's
/// calibration matrix and, with `save`, keep it and apply it (the web bridge's `/calibrate` page).
public struct CalibrationRequest: Equatable, Sendable {
    /// One touch: the finger's place on the panel's own axes (`u`, `v` of a touch line) and the
    /// screen pixel it was asked to touch (`x`, `y`).
    public struct Point: Equatable, Sendable {
        public var u: Double, v: Double, x: Double, y: Double
    }

    public var device: UInt32
    public var points: [Point]
    public var save: Bool
    /// The largest distance (mm) a touch may be from its target after the fit; nil: the default.
    public var maxErrorMM: Double?

    /// Touches a request may carry: a fit needs 3; 16 is a grid of targets no page needs more of.
    public static let maxPoints = 16

    static func read(_ v: JSONValue) throws(RequestFailure) -> CalibrationRequest {
        guard case .number(let d)? = v["device"], d >= 0, d < 4_294_967_296, d == d.rounded() else {
            throw RequestFailure(.invalidField, "'device' must be a device id (list_devices)")
        }
        guard case .array(let items)? = v["points"], (3...maxPoints).contains(items.count) else {
            throw RequestFailure(.invalidField, "'points' must be an array of 3 to \(maxPoints) touches {\"u\",\"v\",\"x\",\"y\"}")
        }
        var points: [Point] = []
        for item in items {
            // A point holds its four numbers and nothing else: an unknown field is refused, as
            // one of the request itself is (a misspelt "X" must not pass for a missing "x").
            guard case .object(let members) = item else {
                throw RequestFailure(.invalidField, "'points' must hold touches {\"u\",\"v\",\"x\",\"y\"}, found \(item.typeName)")
            }
            for (k, _) in members where !["u", "v", "x", "y"].contains(k) {
                throw RequestFailure(.invalidField, "unknown field '\(k)' in a point of calibrate (known: u, v, x, y)")
            }
            func number(_ k: String, _ range: ClosedRange<Double>) throws(RequestFailure) -> Double {
                guard case .number(let n)? = item[k], range.contains(n) else {
                    throw RequestFailure(.invalidField, "a point's '\(k)' must be a number from \(range.lowerBound) to \(range.upperBound)")
                }
                return n
            }
            // u and v are 0…1 on the panel; x and y screen pixels (within the config's bounds).
            points.append(Point(u: try number("u", -1...2), v: try number("v", -1...2), x: try number("x", -1_048_576...1_048_576), y: try number("y", -1_048_576...1_048_576)))
        }
        var save = false
        if let s = v["save"] {
            guard case .bool(let b) = s else { throw RequestFailure(.invalidField, "'save' must be true or false") }
            save = b
        }
        var maxError: Double?
        if let m = v["max_error_mm"] {
            guard case .number(let n) = m, (0.5...100).contains(n) else { throw RequestFailure(.invalidField, "'max_error_mm' must be from 0.5 to 100") }
            maxError = n
        }
        return CalibrationRequest(device: UInt32(d), points: points, save: save, maxErrorMM: maxError)
    }
}
