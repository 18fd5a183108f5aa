import Foundation
import NIOCore
import SyncServerHarness
import Testing
import VaultSync
import WSClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("The server's side of the protocol: auth, limits, idempotence", .serialized)
struct ProtocolTests {
    private func storedCount(_ fixture: ServerFixture) throws -> Int {
        Int(try fixture.postgres.psql("SELECT count(*) FROM vault_sync_log").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    private func httpStatus(_ url: URL, token: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: url)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("A request without a valid token gets 401 and no WebSocket")
    func unauthenticated() async throws {
        let fixture = try ServerFixture()
        let sync = fixture.servers[0].url.appendingPathComponent("v1/sync")
        #expect(try await httpStatus(sync).0 == 401)
        #expect(try await httpStatus(sync, token: "vst1_" + String(repeating: "A", count: 43)).0 == 401)
        #expect(try await httpStatus(sync, token: "not a token").0 == 401)
        #expect(try await httpStatus(sync, token: try fixture.token("phone")).0 == 426)
        await #expect(throws: (any Error).self) {
            _ = try await ProtocolClient.exchange(port: fixture.servers[0].port, token: "vst1_" + String(repeating: "B", count: 43),
                                                  frames: [ProtocolClient.hello], expectReplies: 1)
        }
    }

    @Test("Health and metrics answer, and metrics count without content")
    func healthAndMetrics() async throws {
        let fixture = try ServerFixture()
        let (status, body) = try await httpStatus(fixture.servers[0].url.appendingPathComponent("health"))
        #expect(status == 200 && body == "ok\n")
        let (metricsStatus, metrics) = try await httpStatus(fixture.servers[0].url.appendingPathComponent("metrics"))
        #expect(metricsStatus == 200)
        #expect(metrics.contains("vault_sync_connections_open 0"))
        #expect(metrics.contains("# TYPE vault_sync_change_sets_stored_total counter"))
    }

    @Test("Malformed messages close the connection with 4400 and store nothing")
    func malformed() async throws {
        let fixture = try ServerFixture()
        let token = try fixture.token("phone")
        let port = fixture.servers[0].port
        let envelope = try sealedChangeSet(space: fixture.space, device: 7, sequence: 1, key: fixture.syncKey).envelope
        let cases: [[WebSocketMessage]] = [
            [ProtocolClient.binary([0xFF, 1, 2])],                                           // unknown type
            [.text("hello")],                                                                 // text
            [ProtocolClient.binary(.upload(request: 1, envelopes: [envelope]))],              // no hello first
            [ProtocolClient.hello, ProtocolClient.binary(Array(ProtocolClient.helloBytes.dropLast()))],  // truncated
            [ProtocolClient.hello, ProtocolClient.binary(.upload(request: 1, envelopes: [[1, 2, 3]]))],  // not an envelope
            [ProtocolClient.hello, ProtocolClient.binary(.head(3))],                          // a server-only message
            [ProtocolClient.hello, ProtocolClient.binary(SyncWireMessage.upload(request: 1, envelopes: [envelope]).encoded() + [0])],  // trailing byte
        ]
        for frames in cases {
            let outcome = try await ProtocolClient.exchange(port: port, token: token, frames: frames, expectReplies: 3, timeout: .seconds(5))
            #expect(outcome.closeCode == SyncCloseCode.malformedMessage.rawValue)
        }
        #expect(try storedCount(fixture) == 0)
    }

    @Test("A retried upload is stored once and gets the same receipt")
    func idempotentUpload() async throws {
        let fixture = try ServerFixture()
        let token = try fixture.token("phone")
        let first = try sealedChangeSet(space: fixture.space, device: 7, sequence: 1, key: fixture.syncKey)
        let second = try sealedChangeSet(space: fixture.space, device: 7, sequence: 2, key: fixture.syncKey)
        let upload = ProtocolClient.binary(.upload(request: 1, envelopes: [first.envelope, second.envelope]))
        let isReceipt: @Sendable (SyncWireMessage) -> Bool = { if case .uploaded = $0 { return true } else { return false } }
        let one = try await ProtocolClient.exchange(port: fixture.servers[0].port, token: token, frames: [ProtocolClient.hello, upload],
                                                    expectReplies: 10, until: isReceipt)
        let two = try await ProtocolClient.exchange(port: fixture.servers[0].port, token: token, frames: [ProtocolClient.hello, upload],
                                                    expectReplies: 10, until: isReceipt)
        let expected = [UploadReceipt(device: SyncDeviceID(rawValue: 7), sequence: 1, serverSequence: 1),
                        UploadReceipt(device: SyncDeviceID(rawValue: 7), sequence: 2, serverSequence: 2)]
        // (Head notices may come between replies: look for the receipts.)
        #expect(one.received.contains(.uploaded(request: 1, receipts: expected)))
        #expect(two.received.contains(.uploaded(request: 1, receipts: expected)))
        #expect(try storedCount(fixture) == 2)
        // And the log reads back in order, in pages.
        let download = ProtocolClient.binary(.download(request: 2, after: 1, limit: 10))
        let page = try await ProtocolClient.exchange(port: fixture.servers[0].port, token: token, frames: [ProtocolClient.hello, download], expectReplies: 10,
                                                     until: { if case .changeSets = $0 { return true } else { return false } })
        guard case .changeSets(2, let items, let head, let remaining) = page.received.first(where: {
            if case .changeSets = $0 { return true } else { return false }
        }) else {
            Issue.record("no page: \(page.received)")
            return
        }
        #expect(items.map(\.serverSequence) == [2] && items.first?.changeSet.envelope == second.envelope)
        #expect(head == 2 && remaining == 0)
    }

    @Test("A change set sealed for another space is refused with 4403; nothing of the upload is stored")
    func otherSpace() async throws {
        let fixture = try ServerFixture()
        let mine = try sealedChangeSet(space: fixture.space, device: 7, sequence: 1, key: fixture.syncKey)
        let theirs = try sealedChangeSet(space: "someone-else", device: 7, sequence: 2, key: fixture.syncKey)
        let outcome = try await ProtocolClient.exchange(port: fixture.servers[0].port, token: try fixture.token("phone"),
                                                        frames: [ProtocolClient.hello, ProtocolClient.binary(.upload(request: 1, envelopes: [mine.envelope, theirs.envelope]))],
                                                        expectReplies: 2)
        #expect(outcome.closeCode == SyncCloseCode.forbidden.rawValue)
        #expect(try storedCount(fixture) == 0)
    }

    @Test("A message over the size limit closes the connection and stores nothing")
    func oversized() async throws {
        let fixture = try ServerFixture(servers: 0)
        let server = try SyncServerProcess(databaseURL: fixture.postgres.databaseURL, arguments: ["--max-message-bytes", "65536"])
        let big = try sealedChangeSet(space: fixture.space, device: 7, sequence: 1, key: fixture.syncKey).envelope + [UInt8](repeating: 0, count: 100_000)
        let outcome = try await ProtocolClient.exchange(port: server.port, token: try fixture.token("phone"),
                                                        frames: [ProtocolClient.hello, ProtocolClient.binary(.upload(request: 1, envelopes: [big]))],
                                                        expectReplies: 2)
        #expect(outcome.closeCode == 1009 || outcome.closeCode == SyncCloseCode.messageTooLarge.rawValue)
        #expect(try storedCount(fixture) == 0)
        server.terminate()
    }

    @Test("Too many messages a second close the connection with 4429")
    func rateLimited() async throws {
        let fixture = try ServerFixture(servers: 0)
        let server = try SyncServerProcess(databaseURL: fixture.postgres.databaseURL, arguments: ["--messages-per-second", "5"])
        let frames = [ProtocolClient.hello] + (1...40).map { ProtocolClient.binary(.download(request: UInt64($0), after: 0, limit: 1)) }
        let outcome = try await ProtocolClient.exchange(port: server.port, token: try fixture.token("phone"), frames: frames, expectReplies: 41)
        #expect(outcome.closeCode == SyncCloseCode.rateLimited.rawValue)
        server.terminate()
    }
}

@Suite("The command line")
struct CommandLineTests {
    @Test("A database that cannot be reached ends serve and issue-token with a message, not a hang")
    func unreachableDatabase() throws {
        let port = try freeLoopbackPort()
        for arguments in [["serve", "--port", "0"], ["issue-token", "--space", "s", "--device", "d"]] {
            let process = Process()
            process.executableURL = try builtExecutable("vault-sync-server")
            process.arguments = arguments + ["--database-url", "postgres://postgres:secret-password@127.0.0.1:\(port)/postgres", "--connect-timeout", "2"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 69)
            #expect(output.contains("cannot reach the database at postgres://postgres:***@127.0.0.1:\(port)/postgres"))
            #expect(!output.contains("secret-password"))
        }
    }

    @Test("A malformed database URL is refused with a usage error")
    func malformedURL() throws {
        #expect(throws: HarnessError.self) { try SyncServerProcess.run(["issue-token", "--database-url", "mysql://x", "--space", "s", "--device", "d"]) }
        #expect(throws: HarnessError.self) { try SyncServerProcess.run(["revoke-token", "--database-url", "postgres://", "--space", "s", "--device", "d"]) }
    }
}

extension ProtocolClient {
    static var helloBytes: [UInt8] { SyncWireMessage.hello(protocolVersion: 1, cursor: 300).encoded() }
}
