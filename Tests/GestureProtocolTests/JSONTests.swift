import Testing

@testable import GestureProtocol

/// The request parser and the value writer: what the fuzzer checks, as fixed cases.
@Suite struct JSONTests {
    func roundTrip(_ text: String) throws -> JSONValue {
        let v = try parseJSON(Array(text.utf8))
        var w = JSONLineWriter()
        w.value(v)
        let again = try parseJSON(w.bytes)
        #expect(again == v, "\(text) -> \(String(decoding: w.bytes, as: UTF8.self))")
        return v
    }

    /// Found by the fuzzer (Fuzz/FuzzRequests): a number too large for fixed decimals was
    /// written as 0, so a request id like 63e15 came back as 0.
    @Test(arguments: ["63e015", "1e300", "-2.5e-8", "0.1", "123456789012345678", "[1.5, -0.0, 9e15]"])
    func numbers_roundTripExactly(text: String) throws {
        _ = try roundTrip(text)
    }

    @Test func objectsArraysStringsAndEscapes_roundTrip() throws {
        let v = try roundTrip(#"{"op":"set_regions","id":"a\"b\\c\u00e9\ud83d\ude00","regions":[{"rect":[0,0,10,10]},null,true,false]}"#)
        #expect(v["op"] == .string("set_regions"))
        #expect(v["id"] == .string("a\"b\\cé😀"))
    }

    @Test(arguments: [
        ("", "unexpected end of input"), ("{", "expected a string key"), (#"{"a":1,"a":2}"#, "duplicate key"),
        ("1e999", "number out of range"), ("[1,]", "invalid value"), (#""\ud800""#, "unpaired surrogate"),
        ("01", "unexpected text after"), ("\"\u{01}\"", "control character"), ("nul", "unexpected end of input"), ("nulx", "invalid literal"),
        (String(repeating: "[", count: 40), "nested too deeply"),
    ])
    func malformed_isRefusedWithAReason(text: String, reason: String) {
        #expect {
            _ = try parseJSON(Array(text.utf8))
        } throws: { error in
            (error as? JSONError)?.reason.contains(reason) == true
        }
    }

    @Test func invalidUTF8InAString_isRefused() {
        #expect(throws: JSONError.self) { _ = try parseJSON([0x22, 0xFF, 0x22]) }
    }
}
