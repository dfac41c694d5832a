import NIOCore
import NIOPosix

/// One page's connection to the daemon's socket, while there is one: the page side writes its
/// requests through it, the daemon side swaps it as the daemon goes and comes back.
actor DaemonLink {
    private var writer: NIOAsyncChannelOutboundWriter<ByteBuffer>?
    private var channel: (any Channel)?
    /// The daemon's `max_line_bytes` (from its hello; unlimited until then).
    private(set) var lineLimit = Int.max

    func attach(_ writer: NIOAsyncChannelOutboundWriter<ByteBuffer>, channel: any Channel, lineLimit: Int) {
        (self.writer, self.channel, self.lineLimit) = (writer, channel, lineLimit)
    }
    func detach() { (writer, channel) = (nil, nil) }

    enum Sent { case sent, noDaemon, busy }

    /// Sends one request line, never waiting for a daemon that reads nothing: when the socket
    /// to it is full, the line is not sent (`busy`).
    func send(_ line: [UInt8]) async -> Sent {
        guard let writer, let channel else { return .noDaemon }
        guard channel.isWritable else { return .busy }
        do {
            try await writer.write(ByteBuffer(bytes: line))
            return .sent
        } catch {
            return .noDaemon
        }
    }

    /// Opens a connection to the daemon's socket, its input split into lines (newline dropped).
    static func connect(path: String, maxLine: Int) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(unixDomainSocketPath: path) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineSplitter(maxLine: maxLine)))
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    }
}

/// The daemon's output as lines, each without its newline. A line longer than `maxLine` (no reply
/// of the daemon's is) ends the connection rather than growing the buffer.
struct LineSplitter: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    let maxLine: Int

    struct LineTooLong: Error {}

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maxLine { throw LineTooLong() }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        if let line = buffer.readSlice(length: length) {
            buffer.moveReaderIndex(forwardBy: 1)
            context.fireChannelRead(wrapInboundOut(line))
        }
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
