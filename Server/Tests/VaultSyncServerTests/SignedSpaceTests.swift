import Foundation
import NIOCore
import SyncServerHarness
import Testing
import VaultKit
import VaultSync
import WSClient

/// Signed spaces through the real server on PostgreSQL: devices register their public
/// keys, the server stores only what the token's device signed, and members share,
/// refuse and remove exactly as the log says.
@Suite("Signed spaces through a server on PostgreSQL", .serialized)
struct SignedSpaceTests {
    @Test("A second person joins by invitation and syncs both ways; the server holds public keys only, and marks the space signed")
    func secondPersonJoins() async throws {
        let fixture = try ServerFixture()
        let (ownerSetup, ownerIdentity) = try fixture.signedDevice("owner", withSyncKey: true)
        let owner = try OpenDevice(ownerSetup)
        try owner.session.space.create()
        try owner.add("t1", title: "Shared list")
        try await owner.session.wait(for: .upload)

        let (anaSetup, anaIdentity) = try fixture.signedDevice("ana", withSyncKey: false)
        let ana = try OpenDevice(anaSetup)
        // Ana's device shows its request; the owner adds her as a writer.
        let request = try JoinRequest(try ana.session.space.joinRequest().text)
        #expect(request.fingerprint == anaIdentity.publicKeys.fingerprint)
        try owner.session.space.add(request, role: .writer)
        try await owner.session.wait(for: .upload)
        #expect(try await eventually(20) { try ana.titles() == ["Shared list"] })
        #expect(try ana.session.space.fingerprint() == ownerIdentity.publicKeys.fingerprint)

        try ana.add("t2", title: "From Ana")
        try await ana.session.wait(for: .upload)
        try await owner.session.wait(for: .download)
        #expect(try owner.titles() == ["From Ana", "Shared list"])
        #expect(try owner.session.space.members().count == 2)

        // What the server keeps of each device: its label, its id, and two public keys.
        let devices = try fixture.postgres.psql("SELECT device_label, length(signing_key), length(box_key) FROM vault_sync_devices ORDER BY device_label")
        #expect(devices.split(separator: "\n") == ["ana|32|32", "owner|32|32"])
        #expect(try fixture.postgres.psql("SELECT signed FROM vault_sync_spaces") == "t\n")
        let log = try fixture.postgres.psql("SELECT encode(envelope, 'escape') FROM vault_sync_log")
        #expect(!log.contains("Shared list") && !log.contains("From Ana"))
        owner.close()
        ana.close()
    }

    @Test("The server refuses a signed upload its token's device did not sign, an unsigned upload to a signed space, and a forged registration")
    func serverChecksSignatures() async throws {
        let fixture = try ServerFixture()
        let port = fixture.servers[0].port
        let phoneToken = try fixture.token("phone")
        let spaceID = SyncSpaceID(name: fixture.space)
        let phone = try DeviceIdentity.create(in: try FileKeyStore(directory: fixture.folder.appendingPathComponent("phone-keys")), identifier: "id")
        let thief = try DeviceIdentity.create(in: try FileKeyStore(directory: fixture.folder.appendingPathComponent("thief-keys")), identifier: "id")
        let key = try SyncKey(bytes: fixture.syncKey)
        func signed(_ identity: DeviceIdentity, author: SyncDeviceID, sequence: UInt64) throws -> [UInt8] {
            try ChangeSetSealer(space: spaceID, keys: [0: key], currentKeyID: 0, identity: identity)
                .seal(ChangeSet(author: author, sequence: sequence, dependencies: [:], operations: [])).envelope
        }
        func register(_ identity: DeviceIdentity, signedBy signer: DeviceIdentity? = nil) -> WebSocketMessage {
            let keys = identity.publicKeys
            let signature = (signer ?? identity).sign(SyncWireMessage.registrationMessage(space: spaceID, keys: keys), context: .registration)
            return ProtocolClient.binary(.register(keys: keys, signature: signature))
        }
        let hello = ProtocolClient.binary(.hello(protocolVersion: 2, cursor: 0))
        let phoneID = phone.publicKeys.deviceID

        // Refused exchanges read until the server closes (a head notice may come before the close).
        // Registered and signed by the phone: stored.
        let good = try await ProtocolClient.exchange(port: port, token: phoneToken, frames: [
            hello, register(phone), ProtocolClient.binary(.upload(request: 1, envelopes: [try signed(phone, author: phoneID, sequence: 1)])),
        ], expectReplies: 5, until: { if case .uploaded = $0 { true } else { false } })
        #expect(good.received.contains { if case .uploaded = $0 { true } else { false } })
        // The phone's token, with a change set signed by another key in the phone's name.
        let forged = try await ProtocolClient.exchange(port: port, token: phoneToken, frames: [
            hello, register(phone), ProtocolClient.binary(.upload(request: 1, envelopes: [try signed(thief, author: phoneID, sequence: 2)])),
        ], expectReplies: 10)
        #expect(forged.closeCode == SyncCloseCode.forbidden.rawValue)
        // A signed change set on a connection that registered no device.
        let unregistered = try await ProtocolClient.exchange(port: port, token: phoneToken, frames: [
            hello, ProtocolClient.binary(.upload(request: 1, envelopes: [try signed(phone, author: phoneID, sequence: 3)])),
        ], expectReplies: 10)
        #expect(unregistered.closeCode == SyncCloseCode.forbidden.rawValue)
        // A registration signed by another key than the one it names.
        let badRegistration = try await ProtocolClient.exchange(port: port, token: try fixture.token("thief"), frames: [
            hello, register(phone, signedBy: thief),
        ], expectReplies: 10)
        #expect(badRegistration.closeCode == SyncCloseCode.forbidden.rawValue)
        // Another token registering the phone's keys (its device id is the phone's, claimed by the phone's token).
        let stolenKeys = try await ProtocolClient.exchange(port: port, token: try fixture.token("other"), frames: [
            hello, ProtocolClient.binary(.register(keys: phone.publicKeys, signature: phone.sign(
                SyncWireMessage.registrationMessage(space: spaceID, keys: phone.publicKeys), context: .registration))),
        ], expectReplies: 10)
        #expect(stolenKeys.closeCode == SyncCloseCode.forbidden.rawValue)
        // An unsigned change set, now that the space is signed.
        let unsigned = try await ProtocolClient.exchange(port: port, token: try fixture.token("legacy"), frames: [
            hello, ProtocolClient.binary(.upload(request: 1, envelopes: [try sealedChangeSet(space: fixture.space, device: 5, sequence: 1, key: fixture.syncKey).envelope])),
        ], expectReplies: 10)
        #expect(unsigned.closeCode == SyncCloseCode.forbidden.rawValue)
        #expect(try fixture.postgres.psql("SELECT count(*) FROM vault_sync_log") == "1\n")
    }

    @Test("A removed device holding its files and a dump of the server's log reads nothing written after its removal")
    func removedDeviceWithDumpReadsNothingNew() async throws {
        let fixture = try ServerFixture()
        let (ownerSetup, _) = try fixture.signedDevice("owner", withSyncKey: true)
        let owner = try OpenDevice(ownerSetup)
        try owner.session.space.create()
        let (phoneSetup, phoneIdentity) = try fixture.signedDevice("phone", withSyncKey: false)
        let errors = Shared<[SyncSessionError]>([])
        let phone = try OpenDevice(phoneSetup)
        try phone.session.errorHandler = { error in errors.update { $0.append(error) } }
        try owner.session.space.add(try phone.session.space.joinRequest(), role: .writer)
        try owner.add("before", title: "Before the loss")
        try await owner.session.wait(for: .upload)
        #expect(try await eventually(20) { try phone.titles() == ["Before the loss"] })

        // The phone is lost; the owner removes it (a new key epoch) and goes on writing.
        try owner.session.space.remove(device: phoneIdentity.publicKeys.deviceID)
        try await owner.session.wait(for: .upload)
        try owner.add("after", title: "After the loss")
        try await owner.session.wait(for: .upload)
        #expect(try await eventually(20) { errors.value.contains(.removedFromSpace) })
        #expect(try phone.titles() == ["Before the loss"])
        phone.close()

        // Whoever has the phone and a full copy of the server's log replays all of it.
        let dump = try fixture.postgres.psql("SELECT encode(envelope, 'hex') FROM vault_sync_log ORDER BY server_sequence")
        #expect(!dump.isEmpty)
        let relay = InProcessRelay()
        let spaceID = SyncSpaceID(name: fixture.space)
        for line in dump.split(separator: "\n") {
            _ = await relay.upload([try SealedChangeSet(envelope: hexBytes(String(line)))], space: spaceID)
        }
        var offline = phoneSetup.configuration
        offline.sync = nil
        let replay = try SyncedVault(configuration: offline, access: try SpaceAccess(space: spaceID, syncKey: nil, identity: phoneIdentity))
        _ = try await VaultSynchronizer(vault: replay, transport: relay).download()
        let vault = try Vault(configuration: offline)
        #expect(vault.objects(SyncedTask.self).map(\.title) == ["Before the loss"])
        #expect(try replay.space.isRemoved())
        owner.close()
    }
}

extension SignedSpaceTests {
    @Test("A device killed (SIGKILL) mid-rotation and restarted: the space reaches the new epoch once, and every commit it reported arrives")
    func killedMidRotation() async throws {
        let fixture = try ServerFixture()
        let (ownerSetup, _) = try fixture.signedDevice("owner", withSyncKey: true)
        let owner = try OpenDevice(ownerSetup)
        try owner.session.space.create()
        let (writerSetup, writerIdentity) = try fixture.signedDevice("writer", withSyncKey: false)
        try owner.session.space.add(JoinRequest(identity: writerIdentity, space: SyncSpaceID(name: fixture.space)), role: .writer)
        try owner.add("o1", title: "owner before")
        try await owner.session.wait(for: .upload)
        let description = String(decoding: try JSONEncoder().encode(DeviceDescription(writerSetup, identityFolder: fixture.identityFolder("writer"))),
                                 as: UTF8.self)
        let join = try ChildDevice(["sync"], input: description)
        #expect(join.waitForLine("synced 1", timeout: 60), "the joining device said \(join.lines)")
        join.waitForExit()

        // The writer rotates the key and writes; it is killed at a random point after the rotation.
        let child = try ChildDevice(["rotate-write", "200", "killed"], input: description)
        #expect(child.waitForLine("rotated", timeout: 60))
        let killAfter = Int.random(in: 0...60)
        if killAfter > 0 { #expect(child.waitForLine("committed \(killAfter)", timeout: 60)) }
        child.kill()
        let reported = child.lines.filter { $0.hasPrefix("committed ") }.count
        // Restarted, it uploads what the first run left (the rotation included, the same bytes) and syncs.
        let again = try ChildDevice(["sync"], input: description)
        #expect(again.waitForLine("synced", timeout: 60))
        again.waitForExit()
        try await owner.session.wait(for: .download)
        let titles = try owner.titles()
        for index in 0..<reported { #expect(titles.contains("killed \(index)")) }
        #expect(try owner.session.space.epoch() == 1)
        // The owner writes under the new epoch, and the writer reads it.
        try owner.add("o2", title: "owner after")
        try await owner.session.wait(for: .upload)
        let last = try ChildDevice(["sync"], input: description)
        #expect(last.waitForLine("synced \(titles.count + 1)", timeout: 60))
        last.waitForExit()
        #expect(try fixture.postgres.psql("SELECT count(*) FROM vault_sync_log") == "\(try fixture.postgres.psql("SELECT count(DISTINCT (device, sequence)) FROM vault_sync_log"))")
        owner.close()
    }
}

private func hexBytes(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex), index < text.endIndex {
        if let byte = UInt8(text[index..<next], radix: 16) { bytes.append(byte) }
        index = next
    }
    return bytes
}
