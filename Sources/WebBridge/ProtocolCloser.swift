import NIOCore
import NIOWebSocket

/// Ends a page's connection that broke the WebSocket rules or the size limit the way RFC 6455
/// asks: a close frame with the reason (1009 message too big, 1002 protocol error, 1007 text
/// that is not UTF-8), then the
/// page's remaining bytes are read and dropped until it closes its side (at most `linger`), so
/// that the close frame reaches it instead of being lost to a TCP reset. Nothing else is written
/// after the close frame. NIO's own error handler closes at once, which loses the frame when the
/// page is still sending (a 1 MB message).
final class ProtocolCloser: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    static let linger = TimeAmount.seconds(2)
    private var closing = false

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if closing { return }  // what follows the error: the rest of the page's message, dropped
        let code: WebSocketErrorCode
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            code = .messageTooLarge
        case is NIOWebSocketError, is NIOWebSocketFrameAggregator.Error, FrameRules.Violation.protocolError:
            code = .protocolError
        case FrameRules.Violation.notUTF8:
            code = .dataInconsistentWithMessage
        default:
            context.fireErrorCaught(error)
            return
        }
        closing = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: Self.linger) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if closing { return }
        // A text message is UTF-8 (RFC 6455, 8.1): one that is not fails the connection (1007).
        let frame = unwrapInboundIn(data)
        if frame.opcode == .text, String(validating: frame.unmaskedData.readableBytesView, as: UTF8.self) == nil {
            errorCaught(context: context, error: FrameRules.Violation.notUTF8)
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if closing {
            promise?.succeed(())
        } else {
            context.write(data, promise: promise)
        }
    }
}
