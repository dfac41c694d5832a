/// The TOML 1.0 parser (https://toml.io/en/v1.0.0): text to a `TOMLTable` tree with the line of
/// every key and value. Checked against toml-lang/toml-test: every valid document read with the
/// suite's values, every invalid one refused (Tests/GestureConfigTests/TOMLConformanceTests.swift
/// reads the suite in place).

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

let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), backslash = UInt8(ascii: "\\")
let lf: UInt8 = 0x0A, cr: UInt8 = 0x0D, tab: UInt8 = 0x09, space: UInt8 = 0x20, del: UInt8 = 0x7F

struct TOMLParser {
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
                guard peek == UInt8(ascii: "]") else {
                    // A letter that only looks like ASCII ('е', Cyrillic) ends a bare key: say so.
                    if let c = peek, c >= 0x80 {
                        throw error("a bare key holds only A-Z, a-z, 0-9, '_' and '-'; quote a key with other characters (found a non-ASCII character after '\(path.joined(separator: "."))')")
                    }
                    throw error("expected ']' to close the table header")
                }
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

    /// `key`, `a.b."c d"`, with spaces around the dots. At most `maxDepth` parts: each makes a
    /// table inside the last, and a key 30,000 parts deep (60 KB) overflowed the stack when its
    /// tables were let go; with headers, dotted keys and inline tables each bounded, no table
    /// is nested deeper than three times that.
    mutating func parseKeyPath() throws(TOMLError) -> [String] {
        var path: [String] = []
        while true {
            skipSpaces()
            path.append(try parseKey())
            skipSpaces()
            guard peek == UInt8(ascii: ".") else { return path }
            guard path.count < Self.maxDepth else { throw error("a key of more than \(Self.maxDepth) dotted parts") }
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
            if let c = peek, c >= 0x80 {
                throw error("a bare key holds only A-Z, a-z, 0-9, '_' and '-'; quote a key with other characters (found a non-ASCII character after '\(name)')")
            }
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
}
