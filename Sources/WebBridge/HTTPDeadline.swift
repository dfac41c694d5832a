import NIOCore

/// The time limits of a plain HTTP connection (one that is not, or not yet, a page's WebSocket),
/// at the front of its pipeline, on bytes: a request must arrive whole within `request` of its
/// first byte (or of the connection's start), and a connection waiting for its next request is
/// closed after `idle`. A client that sends a header a byte a minute (slowloris), or opens
/// connections and says nothing, so holds nothing for long. The upgrade to WebSocket removes it:
/// a page may stay quiet as long as it likes.
final class HTTPDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let name = "http-deadline"
    static let request = TimeAmount.seconds(10)
    static let idle = TimeAmount.seconds(30)

    private let requestLimit: TimeAmount
    private let idleLimit: TimeAmount
    private var timer: Scheduled<Void>?
    /// Waiting for a request to come whole (true) or for the next one to start (false).
    private var inRequest = true

    init(request: TimeAmount = HTTPDeadline.request, idle: TimeAmount = HTTPDeadline.idle) {
        (requestLimit, idleLimit) = (request, idle)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, requestLimit) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, requestLimit)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !inRequest {
            inRequest = true
            arm(context, requestLimit)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The server answers: the request was whole. Now the connection waits for the next.
        if inRequest {
            inRequest = false
            arm(context, idleLimit)
        }
        context.write(data, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    private func arm(_ context: ChannelHandlerContext, _ limit: TimeAmount) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
    }
}
