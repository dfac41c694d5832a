import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// `touchgestured-web`: serves the site's files over HTTP and one WebSocket endpoint
/// (`/gestures`), where each connection is a protocol client of the daemon (PageSession).
public struct Bridge: Sendable {
    public let settings: BridgeSettings
    let log: Logger

    public init(settings: BridgeSettings, log: Logger) {
        self.settings = settings
        self.log = log
    }

    /// What a new connection became: a page's WebSocket, or plain HTTP.
    enum Accepted: Sendable {
        /// A page, with the slot its handshake took and who it is.
        case page(PageSession.Socket, ConnectionSlot, PeerGate.Peer)
        /// Plain HTTP, with who it is; with the request NIO's upgrader saw and did not pass on
        /// (one with `Upgrade: websocket`: only its end follows), and its refusal if it was one.
        case http(HTTPResponder.Channel, peer: PeerGate.Peer, first: HTTPResponder.First?)
    }

    /// Binds and serves until the process ends (a bind failure is thrown).
    public func run() async throws {
        let slots = ConnectionSlots(limit: settings.maxConnections, perUser: settings.maxConnectionsPerUser)
        let admission = Admission(origins: settings.originPolicy, hosts: HostPolicy(settings: settings), slots: slots)
        let server: NIOAsyncChannel<EventLoopFuture<Accepted>, Never>
        do {
            server = try await bind(admission)
        } catch {
            throw BridgeSettingsError("cannot listen on \(settings.host):\(settings.port) (--listen): \(error)")
        }
        log.info("serving http://\(settings.host):\(settings.port)/ (WebSocket \(BridgeSettings.endpoint)) for \(settings.socketPath)")
        await probeDaemon()
        let responder = HTTPResponder(files: StaticFiles(root: settings.siteRoot), admission: admission, log: log)
        let session = PageSession(
            socketPath: settings.socketPath, gate: RequestGate(readOnly: settings.readOnly), log: log)
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await accepted in connections {
                    group.addTask { await serve(accepted, responder, session) }
                }
            }
        }
    }

    /// Says at once whether a daemon answers on the socket (one connection, closed again):
    /// otherwise a bridge started before its daemon, or on the wrong socket, is silent until a
    /// page comes.
    private func probeDaemon() async {
        do {
            let link = try await DaemonLink.connect(path: settings.socketPath, maxLine: PageSession.maxDaemonLine)
            try? await link.channel.close()
            log.info("the daemon answers at \(settings.socketPath)")
        } catch {
            log.warning("no daemon answers at \(settings.socketPath) (\(error)): pages are told it is down, and each is connected once it answers (--socket names another)")
        }
    }

    private func serve(_ accepted: EventLoopFuture<Accepted>, _ responder: HTTPResponder, _ session: PageSession) async {
        do {
            switch try await accepted.get() {
            case .page(let socket, let slot, let peer):
                await session.run(socket, slot: slot, peer: peer)
            case .http(let channel, let peer, let first):
                try await responder.serve(channel, peer: peer, first: first)
            }
        } catch ChannelError.inappropriateOperationForState {
            // Turned away before it was served (no room, or a handshake refused: logged there).
        } catch {
            log.debug("a connection ended: \(error)")
        }
    }

    /// The listening socket: HTTP/1.1 with the WebSocket upgrade on the endpoint, for allowed
    /// peers, hosts and origins while there is room. Every connection starts under the plain HTTP
    /// limits (`HTTPDeadline`, `BridgeSettings.maxHTTPConnections`); a page let in leaves them.
    private func bind(_ admission: Admission) async throws -> NIOAsyncChannel<EventLoopFuture<Accepted>, Never> {
        let settings = self.settings
        let gate = PeerGate(socketPath: settings.socketPath, allowRemote: settings.allowRemote)
        // A user's share of them: one user's idle connections cannot keep another's page out.
        let httpSlots = ConnectionSlots(limit: settings.maxHTTPConnections, perUser: max(2, settings.maxHTTPConnections / 4))
        let log = self.log
        let refusals = RefusalLog()
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .bind(host: settings.host, port: settings.port) { channel in
                // The peer's user: a kernel query and the user database, off the event loop (a
                // directory service behind NSS may be slow).
                NIOThreadPool.singleton.runIfActive(eventLoop: channel.eventLoop) {
                    gate.check(local: channel.localAddress, remote: channel.remoteAddress)
                }.flatMapThrowing { peer in
                    guard let httpSlot = try? httpSlots.claim(for: peer.countedAs).get() else {
                        channel.close(promise: nil)
                        throw ChannelError.inappropriateOperationForState
                    }
                    if case .refused(let why, _) = peer,
                        let line = refusals.note("refused \(channel.remoteAddress.map { "\($0)" } ?? "a peer"): \(why)")
                    {
                        log.notice("\(line)")
                    }
                    return try Self.configure(channel, settings: settings, admission: admission, peer: peer, httpSlot: httpSlot)
                }
            }
    }

    /// One connection's pipeline: its deadlines, HTTP, and the WebSocket upgrader.
    private static func configure(
        _ channel: Channel, settings: BridgeSettings, admission: Admission, peer: PeerGate.Peer, httpSlot: ConnectionSlot
    ) throws -> EventLoopFuture<Accepted> {
        let first = NIOLoopBoundBox<HTTPResponder.First?>(nil, eventLoop: channel.eventLoop)
        let admitted = NIOLoopBoundBox<ConnectionSlot?>(nil, eventLoop: channel.eventLoop)
        let http = NIOLoopBoundBox<ConnectionSlot?>(httpSlot, eventLoop: channel.eventLoop)
        try channel.pipeline.syncOperations.addHandler(HTTPDeadline(), name: HTTPDeadline.name)
        channel.closeFuture.whenComplete { _ in http.value = nil }
        let websocket = NIOTypedWebSocketServerUpgrader<Accepted>(
            maxFrameSize: settings.maxMessageBytes, enableAutomaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                switch admission.admit(head, peer: peer) {
                case .welcome(let slot): admitted.value = slot
                case .refused(let refusal): first.value = HTTPResponder.First(head: head, declined: refusal)
                case .notEndpoint: first.value = HTTPResponder.First(head: head, declined: nil)
                }
                return channel.eventLoop.makeSucceededFuture(admitted.value == nil ? nil : HTTPHeaders())
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    let joiner = NIOWebSocketFrameAggregator(
                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256,
                        maxAccumulatedFrameSize: settings.maxMessageBytes)
                    try channel.pipeline.syncOperations.addHandlers([FrameRules(), joiner, ProtocolCloser()])
                    guard let slot = admitted.value else { throw ChannelError.inappropriateOperationForState }
                    admitted.value = nil
                    // A page: no longer a plain HTTP connection, nor under its deadlines.
                    http.value = nil
                    for name in [HTTPDeadline.name, HeadRecorder.name, ParseErrorCloser.name] {
                        channel.pipeline.removeHandler(name: name, promise: nil)
                    }
                    return Accepted.page(try PageSession.Socket(wrappingChannelSynchronously: channel), slot, peer)
                }
            })
        let lastHead = NIOLoopBoundBox<HTTPRequestHead?>(nil, eventLoop: channel.eventLoop)
        let upgrade = NIOTypedHTTPServerUpgradeConfiguration(
            upgraders: [websocket],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    // An upgrade NIO turned down before asking (a bad key or version) is answered
                    // here, from the head the recorder kept.
                    let pending = first.value ?? lastHead.value.flatMap { head in
                        head.headers.contains(name: "Upgrade") ? HTTPResponder.First(head: head, declined: admission.failedUpgrade(head, peer: peer)) : nil
                    }
                    return Accepted.http(try HTTPResponder.Channel(wrappingChannelSynchronously: channel), peer: peer, first: pending)
                }
            })
        let accepted = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
            configuration: .init(upgradeConfiguration: upgrade))
        let upgrader = try channel.pipeline.syncOperations.handler(type: NIOTypedHTTPServerUpgradeHandler<Accepted>.self)
        try channel.pipeline.syncOperations.addHandler(HeadRecorder(lastHead), name: HeadRecorder.name, position: .before(upgrader))
        try channel.pipeline.syncOperations.addHandler(ParseErrorCloser(), name: ParseErrorCloser.name, position: .after(upgrader))
        // A request NIO could not parse, or an upgrade that failed after all: the connection ends
        // (its 400, if NIO wrote one, goes first), never left open with nobody reading it.
        accepted.whenFailure { _ in channel.close(promise: nil) }
        return accepted
    }
}
