import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
import SystemCalls
import Testing

@testable import WebBridge

/// The connection cap, the daemon's lines split, and the close frame that a page breaking the
/// size limit gets.
@Suite struct ConnectionTests {
    @Test func slots_areGivenBackWhenDropped() {
        let slots = ConnectionSlots(limit: 2)
        var a: ConnectionSlot? = slots.take()
        let b = slots.take()
        #expect(a != nil && b != nil)
        #expect(slots.full)
        #expect(slots.take() == nil)
        a = nil
        #expect(slots.count == 1)
        #expect(slots.take() != nil)
        _ = (a, b)
    }

    @Test func daemonLines_areSplitWithoutNewlines() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineSplitter(maxLine: 64)))
        try channel.writeInbound(ByteBuffer(string: "{\"a\":1}\n{\"b\""))
        try channel.writeInbound(ByteBuffer(string: ":2}\n\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "{\"a\":1}")
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "{\"b\":2}")
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "")
        #expect(throws: LineSplitter.LineTooLong.self) {
            try channel.writeInbound(ByteBuffer(string: String(repeating: "x", count: 65)))
        }
    }

    @Test func anOversizedFrame_getsOneCloseFrame1009_andNothingAfterIt() throws {
        let channel = EmbeddedChannel(handlers: [ProtocolCloser()])
        try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        channel.pipeline.fireErrorCaught(NIOWebSocketError.invalidFrameLength)
        let close = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        var data = close.data
        #expect(close.opcode == .connectionClose)
        #expect(data.readWebSocketErrorCode() == .messageTooLarge)
        try channel.writeOutbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "late")))
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{\"op\":\"ping\"}")))
        #expect(try channel.readInbound(as: WebSocketFrame.self) == nil, "the page's frames after the close are dropped")
        channel.pipeline.fireErrorCaught(NIOWebSocketError.invalidFrameLength)
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        #expect(channel.isActive, "open until the page closes or the linger ends")
        channel.embeddedEventLoop.advanceTime(by: ProtocolCloser.linger)
        #expect(!channel.isActive)
    }
}

/// The handshake's admission: the same decision opens a connection or says why not.
@Suite struct AdmissionTests {
    static let me = PeerGate.Peer.user(
        UserIdentity(uid: 1000, name: "kiosk", gid: 1000, groups: [1000]), page: TCPEndpoint("127.0.0.1:5000")!,
        bridge: TCPEndpoint("127.0.0.1:7700")!)

    func head(_ uri: String, origin: String?, method: HTTPMethod = .GET, host: String? = "127.0.0.1:7700") -> HTTPRequestHead {
        var h = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
        if let host { h.headers.add(name: "Host", value: host) }
        h.headers.add(name: "Upgrade", value: "websocket")
        h.headers.add(name: "Connection", value: "Upgrade")
        h.headers.add(name: "Sec-WebSocket-Key", value: "dGhlIHNhbXBsZSBub25jZQ==")
        h.headers.add(name: "Sec-WebSocket-Version", value: "13")
        if let origin { h.headers.add(name: "Origin", value: origin) }
        return h
    }

    func admission(_ slots: ConnectionSlots, origins: [String] = ["http://127.0.0.1:7700"]) -> Admission {
        Admission(origins: OriginPolicy(allowed: origins), hosts: HostPolicy(allowed: ["127.0.0.1:7700"]), slots: slots)
    }

    func isWelcome(_ d: Admission.Decision) -> Bool { if case .welcome = d { true } else { false } }
    func refusal(_ d: Admission.Decision) -> HTTPResponseStatus? { if case .refused(let r) = d { r.status } else { nil } }

    @Test func ownOrigin_withRoom_isWelcome_onTheEndpointOnly() {
        let admission = admission(ConnectionSlots(limit: 2))
        #expect(isWelcome(admission.admit(head("/gestures", origin: "http://127.0.0.1:7700"), peer: Self.me)))
        #expect(isWelcome(admission.admit(head("/gestures?v=1", origin: nil), peer: Self.me)))
        guard case .notEndpoint = admission.admit(head("/other", origin: "http://127.0.0.1:7700"), peer: Self.me) else {
            Issue.record("another path is plain HTTP")
            return
        }
    }

    @Test func foreignOrigin_is403_andAFullBridge_is503() {
        let slots = ConnectionSlots(limit: 1)
        let admission = admission(slots)
        #expect(refusal(admission.admit(head("/gestures", origin: "http://evil.example"), peer: Self.me)) == .forbidden)
        #expect(admission.plainRefusal(head("/gestures", origin: "http://evil.example"), peer: Self.me).status == .forbidden)
        let held = slots.take()
        #expect(refusal(admission.admit(head("/gestures", origin: "http://127.0.0.1:7700"), peer: Self.me)) == .serviceUnavailable)
        _ = held
    }

    /// A page of an allowed origin may import the module across origins (the file's answer
    /// names it in Access-Control-Allow-Origin: the browser blocked the import); another gets none.
    @Test func theSitesFiles_nameAnAllowedOrigin_only() {
        let admission = admission(ConnectionSlots(limit: 1), origins: ["http://127.0.0.1:7700", "http://kiosk.local:3000"])
        #expect(admission.allowedOrigin(head("/touchgestured.js", origin: "http://kiosk.local:3000")) == "http://kiosk.local:3000")
        #expect(admission.allowedOrigin(head("/touchgestured.js", origin: "http://evil.example")) == nil)
        #expect(admission.allowedOrigin(head("/touchgestured.js", origin: nil)) == nil)
        var two = head("/touchgestured.js", origin: "http://kiosk.local:3000")
        two.headers.add(name: "Origin", value: "http://evil.example")
        #expect(admission.allowedOrigin(two) == nil)
    }

    /// Refused handshakes are logged a line every 10 s a reason: one origin refused in a loop
    /// (a page retrying) does not hide another (every line named the first).
    @Test func refusals_areSaidOnceInTenSeconds_eachReasonApart() {
        let log = RefusalLog()
        #expect(log.note("a", key: "origin a") == "a")
        #expect(log.note("a", key: "origin a") == nil)
        #expect(log.note("b", key: "origin b") == "b")
        for k in 0..<40 { _ = log.note("x", key: "origin \(k)") }
        #expect(log.note("a", key: "origin a") == nil, "still within its 10 s")
        #expect(log.note("y", key: "origin 39") == nil, "past 16 reasons within 10 s, the rest share a line")
    }

    /// The handshake takes the slot: a page let in holds it before its session starts, so the
    /// next handshake sees the bridge full, and the refusal is the one decided then even if a
    /// slot is freed before the HTTP answer is written.
    @Test func aWelcome_holdsItsSlot_andARefusalIsKept() {
        let slots = ConnectionSlots(limit: 1)
        let admission = admission(slots, origins: [])
        var first: ConnectionSlot?
        if case .welcome(let slot) = admission.admit(head("/gestures", origin: nil), peer: Self.me) { first = slot }
        #expect(first != nil && slots.full)
        let second = admission.admit(head("/gestures", origin: nil), peer: Self.me)
        first = nil
        #expect(!slots.full)
        #expect(refusal(second) == .serviceUnavailable)
        _ = first
    }

    /// Hardening round 3: a user who could not open the daemon's socket gets 403 for everything
    /// (before: the stream, get_config and set_regions through the bridge's own rights).
    @Test func aPeerWithoutTheSocketsRights_is403_onEveryPath() {
        let admission = admission(ConnectionSlots(limit: 4))
        let stranger = PeerGate.Peer.refused("uid 65534 may not search /run/touchgestured", uid: 65534)
        #expect(refusal(admission.admit(head("/gestures", origin: nil), peer: stranger)) == .forbidden)
        #expect(refusal(admission.admit(head("/index.html", origin: nil), peer: stranger)) == .forbidden)
        #expect(admission.gate(head("/touchgestured.js", origin: nil), peer: stranger)?.status == .forbidden)
    }

    /// DNS rebinding: a page of evil.example resolved to 127.0.0.1 still names its own host.
    @Test func aForeignHost_is403_andAMissingOne400() {
        let admission = admission(ConnectionSlots(limit: 4))
        #expect(admission.gate(head("/", origin: nil, host: "evil.example:7700"), peer: Self.me)?.status == .forbidden)
        #expect(admission.gate(head("/", origin: nil, host: nil), peer: Self.me)?.status == .badRequest)
        #expect(admission.gate(head("/", origin: nil, host: "127.0.0.1:7700"), peer: Self.me) == nil)
        let own = HostPolicy(settings: try! BridgeSettings(listen: "127.0.0.1:80", siteRoot: "/", extraOrigins: ["https://kiosk.local"]))
        func host(_ values: String...) -> RequestHead {
            RequestHead(method: "GET", uri: "/", http11: true, headers: values.map { (name: "Host", value: $0) })
        }
        for ok in ["127.0.0.1:80", "127.0.0.1", "localhost", "LOCALHOST:80", "[::1]", "kiosk.local", "kiosk.local:443"] {
            #expect(own.refusal(host(ok)) == nil, "\(ok)")
        }
        for bad in ["127.0.0.1:81", "evil.example", "kiosk.local:80"] { #expect(own.refusal(host(bad)) != nil, "\(bad)") }
        #expect(own.refusal(host("127.0.0.1", "127.0.0.1"))?.status == 400)
    }

    /// RFC 6455, 4.2.1 and 4.4: every malformed handshake gets its answer (it once got none).
    @Test func malformedHandshakes_getTheirStatus() {
        let admission = admission(ConnectionSlots(limit: 4))
        #expect(refusal(admission.admit(head("/gestures", origin: nil, method: .POST), peer: Self.me)) == .methodNotAllowed)
        var noKey = head("/gestures", origin: nil)
        noKey.headers.remove(name: "Sec-WebSocket-Key")
        #expect(admission.failedUpgrade(noKey, peer: Self.me)?.status == .badRequest)
        var badKey = head("/gestures", origin: nil)
        badKey.headers.replaceOrAdd(name: "Sec-WebSocket-Key", value: "short")
        #expect(refusal(admission.admit(badKey, peer: Self.me)) == .badRequest)
        var v8 = head("/gestures", origin: nil)
        v8.headers.replaceOrAdd(name: "Sec-WebSocket-Version", value: "8")
        let declined = admission.failedUpgrade(v8, peer: Self.me)
        #expect(declined?.status == .upgradeRequired)
        #expect(declined?.headers.contains { $0 == ("Sec-WebSocket-Version", "13") } == true)
        #expect(admission.failedUpgrade(head("/index.html", origin: nil), peer: Self.me) == nil, "an upgrade on a file: the file")
        #expect(admission.plainRefusal(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/gestures", headers: ["Host": "127.0.0.1:7700"]), peer: Self.me).status == .upgradeRequired)
        #expect(Admission.isKey("dGhlIHNhbXBsZSBub25jZQ=="))
        for bad in ["dGhlIHNhbXBsZSBub25jZQ=", "dGhlIHNhbXBsZSBub25jZR==", "dGhlIHNhbXBsZSBub25j!Q==", ""] { #expect(!Admission.isKey(bad), "\(bad)") }
    }

    /// One user's pages cannot take every place: 16 idle pages of one user once meant HTTP 503
    /// for the kiosk page.
    @Test func aUsersPages_areCappedByTheirShare() {
        let slots = ConnectionSlots(limit: 4, perUser: 2)
        let a = [slots.claim(for: 7), slots.claim(for: 7)]
        #expect(a.allSatisfy { (try? $0.get()) != nil })
        #expect(slots.claim(for: 7).failureValue == .userFull(7))
        let b = slots.claim(for: 8)
        #expect((try? b.get()) != nil)
        _ = (a, b)
    }
}

extension Result {
    var failureValue: Failure? { if case .failure(let f) = self { f } else { nil } }
}
