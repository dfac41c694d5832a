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

    /// Serves one connection's requests in turn (keep-alive) until the browser closes it;
    /// `declined` is a refused handshake, whose end comes first and which gets the refusal the
    /// handshake decided.
    func serve(_ channel: Channel, declined: Admission.Declined?) async throws {
        try await channel.executeThenClose { inbound, outbound in
            var head = declined?.head
            var refusal = declined.map { Self.text($0.status, $0.why) }
            for try await part in inbound {
                switch part {
                case .head(let h): head = h
                case .body: break
                case .end:
                    guard let request = head else { continue }
                    head = nil
                    let answer = if let refusal { refusal } else { await answer(request) }
                    refusal = nil
                    let keepAlive = try await respond(to: request, with: answer, outbound)
                    if !keepAlive { return }
                }
            }
        }
    }

    /// Writes the response to one request; false when the connection should close after it.
    private func respond(
        to request: HTTPRequestHead, with answer: (HTTPResponseStatus, String, ByteBuffer),
        _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws -> Bool {
        let (status, type, body) = answer
        let withBody = request.method != .HEAD
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if !request.isKeepAlive { headers.add(name: "Connection", value: "close") }
        try await out.write(.head(HTTPResponseHead(version: request.version, status: status, headers: headers)))
        if withBody && body.readableBytes > 0 { try await out.write(.body(.byteBuffer(body))) }
        try await out.write(.end(nil))
        return request.isKeepAlive
    }

    /// Status, Content-Type and body for one request.
    private func answer(_ request: HTTPRequestHead) async -> (HTTPResponseStatus, String, ByteBuffer) {
        let path = StaticFiles.path(request.uri)
        if path == BridgeSettings.endpoint {
            if let (status, why) = admission.refusal(request) { return Self.text(status, why) }
            return Self.text(.badRequest, "\(path) is a WebSocket endpoint: open it with new WebSocket(url)")
        }
        guard request.method == .GET || request.method == .HEAD else {
            return Self.text(.methodNotAllowed, "GET or HEAD only")
        }
        guard let (file, type) = files.resolve(request.uri) else { return Self.text(.notFound, "not found: \(path)") }
        let read = try? await NIOThreadPool.singleton.runIfActive { () -> [UInt8]? in
            try? readRegularFile(file, limit: 16 << 20)
        }
        guard let bytes = read ?? nil else { return Self.text(.notFound, "not found: \(path)") }
        return (.ok, type, ByteBuffer(bytes: bytes))
    }

    private static func text(_ status: HTTPResponseStatus, _ message: String) -> (HTTPResponseStatus, String, ByteBuffer) {
        (status, "text/plain; charset=utf-8", ByteBuffer(string: message + "\n"))
    }
}

/// Whether a WebSocket handshake is let in: decided once, by the upgrade, which either takes the
/// page's slot there and then or keeps the refusal for the HTTP answer that says why. (Deciding
/// twice raced: a slot freed between the two turned a 503 into a 400.)
struct Admission: Sendable {
    let origins: OriginPolicy
    let slots: ConnectionSlots

    /// A handshake turned away: its head and the answer it gets.
    struct Declined: Sendable {
        let head: HTTPRequestHead
        let status: HTTPResponseStatus
        let why: String
    }

    enum Decision: Sendable {
        /// Let in, holding its slot from the handshake on.
        case welcome(ConnectionSlot)
        case refused(Declined)
        /// Not the endpoint: plain HTTP.
        case notEndpoint
    }

    /// The decision for a handshake; a welcome takes one of the slots.
    func admit(_ head: HTTPRequestHead) -> Decision {
        guard StaticFiles.path(head.uri) == BridgeSettings.endpoint else { return .notEndpoint }
        if let (status, why) = originRefusal(head) { return .refused(Declined(head: head, status: status, why: why)) }
        guard let slot = slots.take() else {
            return .refused(Declined(head: head, status: .serviceUnavailable, why: fullMessage))
        }
        return .welcome(slot)
    }

    /// Why a plain (not upgrading) request to the endpoint may not open it, or nil when it may.
    func refusal(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String)? {
        if let refused = originRefusal(head) { return refused }
        return slots.full ? (.serviceUnavailable, fullMessage) : nil
    }

    private func originRefusal(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String)? {
        let origin = head.headers["Origin"].first
        if origins.allows(origin) { return nil }
        return (.forbidden, "origin \(origin ?? "") may not open \(BridgeSettings.endpoint) (touchgestured-web --allow-origin)")
    }

    private var fullMessage: String { "every connection is taken (--max-connections \(slots.limit))" }
}
