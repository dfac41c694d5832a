import GestureEngine
import TouchFrames

/// libFuzzer target: any bytes as an evemu recording. Event lines read alike on the parser's fast
/// and general paths; the parser gives a recording or a FILE:LINE error, never traps; a recording it accepts writes back to text it accepts again, with
/// the same description and event values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // Event lines in evemu's exact form take a byte-level fast path; a trailing comment sends the
    // same line down the general path. Both must read it alike (or both refuse it). Each with its
    // newline: a last line without one may be a cut one, left out when it holds no whole event.
    for line in text.split(separator: "\n", maxSplits: 64) where line.hasPrefix("E:") {
        let fast = try? Evemu.parse(String(line) + "\n", file: "fast")
        let general = try? Evemu.parse(String(line) + " # general\n", file: "general")
        if fast?.events != general?.events { fatalError("fast and general paths disagree on '\(line)'") }
    }
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
