/// TOML's booleans, integers (decimal, hex, octal, binary), floats, and dates and times.
extension TOMLParser {
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
