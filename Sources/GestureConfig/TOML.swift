/// A TOML reader that remembers the line of every key and value, so that a configuration
/// error names its line even when it is about meaning (an unknown key, a wrong type, a rule
/// cycle), not only syntax. TOMLKit (toml++) reports lines for syntax errors only, and its C++
/// build adds a minute to every CI run; the subset admins write by hand fits in this file.
///
/// Supported: comments, bare/quoted/dotted keys, `[table]`, `[[array.of.tables]]`, basic and
/// literal strings, integers (with `_`, hex `0x`), floats (incl. `inf`, `nan`), booleans,
/// arrays (multi-line, trailing comma), inline tables. Not supported (refused with the line):
/// multi-line strings, dates and times.
public final class TOMLTable {
    public enum Node {
        case value(TOMLValue)
        case table(TOMLTable)
        case tables([TOMLTable])
    }

    public private(set) var keys: [String] = []
    public private(set) var nodes: [String: Node] = [:]
    /// The line of each key.
    public private(set) var lines: [String: Int] = [:]
    /// The line where this table was opened (its header, or the key of an inline table).
    public let line: Int
    /// Defined by a `[header]` or inline: may not be defined again.
    var sealed = false
    var isInline = false

    public init(line: Int) { self.line = line }

    public subscript(_ key: String) -> Node? { nodes[key] }

    public func line(of key: String) -> Int { lines[key] ?? line }

    public func set(_ key: String, _ node: Node, line: Int) {
        if nodes[key] == nil { keys.append(key) }
        nodes[key] = node
        lines[key] = line
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
        case .array: return "an array"
        case .table: return "a table"
        }
    }

    /// Integers and floats as a Double.
    public var number: Double? {
        switch kind {
        case .integer(let i): return Double(i)
        case .float(let f): return f
        case .string, .bool, .array, .table: return nil
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

private struct TOMLParser {
    let s: [UInt8]
    var i = 0
    var line = 1

    init(_ bytes: [UInt8]) { s = bytes }

    func error(_ reason: String) -> TOMLError { TOMLError(line: line, reason: reason) }

    var atEnd: Bool { i >= s.count }
    var peek: UInt8? { i < s.count ? s[i] : nil }

    mutating func skipSpaces() {
        while let c = peek, c == 0x20 || c == 0x09 { i += 1 }
    }

    mutating func skipComment() {
        if peek == UInt8(ascii: "#") {
            while let c = peek, c != 0x0A { i += 1 }
        }
    }

    /// Spaces, comments and newlines (inside arrays).
    mutating func skipBlank() {
        while let c = peek {
            if c == 0x20 || c == 0x09 || c == 0x0D {
                i += 1
            } else if c == 0x0A {
                i += 1
                line += 1
            } else if c == UInt8(ascii: "#") {
                skipComment()
            } else {
                break
            }
        }
    }

    mutating func expectLineEnd() throws(TOMLError) {
        skipSpaces()
        skipComment()
        if peek == 0x0D { i += 1 }
        if let c = peek {
            guard c == 0x0A else { throw error("expected the end of the line, found '\(String(decoding: [c], as: UTF8.self))'") }
            i += 1
            line += 1
        }
    }

    mutating func parseDocument() throws(TOMLError) -> TOMLTable {
        let root = TOMLTable(line: 1)
        var current = root
        while true {
            skipBlank()
            guard let c = peek else { break }
            if c == UInt8(ascii: "[") {
                let headerLine = line
                i += 1
                let isArray = peek == UInt8(ascii: "[")
                if isArray { i += 1 }
                skipSpaces()
                let path = try parseKeyPath()
                skipSpaces()
                guard peek == UInt8(ascii: "]") else { throw error("expected ']' to close the table header") }
                i += 1
                if isArray {
                    guard peek == UInt8(ascii: "]") else { throw error("expected ']]' to close the array-of-tables header") }
                    i += 1
                }
                try expectLineEnd()
                current = try open(path, in: root, asArray: isArray, line: headerLine)
            } else {
                try parseKeyValue(into: current)
                try expectLineEnd()
            }
        }
        return root
    }

    /// Finds or creates the table a header names.
    mutating func open(_ path: [String], in root: TOMLTable, asArray: Bool, line headerLine: Int) throws(TOMLError)
        -> TOMLTable
    {
        var t = root
        for (n, key) in path.enumerated() {
            let last = n == path.count - 1
            switch t[key] {
            case nil:
                let fresh = TOMLTable(line: headerLine)
                if last && asArray {
                    t.set(key, .tables([fresh]), line: headerLine)
                } else {
                    t.set(key, .table(fresh), line: headerLine)
                }
                if last { fresh.sealed = true }
                t = fresh
            case .table(let existing):
                if last {
                    if asArray { throw error("'\(key)' is a table, not an array of tables") }
                    if existing.sealed || existing.isInline { throw error("table '\(path.joined(separator: "."))' is defined twice") }
                    existing.sealed = true
                }
                t = existing
            case .tables(var list):
                if last && asArray {
                    let fresh = TOMLTable(line: headerLine)
                    fresh.sealed = true
                    list.append(fresh)
                    t.set(key, .tables(list), line: t.line(of: key))
                    t = fresh
                } else if last {
                    throw error("'\(key)' is an array of tables; use [[\(path.joined(separator: "."))]]")
                } else {
                    t = list[list.count - 1]
                }
            case .value:
                throw error("'\(key)' is already a value, not a table")
            }
        }
        return t
    }

    mutating func parseKeyPath() throws(TOMLError) -> [String] {
        var path: [String] = []
        while true {
            skipSpaces()
            path.append(try parseKey())
            skipSpaces()
            if peek == UInt8(ascii: ".") {
                i += 1
            } else {
                return path
            }
        }
    }

    mutating func parseKey() throws(TOMLError) -> String {
        guard let c = peek else { throw error("expected a key") }
        if c == UInt8(ascii: "\"") { return try parseBasicString() }
        if c == UInt8(ascii: "'") { return try parseLiteralString() }
        let start = i
        while let d = peek, isBare(d) { i += 1 }
        guard i > start else { throw error("expected a key, found '\(String(decoding: [c], as: UTF8.self))'") }
        return String(decoding: s[start..<i], as: UTF8.self)
    }

    func isBare(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D
    }

    mutating func parseKeyValue(into table: TOMLTable) throws(TOMLError) {
        let keyLine = line
        let path = try parseKeyPath()
        skipSpaces()
        guard peek == UInt8(ascii: "=") else { throw error("expected '=' after the key '\(path.joined(separator: "."))'") }
        i += 1
        skipSpaces()
        let value = try parseValue()
        var t = table
        for key in path.dropLast() {
            switch t[key] {
            case nil:
                let fresh = TOMLTable(line: keyLine)
                t.set(key, .table(fresh), line: keyLine)
                t = fresh
            case .table(let existing) where !existing.isInline:
                t = existing
            default:
                throw TOMLError(line: keyLine, reason: "'\(key)' is already defined and is not a table")
            }
        }
        let key = path[path.count - 1]
        guard t[key] == nil else { throw TOMLError(line: keyLine, reason: "key '\(path.joined(separator: "."))' is defined twice") }
        if case .table(let inline) = value.kind {
            t.set(key, .table(inline), line: keyLine)
        } else {
            t.set(key, .value(value), line: keyLine)
        }
    }

    /// Nesting depth of arrays and inline tables; a config never needs more than a few levels.
    var depth = 0

    mutating func parseValue() throws(TOMLError) -> TOMLValue {
        let valueLine = line
        guard depth < 32 else { throw error("nested too deeply (32 levels at most)") }
        depth += 1
        defer { depth -= 1 }
        guard let c = peek else { throw error("expected a value") }
        switch c {
        case UInt8(ascii: "\""):
            if s.count > i + 2 && s[i + 1] == c && s[i + 2] == c { throw error("multi-line strings are not supported") }
            return TOMLValue(kind: .string(try parseBasicString()), line: valueLine)
        case UInt8(ascii: "'"):
            if s.count > i + 2 && s[i + 1] == c && s[i + 2] == c { throw error("multi-line strings are not supported") }
            return TOMLValue(kind: .string(try parseLiteralString()), line: valueLine)
        case UInt8(ascii: "["):
            i += 1
            var items: [TOMLValue] = []
            while true {
                skipBlank()
                if peek == UInt8(ascii: "]") {
                    i += 1
                    break
                }
                items.append(try parseValue())
                skipBlank()
                if peek == UInt8(ascii: ",") {
                    i += 1
                } else if peek == UInt8(ascii: "]") {
                    i += 1
                    break
                } else {
                    throw error("expected ',' or ']' in an array")
                }
            }
            return TOMLValue(kind: .array(items), line: valueLine)
        case UInt8(ascii: "{"):
            i += 1
            let t = TOMLTable(line: valueLine)
            skipSpaces()
            if peek == UInt8(ascii: "}") {
                i += 1
            } else {
                while true {
                    skipSpaces()
                    try parseKeyValue(into: t)
                    skipSpaces()
                    if peek == UInt8(ascii: ",") {
                        i += 1
                    } else if peek == UInt8(ascii: "}") {
                        i += 1
                        break
                    } else {
                        throw error("expected ',' or '}' in an inline table")
                    }
                }
            }
            t.isInline = true
            t.sealed = true
            return TOMLValue(kind: .table(t), line: valueLine)
        default:
            let start = i
            while let d = peek, d != 0x20, d != 0x09, d != 0x0A, d != 0x0D, d != UInt8(ascii: ","), d != UInt8(ascii: "]"),
                d != UInt8(ascii: "}"), d != UInt8(ascii: "#")
            {
                i += 1
            }
            let word = String(decoding: s[start..<i], as: UTF8.self)
            if word == "true" { return TOMLValue(kind: .bool(true), line: valueLine) }
            if word == "false" { return TOMLValue(kind: .bool(false), line: valueLine) }
            if let n = parseNumber(word) { return TOMLValue(kind: n, line: valueLine) }
            if word.contains(":") || (word.count >= 10 && word.dropFirst(4).first == "-") {
                throw error("dates and times are not supported")
            }
            throw error(word.isEmpty ? "expected a value" : "'\(word)' is not a value (strings need quotes)")
        }
    }

    func parseNumber(_ w: String) -> TOMLValue.Kind? {
        let clean = w.replacingUnderscores()
        switch clean {
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        if clean.hasPrefix("0x"), let v = Int64(clean.dropFirst(2), radix: 16) { return .integer(v) }
        if let v = Int64(clean) { return .integer(v) }
        guard let first = clean.first, first.isNumber || first == "-" || first == "+" || first == "." else { return nil }
        if let d = Double(clean), clean.allSatisfy({ $0.isNumber || "+-.eE".contains($0) }) { return .float(d) }
        return nil
    }

    mutating func parseBasicString() throws(TOMLError) -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw error("unterminated string") }
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                guard let str = String(validating: out, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                return str
            case 0x0A:
                throw error("unterminated string (a basic string ends on its line)")
            case UInt8(ascii: "\\"):
                guard let e = peek else { throw error("unterminated string") }
                i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "u"), UInt8(ascii: "U"):
                    let n = e == UInt8(ascii: "u") ? 4 : 8
                    guard i + n <= s.count, let v = UInt32(String(decoding: s[i..<(i + n)], as: UTF8.self), radix: 16),
                        let scalar = Unicode.Scalar(v)
                    else { throw error("bad unicode escape") }
                    i += n
                    out += Array(String(Character(scalar)).utf8)
                default:
                    throw error("unknown escape '\\\(String(decoding: [e], as: UTF8.self))'")
                }
            default:
                out.append(c)
            }
        }
    }

    mutating func parseLiteralString() throws(TOMLError) -> String {
        i += 1
        let start = i
        while let c = peek, c != UInt8(ascii: "'") {
            if c == 0x0A { throw error("unterminated literal string") }
            i += 1
        }
        guard peek != nil else { throw error("unterminated literal string") }
        let bytes = s[start..<i]
        i += 1
        guard let str = String(validating: bytes, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
        return str
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(self.filter { $0 != "_" }) }
}
