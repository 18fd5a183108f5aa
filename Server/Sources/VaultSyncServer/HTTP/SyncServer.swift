import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import VaultSync

/// The request context: the grant a device's token carries, from the
/// upgrade request to its WebSocket.
public struct SyncRequestContext: RequestContext, WebSocketRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The WebSocket handler chosen at upgrade.
    public let webSocket: WebSocketHandlerReference<Self>
    /// Set when the upgrade request's token was accepted.
    let grant: GrantBox

    /// A context for a request arriving through `source`.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        grant = GrantBox()
    }
}

/// Carries a grant from `shouldUpgrade` to the WebSocket handler (the context is copied between them).
final class GrantBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: DeviceGrant?
    var value: DeviceGrant? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A sync server process: `GET /v1/sync` (the WebSocket devices sync over),
/// `GET /health` and `GET /metrics`, over a ``SyncStore``.
public struct SyncServer: Sendable {
    /// Where it listens.
    public var host: String
    /// The port (0: any free one; the port taken is printed).
    public var port: Int
    /// The store every process of a deployment shares.
    public let store: any SyncStore
    /// Per-device limits.
    public var limits: SyncServerLimits
    /// Its counters.
    public let metrics = SyncServerMetrics()
    /// Its log (structured; never a payload or a token).
    public var logger: Logger
    /// How often connected spaces' heads are polled, in case a notification was lost.
    public var headPollInterval: Duration = .seconds(2)

    /// A server on `host`:`port` over `store`.
    public init(host: String = "127.0.0.1", port: Int, store: any SyncStore, limits: SyncServerLimits = .init(), logger: Logger) {
        self.host = host
        self.port = port
        self.store = store
        self.limits = limits
        self.logger = logger
    }

    /// Runs until SIGTERM or SIGINT; calls `onListening` with the port once it accepts connections.
    public func run(onListening: @escaping @Sendable (Int) -> Void) async throws {
        let hub = SpaceHub(metrics: metrics)
        let router = Router(context: SyncRequestContext.self)
        let store = self.store
        let metrics = self.metrics
        router.get("/health") { _, _ -> Response in
            do {
                try await store.ping()
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
            } catch {
                return Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "store unavailable\n")))
            }
        }
        router.get("/metrics") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
        }
        // A /v1/sync request that was not upgraded: say why.
        router.get("/v1/sync") { request, _ -> Response in
            if try await Self.authenticate(request, store: store) == nil {
                metrics.add(.connectionsRefused)
                return Response(status: .unauthorized, body: .init(byteBuffer: ByteBuffer(string: "unknown or revoked device token\n")))
            }
            return Response(status: .upgradeRequired, body: .init(byteBuffer: ByteBuffer(string: "a WebSocket upgrade is required\n")))
        }

        let webSocketRouter = Router(context: SyncRequestContext.self)
        let limits = self.limits
        let logger = self.logger
        let budget = MessageBudget(limit: limits.maxBufferedBytes)
        webSocketRouter.ws("/v1/sync") { request, context in
            // Exactly this path: the router would also match `/v1/sync/` and `//v1/sync`.
            guard request.uri.path == "/v1/sync", let grant = try await Self.authenticate(request, store: store) else { return .dontUpgrade }
            context.grant.value = grant
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let grant = context.requestContext.grant.value else { return }
            var connectionLogger = logger
            connectionLogger[metadataKey: "space"] = "\(String(grant.space.description.prefix(8)))"
            connectionLogger[metadataKey: "device"] = "\(grant.deviceLabel)"
            let connection = DeviceConnection(grant: grant, store: store, hub: hub, limits: limits, metrics: metrics, budget: budget,
                                              logger: connectionLogger)
            try await connection.run(inbound: inbound, outbound: outbound)
        }

        let webSocketResponder = webSocketRouter.buildResponder()
        let addresses = AddressTable()
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: TimeAmount(limits.idleTimeout)),
            ws: .init(maxFrameSize: limits.maxMessageBytes, autoPing: .enabled(timePeriod: .seconds(20))))
        let serverBuilder = HTTPServerBuilder { responder in
            GuardedChildChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                                    configuration: channelConfiguration),
                                limits: limits, addresses: addresses, metrics: metrics)
        }
        var app = Application(
            router: router,
            server: serverBuilder,
            configuration: .init(address: .hostname(host, port: port), serverName: "vault-sync-server"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        app.addServices(AppendListener(store: store, hub: hub, logger: logger, pollInterval: headPollInterval))
        try await app.runService()
        await hub.finishAll()
    }

    static func authenticate(_ request: Request, store: any SyncStore) async throws -> DeviceGrant? {
        guard let token = DeviceToken.fromAuthorization(request.headers[.authorization]),
              let digest = DeviceToken.digest(token) else { return nil }
        return try await store.grant(forTokenDigest: digest)
    }
}

/// Feeds the hub: the store's append notifications, and a poll of connected
/// spaces' heads for any notification lost while listening was down.
struct AppendListener: Service {
    let store: any SyncStore
    let hub: SpaceHub
    let logger: Logger
    let pollInterval: Duration

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    do {
                        try await store.listenForAppends { space, head in await hub.appended(space: space, head: head) }
                    } catch {
                        if Task.isCancelled { return }
                        logger.warning("listening for appends failed; retrying", metadata: ["error": "\(type(of: error))"])
                    }
                    try? await Task.sleep(for: .milliseconds(500))
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: pollInterval)
                    for space in await hub.connectedSpaces() {
                        if let head = try? await store.head(space: space) { await hub.appended(space: space, head: head.head) }
                    }
                }
            }
            try await gracefulShutdown()
            group.cancelAll()
        }
    }
}
