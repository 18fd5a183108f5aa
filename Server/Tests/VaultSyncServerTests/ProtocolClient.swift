import Foundation
import HTTPTypes
import Logging
import NIOCore
import VaultSync
import WSClient

/// A device speaking the sync protocol directly (through swift-websocket's
/// client, not VaultSync's), to send what VaultSync never would.
enum ProtocolClient {
    struct Outcome: Sendable {
        /// The messages the server sent, decoded.
        var received: [SyncWireMessage]
        /// The close code, if the server closed.
        var closeCode: UInt16?
    }

    /// Connects with `token`, sends `frames` (raw binary, or text when given as a String), reads
    /// replies until `expectReplies` arrived or the server closed, and returns what came back.
    static func exchange(port: Int, token: String?, frames: [WebSocketMessage], expectReplies: Int,
                         timeout: Duration = .seconds(10), until: @escaping @Sendable (SyncWireMessage) -> Bool = { _ in false }) async throws -> Outcome {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        let received = Received()
        let logger = Logger(label: "protocol-client")
        let close = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/v1/sync",
            configuration: .init(maxFrameSize: 48 << 20, additionalHeaders: headers), logger: logger
        ) { inbound, outbound, _ in
            for frame in frames {
                switch frame {
                case .binary(let buffer): try await outbound.write(.binary(buffer))
                case .text(let text): try await outbound.write(.text(text))
                }
            }
            guard expectReplies > 0 else { return }
            let deadline = ContinuousClock.now + timeout
            for try await message in inbound.messages(maxSize: 48 << 20) {
                if case .binary(let buffer) = message, let decoded = try? SyncWireMessage(decoding: Array(buffer: buffer)) {
                    received.append(decoded)
                    if until(decoded) { break }
                }
                if received.count >= expectReplies || ContinuousClock.now > deadline { break }
            }
            try await outbound.close(.normalClosure, reason: nil)
        }
        var code: UInt16?
        if let close {
            switch close.closeCode {
            case .unknown(let value): code = value
            case .normalClosure: code = 1000
            case .messageTooLarge: code = 1009
            case .policyViolation: code = 1008
            case .protocolError: code = 1002
            default: code = 0
            }
        }
        return Outcome(received: received.all, closeCode: code)
    }

    static func binary(_ message: SyncWireMessage) -> WebSocketMessage { .binary(ByteBuffer(bytes: message.encoded())) }
    static func binary(_ bytes: [UInt8]) -> WebSocketMessage { .binary(ByteBuffer(bytes: bytes)) }
    static var hello: WebSocketMessage { binary(.hello(protocolVersion: 1, cursor: 0)) }

    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [SyncWireMessage] = []
        func append(_ message: SyncWireMessage) { lock.withLock { messages.append(message) } }
        var count: Int { lock.withLock { messages.count } }
        var all: [SyncWireMessage] { lock.withLock { messages } }
    }
}

/// A sealed change set of `device` for `space` (an empty one: the server never looks inside).
func sealedChangeSet(space: String, device: UInt64, sequence: UInt64, key: Data) throws -> SealedChangeSet {
    let sealer = try ChangeSetSealer(space: SyncSpaceID(name: space), keys: [0: try SyncKey(bytes: key)], currentKeyID: 0)
    return try sealer.seal(ChangeSet(author: SyncDeviceID(rawValue: device), sequence: sequence, dependencies: [:], operations: []))
}
