import Foundation
import Testing
import VaultCore
@testable import VaultSync
import VaultTestSupport

@Suite("Sealed change sets")
struct ChangeSetSealerTests {
    let space = SyncSpaceID(bytes: Array(repeating: 3, count: 16))
    let key = try? SyncKey(bytes: Data(repeating: 0x5A, count: 32))

    private func sealer(keys: [UInt32: SyncKey]? = nil, current: UInt32 = 1, space: SyncSpaceID? = nil) throws -> ChangeSetSealer {
        let space = try #require(space ?? self.space)
        let key = try #require(key)
        return try ChangeSetSealer(space: space, keys: keys ?? [1: key], currentKeyID: current)
    }

    @Test("a sealed change set opens to itself; the envelope never shows its strings; each seal uses a fresh nonce")
    func roundTrip() throws {
        var changeSet = everyKindChangeSet()
        changeSet.operations.append(SyncOperation(object: changeSet.operations[0].object, stamp: SyncStamp(clock: 999 << 16, device: changeSet.author),
                                                  change: .set(property: "secret", value: .string("canary-7f3a"))))
        let sealer = try sealer()
        let sealed = try sealer.seal(changeSet)
        #expect(try sealer.open(sealed) == changeSet)
        #expect(sealed.envelope.count > 84)
        #expect(!String(decoding: sealed.envelope, as: UTF8.self).contains("canary"))
        #expect(!String(decoding: sealed.envelope, as: UTF8.self).contains("secret"))
        #expect(try sealer.seal(changeSet).envelope != sealed.envelope)
    }

    @Test("changing any byte of the envelope, another space, device or sequence fails authentication or is refused")
    func tampering() throws {
        let sealer = try sealer()
        let sealed = try sealer.seal(everyKindChangeSet())
        for index in sealed.envelope.indices {
            var damaged = sealed
            damaged.envelope[index] ^= 0x01
            #expect(throws: SyncError.self) { try sealer.open(damaged) }
        }
        var otherDevice = sealed
        otherDevice.device = SyncDeviceID(rawValue: 5)
        #expect(throws: SyncError.authenticationFailed(device: SyncDeviceID(rawValue: 5), sequence: sealed.sequence)) { try sealer.open(otherDevice) }
        var otherSequence = sealed
        otherSequence.sequence += 1
        #expect(throws: SyncError.self) { try sealer.open(otherSequence) }
        let elsewhere = try self.sealer(space: SyncSpaceID(bytes: Array(repeating: 4, count: 16)))
        #expect(throws: SyncError.self) { try elsewhere.open(sealed) }
        #expect(throws: SyncError.self) { try sealer.open(SealedChangeSet(device: sealed.device, sequence: sealed.sequence, envelope: Array(sealed.envelope.prefix(50)))) }
    }

    @Test("another sync key fails authentication; after rotation the old key id still opens old change sets; an unknown key id is named")
    func keys() throws {
        let sealed = try sealer().seal(everyKindChangeSet())
        let otherKey = try SyncKey(bytes: Data(repeating: 0x11, count: 32))
        let wrong = try ChangeSetSealer(space: try #require(space), keys: [1: otherKey], currentKeyID: 1)
        #expect(throws: SyncError.authenticationFailed(device: sealed.device, sequence: sealed.sequence)) { try wrong.open(sealed) }
        let rotated = try sealer(keys: [1: try #require(key), 2: otherKey], current: 2)
        #expect(try rotated.open(sealed) == everyKindChangeSet())
        let newer = try rotated.seal(everyKindChangeSet())
        #expect(throws: SyncError.unknownKey(keyID: 2)) { try self.sealer().open(newer) }
        #expect(throws: SyncError.self) { try SyncKey(bytes: Data(count: 31)) }
        #expect(try SyncKey.generate().description == "SyncKey(32 bytes, redacted)")
    }

    @Test("padding follows PADMÉ: never smaller, at most 12 % larger, so sizes leak only roughly")
    func padding() {
        var previous = 0
        for length in 1...20_000 {
            let padded = ChangeSetSealer.padme(length)
            #expect(padded >= length && padded >= previous)
            #expect(Double(padded) <= Double(length) * 1.12 + 1)
            previous = padded
        }
        #expect(ChangeSetSealer.padme(1000) == 1024 && ChangeSetSealer.padme(4097) == 4352)
    }
}

@Suite("In-process relay")
struct InProcessRelayTests {
    @Test("uploads are stored once (a retried upload gets its first receipt), delivered in pages, acknowledged per device; the relay holds no plaintext")
    func relay() async throws {
        let relay = InProcessRelay()
        let space = try #require(SyncSpaceID(bytes: Array(repeating: 1, count: 16)))
        let sealer = try ChangeSetSealer(space: space, keys: [1: try SyncKey(bytes: Data(repeating: 9, count: 32))], currentKeyID: 1)
        let clock = ManualClock()
        let phone = MemoryReplica(device: SyncDeviceID(rawValue: 1), now: clock.reader())
        let tablet = MemoryReplica(device: SyncDeviceID(rawValue: 2), now: clock.reader())
        var uploads: [SealedChangeSet] = []
        for index in 0..<5 {
            phone.create(item(Int64(index)), values: ["title": .string("canary-\(index)")])
            uploads.append(try sealer.seal(try #require(phone.commit())))
        }
        let receipts = await relay.upload(uploads, space: space)
        #expect(receipts.map(\.serverSequence) == [1, 2, 3, 4, 5])
        #expect(await relay.upload([uploads[2]], space: space).first?.serverSequence == 3)
        let firstPage = await relay.receive(space: space, after: 0, limit: 2)
        let rest = await relay.receive(space: space, after: 2, limit: 10)
        #expect(firstPage.map(\.serverSequence) == [1, 2] && rest.map(\.serverSequence) == [3, 4, 5])
        tablet.receive(try (rest + firstPage).map { try sealer.open($0.changeSet) })
        #expect(tablet.dump() == phone.dump())
        await relay.acknowledge(space: space, device: tablet.device, through: 5)
        #expect(await relay.acknowledged(space: space, device: tablet.device) == 5)
        #expect(await relay.receive(space: space, after: 5, limit: 10).isEmpty)
        // Through the protocol, as a device would use any transport.
        let transport: any SyncTransport = relay
        #expect(try await transport.receive(space: space, after: 4, limit: 10).count == 1)
        let stored = await relay.storedBytes(space: space)
        #expect(!String(decoding: stored, as: UTF8.self).contains("canary"))
        #expect(!String(decoding: stored, as: UTF8.self).contains("title"))
    }

    @Test("a sync key from a key store: the same stored key gives the same sync key on every device, another key another one")
    func syncKeyFromKeyStore() throws {
        let directory = try TemporaryDirectory("sync-keystore")
        let phone = try FileKeyStore(directory: directory.file("phone"))
        let tablet = try FileKeyStore(directory: directory.file("tablet"))
        let shared = try MasterKey.generate()
        try phone.storeKey(shared, identifier: "sync-space")
        try tablet.storeKey(shared, identifier: "sync-space")
        try phone.storeKey(try MasterKey.generate(), identifier: "other")
        let space = SyncSpaceID.generate()
        let sealing = try ChangeSetSealer(space: space, keys: [1: try SyncKey(keyStore: phone, identifier: "sync-space")], currentKeyID: 1)
        let opening = try ChangeSetSealer(space: space, keys: [1: try SyncKey(keyStore: tablet, identifier: "sync-space")], currentKeyID: 1)
        let stranger = try ChangeSetSealer(space: space, keys: [1: try SyncKey(keyStore: phone, identifier: "other")], currentKeyID: 1)
        let changeSet = ChangeSet(author: SyncDeviceID(rawValue: 5), sequence: 1, dependencies: [:], operations: [
            SyncOperation(object: SyncObjectReference(className: "C", primaryKey: .int(1), incarnation: 1),
                          stamp: SyncStamp(clock: 9, device: SyncDeviceID(rawValue: 5)), change: .create),
        ])
        let sealed = try sealing.seal(changeSet)
        #expect(try opening.open(sealed) == changeSet)
        #expect(throws: SyncError.self) { try stranger.open(sealed) }
        #expect(throws: KeyStoreError.self) { try SyncKey(keyStore: phone, identifier: "missing") }
    }
}
