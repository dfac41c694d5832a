import GestureConfig
import GestureEngine

/// libFuzzer target: any bytes as a configuration file. It is refused with FILE:LINE: reason or
/// accepted; an accepted one compiles, has no rule cycle, and an engine runs a tap and a drag on it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
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
