import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
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
    func head(_ uri: String, origin: String?) -> HTTPRequestHead {
        var h = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
        if let origin { h.headers.add(name: "Origin", value: origin) }
        return h
    }

    func isWelcome(_ d: Admission.Decision) -> Bool { if case .welcome = d { true } else { false } }
    func refusal(_ d: Admission.Decision) -> HTTPResponseStatus? { if case .refused(let r) = d { r.status } else { nil } }

    @Test func ownOrigin_withRoom_isWelcome_onTheEndpointOnly() {
        let admission = Admission(origins: OriginPolicy(allowed: ["http://127.0.0.1:7700"]), slots: ConnectionSlots(limit: 2))
        #expect(isWelcome(admission.admit(head("/gestures", origin: "http://127.0.0.1:7700"))))
        #expect(isWelcome(admission.admit(head("/gestures?v=1", origin: nil))))
        guard case .notEndpoint = admission.admit(head("/other", origin: "http://127.0.0.1:7700")) else {
            Issue.record("another path is plain HTTP")
            return
        }
    }

    @Test func foreignOrigin_is403_andAFullBridge_is503() {
        let slots = ConnectionSlots(limit: 1)
        let admission = Admission(origins: OriginPolicy(allowed: ["http://127.0.0.1:7700"]), slots: slots)
        #expect(refusal(admission.admit(head("/gestures", origin: "http://evil.example"))) == .forbidden)
        #expect(admission.refusal(head("/gestures", origin: "http://evil.example"))?.0 == .forbidden)
        let held = slots.take()
        #expect(refusal(admission.admit(head("/gestures", origin: "http://127.0.0.1:7700"))) == .serviceUnavailable)
        #expect(admission.refusal(head("/gestures", origin: "http://127.0.0.1:7700"))?.0 == .serviceUnavailable)
        _ = held
    }

    /// The handshake takes the slot: a page let in holds it before its session starts, so the
    /// next handshake sees the bridge full, and the refusal is the one decided then even if a
    /// slot is freed before the HTTP answer is written.
    @Test func aWelcome_holdsItsSlot_andARefusalIsKept() {
        let slots = ConnectionSlots(limit: 1)
        let admission = Admission(origins: OriginPolicy(allowed: []), slots: slots)
        var first: ConnectionSlot?
        if case .welcome(let slot) = admission.admit(head("/gestures", origin: nil)) { first = slot }
        #expect(first != nil && slots.full)
        let second = admission.admit(head("/gestures", origin: nil))
        first = nil
        #expect(!slots.full)
        #expect(refusal(second) == .serviceUnavailable)
        _ = first
    }
}
