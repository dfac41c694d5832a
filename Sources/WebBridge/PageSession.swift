import Logging
import NIOCore
import NIOWebSocket

/// One browser page's connection: a protocol client of the daemon's, carried over WebSocket. The
/// daemon's lines go to the page as text messages (one line a message, no newline); the page's
/// messages go through the `RequestGate` to the daemon. When the daemon goes away the page is told
/// (`{"type":"bridge","daemon":"down"}`) and the bridge reconnects (after 0.1 s, doubling to 2 s);
/// back, the page gets `{"type":"bridge","daemon":"up"}` and the daemon's `hello`.
struct PageSession: Sendable {
    typealias Socket = NIOAsyncChannel<WebSocketFrame, WebSocketFrame>

    let socketPath: String
    let gate: RequestGate
    let log: Logger
    /// The longest daemon line relayed (a reply of the daemon's is far shorter).
    static let maxDaemonLine = 16 << 20
    static let firstRetryMs = 100
    static let lastRetryMs = 2000

    /// Runs until the page closes or its connection fails; `slot` is held as long.
    func run(_ socket: Socket, slot: ConnectionSlot) async {
        do {
            try await socket.executeThenClose { inbound, outbound in
                let page = PageOutput(writer: outbound, allocator: socket.channel.allocator)
                let link = DaemonLink()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await daemonSide(page, link) }
                    group.addTask { try await pageSide(inbound, page, link) }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            log.debug("a page's connection ended: \(error)")
        }
        withExtendedLifetime(slot) {}
    }

    /// Relays the daemon's lines to the page, reconnecting while the page stays.
    private func daemonSide(_ page: PageOutput, _ link: DaemonLink) async throws {
        var retryMs = Self.firstRetryMs
        var toldDown = false
        while !Task.isCancelled {
            do {
                let daemon = try await DaemonLink.connect(path: socketPath, maxLine: Self.maxDaemonLine)
                retryMs = Self.firstRetryMs
                try await daemon.executeThenClose { lines, requests in
                    await link.attach(requests)
                    try await page.send(RequestGate.daemonLine(up: true))
                    toldDown = false
                    for try await line in lines { try await page.send(line) }
                }
            } catch let gone as PageGone {
                throw gone
            } catch {
                if !toldDown { log.info("daemon at \(socketPath) not reachable: \(error)") }
            }
            await link.detach()
            if !toldDown {
                try await page.send(RequestGate.daemonLine(up: false))
                toldDown = true
            }
            try await Task.sleep(for: .milliseconds(retryMs))
            retryMs = min(retryMs * 2, Self.lastRetryMs)
        }
    }

    /// Reads the page's messages (whole: fragments are joined before they get here) until it closes.
    private func pageSide(_ inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, _ page: PageOutput, _ link: DaemonLink) async throws {
        for try await frame in inbound {
            switch frame.opcode {
            case .text, .binary:
                let message = Array(buffer: frame.unmaskedData)
                switch gate.decide(message) {
                case .forward(let line):
                    if !(await link.send(line)) { try await page.send(gate.unavailable(message)) }
                case .answer(let line):
                    try await page.send(line)
                }
            case .ping:
                try await page.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
            case .connectionClose:
                // Echo the page's close code, as RFC 6455 asks, and end.
                var data = frame.unmaskedData
                let code = data.readSlice(length: 2) ?? ByteBuffer()
                try? await page.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))
                return
            default:
                break
            }
        }
    }
}

/// The page's connection failed while the bridge wrote to it.
struct PageGone: Error {
    var underlying: any Error
}

/// Writes to one page.
struct PageOutput: Sendable {
    let writer: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    let allocator: ByteBufferAllocator

    /// One line as a text message, its newline dropped.
    func send(_ line: [UInt8]) async throws(PageGone) {
        let body = line.last == UInt8(ascii: "\n") ? line.dropLast() : line[...]
        try await write(WebSocketFrame(fin: true, opcode: .text, data: allocator.buffer(bytes: body)))
    }

    func send(_ line: ByteBuffer) async throws(PageGone) {
        try await write(WebSocketFrame(fin: true, opcode: .text, data: line))
    }

    func write(_ frame: WebSocketFrame) async throws(PageGone) {
        do {
            try await writer.write(frame)
        } catch {
            throw PageGone(underlying: error)
        }
    }
}
