import NIOCore
import NIOHTTP1

/// Keeps each request's head where the bridge can read it after NIO's upgrader has swallowed it:
/// an upgrade NIO itself turns down (no `Sec-WebSocket-Key`, a version other than 13) never
/// reaches the bridge's `shouldUpgrade`, and its head is not passed on, so without this the
/// connection would wait for an answer that never comes.
final class HeadRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    static let name = "http-head-recorder"
    let last: NIOLoopBoundBox<HTTPRequestHead?>

    init(_ last: NIOLoopBoundBox<HTTPRequestHead?>) { self.last = last }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { last.value = head }
        context.fireChannelRead(data)
    }
}

/// Closes a connection whose bytes are not HTTP: NIO's error handler has written its 400 with
/// `Connection: close`, and the connection must then close, not wait for the client.
final class ParseErrorCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    static let name = "http-parse-closer"

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is HTTPParserError {
            context.close(promise: nil)
            return
        }
        context.fireErrorCaught(error)
    }
}
