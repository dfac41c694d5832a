import SystemCalls

/// A calibration file: `touchgesturectl calibrate`'s drop-in (`touchgestured.d/calibration.toml`
/// beside the configuration), or the daemon's own in its state directory (a `calibrate` request
/// with `save`). One `[[panel]]` per calibrated panel, its `match` and `calibration` only. The
/// file is the calibrator's: a panel calibrated again replaces its entry, the others' stay; the
/// admin's files are never rewritten (ConfigDropIns.swift merges a `[[panel]]` of the same
/// `match` into the admin's).
public struct CalibrationFile {
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// Entries in file order.
    public private(set) var panels: [(match: String, calibration: [Double], note: String)] = []

    /// The entries of the file at `path`; none when it does not exist yet. A file that is not
    /// the calibrator's (other keys) is refused rather than overwritten.
    public init(readingFrom path: String) throws(Refusal) {
        guard case .success = Posix.status(path) else { return }
        let table: TOMLTable
        do {
            table = try parseTOML(bytes: try readRegularFile(path, limit: ConfigLimits.fileBytes))
        } catch {
            throw Refusal(description: "\(path): \(error)")
        }
        if let why = Self.notOnlyCalibrations(table) { throw Refusal(description: "\(path): \(why)") }
        guard case .tables(let list)? = table["panel"] else { return }
        for t in list {
            guard case .value(let m)? = t["match"], case .string(let match) = m.kind,
                case .value(let c)? = t["calibration"], case .array(let items) = c.kind
            else { continue }
            panels.append((match, items.compactMap(\.number), ""))
        }
    }

    /// Why a TOML tree is not a calibration file (a key other than `[[panel]]` tables of `match`
    /// and `calibration`), or nil when it is one.
    static func notOnlyCalibrations(_ table: TOMLTable) -> String? {
        for key in table.keys where key != "panel" { return "'\(key)' is not a calibration: the file holds [[panel]] match and calibration only" }
        guard let node = table["panel"] else { return nil }
        guard case .tables(let list) = node else { return "'panel' must be [[panel]] tables" }
        for t in list {
            for key in t.keys where key != "match" && key != "calibration" {
                return "line \(t.line(of: key)): '\(key)' is not a calibration: a [[panel]] here holds match and calibration only"
            }
            guard t["match"] != nil, t["calibration"] != nil else { return "line \(t.line): a [[panel]] needs match and calibration" }
        }
        return nil
    }

    /// The `match` a new entry for a panel gets: the one of the configuration's `[[panel]]` that
    /// fits it (merged into it), else vendor:product when the panel has them, else its name
    /// (when no glob character is in it), else its node (which may change at the next boot).
    public static func match(for configuration: Configuration, node: String, name: String, vendor: UInt16, product: UInt16) -> String {
        if let m = configuration.panelMatch(path: node, name: name, vendor: vendor, product: product) { return m }
        guard vendor == 0 && product == 0 else {
            func hex4(_ v: UInt16) -> String { let s = String(v, radix: 16); return String(repeating: "0", count: 4 - s.count) + s }
            return hex4(vendor) + ":" + hex4(product)
        }
        return name.isEmpty || name.contains(where: { "*?[".contains($0) }) ? node : name
    }

    /// Sets `match`'s calibration (replacing its entry, else added).
    public mutating func set(_ match: String, _ calibration: [Double], note: String) {
        if let i = panels.firstIndex(where: { $0.match == match }) {
            panels[i] = (match, calibration, note)
        } else {
            panels.append((match, calibration, note))
        }
    }

    public var text: String {
        var s = "# Written by touchgesturectl calibrate: a panel calibrated again replaces its entry.\n"
        s += "# Read after the main file (CONFIG.md, \"Drop-ins\"); remove an entry to undo it.\n"
        for p in panels {
            s += "\n[[panel]]\n"
            if !p.note.isEmpty { s += "# \(p.note)\n" }
            s += "match = \(tomlString(p.match))\n"
            s += "calibration = [\(p.calibration.map(calibrationNumber).joined(separator: ", "))]\n"
        }
        return s
    }

    /// Writes the file whole (a new file renamed over the old: a reader sees one or the other),
    /// making its folder when missing.
    public func write(to path: String) throws(Refusal) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !folder.isEmpty, case .failure = Posix.status(folder) {
            if let e = Posix.makeDirectory(folder, mode: 0o755) { throw Refusal(description: "cannot make \(folder): \(e.reason)") }
        }
        if let e = Posix.replaceFile(path, with: Array(text.utf8)) {
            throw Refusal(description: "cannot write \(path): \(e.reason)")
        }
    }
}

/// A udev rule giving the panel the matrix (rotation folded in) as libinput's
/// `LIBINPUT_CALIBRATION_MATRIX`: for `mode = "observe"`, where the compositor reads the panel
/// itself. Matched by the exact name, so the `(touchgestured)` mirror is left alone.
public func udevRule(name: String, matrix: [Double]) -> String {
    // A character udev's value cannot hold, or would read as a glob, matches as any one character.
    let escaped = String(name.map { "\"\\*?[".contains($0) ? "?" : $0 })
    return "ACTION==\"add|change\", SUBSYSTEM==\"input\", KERNEL==\"event*\", ATTRS{name}==\"\(escaped)\", "
        + "ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(matrix.map(calibrationNumber).joined(separator: " "))\""
}

/// A number as TOML and udev read it back exactly enough (six decimals at most, no exponent).
public func calibrationNumber(_ d: Double) -> String {
    let r = (d * 1e6).rounded() / 1e6 + 0  // + 0: no "-0"
    if r == r.rounded() && abs(r) < 1e15 { return String(Int(r)) }
    var s = String(r)
    if s.contains("e") {
        // Tiny numbers: fixed notation.
        let scaled = Int((abs(r) * 1e6).rounded())
        let digits = String(scaled)
        s = (r < 0 ? "-" : "") + "0." + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
    return s
}

public func tomlString(_ s: String) -> String {
    var out = "\""
    for ch in s.unicodeScalars {
        switch ch {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where ch.value < 0x20 || ch.value == 0x7F: out += "\\u" + String(repeating: "0", count: 4 - String(ch.value, radix: 16).count) + String(ch.value, radix: 16)
        default: out.unicodeScalars.append(ch)
        }
    }
    return out + "\""
}
