#if !canImport(Darwin)
import COpenSSL
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - A WebSocket client over a POSIX socket
//
// Only what a sync client needs of RFC 6455, as a client: the opening
// handshake (with the Sec-WebSocket-Accept check), binary messages sent as
// one masked frame each, messages received whole (continuation frames
// joined, up to a size limit), pings answered, and the closing handshake.
// Text messages, extensions and subprotocols are not used by the sync
// protocol and are refused.
//
// Reads block on the socket inside a serial dispatch queue of the
// connection's own, one read at a time; a receive timeout of 60 seconds (the
// server pings every 20) finds a dead peer. Writes block on the calling task
// for the few microseconds a loopback or LAN send takes, under a lock so
// frames never interleave. `close()` shuts the socket down, which ends a
// blocked read at once.

/// A client WebSocket on a TCP socket (``SyncSocket``).
final class POSIXWebSocket: SyncSocket, @unchecked Sendable {
    private let descriptor: Int32
    private let maxMessageBytes: Int
    private let readQueue = DispatchQueue(label: "VaultSync.websocket.read")
    private let writeLock = NSLock()
    private let stateLock = NSLock()
    private var isClosed = false
    /// Bytes read past the last frame (only touched on `readQueue`).
    private var buffered: [UInt8]

    private init(descriptor: Int32, maxMessageBytes: Int, buffered: [UInt8]) {
        self.descriptor = descriptor
        self.maxMessageBytes = maxMessageBytes
        self.buffered = buffered
    }

    deinit {
        close()
        Glibc.close(descriptor)
    }

    static func connect(url: URL, token: String, maxMessageBytes: Int) async throws -> POSIXWebSocket {
        try await withCheckedThrowingContinuation { continuation in
            // Connecting and the handshake block (up to their timeouts): on a queue of
            // their own, which always gets a thread, never on the global queue, whose
            // few threads (one per core on Linux) the app's blocking work may hold.
            DispatchQueue(label: "VaultSync.websocket.open").async {
                continuation.resume(with: Result { try open(url: url, token: token, maxMessageBytes: maxMessageBytes) })
            }
        }
    }

    private static func open(url: URL, token: String, maxMessageBytes: Int) throws -> POSIXWebSocket {
        guard let host = url.host else { throw SyncSessionError.invalidConfiguration("the server URL has no host") }
        let port = url.port ?? 80
        let descriptor = try TCPConnection.open(host: host, port: port, timeoutSeconds: 10)
        var keyBytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in keyBytes.indices { keyBytes[index] = generator.next() }
        let key = Data(keyBytes).base64EncodedString()
        let path = url.path.isEmpty ? "/" : url.path
        let request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer \(token)\r\n\r\n"
        do {
            try TCPConnection.writeAll(descriptor, Array(request.utf8))
            let (head, rest) = try readHandshake(descriptor)
            try checkHandshake(head, key: key)
            return POSIXWebSocket(descriptor: descriptor, maxMessageBytes: maxMessageBytes, buffered: rest)
        } catch SyncSessionError.connectionFailed(let reason) where reason.hasSuffix("HTTP 400") {
            Glibc.close(descriptor)
            // The sync server refuses an upgrade it will not accept with a bare 400 (its WebSocket
            // layer says no more); its plain `GET` on the same path says why: 401 for an unknown or
            // revoked token, which is final — without asking, a revoked device would retry forever.
            if try refusesToken(host: host, port: port, path: path, token: token) {
                throw SyncSessionError.unauthorized("unknown or revoked device token")
            }
            throw SyncSessionError.connectionFailed(reason)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    /// Whether a plain `GET` of the sync path with `token` is answered 401 (the token is refused).
    private static func refusesToken(host: String, port: Int, path: String, token: String) throws -> Bool {
        let descriptor = try TCPConnection.open(host: host, port: port, timeoutSeconds: 10)
        defer { Glibc.close(descriptor) }
        let request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n\r\n"
        try TCPConnection.writeAll(descriptor, Array(request.utf8))
        let (head, _) = try readHandshake(descriptor)
        let status = head.components(separatedBy: "\r\n").first?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return status == 401
    }

    /// Reads the response head (to the blank line); returns it and the bytes after it.
    private static func readHandshake(_ descriptor: Int32) throws -> (String, [UInt8]) {
        var received: [UInt8] = []
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = received.firstRange(of: terminator) {
                return (String(decoding: received[..<end.lowerBound], as: UTF8.self), Array(received[end.upperBound...]))
            }
            guard received.count < 16_384 else { throw SyncSessionError.connectionFailed("the server's handshake response is too long") }
            let chunk = try TCPConnection.read(descriptor, upTo: 4096)
            guard !chunk.isEmpty else { throw SyncSessionError.connectionFailed("the server closed the connection during the handshake") }
            received += chunk
        }
    }

    private static func checkHandshake(_ head: String, key: String) throws {
        let lines = head.components(separatedBy: "\r\n")
        let status = lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        switch status {
        case 101: break
        case 401: throw SyncSessionError.unauthorized("unknown or revoked device token")
        case 426, 404, 405: throw SyncSessionError.unsupportedProtocol("the server at this URL does not offer the sync WebSocket (HTTP \(status))")
        default: throw SyncSessionError.connectionFailed("the server answered the WebSocket upgrade with HTTP \(status)")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard headers["upgrade"]?.lowercased() == "websocket", headers["sec-websocket-accept"] == acceptValue(for: key) else {
            throw SyncSessionError.connectionFailed("the server's WebSocket handshake is not valid")
        }
    }

    /// base64(SHA-1(key ‖ the RFC's GUID)): what the server must answer (RFC 6455 §4.2.2).
    static func acceptValue(for key: String) -> String {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        _ = EVP_Digest(input, input.count, &digest, &length, EVP_sha1(), nil)
        return Data(digest).base64EncodedString()
    }

    // MARK: Messages

    func send(_ message: [UInt8]) async throws {
        try writeFrame(opcode: 0x2, payload: message)
    }

    func receive() async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            readQueue.async { continuation.resume(with: Result { try self.readMessage() }) }
        }
    }

    func close() {
        let first = stateLock.withLock { () -> Bool in
            defer { isClosed = true }
            return !isClosed
        }
        guard first else { return }
        // A close frame (1000) if the connection still takes one, then shut down: a blocked read returns.
        try? writeFrame(opcode: 0x8, payload: [0x03, 0xE8], force: true)
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private func writeFrame(opcode: UInt8, payload: [UInt8], force: Bool = false) throws {
        if !force, stateLock.withLock({ isClosed }) { throw SyncSessionError.connectionFailed("the connection is closed") }
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65_536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift))) }
        }
        var generator = SystemRandomNumberGenerator()
        let mask: [UInt8] = (0..<4).map { _ in generator.next() }
        frame += mask
        frame.reserveCapacity(frame.count + payload.count)
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index & 3]) }
        try writeLock.withLock { try TCPConnection.writeAll(descriptor, frame) }
    }

    /// Reads frames until a whole data message (on `readQueue`).
    private func readMessage() throws -> [UInt8] {
        var message: [UInt8] = []
        var inMessage = false
        while true {
            let first = try readExactly(2)
            let fin = first[0] & 0x80 != 0
            let opcode = first[0] & 0x0F
            guard first[0] & 0x70 == 0, first[1] & 0x80 == 0 else { throw fail(1002, "the server sent a masked or extended frame") }
            var length = UInt64(first[1] & 0x7F)
            if length == 126 {
                let bytes = try readExactly(2)
                length = UInt64(bytes[0]) << 8 | UInt64(bytes[1])
            } else if length == 127 {
                length = try readExactly(8).reduce(0) { $0 << 8 | UInt64($1) }
            }
            guard length <= UInt64(maxMessageBytes), message.count + Int(length) <= maxMessageBytes else {
                throw fail(1009, "a message from the server exceeds \(maxMessageBytes) bytes")
            }
            let payload = try readExactly(Int(length))
            switch opcode {
            case 0x9:  // ping
                try? writeFrame(opcode: 0xA, payload: payload)
            case 0xA:  // pong
                continue
            case 0x8:  // close
                let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005
                let reason = payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : ""
                close()
                throw SyncSessionError.closed(code: code, reason: reason)
            case 0x2 where !inMessage, 0x0 where inMessage:
                message += payload
                inMessage = true
                if fin { return message }
            default:
                throw fail(1003, "the server sent a frame the sync protocol does not use (opcode \(opcode))")
            }
        }
    }

    private func fail(_ code: UInt16, _ reason: String) -> SyncSessionError {
        try? writeFrame(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)], force: true)
        close()
        return .connectionFailed(reason)
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffered.count < count {
            if stateLock.withLock({ isClosed }) { throw SyncSessionError.connectionFailed("the connection is closed") }
            let chunk = try TCPConnection.read(descriptor, upTo: max(65_536, count - buffered.count))
            guard !chunk.isEmpty else { throw SyncSessionError.connectionFailed("the server closed the connection") }
            buffered += chunk
        }
        let result = Array(buffered[..<count])
        buffered.removeFirst(count)
        return result
    }
}
#endif
