import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

// MARK: - The connection guard
//
// OVERVIEW
//
// Everything around the HTTP parser that a client can hold open or misuse
// without a token. A TCP connection costs the server a file descriptor from the moment it
// is accepted, so the limits below apply before any request is read:
//
//   1. At most `connectionsPerAddress` open connections per client address
//      (when it is not 0); one more is closed as soon as it is accepted.
//   2. The first request's header block must arrive whole within
//      `headerTimeout` (slowloris) and fit in `maxHeaderBytes`; otherwise the
//      connection is closed (431 for one too large).
//   3. A WebSocket upgrade request (one with an `Upgrade` header) must be
//      HTTP/1.1, carry no body (no `Content-Length` above 0, no
//      `Transfer-Encoding`), and name a `Sec-WebSocket-Key` that is the Base64
//      of 16 bytes (RFC 6455 §4.1, §4.2.1); otherwise 400 and closed.
//   4. A WebSocket's client frames must be masked (RFC 6455 §5.1): the first
//      unmasked frame closes it with 1002 (`RequireMaskedFrames`, below).
//   5. Whatever happened while a connection was served — an upgrade that failed
//      half-way included — it is closed when its handler returns, so no error
//      path can leave a descriptor behind (`GuardedChildChannel`).
//
// Plain HTTP connections that sit idle between requests are closed after
// `idleTimeout` (Hummingbird's own handler); WebSockets are kept alive by pings.

/// Open connections per client address, shared by every connection of a process.
final class AddressTable: @unchecked Sendable {
    private let lock = NSLock()
    private var open: [String: Int] = [:]

    /// Counts a connection from `address`; false (not counted) when `limit` are open already.
    func admit(_ address: String, limit: Int) -> Bool {
        lock.withLock {
            let current = open[address, default: 0]
            guard current < limit else { return false }
            open[address] = current + 1
            return true
        }
    }

    /// Forgets a connection from `address` that ``admit(_:limit:)`` counted.
    func release(_ address: String) {
        lock.withLock {
            let remaining = open[address, default: 1] - 1
            open[address] = remaining > 0 ? remaining : nil
        }
    }
}

/// The first handler of every connection: rules (1) to (3) of the essay above.
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let limits: SyncServerLimits
    private let addresses: AddressTable
    private let metrics: SyncServerMetrics
    private var address: String?            // the counted client address, released when the connection closes
    private var header: [UInt8] = []        // the first request's bytes, held until its header block is whole
    private var passing = false             // the header block was accepted: bytes pass through unread
    private var deadline: Scheduled<Void>?  // rule (2)'s timer

    init(limits: SyncServerLimits, addresses: AddressTable, metrics: SyncServerMetrics) {
        self.limits = limits
        self.addresses = addresses
        self.metrics = metrics
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // (1)
        if limits.connectionsPerAddress > 0 {
            let client = context.channel.remoteAddress?.ipAddress ?? "unknown"
            guard addresses.admit(client, limit: limits.connectionsPerAddress) else {
                refuse(context, status: nil)
                return
            }
            address = client
        }
        // (2)
        let timeout = TimeAmount(limits.headerTimeout)
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [weak self] in
            guard let self, !self.passing else { return }
            self.refuse(context, status: "408 Request Timeout")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        if let address { addresses.release(address) }
        address = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        if let address { addresses.release(address) }
        address = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !passing else {
            context.fireChannelRead(data)
            return
        }
        var buffer = unwrapInboundIn(data)
        header += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard let end = Self.headerEnd(in: header) else {
            // (2): too large before its end.
            if header.count > limits.maxHeaderBytes { refuse(context, status: "431 Request Header Fields Too Large") }
            return
        }
        guard end <= limits.maxHeaderBytes else {
            refuse(context, status: "431 Request Header Fields Too Large")
            return
        }
        // (3)
        if let problem = Self.upgradeProblem(String(decoding: header[..<end], as: UTF8.self)) {
            refuse(context, status: "400 Bad Request", reason: problem)
            return
        }
        passing = true
        deadline?.cancel()
        let held = context.channel.allocator.buffer(bytes: header)
        header = []
        context.fireChannelRead(wrapInboundOut(held))
    }

    /// The offset just past the first `\r\n\r\n`, if the bytes hold one.
    static func headerEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// Why a header block that asks for an upgrade cannot have one (rule 3), `nil` when it
    /// can or does not ask.
    static func upgradeProblem(_ text: String) -> String? {
        let lines = text.components(separatedBy: "\r\n")
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        guard fields["upgrade"] != nil else { return nil }
        guard lines.first?.hasSuffix(" HTTP/1.1") == true else { return "a WebSocket upgrade needs HTTP/1.1" }
        if fields["transfer-encoding"] != nil { return "an upgrade request has no body" }
        if let length = fields["content-length"], length != "0" { return "an upgrade request has no body" }
        guard let key = fields["sec-websocket-key"], let bytes = Data(base64Encoded: key), bytes.count == 16 else {
            return "Sec-WebSocket-Key must be the Base64 of 16 bytes"
        }
        return nil
    }

    /// Answers `status` (when given) and closes the connection.
    private func refuse(_ context: ChannelHandlerContext, status: String?, reason: String = "") {
        metrics.add(.connectionsClosedByGuard)
        passing = false
        deadline?.cancel()
        header = []
        guard let status else {
            context.close(promise: nil)
            return
        }
        let body = reason.isEmpty ? status + "\n" : reason + "\n"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: response))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

/// A server child channel that puts a ``ConnectionGuardHandler`` in front of
/// another's pipeline and closes the connection whenever the other's handling
/// ends (rule 5 of the essay).
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let limits: SyncServerLimits
    let addresses: AddressTable
    let metrics: SyncServerMetrics

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(limits: limits, addresses: addresses, metrics: metrics))
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            // At the end of the HTTP pipeline, after the upgrade handler: it hears the upgrade complete.
            try channel.pipeline.syncOperations.addHandler(MaskedFrameGuardInstaller())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
        try? await value.channel.close().get()
    }
}

extension TimeAmount {
    /// The same span as a `Duration`, to the nanosecond.
    init(_ duration: Duration) {
        self = .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}

// MARK: Masked frames (RFC 6455 §5.1)
//
// "A server MUST close the connection upon receiving a frame that is not masked."
// NIO's frame decoder accepts unmasked frames, and neither Hummingbird nor its
// WebSocket layer offers a setting, so a handler is put right after the frame
// decoder once the upgrade has put it in place (NIO announces that with
// `HTTPServerUpgradeEvents.upgradeComplete`, before any WebSocket bytes are read).

/// Waits at the end of the HTTP pipeline for the upgrade, then puts a
/// ``RequireMaskedFrames`` after the frame decoder and leaves.
final class MaskedFrameGuardInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let upgrade = event as? HTTPServerUpgradeEvents, case .upgradeComplete = upgrade {
            do {
                let decoder = try context.pipeline.syncOperations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                try context.pipeline.syncOperations.addHandler(RequireMaskedFrames(), position: .after(decoder))
            } catch {
                context.close(promise: nil)
            }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }
}

/// Closes a WebSocket with 1002 (protocol error) at its first unmasked frame.
final class RequireMaskedFrames: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    private var failed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        guard unwrapInboundIn(data).maskKey != nil else {
            failed = true
            var payload = context.channel.allocator.buffer(capacity: 2)
            payload.write(webSocketErrorCode: .protocolError)
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)
            context.writeAndFlush(wrapOutboundOut(close)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }
}
