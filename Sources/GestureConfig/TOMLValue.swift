/// What the TOML reader (TOMLParser.swift) gives: tables, values and their kinds, each with its line,
/// so that a configuration error names its line even when it is about meaning (an unknown key,
/// a wrong type, a rule cycle), not only syntax. TOMLKit (toml++) reports lines for syntax errors
/// only, and its C++ build adds a minute to every CI run.
public final class TOMLTable {
    public enum Node {
        case value(TOMLValue)
        case table(TOMLTable)
        case tables([TOMLTable])
    }

    /// How a table came to be, which decides what may add to it later (TOML 1.0, "Table"):
    /// a table named only as the parent in a header may be defined once by its own header; one
    /// made by dotted keys may be extended by dotted keys of the same section only; a header's
    /// table may not be defined again; an inline table is complete as written.
    enum Origin: Equatable {
        case implicit
        case header
        case dotted(section: Int)
        case inline
    }

    public private(set) var keys: [String] = []
    public private(set) var nodes: [String: Node] = [:]
    /// The line of each key.
    public private(set) var lines: [String: Int] = [:]
    /// The line where this table was opened (its header, or the key of an inline table).
    public let line: Int
    var origin: Origin
    /// The file this table came from, when not the file it was read into (a drop-in's table
    /// merged into the main file's tree, ConfigDropIns.swift); nil: the reader's own file.
    public internal(set) var file: String?
    /// The same for each key whose value a drop-in set in this table.
    var files: [String: String] = [:]

    public init(line: Int) {
        self.line = line
        origin = .implicit
    }

    init(line: Int, origin: Origin) {
        self.line = line
        self.origin = origin
    }

    public subscript(_ key: String) -> Node? { nodes[key] }

    public func line(of key: String) -> Int { lines[key] ?? line }

    /// The file `key`'s value came from, when a drop-in's (else nil: this table's file).
    public func file(of key: String) -> String? { files[key] ?? file }

    public func set(_ key: String, _ node: Node, line: Int) {
        if nodes[key] == nil { keys.append(key) }
        nodes[key] = node
        lines[key] = line
    }

    /// Marks this table and every table inside it complete (an inline table's dotted keys).
    func freeze() {
        origin = .inline
        for case .table(let t) in nodes.values { t.freeze() }
    }
}

/// A date, a time or both, with or without an offset: TOML's four date-time kinds in one value.
public struct TOMLDateTime: Hashable, Sendable, CustomStringConvertible {
    public struct Date: Hashable, Sendable {
        public var year: Int, month: Int, day: Int
    }
    public struct Time: Hashable, Sendable {
        public var hour: Int, minute: Int, second: Int
        /// Fractional seconds in nanoseconds (digits past the ninth are truncated, as TOML allows).
        public var nanosecond: Int
    }
    public var date: Date?
    public var time: Time?
    /// Minutes east of UTC (`Z` is 0); only with both date and time.
    public var offsetMinutes: Int?

    /// TOML's name of the kind: offset date-time, local date-time, local date or local time.
    public var kindName: String {
        switch (date != nil, time != nil, offsetMinutes != nil) {
        case (true, true, true): return "offset date-time"
        case (true, true, false): return "local date-time"
        case (true, false, _): return "local date"
        default: return "local time"
        }
    }

    /// RFC 3339 form: `1979-05-27T07:32:00.5-07:00`.
    public var description: String {
        func pad(_ n: Int, _ w: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        var out = ""
        if let d = date { out += "\(pad(d.year, 4))-\(pad(d.month, 2))-\(pad(d.day, 2))" }
        if let t = time {
            if date != nil { out += "T" }
            out += "\(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(t.second, 2))"
            if t.nanosecond > 0 {
                var frac = pad(t.nanosecond, 9)
                while frac.hasSuffix("0") { frac.removeLast() }
                out += "." + frac
            }
        }
        if let o = offsetMinutes {
            out += o == 0 ? "Z" : "\(o < 0 ? "-" : "+")\(pad(abs(o) / 60, 2)):\(pad(abs(o) % 60, 2))"
        }
        return out
    }
}

public struct TOMLValue {
    public init(kind: Kind, line: Int) {
        self.kind = kind
        self.line = line
    }

    public enum Kind {
        case string(String)
        case integer(Int64)
        case float(Double)
        case bool(Bool)
        case dateTime(TOMLDateTime)
        case array([TOMLValue])
        case table(TOMLTable)
    }
    public var kind: Kind
    public var line: Int

    public var typeName: String {
        switch kind {
        case .string: return "a string"
        case .integer: return "an integer"
        case .float: return "a float"
        case .bool: return "a boolean"
        case .dateTime(let d): return "a \(d.kindName)"
        case .array: return "an array"
        case .table: return "a table"
        }
    }

    /// Integers and floats as a Double.
    public var number: Double? {
        switch kind {
        case .integer(let i): return Double(i)
        case .float(let f): return f
        case .string, .bool, .dateTime, .array, .table: return nil
        }
    }
}

public struct TOMLError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var reason: String
    public var description: String { "line \(line): \(reason)" }
}
