import GestureConfig
import SystemCalls

/// The calibrator's drop-in (`touchgestured.d/calibration.toml` beside the configuration): one
/// `[[panel]]` per calibrated panel, its `match` and `calibration` only. The file is the
/// calibrator's own: a panel calibrated again replaces its entry, the others' stay; the admin's
/// files are never rewritten (ConfigDropIns.swift merges a `[[panel]]` of the same `match` into
/// the admin's).
struct CalibrationFile {
    /// Entries in file order.
    private(set) var panels: [(match: String, calibration: [Double], note: String)] = []

    /// The entries of the file at `path`; none when it does not exist yet. A file that is not
    /// the calibrator's (other keys) is refused rather than overwritten.
    init(readingFrom path: String) throws {
        guard case .success = Posix.status(path) else { return }
        let table: TOMLTable
        do {
            table = try parseTOML(bytes: try readRegularFile(path, limit: ConfigLimits.fileBytes))
        } catch {
            throw fail("\(path): \(error); move it away, or write elsewhere with --write FILE")
        }
        for key in table.keys where key != "panel" {
            throw fail("\(path) holds '\(key)', so it is not only the calibrator's: write elsewhere with --write FILE")
        }
        guard case .tables(let list)? = table["panel"] else { return }
        for t in list {
            guard case .value(let m)? = t["match"], case .string(let match) = m.kind,
                case .value(let c)? = t["calibration"], case .array(let items) = c.kind
            else { throw fail("\(path): a [[panel]] without match and calibration: write elsewhere with --write FILE") }
            panels.append((match, items.compactMap(\.number), ""))
        }
    }

    /// Sets `match`'s calibration (replacing its entry, else added).
    mutating func set(_ match: String, _ calibration: [Double], note: String) {
        if let i = panels.firstIndex(where: { $0.match == match }) {
            panels[i] = (match, calibration, note)
        } else {
            panels.append((match, calibration, note))
        }
    }

    var text: String {
        var s = "# Written by touchgesturectl calibrate: a panel calibrated again replaces its entry.\n"
        s += "# Read after the main file (CONFIG.md, \"Drop-ins\"); remove an entry to undo it.\n"
        for p in panels {
            s += "\n[[panel]]\n"
            if !p.note.isEmpty { s += "# \(p.note)\n" }
            s += "match = \(tomlString(p.match))\n"
            s += "calibration = [\(p.calibration.map(number).joined(separator: ", "))]\n"
        }
        return s
    }

    func write(to path: String) throws {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !folder.isEmpty, case .failure = Posix.status(folder) {
            if let e = Posix.makeDirectory(folder, mode: 0o755) { throw fail("cannot make \(folder): \(e.reason)") }
        }
        if let e = Posix.replaceFile(path, with: Array(text.utf8)) {
            throw fail("cannot write \(path): \(e.reason) (run as root, or --write FILE, or --dry-run to print it)")
        }
    }
}

/// A udev rule giving the panel the matrix (rotation folded in) as libinput's
/// `LIBINPUT_CALIBRATION_MATRIX`: for `mode = "observe"`, where the compositor reads the panel
/// itself. Matched by the exact name, so the `(touchgestured)` mirror is left alone.
func udevRule(name: String, matrix: [Double]) -> String {
    // A character udev's value cannot hold, or would read as a glob, matches as any one character.
    let escaped = String(name.map { "\"\\*?[".contains($0) ? "?" : $0 })
    return "ACTION==\"add|change\", SUBSYSTEM==\"input\", KERNEL==\"event*\", ATTRS{name}==\"\(escaped)\", "
        + "ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(matrix.map(number).joined(separator: " "))\""
}

/// A number as TOML and udev read it back exactly enough (six decimals at most, no exponent).
func number(_ d: Double) -> String {
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

func tomlString(_ s: String) -> String {
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
