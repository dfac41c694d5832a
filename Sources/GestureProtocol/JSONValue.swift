/// A parsed JSON value, for client requests. Hand-written rather than Foundation's so that the
/// daemon links no Foundation (RSS) and every refusal says exactly what was wrong; it is the
/// fuzzed surface of the protocol, so it is total: any bytes give a value or a `JSONError`.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in the order they came (duplicate keys are refused).
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public subscript(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

public struct JSONError: Error, Equatable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "\(reason) at byte \(offset)" }
}

/// Parses one JSON text. Limits keep a hostile line cheap: nesting depth 32, numbers must be
/// finite (`1e999` is refused, JSON has no NaN).
public func parseJSON(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
    try parseJSONKeepingText(bytes).value
}

/// Parses one JSON text and also gives the text of each member of a top-level object as it was
/// written (a request's `id` is echoed as the client wrote it: an id past 2^53 would change on
/// its way through a Double).
public func parseJSONKeepingText(_ bytes: some Collection<UInt8>) throws(JSONError) -> (value: JSONValue, text: [String: String]) {
    var p = JSONParser(Array(bytes))
    p.skipSpace()
    let v = try p.value(depth: 0)
    p.skipSpace()
    guard p.i == p.s.count else { throw p.error("unexpected text after the JSON value") }
    return (v, p.topLevelText)
}

private struct JSONParser {
    let s: [UInt8]
    var i = 0
    /// The text of each member of the top-level object.
    var topLevelText: [String: String] = [:]
    init(_ s: [UInt8]) { self.s = s }

    func error(_ r: String) -> JSONError { JSONError(offset: i, reason: r) }

    mutating func skipSpace() {
        while i < s.count, s[i] == 0x20 || s[i] == 0x09 || s[i] == 0x0A || s[i] == 0x0D { i += 1 }
    }

    /// At an array's or object's opening bracket: steps over it, and over `close` right after
    /// it (true: the container is empty).
    mutating func opensEmpty(_ close: UInt8) -> Bool {
        i += 1
        skipSpace()
        guard i < s.count, s[i] == close else { return false }
        i += 1
        return true
    }

    /// After an element of an array or object: a comma (false: another element follows) or
    /// `close` (true: the container ends).
    mutating func closes(_ close: UInt8, in what: String) throws(JSONError) -> Bool {
        skipSpace()
        guard i < s.count else { throw error("unexpected end of input in \(what)") }
        if s[i] == UInt8(ascii: ",") {
            i += 1
            return false
        }
        guard s[i] == close else { throw error("expected ',' or '\(Character(Unicode.Scalar(close)))' in \(what)") }
        i += 1
        return true
    }

    mutating func literal(_ word: StaticString, _ v: JSONValue) throws(JSONError) -> JSONValue {
        let n = word.utf8CodeUnitCount
        guard i + n <= s.count else { throw error("unexpected end of input") }
        var ok = true
        word.withUTF8Buffer { w in
            for k in 0..<n where s[i + k] != w[k] { ok = false }
        }
        guard ok else { throw error("invalid literal") }
        i += n
        return v
    }

    mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard depth < 32 else { throw error("nested too deeply (32 levels at most)") }
        guard i < s.count else { throw error("unexpected end of input") }
        switch s[i] {
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "["):
            var items: [JSONValue] = []
            if opensEmpty(UInt8(ascii: "]")) { return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                if try closes(UInt8(ascii: "]"), in: "an array") { return .array(items) }
            }
        case UInt8(ascii: "{"):
            var members: [(String, JSONValue)] = []
            // Duplicate keys are found through a set: a line of thousands of keys stays linear.
            var keys: Set<String> = []
            if opensEmpty(UInt8(ascii: "}")) { return .object(members) }
            while true {
                skipSpace()
                guard i < s.count, s[i] == UInt8(ascii: "\"") else { throw error("expected a string key in an object") }
                let key = try string()
                guard keys.insert(key).inserted else { throw error("duplicate key \"\(key)\"") }
                skipSpace()
                guard i < s.count, s[i] == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
                i += 1
                skipSpace()
                let start = i
                members.append((key, try value(depth: depth + 1)))
                if depth == 0 { topLevelText[key] = String(decoding: s[start..<i], as: UTF8.self) }
                if try closes(UInt8(ascii: "}"), in: "an object") { return .object(members) }
            }
        default:
            return .number(try number())
        }
    }

    mutating func number() throws(JSONError) -> Double {
        let start = i
        if i < s.count, s[i] == UInt8(ascii: "-") { i += 1 }
        guard i < s.count, s[i] >= 0x30 && s[i] <= 0x39 else { throw error("invalid value") }
        if s[i] == 0x30 {
            i += 1
        } else {
            while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
        }
        if i < s.count, s[i] == UInt8(ascii: ".") {
            i += 1
            guard i < s.count, s[i] >= 0x30 && s[i] <= 0x39 else { throw error("a digit must follow '.'") }
            while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
        }
        if i < s.count, s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E") {
            i += 1
            if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") { i += 1 }
            guard i < s.count, s[i] >= 0x30 && s[i] <= 0x39 else { throw error("a digit must follow the exponent") }
            while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
        }
        guard i - start <= 64 else { throw error("number too long") }
        let text = String(decoding: s[start..<i], as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw JSONError(offset: start, reason: "number out of range") }
        // A number too small for a Double would read as 0: refused like one too large.
        if d == 0 && text.prefix(while: { $0 != "e" && $0 != "E" }).contains(where: { ("1"..."9").contains($0) }) {
            throw JSONError(offset: start, reason: "number out of range")
        }
        return d
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        guard i + 4 <= s.count else { throw error("unexpected end of input in an escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = s[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    mutating func string() throws(JSONError) -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard i < s.count else { throw error("unterminated string") }
            let c = s[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                guard let str = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
                return str
            case UInt8(ascii: "\\"):
                guard i < s.count else { throw error("unterminated string") }
                let e = s[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        guard i + 6 <= s.count, s[i] == UInt8(ascii: "\\"), s[i + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate")
                        }
                        i += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw error("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar < 0xE000 {
                        throw error("unpaired surrogate")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    out += Array(String(Character(u)).utf8)
                default:
                    throw error("invalid escape")
                }
            case 0..<0x20:
                throw error("control character in a string")
            default:
                out.append(c)
            }
        }
    }
}
