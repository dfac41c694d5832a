import GestureProtocol
import Logging
import NIOCore
import NIOWebSocket
import SystemCalls

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
    func run(_ socket: Socket, slot: ConnectionSlot, peer: PeerGate.Peer) async {
        let who = (socket.channel.remoteAddress.map { "\($0)" } ?? "a peer") + (peer.uid.map { ", uid \($0)" } ?? "")
        log.debug("a page connected: \(who)")
        defer { log.debug("a page left: \(who)") }
        do {
            try await socket.executeThenClose { inbound, outbound in
                let page = PageOutput(writer: outbound, allocator: socket.channel.allocator)
                let link = DaemonLink()
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await daemonSide(page, link, peer) }
                        group.addTask { try await pageSide(inbound, page, link) }
                        _ = try await group.next()
                        group.cancelAll()
                    }
                } catch let refused as PageRefused {
                    // The daemon would not take the page as its user (its share is full): it
                    // has had the daemon's error line; the connection ends with 1008.
                    var data = socket.channel.allocator.buffer(capacity: 2 + refused.why.utf8.count)
                    data.write(webSocketErrorCode: .policyViolation)
                    data.writeString(String(refused.why.prefix(120)))
                    try? await page.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
                }
            }
        } catch {
            log.debug("a page's connection ended: \(error)")
        }
        withExtendedLifetime(slot) {}
    }

    /// The id of the bridge's own request, `page`, which tells the daemon whose page this is.
    static let introductionID = "touchgestured-web"

    /// `{"op":"page",...}`: the page's connection to the bridge, for the daemon to check with the
    /// kernel and count under the page's own user (docs/PROTOCOL.md, "page").
    static func introduction(page: TCPEndpoint, bridge: TCPEndpoint) -> [UInt8] {
        var w = JSONLineWriter(capacity: 160)
        w.beginObject()
        w.field("op", "page")
        w.field("id", introductionID)
        w.field("page", page.description)
        w.field("bridge", bridge.description)
        w.endObject()
        w.endLine()
        return w.bytes
    }

    /// Relays the daemon's lines to the page, reconnecting while the page stays. A local user's
    /// page is first introduced (`page`); until the daemon has answered, its lines are held, so
    /// the page hears the daemon (and may send) only as its own user.
    private func daemonSide(_ page: PageOutput, _ link: DaemonLink, _ peer: PeerGate.Peer) async throws {
        var retryMs = Self.firstRetryMs
        var toldDown = false
        while !Task.isCancelled {
            do {
                let daemon = try await DaemonLink.connect(path: socketPath, maxLine: Self.maxDaemonLine)
                retryMs = Self.firstRetryMs
                try await daemon.executeThenClose { lines, requests in
                    var held: [ByteBuffer] = []
                    var introduced = true
                    if case .user(_, let pageEnd, let bridgeEnd) = peer {
                        introduced = false
                        try await requests.write(ByteBuffer(bytes: Self.introduction(page: pageEnd, bridge: bridgeEnd)))
                    }
                    var lineLimit = Int.max
                    var attached = false
                    func open() async throws {
                        await link.attach(requests, channel: daemon.channel, lineLimit: lineLimit)
                        try await page.send(RequestGate.daemonLine(up: true))
                        if toldDown { log.info("daemon at \(socketPath) reachable again: a page reconnected") }
                        toldDown = false
                        for line in held { try await page.send(line) }
                        held = []
                    }
                    for try await line in lines {
                        if lineLimit == .max, let limit = Self.lineLimit(hello: line) { lineLimit = limit }
                        guard introduced else {
                            switch Self.introductionAnswer(line) {
                            case nil:
                                held.append(line)
                                if held.count > 1024 { throw PageGone(underlying: PageRefused(why: "no answer to page")) }
                            case .some(nil):
                                introduced = true
                                attached = true
                                try await open()
                            case .some(let refusal?):
                                try await page.send(line)
                                throw PageRefused(why: refusal)
                            }
                            continue
                        }
                        if !attached {
                            // No introduction (a remote peer): open at the hello.
                            held.append(line)
                            attached = true
                            try await open()
                            continue
                        }
                        try await page.send(line)
                    }
                }
            } catch let gone as PageGone {
                throw gone
            } catch let refused as PageRefused {
                throw refused
            } catch {
                if Task.isCancelled { throw CancellationError() }
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

    /// The daemon's `max_line_bytes`, from its hello.
    static func lineLimit(hello line: ByteBuffer) -> Int? {
        guard let v = try? parseJSON(line.readableBytesView), v["type"] == .string("hello"),
            case .number(let n)? = v["max_line_bytes"], n >= 1, n <= Double(Int32.max)
        else { return nil }
        return Int(n)
    }

    /// Whether `line` answers the introduction: nil when it does not, `.some(nil)` for the reply,
    /// `.some(why)` for an error.
    static func introductionAnswer(_ line: ByteBuffer) -> String?? {
        guard let v = try? parseJSON(line.readableBytesView), v["id"] == .string(introductionID) else { return nil }
        if v["type"] == .string("error") {
            if case .string(let message)? = v["message"] { return .some(message) }
            return .some("the daemon refused this page")
        }
        return .some(nil)
    }

    /// Reads the page's messages (whole: fragments are joined before they get here) until it
    /// closes. A request is never waited on: a daemon that reads nothing (stopped, overloaded)
    /// gets no more, and the page an error line, so a page that closes is seen at once.
    private func pageSide(_ inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, _ page: PageOutput, _ link: DaemonLink) async throws {
        for try await frame in inbound {
            switch frame.opcode {
            case .text, .binary:
                let message = Array(buffer: frame.unmaskedData)
                switch gate.decide(message, lineLimit: await link.lineLimit) {
                case .forward(let line):
                    switch await link.send(line) {
                    case .sent: break
                    case .noDaemon: try await page.send(gate.unavailable(message))
                    case .busy: try await page.send(gate.busy(message))
                    }
                case .answer(let line):
                    try await page.send(line)
                }
            case .ping:
                try await page.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
            case .connectionClose:
                // Echo the page's close code, as RFC 6455 asks, and end (ProtocolCloser has
                // failed a code no endpoint may send).
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

/// The daemon would not take a page as its user (`page` answered with an error).
struct PageRefused: Error {
    var why: String
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
