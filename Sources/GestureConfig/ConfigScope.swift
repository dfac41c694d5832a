import GestureEngine

/// A table being read: typed getters that fail with the key's line.
struct Scope {
    let table: TOMLTable
    /// The file the table was read from (a drop-in's, for a table one added).
    let file: String
    let name: String

    init(table: TOMLTable, file: String, name: String) {
        self.table = table
        self.file = table.file ?? file
        self.name = name
    }

    func fail(_ key: String?, _ reason: String) -> ConfigError {
        ConfigError(file: key.flatMap { table.files[$0] } ?? file, line: key.map { table.line(of: $0) } ?? table.line, reason: reason)
    }

    func checkKeys(_ allowed: [String]) throws(ConfigError) {
        for k in table.keys where !allowed.contains(k) {
            throw fail(k, "unknown key '\(k)' in \(name.isEmpty ? "the top level" : name) (known: \(allowed.joined(separator: ", ")))")
        }
    }

    func value(_ key: String) throws(ConfigError) -> TOMLValue? {
        switch table[key] {
        case nil: return nil
        case .value(let v): return v
        case .table, .tables: throw fail(key, "'\(key)' in \(name.isEmpty ? "the top level" : name) must be a value, not a table")
        }
    }

    func number(
        _ key: String, atLeast low: Double? = nil, above: Double? = nil, atMost high: Double? = nil, allowInfinity: Bool = false
    ) throws(ConfigError) -> Double? {
        guard let v = try value(key) else { return nil }
        guard let d = v.number else { throw fail(key, "'\(key)' must be a number, found \(v.typeName)") }
        if d.isNaN { throw fail(key, "'\(key)' is NaN") }
        if d.isInfinite && !allowInfinity { throw fail(key, "'\(key)' must be finite") }
        // Said as written: an integer as an integer (9223372036854775807, not 9.2e+18).
        let found: String
        if case .integer(let i) = v.kind { found = "\(i)" } else { found = format(d) }
        if let low, d < low { throw fail(key, "'\(key)' must be at least \(format(low)), found \(found)") }
        if let above, d <= above { throw fail(key, "'\(key)' must be more than \(format(above)), found \(found)") }
        if let high, d > high { throw fail(key, "'\(key)' must be at most \(format(high)), found \(found)") }
        return d
    }

    /// A finite number within `range` (in `unit`, for the message); with `offAtZero`, 0 too (the
    /// key's "off"), so that a tiny number is refused rather than read as a value that rounds to
    /// nothing or runs the arithmetic behind it to a trap.
    func number(_ key: String, in range: ClosedRange<Double>, unit: String = "", offAtZero: Bool = false) throws(ConfigError) -> Double? {
        guard let d = try number(key) else { return nil }
        if offAtZero && d == 0 { return 0 }
        guard range.contains(d) else {
            let u = unit.isEmpty ? "" : " \(unit)"
            let found: String
            if case .integer(let i)? = try value(key)?.kind { found = "\(i)" } else { found = format(d) }
            throw fail(key, "'\(key)' must be \(offAtZero ? "0 (off) or " : "")from \(format(range.lowerBound)) to \(format(range.upperBound))\(u), found \(found)")
        }
        return d
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let v = try value(key) else { return nil }
        guard case .integer(let i) = v.kind else { throw fail(key, "'\(key)' must be an integer, found \(v.typeName)") }
        guard range.contains(Int(i)) else {
            throw fail(key, "'\(key)' must be from \(range.lowerBound) to \(range.upperBound), found \(i)")
        }
        return Int(i)
    }

    func string(_ key: String) throws(ConfigError) -> String? {
        guard let v = try value(key) else { return nil }
        guard case .string(let s) = v.kind else { throw fail(key, "'\(key)' must be a string, found \(v.typeName)") }
        return s
    }

    func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let v = try value(key) else { return nil }
        guard case .bool(let b) = v.kind else { throw fail(key, "'\(key)' must be true or false, found \(v.typeName)") }
        return b
    }

    func choice<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type) throws(ConfigError) -> E?
    where E.RawValue == String {
        guard let s = try string(key) else { return nil }
        guard let e = E(rawValue: s) else {
            throw fail(key, "'\(key)' must be one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \"\(s)\"")
        }
        return e
    }

    func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let v = try value(key) else { return nil }
        guard case .array(let items) = v.kind else { throw fail(key, "'\(key)' must be an array of strings") }
        var out: [String] = []
        for item in items {
            guard case .string(let s) = item.kind else { throw fail(key, "'\(key)' must hold strings only, found \(item.typeName)") }
            out.append(s)
        }
        return out
    }

    func numbers(_ key: String, count: Int? = nil) throws(ConfigError) -> [Double]? {
        guard let v = try value(key) else { return nil }
        guard case .array(let items) = v.kind else { throw fail(key, "'\(key)' must be an array of numbers") }
        var out: [Double] = []
        for item in items {
            guard let d = item.number else { throw fail(key, "'\(key)' must hold numbers only, found \(item.typeName)") }
            guard d.isFinite else { throw fail(key, "'\(key)' must hold finite numbers") }
            out.append(d)
        }
        if let count, out.count != count { throw fail(key, "'\(key)' must hold \(count) numbers, found \(out.count)") }
        return out
    }

    func subtable(_ key: String) throws(ConfigError) -> Scope? {
        switch table[key] {
        case nil: return nil
        case .table(let t):
            return Scope(table: t, file: file, name: name.isEmpty ? "[\(key)]" : "[\(name.trimmingBrackets).\(key)]")
        case .value, .tables: throw fail(key, "'\(key)' in \(name.isEmpty ? "the top level" : name) must be a table")
        }
    }

    func subtables(_ key: String, label: String) throws(ConfigError) -> [Scope] {
        switch table[key] {
        case nil: return []
        case .tables(let list): return list.map { Scope(table: $0, file: file, name: label) }
        case .table(let t): return [Scope(table: t, file: file, name: label)]  // one table: a list of one
        case .value(let v):
            // An array of inline tables: gesture = [{ kind = "tap" }, ...]
            if case .array(let items) = v.kind {
                var out: [Scope] = []
                for item in items {
                    guard case .table(let t) = item.kind else { break }
                    out.append(Scope(table: t, file: table.files[key] ?? file, name: label))
                }
                if out.count == items.count { return out }
            }
            throw fail(key, "'\(key)' must be an array of tables ([[\(key)]])")
        }
    }
}

extension String {
    var trimmingBrackets: String { String(self.drop { $0 == "[" }.reversed().drop { $0 == "]" }.reversed()) }
}

func format(_ d: Double) -> String {
    d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
}

/// `bytes` in MiB, with one decimal rounded up where it is no whole number (64.5, or 64.1 for a
/// byte past 64: never a rounded-down 64 beside "at most 64").
func mebibytes(_ bytes: Int) -> String {
    guard bytes % (1 << 20) != 0 else { return "\(bytes >> 20)" }
    let tenths = Int((Double(bytes) / Double(1 << 20) * 10).rounded(.up))
    return "\(tenths / 10).\(tenths % 10)"
}
