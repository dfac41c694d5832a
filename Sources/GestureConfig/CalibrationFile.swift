import GestureProtocol
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

    /// No entry yet.
    public init() {}

    /// The entries of the file at `path`; none when it does not exist yet. A file that is not
    /// the calibrator's (other keys), or a link, is refused rather than overwritten or followed.
    public init(readingFrom path: String) throws(Refusal) {
        guard case .success = Posix.status(path, followingLinks: false) else { return }
        let bytes: [UInt8]
        do { bytes = try readRegularFile(path, limit: ConfigLimits.fileBytes, followingLinks: false) } catch {
            throw Refusal(description: error.description)
        }
        // Held to what the loader takes: a file it would refuse is not built on by a save.
        let (table, _) = try Self.standalone(bytes, path: path, saying: "\(path): ")
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
        for key in table.keys where key != "panel" {
            return "line \(table.line(of: key)): a key other than [[panel]]: the file holds [[panel]] match and calibration only"
        }
        guard let node = table["panel"] else { return nil }
        guard case .tables(let list) = node else { return "'panel' must be [[panel]] tables" }
        for t in list {
            for key in t.keys where key != "match" && key != "calibration" {
                return "line \(t.line(of: key)): a key other than match and calibration: a [[panel]] here holds those only"
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
        // A name is a match only when it matches just itself: not one fnmatch reads as a pattern
        // (a backslash escapes), nor one read as a node path or as some vendor:product.
        let pattern = name.contains(where: { "*?[\\".contains($0) }) || name.hasPrefix("/")
            || (name.utf8.count == 9 && name.split(separator: ":").map(\.count) == [4, 4] && name.allSatisfy { $0 == ":" || $0.isHexDigit })
        return name.isEmpty || pattern ? node : name
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
        var s = "# Written by a calibration (touchgesturectl calibrate, or a client's `calibrate` request):\n"
        s += "# a panel calibrated again replaces its entry.\n"
        s += "# Read after the main file (CONFIG.md, \"Drop-ins\"); remove an entry to undo it.\n"
        for p in panels {
            s += "\n[[panel]]\n"
            if !p.note.isEmpty { s += "# \(tomlEscaped(p.note))\n" }
            s += "match = \(tomlString(p.match))\n"
            s += "calibration = [\(p.calibration.map(calibrationNumber).joined(separator: ", "))]\n"
        }
        return s
    }

    /// The file's bytes once the daemon's own loader took them as written (each matrix after
    /// its rounding, every comment escaped): what reaches the disk always loads. `entry`, when
    /// given, is the match just set and its panel: the panel must find that entry first (a
    /// match that never matches its panel, or one an earlier entry shadows, is refused).
    /// `within`: the configuration file it is read with (and the daemon's saved calibrations'
    /// path, when this is that file): the whole configuration must load with these bytes in
    /// place, caps over all the files included.
    public func checkedBytes(
        for path: String, entry: (match: String, panel: PanelIdentity)? = nil, within: (config: String, calibrations: String?)? = nil
    ) throws(Refusal) -> [UInt8] {
        let bytes = Array(text.utf8)
        let (_, c) = try Self.standalone(bytes, path: path, saying: "\(path) would not load, so nothing was written: ")
        if let (match, p) = entry {
            if c.panelMatch(path: p.node, name: p.name, vendor: p.vendor, product: p.product) != match {
                throw Refusal(description: "the entry \(tomlString(match)) of \(path) would not be the one the panel \(tomlString(p.name)) (\(tomlEscaped(p.node))) takes; nothing was written")
            }
        }
        if let within {
            do { _ = try ConfigLoader.load(path: within.config, calibrations: within.calibrations, replacing: (path, bytes)) } catch {
                throw Refusal(description: "the configuration would not load with it (\(error)); nothing was written")
            }
        }
        return bytes
    }

    /// The tree of a calibration file's bytes, refused (`saying` first) as the loader refuses
    /// it: not TOML, past a file's caps, keys other than calibrations, a matrix or match the
    /// loader does not take.
    static func standalone(_ bytes: [UInt8], path: String, saying: String) throws(Refusal) -> (TOMLTable, Configuration) {
        let tree: TOMLTable
        do { tree = try ConfigLoader.fileTree(bytes, path: path) } catch { throw Refusal(description: saying + "line \(error.line): \(error.reason)") }
        if let why = notOnlyCalibrations(tree) { throw Refusal(description: saying + why) }
        do {
            var loader = Loader(file: path)
            return (tree, try loader.load(tree))
        } catch { throw Refusal(description: saying + "line \(error.line): \(error.reason)") }
    }

    /// Writes the file whole once `checkedBytes` took it: a new file beside it, synced, renamed
    /// over the old (a reader, or a power cut, sees one or the other), making its folder when
    /// missing.
    public func write(
        to path: String, entry: (match: String, panel: PanelIdentity)? = nil, within: (config: String, calibrations: String?)? = nil
    ) throws(Refusal) {
        let bytes = try checkedBytes(for: path, entry: entry, within: within)
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !folder.isEmpty, case .failure = Posix.status(folder) {
            if let e = Posix.makeDirectory(folder, mode: 0o755) { throw Refusal(description: "cannot make \(folder): \(e.reason)") }
        }
        if let e = Posix.replaceFile(path, with: bytes) {
            throw Refusal(description: "cannot write \(path): \(e.reason)")
        }
    }

    /// What a saved entry must match: a panel as the configuration matches panels.
    public struct PanelIdentity: Sendable {
        public var node: String, name: String, vendor: UInt16, product: UInt16
        public init(node: String, name: String, vendor: UInt16, product: UInt16) {
            (self.node, self.name, self.vendor, self.product) = (node, name, vendor, product)
        }
    }
}

/// A udev rule giving the panel the matrix (rotation folded in) as libinput's
/// `LIBINPUT_CALIBRATION_MATRIX`: for `mode = "observe"`, where the compositor reads the panel
/// itself. Matched by the exact name, so the `(touchgestured)` mirror is left alone.
public func udevRule(name: String, matrix: [Double]) -> String {
    // A character udev's value cannot hold, would read as a glob, or would steer the terminal
    // the rule is shown on, matches as any one character.
    let escaped = String(String.UnicodeScalarView(name.unicodeScalars.map { c in
        "\"\\*?[".unicodeScalars.contains(c) || SafeText.steers(c.value) ? "?" : c
    }))
    return "ACTION==\"add|change\", SUBSYSTEM==\"input\", KERNEL==\"event*\", ATTRS{name}==\"\(escaped)\", "
        + "ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(matrix.map(calibrationNumber).joined(separator: " "))\""
}

/// A number as TOML and udev read it back exactly enough (six decimals at most, no exponent
/// under 10^15); any Double gives text (a huge one its exponent form, which the loader refuses
/// with its line), never a trap.
public func calibrationNumber(_ d: Double) -> String {
    let r = (d * 1e6).rounded() / 1e6 + 0  // + 0: no "-0"
    guard r.isFinite, abs(r) < 1e15 else { return r.isFinite ? String(r) : (r.isNaN ? "nan" : r > 0 ? "inf" : "-inf") }
    if r == r.rounded() { return String(Int(r)) }
    var s = String(r)
    if s.contains("e") {
        // Tiny numbers: fixed notation.
        let scaled = Int((abs(r) * 1e6).rounded())
        let digits = String(scaled)
        s = (r < 0 ? "-" : "") + "0." + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
    return s
}

public func tomlString(_ s: String) -> String { "\"" + tomlEscaped(s) + "\"" }

/// `s` with what TOML cannot hold in a string or a comment escaped (control characters as
/// `\uXXXX`, quote and backslash), and what would steer a terminal the file is shown on (C1
/// controls, bidirectional overrides: SafeText's set): the one rule for every file the daemon
/// and its tools write.
public func tomlEscaped(_ s: String) -> String {
    var out = ""
    for ch in s.unicodeScalars {
        switch ch {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where SafeText.steers(ch.value): out += "\\u" + String(repeating: "0", count: 4 - String(ch.value, radix: 16).count) + String(ch.value, radix: 16)
        default: out.unicodeScalars.append(ch)
        }
    }
    return out
}
