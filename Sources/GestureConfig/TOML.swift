/// A TOML 1.0 reader that remembers the line of every key and value, so that a configuration
/// error names its line even when it is about meaning (an unknown key, a wrong type, a rule
/// cycle), not only syntax. TOMLKit (toml++) reports lines for syntax errors only, and its C++
/// build adds a minute to every CI run.
///
/// The whole of TOML 1.0 (https://toml.io/en/v1.0.0): checked against toml-lang/toml-test, every
/// valid document read with the suite's values and every invalid one refused
/// (Tests/GestureConfigTests/TOMLConformanceTests.swift reads the suite in place).
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

public struct TOMLError: Error, Equatable {
    public var line: Int
    public var reason: String
}

/// Parses TOML text into a root table.
public func parseTOML(_ text: String) throws(TOMLError) -> TOMLTable {
    var p = TOMLParser(Array(text.utf8))
    return try p.parseDocument()
}

/// Parses a TOML file's bytes, refusing bytes that are not UTF-8 with their line.
public func parseTOML(bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
    if let bad = firstInvalidUTF8(bytes) {
        throw TOMLError(line: 1 + bytes[..<bad].count { $0 == 0x0A }, reason: "the file is not UTF-8 text here")
    }
    var p = TOMLParser(bytes)
    return try p.parseDocument()
}

/// The offset of the first byte that is not part of well-formed UTF-8 (no overlong forms, no
/// surrogates, nothing past U+10FFFF), or nil.
func firstInvalidUTF8(_ s: [UInt8]) -> Int? {
    var i = 0
    while i < s.count {
        let c = s[i]
        if c < 0x80 {
            i += 1
            continue
        }
        let n: Int, low: UInt8, high: UInt8
        switch c {
        case 0xC2...0xDF: (n, low, high) = (1, 0x80, 0xBF)
        case 0xE0: (n, low, high) = (2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (n, low, high) = (2, 0x80, 0xBF)
        case 0xED: (n, low, high) = (2, 0x80, 0x9F)
        case 0xF0: (n, low, high) = (3, 0x90, 0xBF)
        case 0xF1...0xF3: (n, low, high) = (3, 0x80, 0xBF)
        case 0xF4: (n, low, high) = (3, 0x80, 0x8F)
        default: return i
        }
        guard i + n < s.count, s[i + 1] >= low, s[i + 1] <= high else { return i }
        var k = 2
        while k <= n {
            guard s[i + k] >= 0x80, s[i + k] <= 0xBF else { return i }
            k += 1
        }
        i += n + 1
    }
    return nil
}

private let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), backslash = UInt8(ascii: "\\")
private let lf: UInt8 = 0x0A, cr: UInt8 = 0x0D, tab: UInt8 = 0x09, space: UInt8 = 0x20, del: UInt8 = 0x7F

private struct TOMLParser {
    let s: [UInt8]
    var i = 0
    var line = 1
    /// Each `[header]` starts a section; dotted keys may extend tables made in their own section.
    var section = 0
    /// Nesting depth of arrays and inline tables: bounded so no input can exhaust the stack.
    var depth = 0
    static let maxDepth = 128

    init(_ bytes: [UInt8]) { s = bytes }

    func error(_ reason: String) -> TOMLError { TOMLError(line: line, reason: reason) }

    var peek: UInt8? { i < s.count ? s[i] : nil }

    func peek(_ offset: Int) -> UInt8? { i + offset < s.count ? s[i + offset] : nil }

    func describe(_ c: UInt8) -> String {
        switch c {
        case lf: return "the end of the line"
        case cr: return "a carriage return"
        case tab: return "a tab"
        case 0..<0x20, del: return "the control character U+\(String(c, radix: 16, uppercase: true))"
        case 0x20..<0x7F: return "'\(String(decoding: [c], as: UTF8.self))'"
        default: return "a non-ASCII character"
        }
    }

    mutating func skipSpaces() {
        while let c = peek, c == space || c == tab { i += 1 }
    }

    /// A newline (LF or CRLF) if one is here. A CR alone is refused.
    mutating func newline() throws(TOMLError) -> Bool {
        if peek == lf {
            i += 1
            line += 1
            return true
        }
        if peek == cr {
            guard peek(1) == lf else { throw error("a carriage return must be followed by a line feed") }
            i += 2
            line += 1
            return true
        }
        return false
    }

    /// A comment runs to the end of the line and may hold no control character but tab.
    mutating func skipComment() throws(TOMLError) {
        guard peek == UInt8(ascii: "#") else { return }
        i += 1
        while let c = peek, c != lf {
            if c == cr && peek(1) == lf { return }
            if (c < space && c != tab) || c == del { throw error("\(describe(c)) is not allowed in a comment") }
            i += 1
        }
    }

    /// Spaces, comments and newlines (between the values of an array).
    mutating func skipBlank() throws(TOMLError) {
        while true {
            skipSpaces()
            try skipComment()
            guard try newline() else { return }
        }
    }

    mutating func expectLineEnd() throws(TOMLError) {
        skipSpaces()
        try skipComment()
        guard let c = peek else { return }
        guard try newline() else { throw error("expected the end of the line, found \(describe(c))") }
    }

    mutating func parseDocument() throws(TOMLError) -> TOMLTable {
        let root = TOMLTable(line: 1, origin: .header)
        var current = root
        if s.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while true {
            skipSpaces()
            guard let c = peek else { break }
            if c == UInt8(ascii: "#") || c == lf || c == cr {
                try expectLineEnd()
            } else if c == UInt8(ascii: "[") {
                let headerLine = line
                i += 1
                let isArray = peek == UInt8(ascii: "[")
                if isArray { i += 1 }
                let path = try parseKeyPath()
                guard peek == UInt8(ascii: "]") else { throw error("expected ']' to close the table header") }
                i += 1
                if isArray {
                    guard peek == UInt8(ascii: "]") else { throw error("expected ']]' to close the array-of-tables header") }
                    i += 1
                }
                try expectLineEnd()
                section += 1
                current = try open(path, in: root, asArray: isArray, line: headerLine)
            } else {
                try parseKeyValue(into: current, section: section)
                try expectLineEnd()
            }
        }
        return root
    }

    /// Finds or creates the table a header names.
    func open(_ path: [String], in root: TOMLTable, asArray: Bool, line headerLine: Int) throws(TOMLError) -> TOMLTable {
        let name = path.joined(separator: ".")
        var t = root
        for (n, key) in path.enumerated() {
            let last = n == path.count - 1
            switch t[key] {
            case nil:
                let fresh = TOMLTable(line: headerLine, origin: last ? .header : .implicit)
                t.set(key, last && asArray ? .tables([fresh]) : .table(fresh), line: headerLine)
                t = fresh
            case .table(let existing):
                if last && asArray { throw error("'\(name)' is a table, not an array of tables") }
                switch existing.origin {
                case .inline: throw error("'\(key)' is an inline table, which cannot be extended")
                case .implicit where last: existing.origin = .header
                case .header where last: throw error("table [\(name)] is defined twice")
                case .dotted where last: throw error("table [\(name)] is already defined by dotted keys")
                case .implicit, .header, .dotted: break
                }
                t = existing
            case .tables(var list):
                if last && asArray {
                    let fresh = TOMLTable(line: headerLine, origin: .header)
                    list.append(fresh)
                    t.set(key, .tables(list), line: t.line(of: key))
                    t = fresh
                } else if last {
                    throw error("'\(name)' is an array of tables; use [[\(name)]]")
                } else {
                    t = list[list.count - 1]
                }
            case .value(let v):
                throw error("'\(key)' is already \(v.typeName), not a table")
            }
        }
        return t
    }

    /// `key`, `a.b."c d"`, with spaces around the dots.
    mutating func parseKeyPath() throws(TOMLError) -> [String] {
        var path: [String] = []
        while true {
            skipSpaces()
            path.append(try parseKey())
            skipSpaces()
            guard peek == UInt8(ascii: ".") else { return path }
            i += 1
        }
    }

    mutating func parseKey() throws(TOMLError) -> String {
        guard let c = peek else { throw error("expected a key, found the end of the file") }
        if c == quote {
            if peek(1) == quote && peek(2) == quote { throw error("a key cannot be a multi-line string") }
            return try parseBasicString()
        }
        if c == apostrophe {
            if peek(1) == apostrophe && peek(2) == apostrophe { throw error("a key cannot be a multi-line string") }
            return try parseLiteralString()
        }
        let start = i
        while let d = peek, isBare(d) { i += 1 }
        guard i > start else { throw error("expected a key, found \(describe(c))") }
        return String(decoding: s[start..<i], as: UTF8.self)
    }

    func isBare(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D
    }

    /// `key = value` into `table`; dotted keys make (or extend, in the same `section`) tables.
    mutating func parseKeyValue(into table: TOMLTable, section: Int) throws(TOMLError) {
        let keyLine = line
        let path = try parseKeyPath()
        let name = path.joined(separator: ".")
        guard peek == UInt8(ascii: "=") else {
            throw error("expected '=' after the key '\(name)', found \(peek.map(describe) ?? "the end of the file")")
        }
        i += 1
        skipSpaces()
        let value = try parseValue()
        var t = table
        for key in path.dropLast() {
            switch t[key] {
            case nil:
                let fresh = TOMLTable(line: keyLine, origin: .dotted(section: section))
                t.set(key, .table(fresh), line: keyLine)
                t = fresh
            case .table(let existing):
                switch existing.origin {
                case .implicit: existing.origin = .dotted(section: section)
                case .dotted(let made) where made == section: break
                case .inline:
                    throw TOMLError(line: keyLine, reason: "'\(key)' is an inline table, which cannot be extended")
                case .header, .dotted:
                    throw TOMLError(line: keyLine, reason: "table '\(key)' is defined elsewhere and cannot be extended by the dotted key '\(name)'")
                }
                t = existing
            case .tables:
                throw TOMLError(line: keyLine, reason: "'\(key)' is an array of tables and cannot be extended by the dotted key '\(name)'")
            case .value(let v):
                throw TOMLError(line: keyLine, reason: "'\(key)' is already \(v.typeName), not a table")
            }
        }
        let key = path[path.count - 1]
        guard t[key] == nil else { throw TOMLError(line: keyLine, reason: "key '\(name)' is defined twice") }
        if case .table(let inline) = value.kind {
            t.set(key, .table(inline), line: keyLine)
        } else {
            t.set(key, .value(value), line: keyLine)
        }
    }

    mutating func parseValue() throws(TOMLError) -> TOMLValue {
        let valueLine = line
        guard let c = peek else { throw error("expected a value, found the end of the file") }
        switch c {
        case quote:
            let str = peek(1) == quote && peek(2) == quote ? try parseMultiLineString(literal: false) : try parseBasicString()
            return TOMLValue(kind: .string(str), line: valueLine)
        case apostrophe:
            let str = peek(1) == c && peek(2) == c ? try parseMultiLineString(literal: true) : try parseLiteralString()
            return TOMLValue(kind: .string(str), line: valueLine)
        case UInt8(ascii: "["):
            return TOMLValue(kind: .array(try nested { (p: inout TOMLParser) throws(TOMLError) in try p.parseArray() }), line: valueLine)
        case UInt8(ascii: "{"):
            return TOMLValue(kind: .table(try nested { (p: inout TOMLParser) throws(TOMLError) in try p.parseInlineTable() }), line: valueLine)
        default:
            return TOMLValue(kind: try parseScalar(), line: valueLine)
        }
    }

    mutating func nested<T>(_ body: (inout TOMLParser) throws(TOMLError) -> T) throws(TOMLError) -> T {
        guard depth < Self.maxDepth else { throw error("nested too deeply (\(Self.maxDepth) levels at most)") }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    mutating func parseArray() throws(TOMLError) -> [TOMLValue] {
        i += 1
        var items: [TOMLValue] = []
        while true {
            try skipBlank()
            if peek == UInt8(ascii: "]") {
                i += 1
                return items
            }
            items.append(try parseValue())
            try skipBlank()
            switch peek {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "]"):
                i += 1
                return items
            case let c: throw error("expected ',' or ']' in an array, found \(c.map(describe) ?? "the end of the file")")
            }
        }
    }

    /// `{ a = 1, b.c = 2 }` on one line, no trailing comma (TOML 1.0).
    mutating func parseInlineTable() throws(TOMLError) -> TOMLTable {
        let t = TOMLTable(line: line, origin: .implicit)
        i += 1
        section += 1
        let own = section
        skipSpaces()
        if peek == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                try parseKeyValue(into: t, section: own)
                skipSpaces()
                if peek == UInt8(ascii: "}") {
                    i += 1
                    break
                }
                guard peek == UInt8(ascii: ",") else {
                    throw error("expected ',' or '}' in an inline table, found \(peek.map(describe) ?? "the end of the file")")
                }
                i += 1
                skipSpaces()
                if peek == UInt8(ascii: "}") { throw error("an inline table may not end with a comma (TOML 1.0)") }
            }
        }
        t.freeze()
        return t
    }

    // MARK: Strings

    /// One character of a string's body, or nil at its end; refuses control characters but tab
    /// (and, in multi-line strings, newlines, which the caller handles).
    func checkStringByte(_ c: UInt8) throws(TOMLError) {
        if (c < space && c != tab) || c == del { throw error("\(describe(c)) is not allowed in a string (escape it)") }
    }

    mutating func parseBasicString() throws(TOMLError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw error("unterminated string") }
            if c == quote {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if c == lf || c == cr { throw error("unterminated string (a basic string ends on its line)") }
            if c == backslash {
                try parseEscape(into: &out)
            } else {
                try checkStringByte(c)
                out.append(c)
                i += 1
            }
        }
    }

    mutating func parseLiteralString() throws(TOMLError) -> String {
        i += 1
        let start = i
        while true {
            guard let c = peek else { throw error("unterminated literal string") }
            if c == apostrophe { break }
            if c == lf || c == cr { throw error("unterminated literal string (it ends on its line)") }
            try checkStringByte(c)
            i += 1
        }
        let str = String(decoding: s[start..<i], as: UTF8.self)
        i += 1
        return str
    }

    /// `"""…"""` or `'''…'''`: a newline right after the opening is dropped; up to two quotes
    /// may stand anywhere, also right before the closing three; in a basic one a backslash at
    /// the end of a line swallows the newline and the blanks after it.
    mutating func parseMultiLineString(literal: Bool) throws(TOMLError) -> String {
        let delimiter = literal ? apostrophe : quote
        i += 3
        _ = try newline()
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw error("unterminated multi-line string") }
            if c == delimiter {
                var run = 0
                while peek(run) == delimiter { run += 1 }
                if run >= 3 {
                    guard run <= 5 else { throw error("too many quotes at the end of a multi-line string") }
                    out += repeatElement(delimiter, count: run - 3)
                    i += run
                    return String(decoding: out, as: UTF8.self)
                }
                out += repeatElement(delimiter, count: run)
                i += run
            } else if c == lf || c == cr {
                _ = try newline()
                out.append(lf)
            } else if c == backslash && !literal {
                if try skipLineEndingBackslash() { continue }
                try parseEscape(into: &out)
            } else {
                try checkStringByte(c)
                out.append(c)
                i += 1
            }
        }
    }

    /// A backslash followed by blanks up to the end of the line: skips it, the newline and every
    /// blank and newline after. Returns false (and moves nothing) for any other backslash.
    mutating func skipLineEndingBackslash() throws(TOMLError) -> Bool {
        var j = i + 1
        while j < s.count, s[j] == space || s[j] == tab { j += 1 }
        guard j < s.count, s[j] == lf || (s[j] == cr && j + 1 < s.count && s[j + 1] == lf) else { return false }
        i = j
        while true {
            skipSpaces()
            guard try newline() else { return true }
        }
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(TOMLError) {
        i += 1
        guard let e = peek else { throw error("unterminated string") }
        i += 1
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(tab)
        case UInt8(ascii: "n"): out.append(lf)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(cr)
        case quote: out.append(quote)
        case backslash: out.append(backslash)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let n = e == UInt8(ascii: "u") ? 4 : 8
            guard i + n <= s.count, s[i..<(i + n)].allSatisfy(isHex),
                let v = UInt32(String(decoding: s[i..<(i + n)], as: UTF8.self), radix: 16), let scalar = Unicode.Scalar(v)
            else { throw error("\\\(String(decoding: [e], as: UTF8.self)) needs \(n) hex digits of a Unicode scalar value") }
            i += n
            out += Array(String(Character(scalar)).utf8)
        default:
            throw error("unknown escape '\\\(String(decoding: [e], as: UTF8.self))'")
        }
    }

    func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x66) }
    func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    // MARK: Booleans, numbers, dates and times

    /// The bytes up to the next delimiter, then what they spell. A date followed by a space and
    /// a time is one date-time.
    mutating func parseScalar() throws(TOMLError) -> TOMLValue.Kind {
        let start = i
        func isWordByte(_ c: UInt8) -> Bool {
            isBare(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
        }
        while let c = peek, isWordByte(c) { i += 1 }
        if i - start == 10, s[start + 4] == UInt8(ascii: "-"), peek == space, let a = peek(1), let b = peek(2),
            isDigit(a), isDigit(b), peek(3) == UInt8(ascii: ":")
        {
            i += 1
            while let c = peek, isWordByte(c) { i += 1 }
        }
        let word = Array(s[start..<i])
        guard !word.isEmpty else { throw error("expected a value, found \(peek.map(describe) ?? "the end of the file")") }
        let text = String(decoding: word, as: UTF8.self)
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        if word.count >= 5 && word[2] == UInt8(ascii: ":") || word.count >= 10 && word[4] == UInt8(ascii: "-") {
            guard let d = dateTime(word) else { throw error("'\(text)' is not a valid date or time (RFC 3339: 1979-05-27T07:32:00Z)") }
            return .dateTime(d)
        }
        return try number(word, text)
    }

    /// Integers (decimal without leading zeros, `0x`, `0o`, `0b`) and floats; `_` only between
    /// digits. Out of range for 64 bits is refused, not rounded.
    func number(_ w: [UInt8], _ text: String) throws(TOMLError) -> TOMLValue.Kind {
        let notANumber = error("'\(text)' is not a value (strings need quotes)")
        if w.count > 2, w[0] == UInt8(ascii: "0"), let radix = [UInt8(ascii: "x"): 16, UInt8(ascii: "o"): 8, UInt8(ascii: "b"): 2][w[1]] {
            let body = w[2...]
            let ok: (UInt8) -> Bool = { c in radix == 16 ? isHex(c) : c >= 0x30 && c < 0x30 + UInt8(radix) }
            guard digitRun(body, ok) == body.endIndex else { throw notANumber }
            guard let v = Int64(String(decoding: body.filter { $0 != 0x5F }, as: UTF8.self), radix: radix) else {
                throw error("'\(text)' is out of range for a 64-bit integer")
            }
            return .integer(v)
        }
        var j = w.startIndex
        if w[j] == UInt8(ascii: "+") || w[j] == UInt8(ascii: "-") { j += 1 }
        let intStart = j
        j = digitRun(w[j...], isDigit)
        guard j > intStart else { throw notANumber }
        if w[intStart] == UInt8(ascii: "0") && j - intStart > 1 { throw error("'\(text)': leading zeros are not allowed") }
        var isFloat = false
        if j < w.endIndex, w[j] == UInt8(ascii: ".") {
            let fracStart = j + 1
            j = digitRun(w[fracStart...], isDigit)
            guard j > fracStart else { throw notANumber }
            isFloat = true
        }
        if j < w.endIndex, w[j] | 0x20 == UInt8(ascii: "e") {
            j += 1
            if j < w.endIndex, w[j] == UInt8(ascii: "+") || w[j] == UInt8(ascii: "-") { j += 1 }
            let expStart = j
            j = digitRun(w[j...], isDigit)
            guard j > expStart else { throw notANumber }
            isFloat = true
        }
        guard j == w.endIndex else { throw notANumber }
        let clean = String(decoding: w.filter { $0 != 0x5F }, as: UTF8.self)
        if !isFloat {
            guard let v = Int64(clean) else { throw error("'\(text)' is out of range for a 64-bit integer") }
            return .integer(v)
        }
        guard let d = Double(clean), d.isFinite else { throw error("'\(text)' is out of range for a 64-bit float") }
        let mantissaIsZero = clean.prefix { $0 != "e" && $0 != "E" }.allSatisfy { !("1"..."9").contains($0) }
        if d == 0 && !mantissaIsZero { throw error("'\(text)' is too small for a 64-bit float (it would read as 0)") }
        return .float(d)
    }

    /// The end of `digit (_? digit)*` at the start of `w` (its start if there is none, or if an
    /// underscore is misplaced, so the caller refuses the number).
    func digitRun(_ w: ArraySlice<UInt8>, _ ok: (UInt8) -> Bool) -> Int {
        var j = w.startIndex
        guard j < w.endIndex, ok(w[j]) else { return w.startIndex }
        j += 1
        while j < w.endIndex {
            if ok(w[j]) {
                j += 1
            } else if w[j] == 0x5F {
                guard j + 1 < w.endIndex, ok(w[j + 1]) else { return w.startIndex }
                j += 2
            } else {
                break
            }
        }
        return j
    }

    /// RFC 3339 as TOML takes it: a full date, a time with seconds, or both joined by `T`, `t`
    /// or a space, with an optional offset (`Z`, `z`, `+hh:mm`) after a date and a time.
    func dateTime(_ w: [UInt8]) -> TOMLDateTime? {
        var j = 0
        func fixed(_ n: Int) -> Int? {
            guard j + n <= w.count, w[j..<(j + n)].allSatisfy(isDigit) else { return nil }
            defer { j += n }
            return w[j..<(j + n)].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        func expect(_ c: Character) -> Bool {
            guard j < w.count, w[j] == c.asciiValue! else { return false }
            j += 1
            return true
        }
        var result = TOMLDateTime()
        if w.count >= 10 && w[4] == UInt8(ascii: "-") {
            guard let y = fixed(4), expect("-"), let m = fixed(2), expect("-"), let d = fixed(2) else { return nil }
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard (1...12).contains(m), (1...days[m - 1]).contains(d) else { return nil }
            result.date = .init(year: y, month: m, day: d)
            if j == w.count { return result }
            guard w[j] | 0x20 == UInt8(ascii: "t") || w[j] == space else { return nil }
            j += 1
        }
        guard let h = fixed(2), expect(":"), let mi = fixed(2), expect(":"), let sec = fixed(2) else { return nil }
        guard h < 24, mi < 60, sec <= 60 else { return nil }
        var nanos = 0
        if expect(".") {
            let fracStart = j
            while j < w.count, isDigit(w[j]) { j += 1 }
            guard j > fracStart else { return nil }
            for k in 0..<9 { nanos = nanos * 10 + (fracStart + k < j ? Int(w[fracStart + k] - 0x30) : 0) }
        }
        result.time = .init(hour: h, minute: mi, second: sec, nanosecond: nanos)
        if j == w.count { return result }
        guard result.date != nil else { return nil }
        if w[j] | 0x20 == UInt8(ascii: "z") {
            j += 1
            result.offsetMinutes = 0
        } else {
            guard w[j] == UInt8(ascii: "+") || w[j] == UInt8(ascii: "-") else { return nil }
            let sign = w[j] == UInt8(ascii: "-") ? -1 : 1
            j += 1
            guard let oh = fixed(2), expect(":"), let om = fixed(2), oh < 24, om < 60 else { return nil }
            result.offsetMinutes = sign * (oh * 60 + om)
        }
        return j == w.count ? result : nil
    }
}
