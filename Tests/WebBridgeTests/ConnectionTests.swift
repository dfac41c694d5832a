import NIOCore
import NIOEmbedded
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
        channel.pipeline.fireErrorCaught(NIOWebSocketError.invalidFrameLength)
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        #expect(channel.isActive, "open until the page closes or the linger ends")
        channel.embeddedEventLoop.advanceTime(by: ProtocolCloser.linger)
        #expect(!channel.isActive)
    }
}
