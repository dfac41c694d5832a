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

/// `calibrate` and `reload` (hardening round 4): a point holds u, v, x, y and nothing else, as a
/// request holds only its fields; `reload` takes none.
@Suite struct CalibrateAndReloadRequestTests {
    func parse(_ line: String) -> Result<(id: RequestID?, request: Request), RequestFailure> {
        Request.parse(Array(line.utf8)[...])
    }

    static let point = #"{"u":0.1,"v":0.1,"x":0,"y":0}"#

    /// A request that takes no field of its own still names what it takes.
    @Test func anUnknownField_ofARequestWithNoFieldsOfItsOwn_namesOpAndID() {
        guard case .failure(let f) = parse(#"{"op":"ping","id":1,"x":1}"#) else { Issue.record("accepted"); return }
        #expect(f.code == .invalidField && f.message == "unknown field 'x' for ping (known: op, id)", "\(f)")
    }

    @Test func aPointWithAnUnknownField_isRefused() {
        let line = #"{"op":"calibrate","id":1,"device":1,"points":[\#(Self.point),\#(Self.point),{"u":0.9,"v":0.9,"x":9,"X":9,"y":9}]}"#
        guard case .failure(let f) = parse(line) else { Issue.record("accepted"); return }
        #expect(f.code == .invalidField && f.message == "unknown field 'X' in a point of calibrate (known: u, v, x, y)", "\(f)")
        guard case .failure(let g) = parse(#"{"op":"calibrate","device":1,"points":[1,2,3]}"#) else { Issue.record("accepted"); return }
        #expect(g.message.contains("found a number"), "\(g)")
        #expect((try? parse(#"{"op":"calibrate","device":1,"points":[\#(Self.point),\#(Self.point),\#(Self.point)]}"#).get()) != nil)
    }

    @Test func reload_takesNoField() throws {
        #expect(try parse(#"{"op":"reload","id":2}"#).get().request == .reload)
        guard case .failure(let f) = parse(#"{"op":"reload","file":"/etc/shadow"}"#) else { Issue.record("accepted"); return }
        #expect(f.code == .invalidField)
    }
}
