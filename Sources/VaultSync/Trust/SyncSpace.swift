import CSodium
import Foundation
@_spi(VaultSync) import VaultKit

/// Why a membership change could not be made.
public enum SyncSpaceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Only a device with an identity (``SyncConfiguration/identity``) takes part in membership.
    case needsIdentity
    /// The space's rules do not let this device make the change (the reason says which).
    case notPermitted(String)
    /// A join request that is not one, or was made for another space.
    case invalidJoinRequest(String)

    public var description: String {
        switch self {
        case .needsIdentity: "membership needs a device identity: set SyncConfiguration.identity"
        case .notPermitted(let reason): "the space's rules do not allow this: \(reason)"
        case .invalidJoinRequest(let reason): "not a valid join request: \(reason)"
        }
    }
}

/// A device's request to join a space: its public keys, signed by the device for that
/// space. The device shows it (as ``text``, a QR code or a link) to an owner of the space,
/// who passes it to ``SyncSpace/add(_:role:samePersonAs:)``; both read out ``fingerprint``
/// to check that nobody swapped it on the way.
public struct JoinRequest: Sendable, Hashable {
    /// The space the device asks to join.
    public let space: SyncSpaceID
    /// The device's public keys.
    public let keys: DevicePublicKeys
    /// The device's signature of the space and its keys (it holds its keys).
    let signature: [UInt8]
    private static let prefix = "vkjoin1_"

    /// The request of the device of `identity` to join `space`.
    public init(identity: DeviceIdentity, space: SyncSpaceID) {
        self.space = space
        keys = identity.publicKeys
        signature = identity.sign(MembershipState.joinMessage(space: space, keys: keys), context: .joinRequest)
    }

    /// The request `text` spells (``text``): refused unless it is whole and signed by the keys it names.
    public init(_ text: String) throws(SyncSpaceError) {
        guard text.hasPrefix(Self.prefix) else { throw .invalidJoinRequest("it does not start with \(Self.prefix)") }
        var base64 = String(text.dropFirst(Self.prefix.count)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), data.count == 16 + 32 + 32 + 64 else {
            throw .invalidJoinRequest("it is cut short or has extra characters")
        }
        let bytes = [UInt8](data)
        guard let space = SyncSpaceID(bytes: Array(bytes[0..<16])),
              let keys = try? DevicePublicKeys(signing: Array(bytes[16..<48]), box: Array(bytes[48..<80])) else {
            throw .invalidJoinRequest("it does not hold a space and keys")
        }
        let signature = Array(bytes[80...])
        guard keys.verify(signature, of: MembershipState.joinMessage(space: space, keys: keys), context: .joinRequest) else {
            throw .invalidJoinRequest("its signature does not verify: it was altered")
        }
        self.space = space
        self.keys = keys
        self.signature = signature
    }

    /// The request as text: `vkjoin1_` and base64url of the space, the keys and the signature.
    public var text: String {
        Self.prefix + Data(space.bytes + keys.signing + keys.box + signature).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The device's fingerprint (``DevicePublicKeys/fingerprint``).
    public var fingerprint: String { keys.fingerprint }
}

/// A device of a space, as the space's log makes it.
public struct SyncMember: Sendable, Hashable {
    /// The device.
    public let device: SyncDeviceID
    /// The person whose device it is.
    public let person: SyncPersonID
    /// Its role.
    public let role: SyncRole
    /// Its fingerprint, to compare with what the device shows.
    public let fingerprint: String
}

/// A space's members, and the changes an owner or member makes to them: Realm's
/// users and permissions, kept as signed entries in the space's own log instead of on a
/// server (see the "Sharing a space" article). Changes are made here and upload with the
/// next sync; every device, this one included, applies them as it reads the log.
public struct SyncSpace: Sendable {
    /// The synced vault whose space this is.
    public let synced: SyncedVault

    /// The space's members now, as far as this device has read the log, by device.
    public func members() throws -> [SyncMember] {
        let ledger = try currentLedger()
        return ledger.membership.currentDevices.map { device, member in
            SyncMember(device: device, person: member.person, role: member.role, fingerprint: member.keys.fingerprint)
        }.sorted { $0.device.rawValue < $1.device.rawValue }
    }

    /// This device's role, nil while it is not a member.
    public func role() throws -> SyncRole? { try currentLedger().membership.currentDevices[synced.device]?.role }

    /// Whether this device was a member and has been removed.
    public func isRemoved() throws -> Bool { try currentLedger().membership.devices[synced.device]?.removed != nil }

    /// The key epoch the space is at (0 until the first rotation).
    public func epoch() throws -> UInt32 { try currentLedger().membership.epoch }

    /// The space's fingerprint: its first device's. An invited person checks it with the owner.
    public func fingerprint() throws -> String? {
        let ledger = try currentLedger()
        return ledger.membership.devices.values.first { $0.added == ledger.membership.genesis }?.keys.fingerprint
    }

    /// This device's request to join the space (for a device being added).
    public func joinRequest() throws -> JoinRequest {
        guard let identity = synced.access?.identity, let space = synced.access?.space else { throw SyncSpaceError.needsIdentity }
        return JoinRequest(identity: identity, space: space)
    }

    /// Makes this device the space's first member, an owner: the space becomes a signed one,
    /// whose entries every device checks. Call it once, on the first device, before others join.
    public func create() throws { try synced.appendMembership([.genesis(try identity().publicKeys)]) }

    /// Adds the device of `request` with `role`: as a device of the same person as
    /// `samePersonAs` (a member device), or as a new person. The space's current key is
    /// sealed to the new device, which reads the space's history with it.
    public func add(_ request: JoinRequest, role: SyncRole, samePersonAs: SyncDeviceID? = nil) throws {
        guard request.space == synced.access?.space else { throw SyncSpaceError.invalidJoinRequest("it was made for another space") }
        let ledger = try currentLedger()
        var person = SyncPersonID(firstDevice: request.keys)
        if let samePersonAs {
            guard let member = ledger.membership.currentDevices[samePersonAs] else { throw SyncSpaceError.notPermitted("device \(samePersonAs) is not a member") }
            person = member.person
        }
        try synced.appendMembership([.addDevice(keys: request.keys, person: person, role: role, joinSignature: request.signature)])
    }

    /// Removes `device` (a lost phone) and rotates the space key: what the members write
    /// after this is sealed under a key the removed device never receives.
    public func remove(device: SyncDeviceID) throws {
        try synced.appendMembership([.removeDevice(device), .rotate(epoch: try currentLedger().membership.epoch &+ 1)])
    }

    /// Removes every device of `person` and rotates the space key.
    public func remove(person: SyncPersonID) throws {
        try synced.appendMembership([.removePerson(person), .rotate(epoch: try currentLedger().membership.epoch &+ 1)])
    }

    /// Gives every device of `person` `role` (owners only).
    public func setRole(_ role: SyncRole, for person: SyncPersonID) throws {
        try synced.appendMembership([.setRole(person, role)])
    }

    /// Starts a new key epoch: a fresh space key sealed to every member device.
    public func rotateSyncKey() throws {
        try synced.appendMembership([.rotate(epoch: try currentLedger().membership.epoch &+ 1)])
    }

    /// Removes this device from the space (the others rotate the key after it).
    public func leave() throws { try synced.appendMembership([.removeDevice(synced.device)]) }

    private func identity() throws -> DeviceIdentity {
        guard let identity = synced.access?.identity else { throw SyncSpaceError.needsIdentity }
        return identity
    }

    private func currentLedger() throws -> SpaceLedger {
        let vault = try Vault(configuration: synced.configuration)
        return try synced.ledger(in: vault)
    }
}

extension SyncedVault {
    /// The space's membership and its changes (needs a ``SpaceAccess``).
    public var space: SyncSpace { SyncSpace(synced: self) }

    /// Appends a membership entry of `operations`, signed and sealed now (with the keys it
    /// carries), to the outbox after this device's earlier commits, in one transaction.
    /// Throws ``SyncSpaceError/notPermitted(_:)`` when the rules refuse it as the log stands here.
    func appendMembership(_ operations: [MembershipOperation]) throws {
        guard let access, let identity = access.identity else { throw SyncSpaceError.needsIdentity }
        let vault = try Vault(configuration: configuration)
        recorder.setApplying(vault, true)
        defer { recorder.setApplying(vault, false) }
        try vault.write {
            // Earlier commits become their change set first: the entry comes after them.
            try recorder.finalize(in: vault, classes: try SyncedClass.all(in: vault))
            let tables = SyncTables(vault: vault)
            var ledger = try ledger(in: vault)
            // This device's entries not yet read back from the log count as if they were there.
            var trial = ledger.membership
            for pending in try pendingMembershipEntries(ledger, tables: tables, identity: identity) {
                // A rotation's key is not this device's until the log accepts it.
                guard !pending.rotates else {
                    throw SyncSpaceError.notPermitted("this device's key rotation has not come back from the server yet: sync, then try again")
                }
                trial.apply(pending.entry, at: trial.position &+ 1)
            }
            if let refusal = trial.apply(MembershipEntry(signer: device, operations: operations), at: trial.position &+ 1) {
                throw SyncSpaceError.notPermitted(refusal.reason)
            }
            if ledger.keyring.keys.isEmpty {
                guard case .genesis? = operations.first else { throw SyncSpaceError.notPermitted("this device holds no key of the space yet") }
                ledger.adopt(try SyncKey.generate(), epoch: 0)
            } else if ledger.isSigned, !ledger.canSealCurrentEpoch {
                // Never seal under an older epoch than the space's (a device removed since could read it).
                throw SyncSpaceError.notPermitted("this device has not been given the space's current key yet: sync, then try again")
            }
            var boxEpoch = ledger.sealingEpoch
            var boxes: [SyncDeviceID: [UInt8]] = [:]
            var wrapped: [UInt8] = []
            if operations.contains(where: { if case .rotate = $0 { true } else { false } }) {
                let recipients = trial.currentDevices.mapValues(\.keys)
                let (rotation, _) = try ledger.keyring.rotation(to: recipients, from: ledger.sealingEpoch)
                (boxEpoch, boxes, wrapped) = (rotation.epoch, rotation.boxes, rotation.wrappedPrevious)
            } else {
                var recipients: [SyncDeviceID: DevicePublicKeys] = [:]
                for case .addDevice(let keys, _, _, _) in operations { recipients[keys.deviceID] = keys }
                if operations.contains(where: { if case .shareKey = $0 { true } else { false } }) {
                    recipients.merge(ledger.keyOwed().recipients) { new, _ in new }
                }
                if !recipients.isEmpty { boxes = try ledger.keyring.boxes(of: boxEpoch, to: recipients) }
            }
            let store = SyncStateStore(vault: vault)
            let sequence = (try store.meta("sequence") ?? 0) + 1
            let entry = try ledger.sealer(identity: identity).sealEntry(kind: .membership, author: device, sequence: sequence,
                                                                        body: MembershipCodec.encode(operations),
                                                                        boxEpoch: boxEpoch, boxes: boxes, wrapped: wrapped)
            let placeholder = ChangeSet(author: device, sequence: sequence, dependencies: [:], operations: [])
            try tables.addSealedToOutbox(sequence: sequence, changeSet: try ChangeSetCodec.encode(placeholder), envelope: entry.envelope)
            try store.setMeta("sequence", sequence)
            try ledger.save(tables)
        }
        recorder.noteExternal()
    }

    /// This device's membership entries that have not come back from the log yet, in order
    /// (they will be applied in this order, unless an entry of another device's comes first).
    func pendingMembershipEntries(_ ledger: SpaceLedger, tables: SyncTables, identity: DeviceIdentity) throws
        -> [(sequence: UInt64, entry: MembershipEntry, rotates: Bool)] {
        try tables.sealedEnvelopes().sorted(by: { $0.key < $1.key }).compactMap { sequence, envelope in
            guard let header = try? EnvelopeHeader(envelope: envelope), header.kind == .membership else { return nil }
            let (_, body) = try ledger.sealer(identity: identity).openBody(SealedChangeSet(device: device, sequence: sequence, envelope: envelope))
            return (sequence, MembershipEntry(signer: device, operations: try MembershipCodec.decode(body)), !header.wrappedPrevious.isEmpty)
        }
    }
}
