import Foundation
import Testing
import VaultCore
@testable import VaultSync

@Suite("Epoch keys: sealed to each remaining device, older ones wrapped under newer")
struct SpaceKeyringTests {
    private let space = SyncSpaceID.generate()

    private func identity() throws -> DeviceIdentity { try DeviceIdentity(masterKey: try MasterKey.generate()) }

    private func bytes(_ key: SyncKey?) throws -> [UInt8] {
        let key = try #require(key)
        return try key.withBytes { (raw) throws(SyncError) in Array(raw) }
    }

    @Test("a rotation gives every recipient the same new key, and the removed device none")
    func rotationReachesTheRecipientsOnly() throws {
        let (ana, bea, lost) = (try identity(), try identity(), try identity())
        let first = try SyncKey.generate()
        let keyring = SpaceKeyring(space: space, epoch: 0, key: first)
        let (rotation, key) = try keyring.rotation(to: [ana.publicKeys.deviceID: ana.publicKeys, bea.publicKeys.deviceID: bea.publicKeys])
        #expect(rotation.epoch == 1 && rotation.boxes.count == 2)
        for member in [ana, bea] {
            var received = SpaceKeyring(space: space, epoch: 0, key: first)
            try received.receive(rotation, as: member.publicKeys.deviceID, identity: member)
            #expect(received.current == 1)
            #expect(try bytes(received.keys[1]) == bytes(key))
        }
        // The removed device holds the old key and every byte of the rotation: no box is its own,
        // and no box opens with its identity.
        var removed = SpaceKeyring(space: space, epoch: 0, key: first)
        #expect(throws: SyncError.self) { try removed.receive(rotation, as: lost.publicKeys.deviceID, identity: lost) }
        for box in rotation.boxes.values { #expect(lost.open(sealedBox: box) == nil) }
        #expect(removed.current == 0)
    }

    @Test("a device added at epoch 3 reads epochs 2, 1 and 0 through the wrapped chain")
    func newcomerReadsHistory() throws {
        let (owner, newcomer) = (try identity(), try identity())
        var keyring = SpaceKeyring(space: space, epoch: 0, key: try SyncKey.generate())
        var history: [UInt32: EpochRotation] = [:]
        for _ in 1...3 {
            let recipients = keyring.current == 2
                ? [owner.publicKeys.deviceID: owner.publicKeys, newcomer.publicKeys.deviceID: newcomer.publicKeys]
                : [owner.publicKeys.deviceID: owner.publicKeys]
            let (rotation, _) = try keyring.rotation(to: recipients)
            try keyring.receive(rotation, as: owner.publicKeys.deviceID, identity: owner)
            history[rotation.epoch] = rotation
        }
        #expect(keyring.current == 3)
        var joined = SpaceKeyring(space: space)
        try joined.receive(try #require(history[3]), as: newcomer.publicKeys.deviceID, identity: newcomer, history: history)
        for epoch: UInt32 in 0...3 { #expect(try bytes(joined.keys[epoch]) == bytes(keyring.keys[epoch]), "epoch \(epoch)") }
    }

    @Test("a box or a wrapped key presented for another epoch or space, or altered, is refused")
    func boxesAndWrapsAreBound() throws {
        let member = try identity()
        let recipients = [member.publicKeys.deviceID: member.publicKeys]
        var keyring = SpaceKeyring(space: space, epoch: 0, key: try SyncKey.generate())
        let (first, _) = try keyring.rotation(to: recipients)
        try keyring.receive(first, as: member.publicKeys.deviceID, identity: member)
        let (second, _) = try keyring.rotation(to: recipients)

        // Epoch 1's box presented as epoch 2's.
        var replayed = SpaceKeyring(space: space)
        let relabelled = EpochRotation(epoch: 2, boxes: first.boxes, wrappedPrevious: second.wrappedPrevious)
        #expect(throws: SyncError.self) { try replayed.receive(relabelled, as: member.publicKeys.deviceID, identity: member) }
        // The same rotation in another space.
        var elsewhere = SpaceKeyring(space: SyncSpaceID.generate())
        #expect(throws: SyncError.self) { try elsewhere.receive(first, as: member.publicKeys.deviceID, identity: member) }
        // An altered wrapped key does not unwrap.
        var altered = second.wrappedPrevious
        altered[altered.count - 1] ^= 1
        var newcomer = SpaceKeyring(space: space)
        #expect(throws: SyncError.self) {
            try newcomer.receive(EpochRotation(epoch: 2, boxes: second.boxes, wrappedPrevious: altered), as: member.publicKeys.deviceID, identity: member)
        }
        // Nothing of a rotation that failed half-way is kept.
        #expect(newcomer.keys.isEmpty)
    }
}
