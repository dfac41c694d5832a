import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import SystemCalls

/// The bridge's plain HTTP: the site's files (the module, the example page) on GET and HEAD, and
/// the reason a WebSocket handshake was turned away (403 for a foreign origin, 503 when full).
struct HTTPResponder: Sendable {
    typealias Channel = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    let files: StaticFiles
    let admission: Admission
    let log: Logger
    /// Handshakes turned away (an origin not allowed, a full bridge): logged, at most a line
    /// every 10 s (the page cannot see why: a browser hides an HTTP 403 from its script).
    let refusals = RefusalLog()

    /// A request NIO's upgrader saw (it had `Upgrade: websocket`) and did not pass on: only its
    /// end follows. With the refusal the handshake decided, or nil when it was for a file (its
    /// `Upgrade` is then ignored, as RFC 7230 lets a server do, and the file served).
    struct First: Sendable {
        let head: HTTPRequestHead
        let declined: Admission.Declined?
    }

    /// Serves one connection's requests in turn (keep-alive) until the browser closes it.
    func serve(_ channel: Channel, peer: PeerGate.Peer, first: First?) async throws {
        try await channel.executeThenClose { inbound, outbound in
            var head = first?.head
            var declined = first?.declined
            // (A peer the gate refused is logged where it was: `Bridge.bind`.)
            if let d = declined, !peer.isRefused, let line = refusals.note("refused a page's WebSocket (HTTP \(d.status.code)): \(d.why)", key: d.why) {
                log.notice("\(line)")
            }
            for try await part in inbound {
                switch part {
                case .head(let h): head = h
                case .body: break
                case .end:
                    guard let request = head else { continue }
                    head = nil
                    let answer = if let d = declined { Self.text(d) } else { await answer(request, peer: peer) }
                    declined = nil
                    let keepAlive = try await respond(to: request, with: answer, outbound)
                    if !keepAlive { return }
                }
            }
        }
    }

    /// Writes the response to one request; false when the connection should close after it.
    private func respond(
        to request: HTTPRequestHead, with answer: Answer, _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws -> Bool {
        let (status, type, body) = (answer.status, answer.type, answer.body)
        let withBody = request.method != .HEAD
        // A refusal ends the connection (a client that was refused has nothing more to ask).
        let keepAlive = request.isKeepAlive && status.code < 400
        var headers = HTTPHeaders(answer.headers)
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        try await out.write(.head(HTTPResponseHead(version: request.version, status: status, headers: headers)))
        if withBody && body.readableBytes > 0 { try await out.write(.body(.byteBuffer(body))) }
        try await out.write(.end(nil))
        return keepAlive
    }

    /// A response: status, Content-Type, body, and headers besides.
    struct Answer {
        var status: HTTPResponseStatus
        var type: String
        var body: ByteBuffer
        var headers: [(String, String)] = []
    }

    /// The answer to one request of `peer`.
    private func answer(_ request: HTTPRequestHead, peer: PeerGate.Peer) async -> Answer {
        if let declined = admission.gate(request, peer: peer) { return Self.text(declined) }
        let path = StaticFiles.path(request.uri)
        if path == BridgeSettings.endpoint { return Self.text(admission.plainRefusal(request, peer: peer)) }
        guard request.method == .GET || request.method == .HEAD else {
            return Answer(status: .methodNotAllowed, type: Self.plain, body: ByteBuffer(string: "GET or HEAD only\n"), headers: [("Allow", "GET, HEAD")])
        }
        guard let relative = files.resolve(request.uri) else { return Self.text(.notFound, "not found: \(path)") }
        let read = try? await NIOThreadPool.singleton.runIfActive { () -> [UInt8]? in
            files.read(relative.file)
        }
        guard let bytes = read ?? nil else { return Self.text(.notFound, "not found: \(path)") }
        // A page of an allowed origin may import the module from here (CORS: a module script
        // of another origin is fetched in that mode).
        var headers = [("Vary", "Origin")]
        if let origin = admission.allowedOrigin(request) { headers.append(("Access-Control-Allow-Origin", origin)) }
        return Answer(status: .ok, type: relative.contentType, body: ByteBuffer(bytes: bytes), headers: headers)
    }

    static let plain = "text/plain; charset=utf-8"

    private static func text(_ status: HTTPResponseStatus, _ message: String) -> Answer {
        Answer(status: status, type: plain, body: ByteBuffer(string: message + "\n"))
    }

    private static func text(_ d: Admission.Declined) -> Answer {
        Answer(status: d.status, type: plain, body: ByteBuffer(string: d.why + "\n"), headers: d.headers)
    }
}

extension StaticFiles {
    /// The bytes of a file `resolve` named, opened beneath the site folder without following
    /// any link below it (16 MiB at most); nil when it cannot be read so.
    public func read(_ file: String) -> [UInt8]? {
        guard file.hasPrefix(root + "/") else { return nil }
        return try? readRegularFile(beneath: root, String(file.dropFirst(root.count + 1)), limit: 16 << 20)
    }
}
