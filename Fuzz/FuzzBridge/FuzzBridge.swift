import GestureProtocol
import WebBridgeRules

/// libFuzzer target: the web bridge's request gate and handshake. Any bytes as an HTTP request
/// head (`METHOD URI HTTP/1.x`, then `Name: value` lines) and, after a blank line, a page's
/// WebSocket message. The rules must decide without trapping, and what they let through must
/// keep their promises: a handshake let in is a GET with one good key and version 13; a Host let
/// in is one of the bridge's; a file path stays beneath the site folder; a message forwarded to
/// the daemon is one line under its limit, of an op pages may send.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBridge(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstRange(of: Array("\r\n\r\n".utf8)) ?? bytes.firstRange(of: Array("\n\n".utf8))
    let headBytes = split.map { bytes[..<$0.lowerBound] } ?? bytes[...]
    let message = split.map { Array(bytes[$0.upperBound...]) } ?? []
    let lines = String(decoding: headBytes, as: UTF8.self).split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    let request = (lines.first ?? "").split(separator: " ", maxSplits: 2).map(String.init)
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
    }
    let head = RequestHead(
        method: request.first ?? "", uri: request.count > 1 ? request[1] : "/", http11: request.count > 2 && request[2] == "HTTP/1.1",
        headers: headers)

    if HandshakeRules.refusal(head) == nil {
        let keys = head.values("Sec-WebSocket-Key")
        guard head.method == "GET", keys.count == 1, HandshakeRules.isKey(keys[0]), head.values("Sec-WebSocket-Version") == ["13"] else {
            fatalError("a handshake let in that breaks RFC 6455: \(head.headers)")
        }
    }
    let hosts = HostPolicy(allowed: ["127.0.0.1:7700", "localhost:7700"])
    if hosts.refusal(head) == nil {
        let given = head.values("Host")
        guard given.isEmpty ? !head.http11 : given.count == 1 && ["127.0.0.1:7700", "localhost:7700"].contains(given[0].lowercased()) else {
            fatalError("a Host let in that is not the bridge's: \(given)")
        }
    }
    if let (file, _) = StaticFiles(root: "/srv/www").resolve(head.uri) {
        guard file.hasPrefix("/srv/www/"), !file.contains("/."), !file.contains("//"), !file.contains("\\") else {
            fatalError("a path outside the site folder: \(file)")
        }
    }
    _ = HandshakeRules.originRefusal(head, OriginPolicy(allowed: ["http://127.0.0.1:7700"]))

    let limit = 64 + Int(size % 4096)
    switch RequestGate(readOnly: size % 2 == 0).decide(message, lineLimit: limit) {
    case .forward(let line):
        guard line.last == UInt8(ascii: "\n"), line.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil, line.count <= limit else {
            fatalError("a forwarded message that is not one line under the limit")
        }
        guard case .success(let (_, r)) = Request.parse(line.dropLast()), RequestGate.pageOps.contains(r.op) else {
            fatalError("a forwarded message the daemon would not take from a page")
        }
    case .answer(let line):
        guard (try? parseJSON(line.dropLast())) != nil else { fatalError("an answer that is not JSON") }
    }
    return 0
}
