import Foundation
import Testing
import VaultCore
import VaultKit
@testable import VaultSync
import VaultTestSupport

/// A signed space on a relay that keeps everything it is given: members sign what they
/// write, every device judges every entry by the membership at its place in the log, and
/// a removed device reads nothing written after its removal.
@Suite("Signed spaces: members, refusals, removal with rotation")
struct SpaceTrustTests {
    private static let space = SyncSpaceID(bytes: Array(repeating: 9, count: 16))

    private func newIdentity() throws -> DeviceIdentity { try DeviceIdentity(masterKey: try MasterKey.generate()) }

    /// The owner's first device (holding the space's first key) and a relay.
    private struct Space {
        let directory: TemporaryDirectory
        let relay = InProcessRelay()
        let owner: SyncTestDevice
        let ownerIdentity: DeviceIdentity

        init(_ label: String) throws {
            directory = try TemporaryDirectory(label)
            ownerIdentity = try DeviceIdentity(masterKey: try MasterKey.generate())
            owner = try SyncTestDevice(directory, "owner", relay: relay, identity: ownerIdentity, syncKey: try SyncKey.generate())
            try owner.synced.space.create()
        }

        /// A new device that joins by invitation, added by the owner with `role`.
        func invite(_ name: String, role: SyncRole, identity: DeviceIdentity? = nil) async throws -> (SyncTestDevice, DeviceIdentity) {
            let identity = try identity ?? DeviceIdentity(masterKey: try MasterKey.generate())
            let device = try SyncTestDevice(directory, name, relay: relay, identity: identity, syncKey: nil)
            let request = try JoinRequest(try device.synced.space.joinRequest().text)
            try owner.synced.space.add(request, role: role)
            try await owner.sync()
            try await device.sync()
            return (device, identity)
        }
    }

    @Test("a second person joins by invitation, reads the space's history and syncs both ways")
    func invitationSyncsBothWays() async throws {
        let space = try Space("trust-invite")
        try space.owner.write { $0.add(SyncNote(value: ["id": "n1", "title": "before Ana joined"])) }
        try await space.owner.sync()
        let (ana, anaIdentity) = try await space.invite("ana", role: .writer)
        #expect(try ana.note("n1")?.title == "before Ana joined")
        try ana.write { $0.add(SyncNote(value: ["id": "n2", "title": "from Ana"])) }
        try await ana.sync()
        try await space.owner.sync()
        #expect(try space.owner.note("n2")?.title == "from Ana")

        // Both compute the same membership: two people, an owner and a writer.
        let members = try space.owner.synced.space.members()
        #expect(members == (try ana.synced.space.members()))
        #expect(members.count == 2)
        #expect(try ana.synced.space.role() == .writer)
        #expect(members.first { $0.device == anaIdentity.publicKeys.deviceID }?.fingerprint == anaIdentity.publicKeys.fingerprint)
        #expect(try ana.synced.space.fingerprint() == space.ownerIdentity.publicKeys.fingerprint)
        #expect(try ana.synced.refusedChangeSets().isEmpty && space.owner.synced.refusedChangeSets().isEmpty)
        // The relay's bytes hold no title.
        let stored = await space.relay.storedBytes(space: try #require(Self.space))
        #expect(stored.firstRange(of: Array("from Ana".utf8)) == nil && stored.firstRange(of: Array("before Ana".utf8)) == nil)
    }

    @Test("a device not yet added keeps its changes in its outbox, and uploads them once it is a member")
    func changesWaitForMembership() async throws {
        let space = try Space("trust-wait")
        let identity = try newIdentity()
        let phone = try SyncTestDevice(space.directory, "phone", relay: space.relay, identity: identity, syncKey: nil)
        try phone.write { $0.add(SyncNote(value: ["id": "early", "title": "written before joining"])) }
        try await phone.sync()
        #expect(try phone.synced.uploadWaitReason() != nil)
        #expect(try phone.synced.pendingChangeSets().count == 1)
        try space.owner.synced.space.add(try phone.synced.space.joinRequest(), role: .writer)
        try await space.owner.sync()
        try await phone.sync()
        #expect(try phone.synced.uploadWaitReason() == nil)
        try await phone.sync()
        try await space.owner.sync()
        #expect(try space.owner.note("early")?.title == "written before joining")
        #expect(try space.owner.synced.refusedChangeSets().isEmpty)
    }

    @Test("changes made before and right after creating the space upload in an order every device accepts")
    func changesAroundCreation() async throws {
        let directory = try TemporaryDirectory("trust-creation")
        let relay = InProcessRelay()
        let identity = try newIdentity()
        let first = try SyncTestDevice(directory, "first", relay: relay, identity: identity, syncKey: try SyncKey.generate())
        try first.write { $0.add(SyncNote(value: ["id": "before", "title": "before the space had members"])) }
        try first.synced.space.create()
        try first.write { $0.add(SyncNote(value: ["id": "after", "title": "right after"])) }
        // One round: the entry that creates the space, then what came after it; what came before waits for it.
        _ = try await first.synchronizer.upload()
        let second = try SyncTestDevice(directory, "second", relay: relay, identity: try newIdentity(), syncKey: nil)
        try await first.sync()
        try first.synced.space.add(try second.synced.space.joinRequest(), role: .reader)
        try await first.sync()
        try await first.sync()
        try await second.sync()
        #expect(try second.note("before")?.title == "before the space had members")
        #expect(try second.note("after")?.title == "right after")
        #expect(try second.synced.refusedChangeSets().isEmpty)
        #expect(try first.synced.pendingChangeSets().isEmpty)
    }

    @Test("a reader's change sets are refused by every device, with nothing applied")
    func readerWritesAreRefused() async throws {
        let space = try Space("trust-reader")
        let (writer, _) = try await space.invite("writer", role: .writer)
        let (reader, readerIdentity) = try await space.invite("reader", role: .reader)
        try await writer.sync()
        // The reader's own session never uploads its changes…
        try reader.write { $0.add(SyncNote(value: ["id": "r1", "title": "reader's edit"])) }
        try await reader.sync()
        #expect(try reader.synced.uploadWaitReason()?.contains("reader") == true)
        // …and one sent anyway (a modified app) is refused everywhere.
        let sealer = try ChangeSetSealer(space: try #require(Self.space), keys: [0: try heldKey(reader, epoch: 0)], currentKeyID: 0, identity: readerIdentity)
        let forged = try sealer.seal(try #require(try reader.synced.pendingChangeSets().first))
        _ = await space.relay.upload([forged], space: try #require(Self.space))
        try await space.owner.sync()
        try await writer.sync()
        for device in [space.owner, writer] {
            #expect(try device.note("r1") == nil)
            #expect(try device.synced.refusedChangeSets().map(\.refusal) == [.readerWrite])
        }
    }

    @Test("forged entries are refused everywhere with nothing applied: a stranger's signature, a bad signature, no signature, another space's entry")
    func forgeriesAreRefused() async throws {
        let space = try Space("trust-forged")
        let (writer, writerIdentity) = try await space.invite("writer", role: .writer)
        let (other, _) = try await space.invite("other", role: .writer)
        let spaceID = try #require(Self.space)
        let key = try heldKey(writer, epoch: 0)
        func note(_ id: String, author: SyncDeviceID, sequence: UInt64) -> ChangeSet {
            let object = SyncObjectReference(className: "SyncNote", primaryKey: .string(id), incarnation: 1)
            return ChangeSet(author: author, sequence: sequence, dependencies: [:], operations: [
                SyncOperation(object: object, stamp: SyncStamp(clock: 1 << 20, device: author), change: .create),
                SyncOperation(object: object, stamp: SyncStamp(clock: 2 << 20, device: author), change: .set(property: "title", value: .string("forged"))),
            ])
        }
        // A stranger (valid sealing under the space key, its own signature).
        let stranger = try newIdentity()
        let strangerSealer = try ChangeSetSealer(space: spaceID, keys: [0: key], currentKeyID: 0, identity: stranger)
        let fromStranger = try strangerSealer.seal(note("x1", author: stranger.publicKeys.deviceID, sequence: 1))
        // The writer's device id and a valid sealing, signed by the stranger (a token holder with the key).
        let asWriter = try strangerSealer.seal(note("x2", author: writerIdentity.publicKeys.deviceID, sequence: 50))
        // Unsigned (version 1) under the space key.
        let unsigned = try ChangeSetSealer(space: spaceID, keys: [0: key], currentKeyID: 0).seal(note("x3", author: SyncDeviceID(rawValue: 77), sequence: 1))
        // The writer's genuine entry of another space, replayed here.
        let elsewhere = try #require(SyncSpaceID(bytes: Array(repeating: 3, count: 16)))
        let replayed = try ChangeSetSealer(space: elsewhere, keys: [0: key], currentKeyID: 0, identity: writerIdentity)
            .seal(note("x4", author: writerIdentity.publicKeys.deviceID, sequence: 51))
        _ = await space.relay.upload([fromStranger, asWriter, unsigned, replayed], space: spaceID)
        try await space.owner.sync()
        try await writer.sync()
        try await other.sync()
        for device in [space.owner, other] {
            for id in ["x1", "x2", "x3", "x4"] { #expect(try device.note(id) == nil) }
            let refused = try device.synced.refusedChangeSets().map(\.refusal)
            #expect(refused == [.unknownSigner, .badSignature, .unsigned])
            // The replayed entry does not authenticate for this space: kept apart, never applied.
            #expect(try device.synced.quarantinedChangeSets().map(\.sequence) == [51])
        }
        // The device impersonated ignores entries in its own name (it knows its own), and refuses the rest.
        for id in ["x1", "x2", "x3", "x4"] { #expect(try writer.note(id) == nil) }
        #expect(try writer.synced.refusedChangeSets().map(\.refusal) == [.unknownSigner, .unsigned])
        // Sync goes on.
        try writer.write { $0.add(SyncNote(value: ["id": "ok", "title": "after the forgeries"])) }
        try await writer.sync()
        try await space.owner.sync()
        #expect(try space.owner.note("ok")?.title == "after the forgeries")
    }

    @Test("a removed device keeping its files, with every byte the relay holds, opens nothing written after its removal")
    func removedDeviceReadsNothingNew() async throws {
        let space = try Space("trust-removed")
        let (phone, phoneIdentity) = try await space.invite("phone", role: .writer)
        let (laptop, _) = try await space.invite("laptop", role: .writer)
        try space.owner.write { $0.add(SyncNote(value: ["id": "old", "title": "before the loss"])) }
        try await space.owner.sync()
        try await phone.sync()
        #expect(try phone.note("old") != nil)

        // The phone is lost: the owner removes it, which rotates the key.
        try space.owner.synced.space.remove(device: phoneIdentity.publicKeys.deviceID)
        try await space.owner.sync()
        try await laptop.sync()
        #expect(try laptop.synced.space.epoch() == 1)
        try laptop.write { $0.add(SyncNote(value: ["id": "new", "title": "after the loss"])) }
        try await laptop.sync()
        try await space.owner.sync()
        #expect(try space.owner.note("new")?.title == "after the loss")

        // The phone syncs again: it learns it was removed, keeps what it had, reads nothing new.
        try await phone.sync()
        #expect(try phone.synced.space.isRemoved())
        #expect(try phone.note("old") != nil && phone.note("new") == nil)
        // Every key the phone holds, against every entry the relay holds after the removal.
        let all = await space.relay.receive(space: try #require(Self.space), after: 0, limit: 10_000)
        let removal = try #require(all.first { ($0.changeSet.envelope.count > 0) && (try? EnvelopeHeader(envelope: $0.changeSet.envelope))?.boxEpoch == 1 })
        let phoneVault = try phone.vault()
        let phoneLedger = try phone.synced.ledger(in: phoneVault)
        #expect(phoneLedger.keyring.keys.keys.sorted() == [0])
        let phoneSealer = try ChangeSetSealer(space: try #require(Self.space), keys: phoneLedger.keyring.keys, currentKeyID: 0)
        let after = all.filter { $0.serverSequence > removal.serverSequence }
        #expect(!after.isEmpty)
        for item in after {
            #expect(throws: SyncError.self) { _ = try phoneSealer.openBody(item.changeSet) }
        }
        // Nor do its boxes open with the phone's identity.
        let header = try EnvelopeHeader(envelope: removal.changeSet.envelope)
        #expect(header.boxes[phoneIdentity.publicKeys.deviceID] == nil)
        #expect(header.boxes.values.allSatisfy { phoneIdentity.open(sealedBox: $0) == nil })

        // What the phone sends anyway (a modified app, under the key it has) is refused everywhere.
        try phone.write { $0.add(SyncNote(value: ["id": "ghost", "title": "from the removed phone"])) }
        let ghost = try #require(try phone.synced.pendingChangeSets().last)
        let sealer = try ChangeSetSealer(space: try #require(Self.space), keys: phoneLedger.keyring.keys, currentKeyID: 0, identity: phoneIdentity)
        _ = await space.relay.upload([try sealer.seal(ghost)], space: try #require(Self.space))
        try await space.owner.sync()
        try await laptop.sync()
        for device in [space.owner, laptop] {
            #expect(try device.note("ghost") == nil)
            #expect(try device.synced.refusedChangeSets().map(\.refusal).contains(.removedSigner))
        }
    }

    @Test("a device offline during a rotation catches up; one that joins later reads every epoch's history")
    func offlineDeviceCatchesUp() async throws {
        let space = try Space("trust-offline")
        let (laptop, _) = try await space.invite("laptop", role: .writer)
        let (phone, phoneIdentity) = try await space.invite("phone", role: .writer)
        try space.owner.write { $0.add(SyncNote(value: ["id": "e0", "title": "epoch 0"])) }
        try await space.owner.sync()
        // The laptop is offline through a removal and a rotation on demand.
        try space.owner.synced.space.remove(device: phoneIdentity.publicKeys.deviceID)
        try await space.owner.sync()
        try space.owner.write { $0.add(SyncNote(value: ["id": "e1", "title": "epoch 1"])) }
        try await space.owner.sync()
        try space.owner.synced.space.rotateSyncKey()
        try await space.owner.sync()
        try space.owner.write { $0.add(SyncNote(value: ["id": "e2", "title": "epoch 2"])) }
        try await space.owner.sync()
        try await laptop.sync()
        for id in ["e0", "e1", "e2"] { #expect(try laptop.note(id) != nil) }
        #expect(try laptop.synced.space.epoch() == 2)
        // A tablet added now reads all three epochs through the chain of wrapped keys.
        let (tablet, _) = try await space.invite("tablet", role: .reader)
        for id in ["e0", "e1", "e2"] { #expect(try tablet.note(id) != nil) }
        try await phone.sync()
        #expect(try phone.note("e1") == nil && phone.note("e2") == nil)
    }

    @Test("two owners removing two devices at once converge on one membership, and the owed rotation follows")
    func concurrentRemovalsConverge() async throws {
        let space = try Space("trust-concurrent")
        let (second, secondIdentity) = try await space.invite("second-owner", role: .owner)
        let (c, cIdentity) = try await space.invite("c", role: .writer)
        let (d, dIdentity) = try await space.invite("d", role: .writer)
        try await second.sync()
        _ = secondIdentity
        // Both remove at once, each rotating to epoch 1: the later rotation is refused, its removal stands.
        try space.owner.synced.space.remove(device: cIdentity.publicKeys.deviceID)
        try second.synced.space.remove(device: dIdentity.publicKeys.deviceID)
        try await space.owner.sync()
        try await second.sync()
        try await space.owner.sync()
        #expect(try space.owner.synced.space.members() == second.synced.space.members())
        #expect(try space.owner.synced.space.members().count == 2)
        // The rotation the refused one owed is made by the next writer to sync (here, the owner's synchronizer).
        try await space.owner.sync()
        try await second.sync()
        try await space.owner.sync()
        #expect(try second.synced.space.epoch() == 2 && space.owner.synced.space.epoch() == 2)
        #expect(try !space.owner.synced.ledger(in: try space.owner.vault()).membership.rotationOwed)
        try second.write { $0.add(SyncNote(value: ["id": "after", "title": "after both removals"])) }
        try await second.sync()
        try await space.owner.sync()
        #expect(try space.owner.note("after") != nil)
        try await c.sync()
        try await d.sync()
        #expect(try c.note("after") == nil && d.note("after") == nil)
        #expect(try c.synced.space.isRemoved() && d.synced.space.isRemoved())
    }

    @Test("a device added while another owner rotated gets the new key in a key share, and never writes under the old one")
    func addedDuringRotationGetsAKeyShare() async throws {
        let space = try Space("trust-share")
        let (second, _) = try await space.invite("second-owner", role: .owner)
        let (lost, lostIdentity) = try await space.invite("lost", role: .writer)
        try await second.sync()
        // At once: the owner removes the lost device (a rotation), the second owner adds a tablet.
        let tabletIdentity = try newIdentity()
        let tablet = try SyncTestDevice(space.directory, "tablet", relay: space.relay, identity: tabletIdentity, syncKey: nil)
        try space.owner.synced.space.remove(device: lostIdentity.publicKeys.deviceID)
        try second.synced.space.add(try tablet.synced.space.joinRequest(), role: .writer)
        _ = try await second.synchronizer.upload()
        _ = try await space.owner.synchronizer.upload()
        // The tablet joins with epoch 0's key; the rotation after its addition sealed it none of epoch 1.
        try await tablet.sync()
        #expect(try tablet.synced.space.role() == .writer && tablet.synced.space.epoch() == 1)
        try tablet.write { $0.add(SyncNote(value: ["id": "t1", "title": "from the tablet"])) }
        try await tablet.sync()
        #expect(try tablet.synced.uploadWaitReason()?.contains("current key") == true)
        #expect(try tablet.synced.pendingChangeSets().count == 1)
        // A member that holds epoch 1 shares it; the tablet reads on and uploads under epoch 1.
        try await space.owner.sync()
        try await second.sync()
        try await tablet.sync()
        try await tablet.sync()
        #expect(try tablet.synced.uploadWaitReason() == nil)
        try await space.owner.sync()
        #expect(try space.owner.note("t1")?.title == "from the tablet")
        // The removed device, with every byte the relay holds, cannot open the tablet's change set.
        try await lost.sync()
        #expect(try lost.note("t1") == nil)
        let lostKeys = try lost.synced.ledger(in: try lost.vault()).keyring.keys
        #expect(lostKeys.keys.sorted() == [0])
        let all = await space.relay.receive(space: try #require(Self.space), after: 0, limit: 10_000)
        let fromTablet = all.filter { $0.changeSet.device == tabletIdentity.publicKeys.deviceID }
        #expect(!fromTablet.isEmpty)
        let reader = try ChangeSetSealer(space: try #require(Self.space), keys: lostKeys, currentKeyID: 0)
        for item in fromTablet { #expect(throws: SyncError.self) { _ = try reader.openBody(item.changeSet) } }
    }

    @Test("a rotation whose keys reach a device removed just before it is refused: the removed device gets no newer key")
    func rotationToARemovedDeviceIsRefused() async throws {
        let space = try Space("trust-stale-rotation")
        let (writer, _) = try await space.invite("writer", role: .writer)
        let (lost, lostIdentity) = try await space.invite("lost", role: .writer)
        try await writer.sync()
        // The writer rotates (epoch 1) and reads it back.
        try writer.synced.space.rotateSyncKey()
        try await writer.sync()
        // The owner, not having read that, removes the lost device: its rotation is refused, its removal stands.
        try space.owner.synced.space.remove(device: lostIdentity.publicKeys.deviceID)
        _ = try await space.owner.synchronizer.upload()
        // The writer, not having read the removal, rotates again (epoch 2) with a box for the lost device.
        try writer.synced.space.rotateSyncKey()
        _ = try await writer.synchronizer.upload()
        for _ in 0..<3 {
            try await space.owner.sync()
            try await writer.sync()
        }
        #expect(try space.owner.synced.space.epoch() == writer.synced.space.epoch())
        #expect(try space.owner.synced.space.epoch() >= 2)
        #expect(try space.owner.synced.refusedChangeSets().map(\.refusal).contains(.invalidMembershipEntry("keys sealed to a device that is not a member")))
        try space.owner.write { $0.add(SyncNote(value: ["id": "later", "title": "after the removal"])) }
        try await space.owner.sync()
        try await writer.sync()
        #expect(try writer.note("later") != nil)
        // The lost device holds no key of an epoch after its removal, and reads nothing new.
        try await lost.sync()
        let lostKeys = try lost.synced.ledger(in: try lost.vault()).keyring.keys.keys
        #expect(lostKeys.allSatisfy { $0 <= 1 })
        #expect(try lost.note("later") == nil)
        // Not even with the key the refused rotation sealed to it: no entry is sealed under that key.
        let all = await space.relay.receive(space: try #require(Self.space), after: 0, limit: 10_000)
        var keys = try lost.synced.ledger(in: try lost.vault()).keyring.keys
        for item in all {
            let header = try EnvelopeHeader(envelope: item.changeSet.envelope)
            guard let box = header.boxes[lostIdentity.publicKeys.deviceID], header.boxEpoch >= 2,
                  let opened = lostIdentity.open(sealedBox: box) else { continue }
            keys[header.boxEpoch] = try SyncKey(bytes: Data(opened[20...]))
        }
        #expect(keys.keys.contains { $0 >= 2 }, "the refused rotation did seal a box to the lost device")
        let reader = try ChangeSetSealer(space: try #require(Self.space), keys: keys, currentKeyID: 0)
        for item in all where (try EnvelopeHeader(envelope: item.changeSet.envelope)).keyID >= 2 {
            #expect(throws: SyncError.self) { _ = try reader.openBody(item.changeSet) }
        }
    }

    @Test("a membership entry altered on the way stops the device that reads it, which never goes on with another membership")
    func alteredMembershipEntryStops() async throws {
        let space = try Space("trust-altered")
        let (_, phoneIdentity) = try await space.invite("phone", role: .writer)
        let (tablet, _) = try await space.invite("tablet", role: .writer)
        try space.owner.synced.space.remove(device: phoneIdentity.publicKeys.deviceID)
        try await space.owner.sync()
        // The tablet is served a copy of the log whose removal entry has one byte of its ciphertext changed.
        let spaceID = try #require(Self.space)
        let all = await space.relay.receive(space: spaceID, after: 0, limit: 10_000)
        let removal = try #require(all.last { (try? EnvelopeHeader(envelope: $0.changeSet.envelope))?.kind == .membership })
        let altered = InProcessRelay()
        for item in all {
            var envelope = item.changeSet.envelope
            if item.serverSequence == removal.serverSequence { envelope[envelope.count - 80] ^= 1 }
            _ = await altered.upload([SealedChangeSet(device: item.changeSet.device, sequence: item.changeSet.sequence, envelope: envelope)], space: spaceID)
        }
        let reception = try tablet.synced.receive(await altered.receive(space: spaceID, after: try tablet.synced.serverCursor(), limit: 10_000))
        #expect(reception.stoppedAt == removal.serverSequence)
        #expect(reception.stopReason == .authenticationFailed(device: removal.changeSet.device, sequence: removal.changeSet.sequence))
        #expect(try tablet.synced.serverCursor() == removal.serverSequence - 1)
        #expect(try tablet.synced.refusedChangeSets().isEmpty)
        // Served the true log, it reads on and agrees with the owner.
        try await tablet.sync()
        #expect(try tablet.synced.space.members() == space.owner.synced.space.members())
    }

    @Test("a key box a stranger seals to a waiting device is not taken: only a key that opens the entry it stopped at")
    func forgedKeyBoxIsNotTaken() async throws {
        let space = try Space("trust-forged-box")
        let (second, _) = try await space.invite("second-owner", role: .owner)
        let (lost, lostIdentity) = try await space.invite("lost", role: .writer)
        try await second.sync()
        _ = lost
        let tabletIdentity = try newIdentity()
        let tablet = try SyncTestDevice(space.directory, "tablet", relay: space.relay, identity: tabletIdentity, syncKey: nil)
        // The tablet is added while the owner rotates; then an entry under the new epoch stops the tablet.
        try space.owner.synced.space.remove(device: lostIdentity.publicKeys.deviceID)
        try second.synced.space.add(try tablet.synced.space.joinRequest(), role: .writer)
        _ = try await second.synchronizer.upload()
        _ = try await space.owner.synchronizer.upload()
        _ = try await space.owner.synchronizer.download()
        let tabletPerson = SyncPersonID(firstDevice: tabletIdentity.publicKeys)
        try space.owner.synced.space.setRole(.writer, for: tabletPerson)
        _ = try await space.owner.synchronizer.upload()
        // A stranger appends a signed entry holding a box of epoch 1 for the tablet, with a key of its choosing.
        let spaceID = try #require(Self.space)
        let stranger = try newIdentity()
        let chosen = try SyncKey.generate()
        let boxes = try SpaceKeyring(space: spaceID, epoch: 1, key: chosen).boxes(of: 1, to: [tabletIdentity.publicKeys.deviceID: tabletIdentity.publicKeys])
        let forged = try ChangeSetSealer(space: spaceID, keys: [1: chosen], currentKeyID: 1, identity: stranger)
            .sealEntry(kind: .membership, author: stranger.publicKeys.deviceID, sequence: 1, body: MembershipCodec.encode([.shareKey(epoch: 1)]),
                       boxEpoch: 1, boxes: boxes)
        _ = await space.relay.upload([forged], space: spaceID)
        try await tablet.sync()
        let ledger = try tablet.synced.ledger(in: try tablet.vault())
        #expect(try chosen.withBytes { Data($0) } != ledger.keyring.keys[1].map { try $0.withBytes { Data($0) } })
        #expect(!ledger.canSealCurrentEpoch)
        // The owners share the real key; the tablet reads on and writes under it.
        try await space.owner.sync()
        try await second.sync()
        try await tablet.sync()
        try tablet.write { $0.add(SyncNote(value: ["id": "t", "title": "under the real key"])) }
        try await tablet.sync()
        try await space.owner.sync()
        #expect(try space.owner.note("t")?.title == "under the real key")
        #expect(try tablet.synced.ledger(in: try tablet.vault()).canSealCurrentEpoch)
    }

    @Test("membership changes the rules refuse throw before anything is written")
    func refusedChangesThrow() async throws {
        let space = try Space("trust-rules")
        let (writer, _) = try await space.invite("writer", role: .writer)
        let stranger = JoinRequest(identity: try newIdentity(), space: try #require(Self.space))
        #expect(throws: SyncSpaceError.self) { try writer.synced.space.add(stranger, role: .writer) }
        #expect(throws: SyncSpaceError.self) { try writer.synced.space.remove(device: space.ownerIdentity.publicKeys.deviceID) }
        #expect(throws: SyncSpaceError.self) { try space.owner.synced.space.create() }
        let otherSpace = JoinRequest(identity: try newIdentity(), space: try #require(SyncSpaceID(bytes: Array(repeating: 1, count: 16))))
        #expect(throws: SyncSpaceError.self) { try space.owner.synced.space.add(otherSpace, role: .writer) }
        var text = stranger.text
        let last = text.removeLast()
        text.append(last == "A" ? "B" : "A")
        #expect(throws: SyncSpaceError.self) { try JoinRequest(text) }
        #expect(try writer.synced.pendingChangeSets().isEmpty)
    }

    /// A key `device` holds, as stored in its vault.
    private func heldKey(_ device: SyncTestDevice, epoch: UInt32) throws -> SyncKey {
        let ledger = try device.synced.ledger(in: try device.vault())
        return try #require(ledger.keyring.keys[epoch])
    }
}
