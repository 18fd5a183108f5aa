import Foundation
import Testing
import VaultCore
@testable import VaultSync
import VaultTestSupport

/// A space's devices for the membership tests: each with its own identity.
private struct Cast {
    let space = SyncSpaceID(bytes: Array(repeating: 7, count: 16)) ?? SyncSpaceID.generate()
    var identities: [String: DeviceIdentity] = [:]

    mutating func device(_ name: String) throws -> DeviceIdentity {
        if let known = identities[name] { return known }
        let identity = try DeviceIdentity(masterKey: try MasterKey.generate())
        identities[name] = identity
        return identity
    }

    func id(_ name: String) -> SyncDeviceID { identities[name]?.publicKeys.deviceID ?? SyncDeviceID(rawValue: 0) }

    /// The person whose first device is `name`.
    func person(_ name: String) -> SyncPersonID? { identities[name].map { SyncPersonID(firstDevice: $0.publicKeys) } }

    mutating func genesis(_ name: String) throws -> MembershipEntry {
        let identity = try device(name)
        return MembershipEntry(signer: identity.publicKeys.deviceID, operations: [.genesis(identity.publicKeys)])
    }

    /// `name` joining as a device of `person` (a new person: nil) with `role`, signed by itself for `space`.
    mutating func add(_ name: String, of person: String? = nil, role: SyncRole, for space: SyncSpaceID? = nil) throws -> MembershipOperation {
        let identity = try device(name)
        let joinSignature = identity.sign(MembershipState.joinMessage(space: space ?? self.space, keys: identity.publicKeys), context: .joinRequest)
        let owner = person.flatMap { self.person($0) } ?? SyncPersonID(firstDevice: identity.publicKeys)
        return .addDevice(keys: identity.publicKeys, person: owner, role: role, joinSignature: joinSignature)
    }

    func entry(_ signer: String, _ operations: [MembershipOperation]) -> MembershipEntry {
        MembershipEntry(signer: id(signer), operations: operations)
    }
}

/// The parts of a state two devices must agree on.
private func summary(_ state: MembershipState) -> String {
    let devices = state.devices.sorted { $0.key.rawValue < $1.key.rawValue }
        .map { "\($0.key.rawValue):\($0.value.person):\($0.value.role.rawValue):\($0.value.added):\($0.value.removed.map(String.init) ?? "-")" }
    return "\(devices) epoch \(state.epoch) owed \(state.rotationOwed) genesis \(state.genesis.map(String.init) ?? "-")"
}

@Suite("Membership: signed entries in the log make every device compute the same members")
struct MembershipRulesTests {
    @Test("the first device creates the space as its owner; an owner adds another person and its own second device")
    func genesisAndAdding() throws {
        var cast = Cast()
        var state = MembershipState(space: cast.space)
        #expect(state.apply(try cast.genesis("ana-phone"), at: 1) == nil)
        #expect(state.apply(cast.entry("ana-phone", [try cast.add("ana-laptop", of: "ana-phone", role: .owner),
                                                      try cast.add("bea-phone", role: .writer)]), at: 2) == nil)
        #expect(state.currentDevices.count == 3)
        #expect(state.role(of: cast.id("bea-phone"), at: 3) == .writer)
        #expect(state.role(of: cast.id("ana-laptop"), at: 3) == .owner)
        // Membership is by position: before the entry that added it, a device was nobody.
        #expect(state.role(of: cast.id("bea-phone"), at: 2) == nil)
        #expect(state.devices[cast.id("ana-laptop")]?.person == cast.person("ana-phone"))
        #expect(state.devices[cast.id("bea-phone")]?.person == cast.person("bea-phone"))
        // A writer adds a device of its own person, as a writer or reader.
        #expect(state.apply(cast.entry("bea-phone", [try cast.add("bea-tablet", of: "bea-phone", role: .reader)]), at: 3) == nil)
        #expect(state.role(of: cast.id("bea-tablet"), at: 4) == .reader)
    }

    @Test("a role is judged as it was at the entry's place: a change set before a promotion stays a reader's, one after a demotion a reader's")
    func rolesByPosition() throws {
        var cast = Cast()
        var state = MembershipState(space: cast.space)
        #expect(state.apply(try cast.genesis("ana"), at: 1) == nil)
        #expect(state.apply(cast.entry("ana", [try cast.add("bea", role: .reader)]), at: 2) == nil)
        let bea = try #require(cast.person("bea"))
        #expect(state.apply(cast.entry("ana", [.setRole(bea, .writer)]), at: 5) == nil)
        #expect(state.apply(cast.entry("ana", [.setRole(bea, .reader)]), at: 8) == nil)
        #expect(state.role(of: cast.id("bea"), at: 4) == .reader)
        #expect(state.role(of: cast.id("bea"), at: 6) == .writer)
        #expect(state.role(of: cast.id("bea"), at: 9) == .reader)
        #expect(state.devices[cast.id("bea")]?.role == .reader)
        // Key shares: a writer of the current epoch only, a reader never.
        #expect(state.apply(cast.entry("bea", [.shareKey(epoch: 0)]), at: 10) == .notPermitted("a reader does not share the key"))
        #expect(state.apply(cast.entry("ana", [.shareKey(epoch: 1)]), at: 11) == .wrongEpoch(expected: 0, got: 1))
        #expect(state.apply(cast.entry("ana", [.shareKey(epoch: 0)]), at: 12) == nil)
    }

    @Test("each rule refuses what it forbids, and a refused entry changes nothing")
    func refusals() throws {
        var cast = Cast()
        var state = MembershipState(space: cast.space)
        #expect(state.apply(cast.entry("nobody", [.rotate(epoch: 1)]), at: 1) == .noGenesisYet)
        #expect(state.apply(try cast.genesis("ana"), at: 2) == nil)
        #expect(state.apply(cast.entry("ana", [try cast.add("bea", role: .writer), try cast.add("cem", role: .reader)]), at: 3) == nil)
        let before = summary(state)

        var position: UInt64 = 10
        func refused(_ entry: MembershipEntry) -> MembershipRefusal? {
            position += 1
            let refusal = state.apply(entry, at: position)
            #expect(summary(state) == before, "a refused entry changed the state: \(String(describing: refusal))")
            return refusal
        }
        #expect(refused(try cast.genesis("eve")) == .secondGenesis)
        let eve = try cast.device("eve")
        #expect(refused(MembershipEntry(signer: cast.id("ana"), operations: [.genesis(eve.publicKeys)])) == .secondGenesis)
        #expect(refused(cast.entry("eve", [try cast.add("eve-2", role: .owner)])) == .signerNotMember(cast.id("eve")))
        #expect(refused(cast.entry("bea", [try cast.add("dan", role: .writer)])) == .notPermitted("only an owner adds another person's device"))
        #expect(refused(cast.entry("bea", [try cast.add("bea-2", of: "bea", role: .owner)])) == .notPermitted("a member adds devices with at most its own role"))
        #expect(refused(cast.entry("bea", [.removeDevice(cast.id("ana"))])) == .notPermitted("only an owner removes another person's device"))
        #expect(refused(cast.entry("bea", [.setRole(try #require(cast.person("bea")), .owner)])) == .notPermitted("only an owner changes roles"))
        #expect(refused(cast.entry("cem", [.rotate(epoch: 1)])) == .notPermitted("a reader does not rotate the key"))
        #expect(refused(cast.entry("ana", [.rotate(epoch: 2)])) == .wrongEpoch(expected: 1, got: 2))
        #expect(refused(cast.entry("ana", [.removeDevice(cast.id("ana")), .rotate(epoch: 1)])) == .noOwnerLeft)
        #expect(refused(cast.entry("ana", [.setRole(try #require(cast.person("ana")), .writer)])) == .noOwnerLeft)
        #expect(refused(cast.entry("ana", [.rotate(epoch: 1), .removeDevice(cast.id("cem"))])) == .notPermitted("an entry's removals come before its rotation"))
        #expect(refused(cast.entry("ana", [])) == .empty)

        // Join signatures: the device's own, for this space.
        let forged = try cast.add("fay", role: .writer)
        guard case .addDevice(let keys, let person, let role, _) = forged else { throw SyncError.malformedChangeSet("not an add") }
        let anaSigned = try cast.device("ana").sign(MembershipState.joinMessage(space: cast.space, keys: keys), context: .joinRequest)
        #expect(refused(cast.entry("ana", [.addDevice(keys: keys, person: person, role: role, joinSignature: anaSigned)])) == .badJoinSignature(keys.deviceID))
        #expect(refused(cast.entry("ana", [try cast.add("gus", role: .writer, for: SyncSpaceID.generate())])) == .badJoinSignature(cast.id("gus")))
        // An entry that is partly invalid is refused whole: the valid addition before it does not happen.
        #expect(refused(cast.entry("ana", [try cast.add("hal", role: .writer), .removeDevice(SyncDeviceID(rawValue: 99))])) == .unknownDevice(SyncDeviceID(rawValue: 99)))
    }

    @Test("a lost phone removed with a rotation: a member before, nobody after; it can never be added back")
    func removalWithRotation() throws {
        var cast = Cast()
        var state = MembershipState(space: cast.space)
        state.apply(try cast.genesis("laptop"), at: 1)
        #expect(state.apply(cast.entry("laptop", [try cast.add("phone", of: "laptop", role: .owner)]), at: 2) == nil)
        // The phone's own person may remove it (the lost phone case), rotating in the same entry.
        #expect(state.apply(cast.entry("laptop", [.removeDevice(cast.id("phone")), .rotate(epoch: 1)]), at: 5) == nil)
        #expect(state.epoch == 1 && !state.rotationOwed)
        #expect(state.role(of: cast.id("phone"), at: 5) == .owner)
        #expect(state.role(of: cast.id("phone"), at: 6) == nil)
        #expect(state.apply(cast.entry("phone", [.rotate(epoch: 2)]), at: 7) == .signerNotMember(cast.id("phone")))
        // The phone cannot come back as itself.
        #expect(state.apply(cast.entry("laptop", [try cast.add("phone", of: "laptop", role: .owner)]), at: 8) == .deviceSeenBefore(cast.id("phone")))
    }

    @Test("two removals made at once from two devices converge in either server order, and the rotation owed is made once")
    func concurrentRemovals() throws {
        var cast = Cast()
        var base = MembershipState(space: cast.space)
        base.apply(try cast.genesis("ana"), at: 1)
        base.apply(cast.entry("ana", [try cast.add("bob", role: .owner), try cast.add("x", role: .writer), try cast.add("y", role: .writer)]), at: 2)
        let first = cast.entry("ana", [.removeDevice(cast.id("x")), .rotate(epoch: 1)])
        let second = cast.entry("bob", [.removeDevice(cast.id("y")), .rotate(epoch: 1)])
        var outcomes: [[String]] = []
        for order in [[first, second], [second, first]] {
            var state = base
            #expect(state.apply(order[0], at: 3) == nil)
            // The second removal applies; its rotation lost the race: one is owed.
            #expect(state.apply(order[1], at: 4) == nil)
            #expect(state.epoch == 1 && state.rotationOwed)
            #expect(state.currentDevices.keys.sorted { $0.rawValue < $1.rawValue } == [cast.id("ana"), cast.id("bob")].sorted { $0.rawValue < $1.rawValue })
            #expect(state.apply(cast.entry("ana", [.rotate(epoch: 2)]), at: 5) == nil)
            #expect(state.epoch == 2 && !state.rotationOwed)
            // A second device making the owed rotation as well is refused: one epoch per rotation.
            #expect(state.apply(cast.entry("bob", [.rotate(epoch: 2)]), at: 6) == .wrongEpoch(expected: 3, got: 2))
            // What the two orders must agree on (the removals' positions are the order's own).
            let current = state.currentDevices.map { "\($0.key.rawValue):\($0.value.role.rawValue)" }.sorted()
            let removed = state.devices.filter { $0.value.removed != nil }.map { "\($0.key.rawValue)" }.sorted()
            outcomes.append(current + ["removed"] + removed + ["epoch \(state.epoch) owed \(state.rotationOwed)"])
        }
        #expect(outcomes[0] == outcomes[1])
        #expect(outcomes[0].contains("\(cast.id("x").rawValue)") && outcomes[0].contains("\(cast.id("y").rawValue)"))
    }

    @Test("a member leaves (its own person): the rotation it may not make is owed to those who stay")
    func leaving() throws {
        var cast = Cast()
        var state = MembershipState(space: cast.space)
        state.apply(try cast.genesis("ana"), at: 1)
        state.apply(cast.entry("ana", [try cast.add("bea", role: .writer)]), at: 2)
        #expect(state.apply(cast.entry("bea", [.removePerson(try #require(cast.person("bea"))), .rotate(epoch: 1)]), at: 3) == nil)
        #expect(state.epoch == 0 && state.rotationOwed)
        #expect(state.role(of: cast.id("bea"), at: 4) == nil)
        #expect(state.apply(cast.entry("ana", [.rotate(epoch: 1)]), at: 4) == nil)
        #expect(!state.rotationOwed)
    }

    @Test("random histories: every device computes the same state; there is always an owner; the removed never return; epochs step by one")
    func randomHistories() throws {
        var random = SplitMix64(seed: 0x57)
        var verdicts = (applied: 0, refused: 0, removals: 0)
        for history in 0..<40 {
            var cast = Cast()
            var entries: [MembershipEntry] = [try cast.genesis("d0")]
            var names = ["d0"]
            for step in 1..<30 {
                let signer = names[Int.random(in: 0..<names.count, using: &random)]
                let target = names[Int.random(in: 0..<names.count, using: &random)]
                let role = [SyncRole.reader, .writer, .owner][Int.random(in: 0..<3, using: &random)]
                let operations: [MembershipOperation]
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1:
                    let name = "d\(step)"
                    names.append(name)
                    operations = [try cast.add(name, of: Bool.random(using: &random) ? signer : nil, role: role)]
                case 2: operations = [.removeDevice(cast.id(target)), .rotate(epoch: UInt32(Int.random(in: 1...4, using: &random)))]
                case 3: operations = [.removePerson(try #require(cast.person(target)))]
                case 4: operations = [.setRole(try #require(cast.person(target)), role)]
                default: operations = [.rotate(epoch: UInt32(Int.random(in: 1...4, using: &random)))]
                }
                entries.append(cast.entry(signer, operations))
            }
            var device1 = MembershipState(space: cast.space), device2 = MembershipState(space: cast.space)
            var everRemoved: Set<SyncDeviceID> = []
            for (offset, entry) in entries.enumerated() {
                let position = UInt64(offset + 1)
                let epochBefore = device1.epoch
                let removedBefore = device1.devices.values.filter { $0.removed != nil }.count
                let verdict = device1.apply(entry, at: position)
                #expect(device2.apply(entry, at: position) == verdict)
                if verdict == nil { verdicts.applied += 1 } else { verdicts.refused += 1 }
                if device1.devices.values.filter({ $0.removed != nil }).count > removedBefore { verdicts.removals += 1 }
                #expect(device1.epoch == epochBefore || device1.epoch == epochBefore + 1, "history \(history)")
                #expect(device1.currentDevices.values.contains { $0.role == .owner }, "history \(history): no owner after entry \(offset)")
                #expect(everRemoved.isDisjoint(with: device1.currentDevices.keys), "history \(history): a removed device came back")
                everRemoved.formUnion(device1.devices.filter { $0.value.removed != nil }.map(\.key))
            }
            #expect(summary(device1) == summary(device2))
        }
        // The histories reach every outcome (a run that only refuses would test nothing).
        #expect(verdicts.applied > 200 && verdicts.refused > 200 && verdicts.removals > 20, "\(verdicts)")
        print("membership histories: 40, \(verdicts)")
    }
}

@Suite("Membership entries as bytes: one reading or none")
struct MembershipCodecTests {
    @Test("every operation round-trips, and the bytes are the documented layout's size")
    func roundTrip() throws {
        var cast = Cast()
        let genesis = try cast.genesis("ana")
        let operations: [MembershipOperation] = [
            try cast.add("bea", role: .writer), .removeDevice(SyncDeviceID(rawValue: 0x0102_0304_0506_0708)),
            .removePerson(try #require(cast.person("ana"))), .setRole(try #require(cast.person("bea")), .reader), .rotate(epoch: 0xA0B0_C0D0),
            .shareKey(epoch: 0x0A0B_0C0D),
        ]
        #expect(try MembershipCodec.decode(MembershipCodec.encode(genesis.operations)) == genesis.operations)
        let bytes = MembershipCodec.encode(operations)
        #expect(try MembershipCodec.decode(bytes) == operations)
        // Version, count, then each operation's tag and fields: 1 + 1 + (1+64+16+1+64) + 9 + 17 + 18 + 5 + 5.
        #expect(bytes.count == 2 + 146 + 9 + 17 + 18 + 5 + 5)
    }

    @Test("truncated, extended, re-tagged or re-versioned bytes are refused, never read another way")
    func strictReading() throws {
        var cast = Cast()
        let bytes = MembershipCodec.encode([try cast.add("bea", role: .writer), .rotate(epoch: 1)])
        for length in 0..<bytes.count {
            #expect(throws: SyncError.self) { try MembershipCodec.decode(Array(bytes.prefix(length))) }
        }
        #expect(throws: SyncError.self) { try MembershipCodec.decode(bytes + [0]) }
        var version = bytes
        version[0] = 2
        #expect(throws: SyncError.self) { try MembershipCodec.decode(version) }
        var tag = bytes
        tag[2] = 9
        #expect(throws: SyncError.self) { try MembershipCodec.decode(tag) }
        var role = bytes
        role[2 + 1 + 64 + 16] = 4
        #expect(throws: SyncError.self) { try MembershipCodec.decode(role) }
        // A count larger than the bytes could hold is refused before anything is allocated.
        #expect(throws: SyncError.self) { try MembershipCodec.decode([1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) }
        // Every single-byte change either fails to read or reads as different operations.
        let original = try MembershipCodec.decode(bytes)
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x01
            if let read = try? MembershipCodec.decode(changed) { #expect(read != original, "byte \(index)") }
        }
    }
}
