import Foundation
import HTTPTypes
import NIOCore
import SyncServerHarness
import Testing
import VaultKit
import VaultSync
import WSClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a holder of a device token without the sync key can do to a space: upload
/// noise under its own device only, never in another change set's place.
@Suite("A token without the sync key cannot stop a space", .serialized)
struct TokenHolderTests {
    private func count(_ fixture: ServerFixture, _ query: String) throws -> Int {
        Int(try fixture.postgres.psql(query).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    private func metric(_ fixture: ServerFixture, _ name: String) async throws -> Int {
        guard let url = URL(string: "http://127.0.0.1:\(fixture.servers[0].port)/metrics") else { return -1 }
        let (data, _) = try await URLSession.shared.data(from: url)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }

    @Test("Noise uploaded as another device's next change set is refused (4403) and reported; the real one is stored and every device keeps syncing")
    func noiseUnderAnotherDevice() async throws {
        let fixture = try ServerFixture()
        let phone = try OpenDevice(try fixture.device("phone"))
        let laptop = try OpenDevice(try fixture.device("laptop"))
        try phone.add("t1", title: "First from the phone")
        try await phone.session.wait(for: .upload)
        // The attacker reads the phone's device id and sequence from the log's clear header.
        let row = try fixture.postgres.psql("SELECT device, max(sequence) FROM vault_sync_log GROUP BY device")
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
        let device = try #require(Int64(row.first ?? ""))
        let sequence = try #require(UInt64(row.last ?? ""))
        // Noise sealed under another key, as that device's next change set, with a token of its own.
        let noise = try sealedChangeSet(space: fixture.space, device: UInt64(bitPattern: device), sequence: sequence + 1, key: randomBytes(32))
        let outcome = try await ProtocolClient.exchange(port: fixture.servers[0].port, token: try fixture.token("attacker"),
                                                        frames: [ProtocolClient.hello, ProtocolClient.binary(.upload(request: 1, envelopes: [noise.envelope]))],
                                                        expectReplies: 3)
        #expect(outcome.closeCode == SyncCloseCode.forbidden.rawValue)
        #expect(!outcome.received.contains { if case .uploaded = $0 { return true } else { return false } })
        #expect(try count(fixture, "SELECT count(*) FROM vault_sync_log") == 1)
        #expect(try await metric(fixture, "vault_sync_uploads_refused_foreign_device_total") == 1)
        // The phone's real next change set takes its place, and both devices go on.
        try phone.add("t2", title: "Second from the phone")
        try await phone.session.wait(for: .upload)
        try await laptop.session.wait(for: .download)
        #expect(try await eventually { try laptop.titles() == ["First from the phone", "Second from the phone"] })
        try laptop.add("t3", title: "From the laptop")
        try await laptop.session.wait(for: .upload)
        #expect(try await eventually { try phone.titles().count == 3 })
        phone.close()
        laptop.close()
    }

    @Test("Noise a token holder uploads under its own device is skipped by every device, kept apart and reported; sync goes on")
    func noiseIsQuarantinedByDevices() async throws {
        let fixture = try ServerFixture()
        let phone = try OpenDevice(try fixture.device("phone"))
        let laptop = try OpenDevice(try fixture.device("laptop"))
        let reports = Shared<[SyncSessionError]>([])
        try laptop.session.errorHandler = { error in reports.update { $0.append(error) } }
        try phone.add("t1", title: "Before the noise")
        try await phone.session.wait(for: .upload)
        let noise = try sealedChangeSet(space: fixture.space, device: 4242, sequence: 1, key: randomBytes(32))
        let outcome = try await ProtocolClient.exchange(port: fixture.servers[0].port, token: try fixture.token("attacker"),
                                                        frames: [ProtocolClient.hello, ProtocolClient.binary(.upload(request: 1, envelopes: [noise.envelope]))],
                                                        expectReplies: 5, until: { if case .uploaded = $0 { return true } else { return false } })
        #expect(outcome.received.contains { if case .uploaded = $0 { return true } else { return false } })
        try phone.add("t2", title: "After the noise")
        try await phone.session.wait(for: .upload)
        #expect(try await eventually { Set(try laptop.titles()) == ["Before the noise", "After the noise"] })
        #expect(try await eventually {
            reports.value.contains { if case .quarantinedChangeSet(let entry) = $0 { return entry.device.rawValue == 4242 } else { return false } }
        })
        #expect(try laptop.session.state != .invalid)
        try laptop.add("t3", title: "From the laptop")
        try await laptop.session.wait(for: .upload)
        #expect(try await eventually { try phone.titles().count == 3 })
        phone.close()
        laptop.close()
    }

    @Test("An author sequence uploaded again with other bytes is refused (4409); the stored change set keeps its place; a retry is deduplicated and counted so")
    func conflictingBytes() async throws {
        let fixture = try ServerFixture()
        let token = try fixture.token("phone")
        let port = fixture.servers[0].port
        let first = try sealedChangeSet(space: fixture.space, device: 42, sequence: 1, key: fixture.syncKey)
        let other = try sealedChangeSet(space: fixture.space, device: 42, sequence: 1, key: randomBytes(32))
        #expect(first.envelope != other.envelope)
        let isReceipt: @Sendable (SyncWireMessage) -> Bool = { if case .uploaded = $0 { return true } else { return false } }
        let stored = try await ProtocolClient.exchange(port: port, token: token, frames: [ProtocolClient.hello, ProtocolClient.binary(.upload(request: 1, envelopes: [first.envelope]))],
                                                       expectReplies: 5, until: isReceipt)
        #expect(stored.received.contains { isReceipt($0) })
        let retried = try await ProtocolClient.exchange(port: port, token: token, frames: [ProtocolClient.hello, ProtocolClient.binary(.upload(request: 2, envelopes: [first.envelope]))],
                                                        expectReplies: 5, until: isReceipt)
        #expect(retried.received.contains { isReceipt($0) })
        let conflicting = try await ProtocolClient.exchange(port: port, token: token,
                                                            frames: [ProtocolClient.hello, ProtocolClient.binary(.upload(request: 3, envelopes: [other.envelope]))],
                                                            expectReplies: 5)
        #expect(conflicting.closeCode == SyncCloseCode.conflictingChangeSet.rawValue)
        let envelope = try fixture.postgres.psql("SELECT encode(envelope, 'hex') FROM vault_sync_log WHERE device = 42 AND sequence = 1")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(envelope == first.envelope.map { String(format: "%02x", $0) }.joined())
        #expect(try await metric(fixture, "vault_sync_change_sets_stored_total") == 1)
        #expect(try await metric(fixture, "vault_sync_change_sets_deduplicated_total") == 1)
        #expect(try await metric(fixture, "vault_sync_uploads_refused_conflicting_total") == 1)
        #expect(try await metric(fixture, "vault_sync_bytes_stored_total") == first.envelope.count)
    }

    @Test("A revoked token's open connection is refused at its very next message, and hears no more heads")
    func revocationIsImmediate() async throws {
        let fixture = try ServerFixture()
        let token = try fixture.token("phone")
        let databaseURL = fixture.postgres.databaseURL
        let space = fixture.space
        let changeSet = try sealedChangeSet(space: fixture.space, device: 9, sequence: 1, key: fixture.syncKey)
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        let received = ProtocolClient.Received()
        let close = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(fixture.servers[0].port)/v1/sync",
                                                      configuration: .init(additionalHeaders: headers), logger: .init(label: "revoked")) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            try await outbound.write(.binary(ByteBuffer(bytes: SyncWireMessage.hello(protocolVersion: 1, cursor: 0).encoded())))
            _ = try await messages.next()   // welcome
            try SyncServerProcess.revokeToken(databaseURL: databaseURL, space: space, device: "phone")
            try await outbound.write(.binary(ByteBuffer(bytes: SyncWireMessage.upload(request: 1, envelopes: [changeSet.envelope]).encoded())))
            while let message = try await messages.next() {
                if case .binary(let buffer) = message, let decoded = try? SyncWireMessage(decoding: Array(buffer: buffer)) { received.append(decoded) }
            }
        }
        guard case .unknown(let code) = close?.closeCode else {
            Issue.record("closed with \(String(describing: close?.closeCode))")
            return
        }
        #expect(code == SyncCloseCode.unauthorized.rawValue)
        #expect(!received.all.contains { if case .uploaded = $0 { return true } else { return false } })
        #expect(try count(fixture, "SELECT count(*) FROM vault_sync_log") == 0)
    }

    @Test("Uploads flooding in faster than the rate are refused as they arrive, not after the work (4429)")
    func floodRefusedOnArrival() async throws {
        let fixture = try ServerFixture(servers: 0)
        let server = try SyncServerProcess(databaseURL: fixture.postgres.databaseURL, arguments: ["--messages-per-second", "100"])
        defer { server.terminate() }
        let frames = [ProtocolClient.hello] + (1...2_000).map { index in
            ProtocolClient.binary((try? sealedChangeSet(space: fixture.space, device: 5, sequence: UInt64(index), key: fixture.syncKey))
                .map { SyncWireMessage.upload(request: UInt64(index), envelopes: [$0.envelope]) }?.encoded() ?? [])
        }
        let outcome = try await ProtocolClient.exchange(port: server.port, token: try fixture.token("phone"), frames: frames, expectReplies: 2_001,
                                                        timeout: .seconds(60))
        #expect(outcome.closeCode == SyncCloseCode.rateLimited.rawValue)
        let stored = try count(fixture, "SELECT count(*) FROM vault_sync_log")
        #expect(stored <= 300, "\(stored) of 2,000 uploads stored with a burst of 200")
    }

    @Test("A space over its storage quota stores nothing more (4507)")
    func quota() async throws {
        let fixture = try ServerFixture(servers: 0)
        let server = try SyncServerProcess(databaseURL: fixture.postgres.databaseURL, arguments: ["--max-space-bytes", "1000"])
        defer { server.terminate() }
        let token = try fixture.token("phone")
        var code: UInt16?
        for sequence in 1...40 {
            let changeSet = try sealedChangeSet(space: fixture.space, device: 3, sequence: UInt64(sequence), key: fixture.syncKey)
            let outcome = try await ProtocolClient.exchange(port: server.port, token: token,
                                                            frames: [ProtocolClient.hello, ProtocolClient.binary(.upload(request: 1, envelopes: [changeSet.envelope]))],
                                                            expectReplies: 5, until: { if case .uploaded = $0 { return true } else { return false } })
            if let closed = outcome.closeCode, closed != 1000 { code = closed; break }
        }
        #expect(code == SyncCloseCode.quotaExceeded.rawValue)
        #expect(try count(fixture, "SELECT COALESCE(sum(length(envelope)), 0) FROM vault_sync_log") <= 1000)
    }
}
