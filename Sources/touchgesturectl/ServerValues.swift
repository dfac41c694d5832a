import GestureProtocol

/// What a server says, read as the daemon reads a client: every number range-checked before it
/// becomes an integer (1e300 or 1e19 must not trap), every string escaped before it reaches a
/// terminal or a file. touchgesturectl trusts no server: the socket's path may be another user's.
extension JSONValue {
    /// The number at `key` when it is finite and within `range`, else nil.
    func number(_ key: String, in range: ClosedRange<Double>) -> Double? {
        guard case .number(let n)? = self[key], n.isFinite, range.contains(n) else { return nil }
        return n
    }

    /// The whole number at `key` within `range`, else nil.
    func whole(_ key: String, in range: ClosedRange<Int>) -> Int? {
        guard let n = number(key, in: Double(range.lowerBound)...Double(range.upperBound)), n == n.rounded() else { return nil }
        return Int(n)
    }

    /// The string at `key`, escaped for a terminal (SafeText), or nil.
    func text(_ key: String, limit: Int = 256) -> String? {
        guard case .string(let s)? = self[key] else { return nil }
        return SafeText.escaped(s, limit: limit)
    }
}

/// A number for people: a whole number when it is one a person could read (under 10^15), else
/// as Swift writes a Double ("1e+300", "inf"); never a trap.
func wholeText(_ v: Double) -> String {
    let r = v.rounded()
    return r.isFinite && abs(r) < 1e15 ? String(Int(r)) : "\(v)"
}
