import GestureEngine
import TouchFrames

/// libFuzzer target: any bytes as an evemu recording. The parser gives a recording or a
/// FILE:LINE error, never traps; a recording it accepts writes back to text it accepts again, with
/// the same description and event values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let r = try? Evemu.parse(text, file: "fuzz") else { return 0 }
    guard let again = try? Evemu.parse(Evemu.format(r), file: "formatted") else { fatalError("formatted recording does not parse") }
    if again.events.map(\.value) != r.events.map(\.value) { fatalError("event values changed") }
    if again.description?.axes != r.description?.axes { fatalError("axes changed") }
    // And the frame decoder takes whatever it accepted.
    if let d = r.description, var decoder = FrameDecoder(description: d, geometry: GeometryConfiguration()) {
        for e in r.events { _ = decoder.feed(e) }
    }
    return 0
}
