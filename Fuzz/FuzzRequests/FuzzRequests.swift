import GestureProtocol

/// libFuzzer target: any bytes as a client request line. The request reader must give a request
/// or a failure; the JSON parser a value or a JSONError, never trap; a value must re-encode to
/// JSON that parses back to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequests(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // The typed request reader must give a request or a failure with a message, never trap (its
    // code is an ErrorCode: it cannot be missing).
    if case .failure(let f) = Request.parse(Array(bytes)[...]), f.message.isEmpty { fatalError("a failure without a message") }
    guard let value = try? parseJSON(bytes) else { return 0 }
    var w = JSONLineWriter(capacity: 256)
    w.value(value)
    guard let again = try? parseJSON(w.bytes) else { fatalError("re-encoded JSON does not parse: \(w.bytes)") }
    if !equalUpToNumbers(value, again) { fatalError("round trip changed the value") }
    return 0
}

/// Numbers are written with at most 6 decimals, so compare them loosely.
func equalUpToNumbers(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return abs(x - y) <= max(1e-6, abs(x) * 1e-9)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(equalUpToNumbers)
    case (.object(let x), .object(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && equalUpToNumbers($0.1, $1.1) }
    default: return a == b
    }
}
