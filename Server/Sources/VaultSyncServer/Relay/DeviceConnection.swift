import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import VaultSync

/// One device's WebSocket: the protocol of SyncWireMessage.swift on the
/// server's side. Requests are handled one at a time, in order; head notices
/// are pushed alongside. Any message the protocol does not allow closes the
/// connection with a ``VaultSync/SyncCloseCode`` before anything of it is stored.
struct DeviceConnection {
    let grant: DeviceGrant
    let store: any SyncStore
    let hub: SpaceHub
    let limits: SyncServerLimits
    let metrics: SyncServerMetrics
    let logger: Logger

    /// Why a connection is closed by the server.
    struct Rejection: Error {
        let code: SyncCloseCode
        let reason: String
    }

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        guard let subscription = await hub.subscribe(space: grant.space, tokenID: grant.tokenID, limit: limits.connectionsPerDevice) else {
            metrics.add(.connectionsRefused)
            logger.notice("refused a connection: too many for this device")
            try? await outbound.close(.unknown(SyncCloseCode.rateLimited.rawValue), reason: "too many connections for this device")
            return
        }
        metrics.add(.connectionsOpened)
        logger.debug("device connected")
        do {
            try await serve(inbound: inbound, outbound: outbound, heads: subscription.heads)
        } catch let rejection as Rejection {
            metrics.add(rejection.code == .serverError ? .storeErrors : .messagesRejected)
            logger.notice("closed a connection", metadata: ["code": "\(rejection.code.rawValue)", "reason": "\(rejection.reason)"])
            try? await outbound.close(.unknown(rejection.code.rawValue), reason: rejection.reason)
        } catch {
            // The device went away, or a message exceeded the frame limit (the WebSocket layer closes it).
            logger.debug("connection ended", metadata: ["error": "\(type(of: error))"])
        }
        await hub.unsubscribe(space: grant.space, id: subscription.id)
    }

    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, heads: AsyncStream<UInt64>) async throws {
        var messages = inbound.messages(maxSize: limits.maxMessageBytes).makeAsyncIterator()
        guard let first = try await messages.next() else { return }
        guard case .hello(let version, _) = try decode(first) else { throw Rejection(code: .malformedMessage, reason: "the first message must be hello") }
        guard version >= 1 else { throw Rejection(code: .unsupportedVersion, reason: "this server speaks sync protocol 1") }
        let head = try await fromStore { try await store.head(space: grant.space) }
        try await send(.welcome(protocolVersion: SyncWireMessage.protocolVersion, head: head.head, totalBytes: head.totalBytes), outbound)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await head in heads { try await send(.head(head), outbound) }
            }
            var bucket = TokenBucket(rate: limits.messagesPerSecond, burst: limits.messageBurst)
            var checked = ContinuousClock.Instant.now
            while let message = try await messages.next() {
                guard bucket.take() else { throw Rejection(code: .rateLimited, reason: "more than \(Int(limits.messagesPerSecond)) messages a second") }
                // A revoked token stops working at its connection's next request (checked at most once a second).
                if checked.duration(to: .now) > .seconds(1) {
                    checked = .now
                    guard try await fromStore({ try await store.tokenIsLive(grant.tokenID) }) else {
                        throw Rejection(code: .unauthorized, reason: "the device token was revoked")
                    }
                }
                if let reply = try await handle(try decode(message)) { try await send(reply, outbound) }
            }
            group.cancelAll()
        }
    }

    private func handle(_ message: SyncWireMessage) async throws -> SyncWireMessage? {
        switch message {
        case .upload(let request, let envelopes):
            guard envelopes.count <= limits.maxEnvelopesPerUpload else {
                throw Rejection(code: .messageTooLarge, reason: "more than \(limits.maxEnvelopesPerUpload) change sets in one upload")
            }
            var changeSets: [SealedChangeSet] = []
            for envelope in envelopes {
                guard envelope.count <= limits.maxEnvelopeBytes else {
                    throw Rejection(code: .messageTooLarge, reason: "a change set over \(limits.maxEnvelopeBytes) bytes")
                }
                let header: EnvelopeHeader
                do { header = try EnvelopeHeader(envelope: envelope) } catch { throw Rejection(code: .malformedMessage, reason: "an upload holds something that is not a sealed change set") }
                guard header.space == grant.space else { throw Rejection(code: .forbidden, reason: "a change set sealed for another space than the token's") }
                changeSets.append(SealedChangeSet(device: header.device, sequence: header.sequence, envelope: envelope))
            }
            let receipts = try await fromStore { try await store.append(changeSets, space: grant.space) }
            metrics.add(.changeSetsStored, Int64(changeSets.count))
            metrics.add(.bytesStored, Int64(envelopes.reduce(0) { $0 + $1.count }))
            logger.debug("upload", metadata: ["changeSets": "\(changeSets.count)"])
            return .uploaded(request: request, receipts: receipts)
        case .download(let request, let after, let limit):
            let items = max(1, min(Int(limit), limits.maxPageItems))
            let page = try await fromStore { try await store.page(space: grant.space, after: after, limit: items, maxBytes: limits.maxPageBytes) }
            metrics.add(.changeSetsServed, Int64(page.items.count))
            return .changeSets(request: request, items: page.items, head: page.head, remainingBytes: page.remainingBytes)
        case .acknowledge(let through):
            try await fromStore { try await store.acknowledge(space: grant.space, tokenID: grant.tokenID, through: through) }
            return nil
        case .hello:
            throw Rejection(code: .malformedMessage, reason: "hello was already sent")
        case .welcome, .uploaded, .changeSets, .head:
            throw Rejection(code: .malformedMessage, reason: "a device sent a message only servers send")
        }
    }

    private func decode(_ message: WebSocketMessage) throws -> SyncWireMessage {
        guard case .binary(let buffer) = message else { throw Rejection(code: .malformedMessage, reason: "sync messages are binary") }
        do { return try SyncWireMessage(decoding: Array(buffer: buffer)) } catch {
            throw Rejection(code: .malformedMessage, reason: "not a sync protocol message")
        }
    }

    private func send(_ message: SyncWireMessage, _ outbound: WebSocketOutboundWriter) async throws {
        try await outbound.write(.binary(ByteBuffer(bytes: message.encoded())))
    }

    /// Runs a store request; a failure closes the connection with 4500 (the device retries later).
    private func fromStore<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let rejection as Rejection { throw rejection } catch {
            logger.error("store request failed", metadata: ["error": "\(String(describing: type(of: error)))"])
            throw Rejection(code: .serverError, reason: "the server's store is unavailable; try again")
        }
    }
}
