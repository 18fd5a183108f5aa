import Foundation
import Testing
import VaultCore
import VaultKit
import VaultSync
import VaultTestSupport

/// One entry of the log that does not authenticate never stops a device: it is kept
/// apart, reported, and the device goes on.
@Suite("Change sets that do not authenticate are quarantined")
struct QuarantineTests {
    private static let space = SyncSpaceID(bytes: Array(repeating: 9, count: 16))

    private func sealed(device: UInt64, sequence: UInt64, key: Data, keyID: UInt32 = 1) throws -> SealedChangeSet {
        let space = try #require(Self.space)
        let sealer = try ChangeSetSealer(space: space, keys: [keyID: try SyncKey(bytes: key)], currentKeyID: keyID)
        return try sealer.seal(ChangeSet(author: SyncDeviceID(rawValue: device), sequence: sequence, dependencies: [:], operations: []))
    }

    @Test("noise, another key, an unknown key id and bytes that are no envelope are skipped and kept; the good change set is applied")
    func noiseIsQuarantined() async throws {
        let pair = try SyncTestPair("quarantine")
        let space = try #require(Self.space)
        try pair.a.write { $0.add(SyncNote(value: ["id": "n1", "title": "before the noise"])) }
        try await pair.a.sync()
        // Four bad entries, as a token holder without the sync key could upload them.
        let noise = try sealed(device: 99, sequence: 1, key: Data(repeating: 0x13, count: 32))
        let unknownKey = try sealed(device: 98, sequence: 1, key: Data(repeating: 0x42, count: 32), keyID: 7)
        var tampered = try sealed(device: 97, sequence: 1, key: Data(repeating: 0x42, count: 32)).envelope
        tampered[tampered.count - 1] ^= 0x01
        let junk = SealedChangeSet(device: SyncDeviceID(rawValue: 96), sequence: 1, envelope: [1, 2, 3, 4])
        _ = await pair.relay.upload([noise, unknownKey, SealedChangeSet(device: SyncDeviceID(rawValue: 97), sequence: 1, envelope: tampered), junk],
                                    space: space)
        try pair.a.write { $0.add(SyncNote(value: ["id": "n2", "title": "after the noise"])) }
        try await pair.a.sync()

        // B downloads all six: the good two applied, the four bad ones kept apart, the position past them all.
        try await pair.b.sync()
        #expect(try pair.b.note("n1")?.title == "before the noise")
        #expect(try pair.b.note("n2")?.title == "after the noise")
        let quarantined = try pair.b.synced.quarantinedChangeSets()
        #expect(quarantined.map(\.device.rawValue) == [99, 98, 97, 96])
        #expect(quarantined.map(\.serverSequence) == [2, 3, 4, 5])
        #expect(quarantined[0].envelope == noise.envelope)
        #expect(quarantined[1].reason.contains("key 7"))
        #expect(try pair.b.synced.serverCursor() == 6)
        // And it keeps syncing both ways.
        try pair.b.write { $0.add(SyncNote(value: ["id": "n3", "title": "from b"])) }
        try await pair.b.sync()
        try await pair.a.sync()
        #expect(try pair.a.note("n3")?.title == "from b")
        #expect(try pair.a.synced.quarantinedChangeSets().count == 4)
    }

    @Test("a change set is sealed once: every upload of it sends the same bytes until the relay acknowledges it")
    func retriesSendTheSameBytes() async throws {
        let directory = try TemporaryDirectory("sealed-once")
        let device = try SyncTestDevice(directory, "a", relay: InProcessRelay())
        try device.write { $0.add(SyncNote(value: ["id": "n1", "title": "one"])) }
        let first = try device.synced.sealedPendingChangeSets(with: try #require(device.synchronizer.sealer))
        let second = try device.synced.sealedPendingChangeSets(with: try #require(device.synchronizer.sealer))
        #expect(first.count == 1 && first == second)
        try device.write { $0.add(SyncNote(value: ["id": "n2", "title": "two"])) }
        let third = try device.synced.sealedPendingChangeSets(with: try #require(device.synchronizer.sealer))
        #expect(third.count == 2 && third.first == first.first)
        try device.synced.acknowledgeUploaded(through: third[1].sequence)
        #expect(try device.synced.sealedPendingChangeSets(with: try #require(device.synchronizer.sealer)).isEmpty)
    }

    @Test("a change set under a key the device receives later is kept, then merged once the key is there, with what waited behind it")
    func laterKeyReleasesTheQuarantine() async throws {
        let directory = try TemporaryDirectory("quarantine-key")
        let relay = InProcessRelay()
        let space = try #require(Self.space)
        let keyOne = try SyncKey(bytes: Data(repeating: 0x42, count: 32))
        let keyTwo = try SyncKey(bytes: Data(repeating: 0x24, count: 32))
        // A writes under key 2, which B does not hold yet.
        let a = try SyncTestDevice(directory, "a", relay: relay)
        let b = try SyncTestDevice(directory, "b", relay: relay)
        let aNewKey = VaultSynchronizer(vault: a.synced, sealer: try ChangeSetSealer(space: space, keys: [1: keyOne, 2: keyTwo], currentKeyID: 2),
                                        transport: relay)
        try a.write { $0.add(SyncNote(value: ["id": "k1", "title": "under key 2"])) }
        try await aNewKey.synchronize()
        try a.write { $0.add(SyncNote(value: ["id": "k2", "title": "also under key 2"])) }
        try await aNewKey.synchronize()
        try await b.sync()
        #expect(try b.note("k1") == nil && b.note("k2") == nil)
        #expect(try b.synced.quarantinedChangeSets().count == 2)
        // B receives key 2: the next download merges both, and the quarantine is empty.
        let bNewKey = VaultSynchronizer(vault: b.synced, sealer: try ChangeSetSealer(space: space, keys: [1: keyOne, 2: keyTwo], currentKeyID: 1),
                                        transport: relay)
        let round = try await bNewKey.synchronize()
        #expect(round.applied == 2)
        #expect(try b.note("k1")?.title == "under key 2")
        #expect(try b.note("k2")?.title == "also under key 2")
        #expect(try b.synced.quarantinedChangeSets().isEmpty)
    }
}
