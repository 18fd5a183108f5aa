import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import VaultSync

/// One device's WebSocket: the protocol of SyncWireMessage.swift on the
/// server's side. Requests are handled one at a time, in order; head notices
/// are pushed alongside. Any message the protocol does not allow closes the
/// connection with a ``VaultSync/SyncCloseCode`` before anything of it is stored.
///
/// Limits are enforced before work: messages are counted as they arrive (a
/// reader task), against the connection's rate and queue and the process's
/// budget of received bytes, and handed to the processor only when admitted.
/// The token is checked again before every message is processed (and before a
/// head notice, at most once a second), so a revoked token stops at once.
struct DeviceConnection {
    let grant: DeviceGrant
    let store: any SyncStore
    let hub: SpaceHub
    let limits: SyncServerLimits
    let metrics: SyncServerMetrics
    let budget: MessageBudget
    let logger: Logger

    /// The device this connection's token registered (protocol 2), once it has.
    let registered = RegisteredDevice()

    /// Why a connection is closed by the server.
    struct Rejection: Error {
        let code: SyncCloseCode
        let reason: String
    }

    /// Serves the connection. A protocol rejection closes it with its sync close code; any
    /// other error (a message over the size limit, a broken frame) is thrown on, so that the
    /// WebSocket layer closes with the code RFC 6455 gives it (1009 for a message too big).
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
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
            // The device went away, or a message exceeded the size limit (the WebSocket layer closes with its code).
            logger.debug("connection ended", metadata: ["error": "\(type(of: error))"])
            await hub.unsubscribe(space: grant.space, id: subscription.id)
            throw error
        }
        await hub.unsubscribe(space: grant.space, id: subscription.id)
    }

    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, heads: AsyncStream<UInt64>) async throws {
        let (admitted, queue) = AsyncStream.makeStream(of: (message: WebSocketMessage, bytes: Int).self)
        let (welcomed, welcome) = AsyncStream.makeStream(of: Void.self)
        let pending = PendingCount()
        defer { budget.release(pending.drainBytes()) }
        try await withThrowingTaskGroup(of: ConnectionTask.self) { group in
            group.addTask {
                for await _ in welcomed {}   // head notices start after the welcome
                // The token is checked again before a head notice at most once a second: a
                // commit in a space of N connections must not cost N queries each time.
                var checked = ContinuousClock.now
                for await head in heads {
                    if checked.duration(to: .now) >= .seconds(1) {
                        try await requireLiveToken()
                        checked = .now
                    }
                    try await send(.head(head), outbound)
                }
                return .heads
            }
            // The reader: every message is counted as it arrives, before any work is done for it.
            group.addTask {
                var bucket = TokenBucket(rate: limits.messagesPerSecond, burst: limits.messageBurst)
                var messages = inbound.messages(maxSize: limits.maxMessageBytes).makeAsyncIterator()
                while let message = try await messages.next() {
                    guard bucket.take() else { throw Rejection(code: .rateLimited, reason: "more than \(Int(limits.messagesPerSecond)) messages a second") }
                    guard pending.count < limits.maxQueuedMessages else {
                        throw Rejection(code: .rateLimited, reason: "more than \(limits.maxQueuedMessages) messages waiting to be processed")
                    }
                    let bytes = Self.size(of: message)
                    // One connection holds at most two messages' worth unprocessed, so one token cannot take the process's budget.
                    guard pending.bytes + bytes <= 2 * limits.maxMessageBytes else {
                        throw Rejection(code: .rateLimited, reason: "messages sent faster than the server can process them")
                    }
                    guard budget.reserve(bytes) else { throw Rejection(code: .rateLimited, reason: "the server is busy; try again") }
                    pending.add(bytes)
                    queue.yield((message, bytes))
                }
                // Only a device that closed ends the queue: after a rejection the processor must not
                // finish first, or the group would end normally and drop the rejection's close code.
                queue.finish()
                return .reader
            }
            // The processor: one message at a time, in order.
            group.addTask {
                var greeted = false
                for await (message, bytes) in admitted {
                    defer {
                        pending.remove(bytes)
                        budget.release(bytes)
                    }
                    try await requireLiveToken()
                    let decoded = try decode(message)
                    guard greeted else {
                        try await greet(decoded, outbound)
                        greeted = true
                        welcome.finish()
                        continue
                    }
                    if let reply = try await handle(decoded) { try await send(reply, outbound) }
                }
                return .processor
            }
            // A rejection in any task ends the connection; the device closing it ends the
            // reader, and the connection once the processor has done what was admitted.
            while let finished = try await group.next(), finished != .processor {}
            group.cancelAll()
        }
    }

    /// The tasks of a connection.
    private enum ConnectionTask { case heads, reader, processor }

    /// The handshake: the first message must be hello; the welcome gives the log's head.
    private func greet(_ message: SyncWireMessage, _ outbound: WebSocketOutboundWriter) async throws {
        guard case .hello(let version, _) = message else { throw Rejection(code: .malformedMessage, reason: "the first message must be hello") }
        guard version >= 1 else { throw Rejection(code: .unsupportedVersion, reason: "this server speaks sync protocols 1 and 2") }
        let head = try await fromStore { try await store.head(space: grant.space) }
        try await send(.welcome(protocolVersion: min(version, SyncWireMessage.protocolVersion), head: head.head, totalBytes: head.totalBytes), outbound)
    }

    /// Throws the rejection of a revoked token (checked in the store every time: a
    /// revocation takes effect at the connection's very next message or head notice).
    private func requireLiveToken() async throws {
        guard try await fromStore({ try await store.tokenIsLive(grant.tokenID) }) else {
            throw Rejection(code: .unauthorized, reason: "the device token was revoked")
        }
    }

    private static func size(of message: WebSocketMessage) -> Int {
        switch message {
        case .binary(let buffer): return buffer.readableBytes
        case .text(let text): return text.utf8.count
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
                if header.isSigned {
                    // Signed by the device this token registered, and naming it.
                    guard let keys = registered.keys, header.device == keys.deviceID, header.signatureVerifies(envelope, signer: keys) else {
                        metrics.add(.uploadsRefusedSignature)
                        throw Rejection(code: .forbidden, reason: "a signed change set that is not signed by the device this token registered")
                    }
                }
                changeSets.append(SealedChangeSet(device: header.device, sequence: header.sequence, envelope: envelope))
            }
            let outcome: AppendOutcome
            do {
                outcome = try await fromStore { try await store.append(changeSets, space: grant.space, uploader: grant, quota: limits.maxSpaceBytes) }
            } catch let refusal as AppendRefusal {
                throw Self.rejection(for: refusal, metrics: metrics)
            }
            metrics.add(.changeSetsStored, Int64(outcome.stored))
            metrics.add(.bytesStored, Int64(outcome.storedBytes))
            metrics.add(.changeSetsDeduplicated, Int64(outcome.deduplicated))
            logger.debug("upload", metadata: ["stored": "\(outcome.stored)", "deduplicated": "\(outcome.deduplicated)"])
            return .uploaded(request: request, receipts: outcome.receipts)
        case .register(let keys, let signature):
            guard registered.keys == nil else { throw Rejection(code: .malformedMessage, reason: "the device registered already") }
            let message = SyncWireMessage.registrationMessage(space: grant.space, keys: keys)
            guard keys.verify(signature, of: message, context: .registration) else {
                metrics.add(.uploadsRefusedSignature)
                throw Rejection(code: .forbidden, reason: "a registration not signed by the keys it names")
            }
            do {
                try await fromStore { try await store.register(keys, space: grant.space, uploader: grant) }
            } catch let refusal as AppendRefusal {
                throw Self.rejection(for: refusal, metrics: metrics)
            }
            registered.set(keys)
            logger.debug("device registered")
            return nil
        case .download(_, let after, _) where after >= UInt64(Int64.max):
            throw Rejection(code: .malformedMessage, reason: "a download position past the largest a log can hold")
        case .acknowledge(let through) where through >= UInt64(Int64.max):
            throw Rejection(code: .malformedMessage, reason: "an acknowledged position past the largest a log can hold")
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

    /// The close an append's refusal means, counted and reported (never a payload).
    static func rejection(for refusal: AppendRefusal, metrics: SyncServerMetrics) -> Rejection {
        switch refusal {
        case .foreignDevice:
            metrics.add(.uploadsRefusedForeignDevice)
            return Rejection(code: .forbidden, reason: "a change set names a device that another device's token uploads for")
        case .conflictingChangeSet(_, let sequence, let serverSequence):
            metrics.add(.uploadsRefusedConflicting)
            return Rejection(code: .conflictingChangeSet,
                             reason: "the log holds this device's change set \(sequence) with other bytes (at \(serverSequence)); it keeps its place")
        case .quotaExceeded(let limit):
            return Rejection(code: .quotaExceeded, reason: "the space's log may hold at most \(limit) bytes")
        case .unsignedInSignedSpace:
            metrics.add(.uploadsRefusedSignature)
            return Rejection(code: .forbidden, reason: "an unsigned change set for a space whose devices sign theirs")
        case .keysMismatch:
            metrics.add(.uploadsRefusedSignature)
            return Rejection(code: .forbidden, reason: "a device registered with other keys")
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
        do { return try await body() } catch let rejection as Rejection { throw rejection } catch let refusal as AppendRefusal { throw refusal } catch {
            logger.error("store request failed", metadata: ["error": "\(String(describing: type(of: error)))"])
            throw Rejection(code: .serverError, reason: "the server's store is unavailable; try again")
        }
    }
}

/// The keys a connection's device registered (set once, read by the processor).
final class RegisteredDevice: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: DevicePublicKeys?

    var keys: DevicePublicKeys? { lock.withLock { stored } }
    func set(_ keys: DevicePublicKeys) { lock.withLock { stored = keys } }
}

/// A connection's received messages not yet processed: their number and bytes.
final class PendingCount: @unchecked Sendable {
    private let lock = NSLock()
    private var messages = 0
    private var held = 0

    var count: Int { lock.withLock { messages } }
    var bytes: Int { lock.withLock { held } }

    func add(_ size: Int) { lock.withLock { messages += 1; held += size } }
    func remove(_ size: Int) { lock.withLock { messages -= 1; held -= size } }

    /// The bytes still held (messages never processed), now forgotten.
    func drainBytes() -> Int {
        lock.withLock {
            defer { messages = 0; held = 0 }
            return held
        }
    }
}
