import NIOCore
import NIOWebSocket

/// RFC 6455's rules on each frame a page sends, before frames are joined into messages (NIO's
/// decoder already fails a fragmented or long control frame): a client's frame is masked (5.1),
/// sets no RSV bit without a negotiated extension (5.2), uses no reserved opcode (5.2), and a
/// close frame carries no code, or one an endpoint may send with a UTF-8 reason (5.5.1, 7.4).
/// A broken rule is an error that `ProtocolCloser` turns into the close frame the RFC asks for.
final class FrameRules: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    /// How a page broke the rules: 1002 (protocol error) or 1007 (data that is not UTF-8).
    enum Violation: Error, Equatable {
        case protocolError(String)
        case notUTF8
    }

    private var failed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if failed { return }
        let frame = unwrapInboundIn(data)
        if let violation = Self.check(frame) {
            failed = true
            context.fireErrorCaught(violation)
            return
        }
        context.fireChannelRead(data)
    }

    /// The rule `frame` breaks, or nil.
    static func check(_ frame: WebSocketFrame) -> Violation? {
        if frame.maskKey == nil { return .protocolError("an unmasked frame from a page") }
        if frame.rsv1 || frame.rsv2 || frame.rsv3 { return .protocolError("an RSV bit without an extension") }
        switch frame.opcode {
        case .continuation, .text, .binary, .ping, .pong: return nil
        case .connectionClose: return closeRefusal(frame.unmaskedData)
        default: return .protocolError("a reserved opcode")
        }
    }

    /// A close frame's payload: empty, or a code an endpoint may send (1000-1003, 1007-1014,
    /// 3000-4999; never 1005, 1006 or 1015, which only say what happened locally) and a UTF-8
    /// reason.
    static func closeRefusal(_ payload: ByteBuffer) -> Violation? {
        var data = payload
        if data.readableBytes == 0 { return nil }
        guard let code = data.readInteger(as: UInt16.self) else { return .protocolError("a close frame of one byte") }
        guard isSendable(code) else { return .protocolError("close code \(code)") }
        if data.readableBytes > 0, String(validating: data.readableBytesView, as: UTF8.self) == nil { return .notUTF8 }
        return nil
    }

    static func isSendable(_ code: UInt16) -> Bool {
        (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
    }
}
