import Foundation
import Testing

@testable import GestureProtocol

/// Request lines read into typed requests (docs/PROTOCOL.md, "Requests").
@Suite struct RequestTests {
    func parse(_ line: String) -> Result<(id: RequestID?, request: Request), RequestFailure> {
        Request.parse(Array(line.utf8)[...])
    }

    @Test func subscribe_isReadIntoItsFilters() throws {
        let r = try parse(#"{"op":"subscribe","id":"s","gestures":["tap","pan"],"regions":["list"],"devices":[2],"touches":true,"coalesce_ms":0}"#).get()
        var expected = Subscription()
        expected.kinds = [.tap, .pan]
        expected.regions = ["list"]
        expected.devices = [2]
        expected.touches = true
        expected.coalesceMilliseconds = 0
        #expect(r.id == .string("s"))
        #expect(r.request == .subscribe(expected))
    }

    @Test(arguments: [
        (#"{"op":"ping","extra":1,"id":4}"#, "invalid_field", RequestID?.some(.number(text: "4"))),
        (#"{"op":"reboot","id":"x"}"#, "unknown_op", RequestID?.some(.string("x"))),
        (#"{"id":7}"#, "missing_op", RequestID?.some(.number(text: "7"))),
        (#"[1,2]"#, "not_an_object", RequestID?.none),
        (#"{"op":"subscribe","devices":[-1]}"#, "invalid_field", RequestID?.none),
        (#"{"op":"subscribe","devices":[4294967296]}"#, "invalid_field", RequestID?.none),
        (#"{"op":"subscribe","coalesce_ms":101}"#, "invalid_field", RequestID?.none),
        (#"{"op":"subscribe","coalesce_ms":-1}"#, "invalid_field", RequestID?.none),
        (#"{"op":"subscribe","coalesce_ms":"8"}"#, "invalid_field", RequestID?.none),
        (#"{"op":"set_regions","regions":{}}"#, "invalid_field", RequestID?.none),
        (#"{"op":"ping","id":[1]}"#, "invalid_field", RequestID?.none),
        ("{not json", "parse_error", RequestID?.none),
    ])
    func badLine_failsWithItsCodeAndTheIdWhenThereIsOne(line: String, code: String, id: RequestID?) {
        guard case .failure(let f) = parse(line) else {
            Issue.record("\(line) was read")
            return
        }
        #expect(f.code.rawValue == code && f.id == id, "\(f)")
    }

    @Test func invalidUTF8_isItsOwnError() {
        guard case .failure(let f) = Request.parse([0x7B, 0xFF, 0x7D][...]) else {
            Issue.record("read")
            return
        }
        #expect(f.code == .invalidUTF8)
    }
}

@Suite struct ErrorCodeTests {
    /// PROTOCOL.md's table of errors has a row for every code the daemon can send, and no other.
    @Test func everyCode_hasItsRowInPROTOCOL() throws {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let doc = try String(contentsOfFile: parts.joined(separator: "/") + "/docs/PROTOCOL.md", encoding: .utf8)
        let table = doc.split(separator: "\n").filter { $0.hasPrefix("| `") && ($0.hasSuffix("| goes on |") || $0.hasSuffix("| closed |")) }
        let documented = Set(table.compactMap { $0.firstMatch(of: /^\| `([a-z_0-9]+)`/).map { String($0.1) } })
        #expect(documented == Set(ErrorCode.allCases.map(\.rawValue)))
    }
}
