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
        /// A page, with the slot its handshake took.
        case page(PageSession.Socket, ConnectionSlot)
        /// Plain HTTP; with a handshake that was turned away, whose head NIO's upgrade handler
        /// does not pass on (only the request's end follows).
        case http(HTTPResponder.Channel, declined: Admission.Declined?)
    }

    /// Binds and serves until the process ends (a bind failure is thrown).
    public func run() async throws {
        let slots = ConnectionSlots(limit: settings.maxConnections)
        let admission = Admission(origins: settings.originPolicy, slots: slots)
        let server: NIOAsyncChannel<EventLoopFuture<Accepted>, Never>
        do {
            server = try await bind(admission)
        } catch {
            throw BridgeSettingsError("cannot listen on \(settings.host):\(settings.port) (--listen): \(error)")
        }
        log.info("serving http://\(settings.host):\(settings.port)/ (WebSocket \(BridgeSettings.endpoint)) for \(settings.socketPath)")
        let responder = HTTPResponder(files: StaticFiles(root: settings.siteRoot), admission: admission)
        let session = PageSession(socketPath: settings.socketPath, gate: RequestGate(readOnly: settings.readOnly), log: log)
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await accepted in connections {
                    group.addTask { await serve(accepted, responder, session) }
                }
            }
        }
    }

    private func serve(_ accepted: EventLoopFuture<Accepted>, _ responder: HTTPResponder, _ session: PageSession) async {
        do {
            switch try await accepted.get() {
            case .page(let socket, let slot):
                await session.run(socket, slot: slot)
            case .http(let channel, let declined):
                try await responder.serve(channel, declined: declined)
            }
        } catch {
            log.debug("a connection ended: \(error)")
        }
    }

    /// The listening socket: HTTP/1.1 with the WebSocket upgrade on the endpoint, for allowed
    /// origins while there is room.
    private func bind(_ admission: Admission) async throws -> NIOAsyncChannel<EventLoopFuture<Accepted>, Never> {
        let settings = self.settings
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .bind(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let declined = NIOLoopBoundBox<Admission.Declined?>(nil, eventLoop: channel.eventLoop)
                    let admitted = NIOLoopBoundBox<ConnectionSlot?>(nil, eventLoop: channel.eventLoop)
                    let upgrader = NIOTypedWebSocketServerUpgrader<Accepted>(
                        maxFrameSize: settings.maxMessageBytes, enableAutomaticErrorHandling: false,
                        shouldUpgrade: { channel, head in
                            switch admission.admit(head) {
                            case .welcome(let slot): admitted.value = slot
                            case .refused(let refusal): declined.value = refusal
                            case .notEndpoint: break
                            }
                            return channel.eventLoop.makeSucceededFuture(admitted.value == nil ? nil : HTTPHeaders())
                        },
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                let joiner = NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256,
                                    maxAccumulatedFrameSize: settings.maxMessageBytes)
                                try channel.pipeline.syncOperations.addHandlers([joiner, ProtocolCloser()])
                                guard let slot = admitted.value else { throw ChannelError.inappropriateOperationForState }
                                admitted.value = nil
                                return Accepted.page(try PageSession.Socket(wrappingChannelSynchronously: channel), slot)
                            }
                        })
                    let upgrade = NIOTypedHTTPServerUpgradeConfiguration(
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.eventLoop.makeCompletedFuture {
                                Accepted.http(try HTTPResponder.Channel(wrappingChannelSynchronously: channel), declined: declined.value)
                            }
                        })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                        configuration: .init(upgradeConfiguration: upgrade))
                }
            }
    }
}
