/// TOML's four kinds of string: basic and literal, on one line or many, with every escape.
extension TOMLParser {
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
                try takeStringByte(c, into: &out)
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
        let opened = line
        i += 3
        _ = try newline()
        var out: [UInt8] = []
        while true {
            // Said where it opened: the file's end is no place to look for the missing quotes.
            guard let c = peek else { throw TOMLError(line: opened, reason: "unterminated multi-line string (opened here, never closed)") }
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
                try takeStringByte(c, into: &out)
            }
        }
    }

    /// A string's byte as it is (checked), and the cursor past it.
    mutating func takeStringByte(_ c: UInt8, into out: inout [UInt8]) throws(TOMLError) {
        try checkStringByte(c)
        out.append(c)
        i += 1
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
}
