import Foundation
import NIOCore
import SyncServerHarness
import Testing
import VaultSync
import WSClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What anyone on the network can do to the server without a token, over plain sockets.
@Suite("The server against connections that misbehave", .serialized)
struct HardeningTests {
    /// The upgrade request of the descriptor-leak reproducer: a WebSocket upgrade with a body.
    static func upgradeWithBody(chunked: Bool) -> String {
        let framing = chunked ? "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" : "Content-Length: 5\r\n\r\nhello"
        return "GET /v1/sync HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + framing
    }

    private func health(_ port: Int) async -> Int {
        guard let url = URL(string: "http://127.0.0.1:\(port)/health") else { return 0 }
        var request = URLRequest(url: url)
        request.timeoutInterval = 5
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return 0 }
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test("Upgrade requests with a body leave no descriptor behind; with 256 descriptors the server answers through 10,000 of them",
          .timeLimit(.minutes(3)))
    func upgradeWithBodyLeavesNothing() async throws {
        let fixture = try ServerFixture()
        let server = fixture.servers[0]
        #expect(await health(server.port) == 200)
        let before = try #require(server.openDescriptors)
        for index in 0..<200 {
            let connection = try LoopbackConnection(port: server.port)
            connection.send(Self.upgradeWithBody(chunked: index.isMultiple(of: 2)))
            connection.close()
        }
        try await Task.sleep(for: .seconds(1))
        let after = try #require(server.openDescriptors)
        #expect(after <= before + 1, "descriptors: \(before) before, \(after) a second after 200 clients closed")

        try server.limitDescriptors(to: 256)
        for index in 0..<10_000 {
            let connection = try LoopbackConnection(port: server.port)
            connection.send(Self.upgradeWithBody(chunked: index.isMultiple(of: 2)))
            connection.close()
            if index.isMultiple(of: 2_500) { #expect(await health(server.port) == 200, "after \(index) requests") }
        }
        #expect(await health(server.port) == 200)
        try await Task.sleep(for: .seconds(1))
        let final = try #require(server.openDescriptors)
        #expect(final <= before + 1, "descriptors: \(before) before, \(final) after 10,000 requests")
    }

    @Test("Idle, slow and too many connections are closed; a good client keeps working", .timeLimit(.minutes(2)))
    func timeoutsAndAddressCap() async throws {
        let fixture = try ServerFixture(servers: 0)
        let server = try SyncServerProcess(databaseURL: fixture.postgres.databaseURL,
                                           arguments: ["--header-timeout", "1", "--idle-timeout", "2", "--connections-per-address", "20"])
        defer { server.terminate() }
        // Silent connections: the ones over the cap are closed at once, the rest after the header timeout.
        let silent = try (0..<30).map { _ in try LoopbackConnection(port: server.port) }
        try await Task.sleep(for: .milliseconds(300))
        let early = silent.map { $0.read(timeout: .milliseconds(5)).closed }.filter { $0 }.count
        #expect(early == 10, "\(early) of 30 closed at once with a cap of 20")
        try await Task.sleep(for: .milliseconds(1_500))
        let late = silent.map { $0.read(timeout: .milliseconds(5)).closed }.filter { $0 }.count
        #expect(late == 30, "\(late) of 30 closed after the header timeout")
        silent.forEach { $0.close() }
        // Slowloris: a header byte every 200 ms is closed after the header timeout.
        let slow = try LoopbackConnection(port: server.port)
        let request = Array("GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 40)
        let started = ContinuousClock.now
        var closed = false
        for byte in request {
            if !slow.send([byte]) { closed = true; break }
            if slow.read(timeout: .milliseconds(200)).closed { closed = true; break }
        }
        #expect(closed, "the slow request was never closed")
        #expect(started.duration(to: .now) < .seconds(4))
        // An idle keep-alive connection after a request is closed after the idle timeout.
        let keepAlive = try LoopbackConnection(port: server.port)
        keepAlive.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = keepAlive.read(timeout: .seconds(4))
        #expect(answer.text.hasPrefix("HTTP/1.1 200"))
        #expect(answer.closed, "the idle keep-alive connection stayed open")
        #expect(await health(server.port) == 200)
    }

    @Test("Upgrades that RFC 6455 does not allow are refused: a short key, HTTP/1.0, a 70 KB header, another path")
    func upgradeConformance() async throws {
        let fixture = try ServerFixture()
        let port = fixture.servers[0].port
        let token = try fixture.token("phone")
        func upgrade(_ path: String = "/v1/sync", version: String = "HTTP/1.1", key: String = "dGhlIHNhbXBsZSBub25jZQ==", extra: String = "") throws -> String {
            let connection = try LoopbackConnection(port: port)
            connection.send("GET \(path) \(version)\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nAuthorization: Bearer \(token)\r\n"
                            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\(extra)\r\n")
            return connection.read(timeout: .seconds(3)).text
        }
        #expect(try upgrade().hasPrefix("HTTP/1.1 101"), "the well-formed upgrade")
        #expect(try upgrade(key: "short").hasPrefix("HTTP/1.1 400"))
        #expect(try upgrade(key: "dGhlIHNhbXBsZSBub25jZQ").hasPrefix("HTTP/1.1 400"), "Base64 without its padding")
        #expect(try upgrade(version: "HTTP/1.0").hasPrefix("HTTP/1.1 400"))
        #expect(try upgrade(extra: "X-Big: \(String(repeating: "a", count: 70_000))\r\n").hasPrefix("HTTP/1.1 431"))
        for path in ["/v1/sync/", "//v1/sync", "/v1/sync/x"] {
            let reply = try upgrade(path)
            #expect(!reply.hasPrefix("HTTP/1.1 101"), "\(path): \(reply.prefix(40))")
        }
    }

    @Test("A download or acknowledgement past the largest position is a protocol error (4400)")
    func positionsOutOfRange() async throws {
        let fixture = try ServerFixture()
        let token = try fixture.token("phone")
        for message in [SyncWireMessage.download(request: 1, after: UInt64(Int64.max), limit: 10), .download(request: 1, after: .max, limit: 1),
                        .acknowledge(through: .max)] {
            let outcome = try await ProtocolClient.exchange(port: fixture.servers[0].port, token: token,
                                                            frames: [ProtocolClient.hello, ProtocolClient.binary(message)], expectReplies: 3)
            #expect(outcome.closeCode == SyncCloseCode.malformedMessage.rawValue, "\(message)")
        }
        let log = try String(contentsOf: fixture.servers[0].logFile, encoding: .utf8)
        #expect(!log.contains("store request failed"))
    }

    /// A WebSocket frame as a client sends it: masked with `mask` unless it is `nil`.
    static func frame(opcode: UInt8, fin: Bool, payload: [UInt8], mask: [UInt8]? = [0x11, 0x22, 0x33, 0x44]) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard let mask else { return bytes + payload }
        return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// An upgraded connection to `/v1/sync` with `token` (the 101 read).
    private func upgraded(port: Int, token: String) throws -> LoopbackConnection {
        let connection = try LoopbackConnection(port: port)
        connection.send("GET /v1/sync HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nAuthorization: Bearer \(token)\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        var text = ""
        let deadline = ContinuousClock.now + .seconds(5)
        while !text.contains("\r\n\r\n"), ContinuousClock.now < deadline {
            let part = connection.read(timeout: .milliseconds(100))
            text += part.text
            if part.closed { break }
        }
        guard text.hasPrefix("HTTP/1.1 101") else { throw HarnessError("no upgrade: \(text.prefix(80))") }
        return connection
    }

    /// The close code of the first close frame in `bytes` (server frames are not masked).
    static func closeCode(in bytes: [UInt8]) -> UInt16? {
        var index = 0
        while index + 2 <= bytes.count {
            let opcode = bytes[index] & 0x0F
            var length = Int(bytes[index + 1] & 0x7F)
            var start = index + 2
            if length == 126, start + 2 <= bytes.count { length = Int(bytes[start]) << 8 | Int(bytes[start + 1]); start += 2 }
            guard start + length <= bytes.count else { return nil }
            if opcode == 0x8, length >= 2 { return UInt16(bytes[start]) << 8 | UInt16(bytes[start + 1]) }
            index = start + length
        }
        return nil
    }

    @Test("An unmasked client frame closes the WebSocket with 1002; a fragmented message over the limit with 1009")
    func maskingAndMessageSize() async throws {
        let fixture = try ServerFixture(servers: 0)
        let server = try SyncServerProcess(databaseURL: fixture.postgres.databaseURL, arguments: ["--max-message-bytes", "65536"])
        defer { server.terminate() }
        let token = try fixture.token("phone")
        let hello = SyncWireMessage.hello(protocolVersion: 1, cursor: 0).encoded()

        let unmasked = try upgraded(port: server.port, token: token)
        unmasked.send(Self.frame(opcode: 0x2, fin: true, payload: hello, mask: nil))
        let reply = unmasked.readBytes(timeout: .seconds(5))
        #expect(reply.closed, "the connection stayed open after an unmasked frame")
        #expect(Self.closeCode(in: reply.bytes) == 1002)

        let masked = try upgraded(port: server.port, token: token)
        masked.send(Self.frame(opcode: 0x2, fin: true, payload: hello))
        let chunk = [UInt8](repeating: 7, count: 40_000)
        masked.send(Self.frame(opcode: 0x2, fin: false, payload: chunk))
        masked.send(Self.frame(opcode: 0x0, fin: false, payload: chunk))
        masked.send(Self.frame(opcode: 0x0, fin: true, payload: chunk))
        let bytes = masked.readBytes(timeout: .seconds(5)).bytes
        #expect(Self.closeCode(in: bytes) == 1009, "close frames: \(bytes.suffix(8))")
    }
}
