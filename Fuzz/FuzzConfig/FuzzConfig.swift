import GestureConfig
import GestureEngine

/// libFuzzer target: any bytes as a configuration file. It is refused with FILE:LINE: reason or
/// accepted; an accepted one compiles, has no rule cycle, and an engine runs a tap and a drag on it.
/// An input starting with 0xD0 is read as a recipe for a deep or wide key instead (`dottedKeys`):
/// byte mutations alone seldom grow a key to thousands of parts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // libFuzzer hands `size` readable bytes at `data` for the duration of the call.
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let bytes = input.first == 0xD0 ? dottedKeys(input) : input
    let config: Configuration
    do {
        config = try ConfigLoader.parse(bytes: bytes, file: "fuzz.toml")
    } catch {
        if error.line < 1 { fatalError("an error without a line: \(error)") }
        return 0
    }
    let compiled = CompiledConfiguration(config.engine)
    if compiled.findCycle() != nil { fatalError("an accepted config has a rule cycle") }
    var engine = Engine(compiled: compiled)
    var out: [GestureEvent] = []
    let scale = MillimetersPerPixel(x: 0.2, y: 0.2)
    var t: Int64 = 1_000_000_000
    func frame(_ contacts: [Contact]) {
        t += 10_000_000
        engine.handle(TouchFrame(time: Timestamp(nanoseconds: t), contacts: contacts, scale: scale), into: &out)
    }
    frame([Contact(id: 1, position: PixelPoint(x: 100, y: 100))])
    frame([])
    for i in 0..<20 { frame([Contact(id: 2, position: PixelPoint(x: 200 + Double(i) * 10, y: 300))]) }
    frame([])
    engine.advance(to: .distantFuture, into: &out)
    if !engine.isIdle { fatalError("the engine is not idle after the last lift") }
    return 0
}

/// A file of dotted keys and table headers from a recipe: bytes 1-2 the depth (parts in one key,
/// up to 65,535, within 64 KiB of text: past the 128 the reader allows), byte 3 the width (keys or headers side by side,
/// up to 255), byte 4 the shape (a dotted key, a `[header]`, an `[[array]]` header, or dotted
/// keys inside an inline table), the rest the characters of each part.
func dottedKeys(_ recipe: [UInt8]) -> [UInt8] {
    func byte(_ i: Int) -> Int { i < recipe.count ? Int(recipe[i]) : 0 }
    let depth = max(1, byte(1) << 8 | byte(2))
    let width = max(1, byte(3))
    let shape = byte(4) % 4
    var part = recipe.count > 5 ? Array(recipe[5...].prefix(8)) : [UInt8(ascii: "a")]
    // Parts are bare keys (letters, digits, _ and -) or, where the recipe has other bytes, quoted.
    let bare = part.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }
    if !bare { part = [0x22] + part.filter { $0 != 0x22 && $0 != 0x5C && $0 >= 0x20 } + [0x22] }
    var out: [UInt8] = []
    // At most 64 KiB: room for a key 32,000 parts deep (30,000 overflowed the stack once), and
    // each run stays cheap (the 1 MiB file cap has its own test).
    for w in 0..<width where out.count <= 65_536 {
        var key: [UInt8] = []
        for d in 0..<depth where key.count <= 65_536 {
            if d > 0 { key.append(UInt8(ascii: ".")) }
            key += part
        }
        key += Array("w\(w)".utf8)
        switch shape {
        case 0: out += key + Array(" = 1\n".utf8)
        case 1: out += Array("[".utf8) + key + Array("]\nx = 1\n".utf8)
        case 2: out += Array("[[".utf8) + key + Array("]]\n".utf8)
        default: out += Array("t\(w) = { ".utf8) + key + Array(" = 1 }\n".utf8)
        }
    }
    return out
}
