import Testing

@testable import GestureProtocol

/// Found by probing from outside: an id past 2^53 came back altered, and `1e-999` read as 0
/// while `1e999` was refused.
@Suite struct RequestIDTests {
    @Test(arguments: ["9007199254740993", "-12345678901234567890", "1.50", "7e2", "0"])
    func numberID_isEchoedAsWritten(text: String) throws {
        let (value, raw) = try parseJSONKeepingText(Array(#"{"op":"ping","id":\#(text)}"#.utf8))
        #expect(value["id"]?.isNumber == true)
        var w = JSONLineWriter()
        Messages.beginReply(&w, id: .number(text: try #require(raw["id"])), op: "ping")
        Messages.end(&w)
        #expect(String(decoding: w.bytes, as: UTF8.self).hasPrefix(#"{"type":"reply","id":\#(text),"#))
    }

    @Test(arguments: ["1e-999", "1e999", "-1e400", "0.0000e-99999"])
    func numberOutOfADoublesRange_isRefusedBothWays(text: String) {
        let zero = text.hasPrefix("0.0000")
        let parsed = try? parseJSON(Array(#"{"v":\#(text)}"#.utf8))
        // A zero written with a huge exponent is still zero; anything else out of range is refused.
        #expect((parsed != nil) == zero)
    }

    @Test func manyKeys_areCheckedForDuplicatesInLinearTime() throws {
        let members = (0..<6000).map { #""k\#($0)":1"# }.joined(separator: ",")
        let v = try parseJSON(Array("{\(members)}".utf8))
        if case .object(let m) = v { #expect(m.count == 6000) } else { Issue.record("not an object") }
        #expect(throws: JSONError.self) { try parseJSON(Array(#"{"a":1,"b":2,"a":3}"#.utf8)) }
    }
}

extension JSONValue {
    var isNumber: Bool { if case .number = self { true } else { false } }
}
