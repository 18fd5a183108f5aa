import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

/// The space a vault syncs, and what its device holds for it: the sync key it was
/// given (epoch 0's key, when the space began with one), and its identity (nil: an
/// unsigned device of a space without members).
public struct SpaceAccess: Sendable {
    /// The space.
    public let space: SyncSpaceID
    /// The key the user's devices share, as epoch 0's key; nil for a device that joins by invitation.
    public let syncKey: SyncKey?
    /// The device's identity; nil for an unsigned device (version-1 envelopes).
    public let identity: DeviceIdentity?

    /// Access to `space` with `syncKey` and `identity` (at least one of the two).
    public init(space: SyncSpaceID, syncKey: SyncKey?, identity: DeviceIdentity?) throws(SyncError) {
        guard syncKey != nil || identity != nil else { throw .invalidKey("a device needs a sync key, an identity, or both") }
        self.space = space
        self.syncKey = syncKey
        self.identity = identity
    }
}

/// What reading a page of the log came to (``SyncedVault/receive(_:)``).
public struct Reception: Sendable, Equatable {
    /// Change sets merged.
    public var applied: Int
    /// Entries kept apart because they could not be opened.
    public var quarantined: [QuarantinedChangeSet]
    /// Entries refused by the trust rules.
    public var refused: [RefusedChangeSet]
    /// The position reading stopped before, when a membership entry could not be opened
    /// (a key this device lacks: it was removed, or has not been given the key yet).
    public var stoppedAt: UInt64?
    /// Whether this device read its own removal from the space (reading stops after it).
    public var removed: Bool
    /// Why reading stopped at ``stoppedAt``: a key this device lacks (``SyncError/unknownKey(keyID:)``),
    /// or a membership entry altered on the way (it does not authenticate): sync cannot go on safely.
    public var stopReason: SyncError?
}

extension SyncedVault {
    private func requireAccess() throws(SyncError) -> SpaceAccess {
        guard let access else { throw .invalidKey("this synced vault was opened without a space (SpaceAccess)") }
        return access
    }

    /// The ledger as stored (inside a transaction of `vault`'s).
    func ledger(in vault: Vault) throws -> SpaceLedger {
        let access = try requireAccess()
        return try SpaceLedger.load(SyncTables(vault: vault), space: access.space, device: device, syncKey: access.syncKey)
    }

    /// Runs `body` in a write transaction that merges what other devices made (the commit
    /// recorder told, so it is not recorded as local), with the space's ledger loaded.
    private func mergingWrite<T>(_ body: (Vault, SyncTables, inout SpaceLedger) throws -> T) throws -> T {
        let vault = try Vault(configuration: configuration)
        recorder.setApplying(vault, true)
        defer { recorder.setApplying(vault, false) }
        return try vault.write {
            let tables = SyncTables(vault: vault)
            var ledger = try ledger(in: vault)
            return try body(vault, tables, &ledger)
        }
    }

    /// Reads delivered entries of the log in order (see SpaceLedger.swift): each judged,
    /// opened and merged, with the new position, in one write transaction.
    public func receive(_ items: [DeliveredChangeSet]) throws -> Reception {
        let access = try requireAccess()
        return try mergingWrite { vault, tables, ledger in
            var reception = Reception(applied: 0, quarantined: [], refused: [], stoppedAt: nil, removed: false, stopReason: nil)
            var changeSets: [ChangeSet] = []
            var through: UInt64?
            reading: for item in items {
                // A device removed reads no further: what follows is sealed for the others.
                if ledger.membership.devices[device]?.removed != nil {
                    reception.removed = true
                    break reading
                }
                let sealed = item.changeSet
                if sealed.device == device, (try? EnvelopeHeader(envelope: sealed.envelope))?.kind == .membership {
                    // This device's own membership entry, read back: the ledger holds it from now on
                    // (and the log, so the outbox row goes too, acknowledged or not).
                    try tables.removeSealedEnvelope(sequence: sealed.sequence)
                    try tables.removeFromOutbox(sequence: sealed.sequence)
                }
                let placeholder = ChangeSet(author: sealed.device, sequence: sealed.sequence, dependencies: [:], operations: [])
                switch try ledger.read(sealed, at: item.serverSequence, identity: access.identity) {
                case .changeSet(let changeSet):
                    changeSets.append(changeSet)
                case .consumed:
                    changeSets.append(placeholder)
                case .refused(let refusal):
                    let refused = RefusedChangeSet(serverSequence: item.serverSequence, device: sealed.device, sequence: sealed.sequence, refusal: refusal)
                    try tables.refuse(refused)
                    reception.refused.append(refused)
                    changeSets.append(placeholder)
                case .quarantined(let error):
                    reception.quarantined.append(QuarantinedChangeSet(serverSequence: item.serverSequence, device: sealed.device, sequence: sealed.sequence,
                                                                      reason: error.description, envelope: sealed.envelope))
                case .stop(let reason):
                    reception.stoppedAt = item.serverSequence
                    reception.stopReason = reason
                    break reading
                }
                through = item.serverSequence
                if ledger.membership.devices[device]?.removed != nil { reception.removed = true }
            }
            try ledger.save(tables)
            reception.applied = try merge(changeSets, in: vault, serverCursor: through, quarantined: reception.quarantined, releasing: [])
            return reception
        }
    }

    /// Tries the quarantined change sets again (a key received since): each judged at its
    /// own place in the log, as when it arrived. Returns how many left the quarantine.
    @discardableResult
    public func retryQuarantined() throws -> Int {
        let access = try requireAccess()
        let kept = try quarantinedChangeSets()
        guard !kept.isEmpty else { return 0 }
        return try mergingWrite { vault, tables, ledger in
            var changeSets: [ChangeSet] = []
            var released: [UInt64] = []
            for entry in kept {
                let sealed = SealedChangeSet(device: entry.device, sequence: entry.sequence, envelope: entry.envelope)
                // Membership entries are read only in order, never out of the quarantine.
                if (try? EnvelopeHeader(envelope: entry.envelope))?.kind == .membership { continue }
                switch try ledger.read(sealed, at: entry.serverSequence, identity: access.identity) {
                case .changeSet(let changeSet):
                    changeSets.append(changeSet)
                    released.append(entry.serverSequence)
                case .refused(let refusal):
                    try tables.refuse(RefusedChangeSet(serverSequence: entry.serverSequence, device: entry.device, sequence: entry.sequence, refusal: refusal))
                    changeSets.append(ChangeSet(author: entry.device, sequence: entry.sequence, dependencies: [:], operations: []))
                    released.append(entry.serverSequence)
                case .consumed, .quarantined, .stop:
                    continue
                }
            }
            guard !released.isEmpty else { return 0 }
            _ = try merge(changeSets, in: vault, serverCursor: nil, quarantined: [], releasing: released)
            return released.count
        }
    }

    /// The entries this device refused (see ``SyncRefusal``), oldest first.
    public func refusedChangeSets() throws -> [RefusedChangeSet] {
        try SyncTables(vault: try Vault(configuration: configuration)).refused()
    }

    /// The outbox sealed for upload under the space's current epoch and signed. Membership
    /// entries always go; change sets only while this device may write (a member that is a
    /// writer or owner, or any device of a space without members): the others wait in the
    /// outbox, so nothing is refused, until the device is added.
    public func sealedPendingEntries() throws -> [SealedChangeSet] {
        let access = try requireAccess()
        let pending = try pendingChangeSets()
        guard !pending.isEmpty else { return [] }
        let vault = try Vault(configuration: configuration)
        return try vault.write {
            let tables = SyncTables(vault: vault)
            let ledger = try ledger(in: vault)
            let kept = try tables.sealedEnvelopes()
            // Change sets upload after the entry that lets this device write: one already read back
            // (all of them), or one of its own on its way (the space it just created: the change sets
            // made after that entry, which every device reads after it).
            var writableAfter: UInt64?
            if let identity = access.identity {
                if ledger.isSigned, !ledger.canSealCurrentEpoch {
                    // Never seal under an older epoch than the space's: a device removed since could read it.
                    // The current key comes in a key share (rule 9); the change sets wait for it.
                    writableAfter = nil
                } else if (ledger.membership.currentDevices[device]?.role ?? .reader) >= .writer {
                    writableAfter = 0
                } else {
                    var trial = ledger.membership
                    for pending in try pendingMembershipEntries(ledger, tables: tables, identity: identity) {
                        trial.apply(pending.entry, at: trial.position &+ 1)
                        if (trial.currentDevices[device]?.role ?? .reader) >= .writer {
                            writableAfter = pending.sequence
                            break
                        }
                    }
                }
            } else if !ledger.isSigned {
                writableAfter = 0
            }
            var sealed: [SealedChangeSet] = []
            for changeSet in pending {
                let mayWrite = writableAfter.map { changeSet.sequence > $0 } ?? false
                if let envelope = kept[changeSet.sequence], let header = try? EnvelopeHeader(envelope: envelope), header.space == access.space,
                   header.kind == .membership || (mayWrite && header.isSigned == (access.identity != nil)) {
                    sealed.append(SealedChangeSet(device: changeSet.author, sequence: changeSet.sequence, envelope: envelope))
                    continue
                }
                guard mayWrite else { continue }
                let entry = try ledger.sealer(identity: access.identity).seal(changeSet)
                try tables.setSealedEnvelope(sequence: changeSet.sequence, envelope: entry.envelope)
                sealed.append(entry)
            }
            return sealed
        }
    }

    /// Removes the given local change sets (and entries) from the outbox: the relay holds them.
    /// A membership entry's envelope is kept until this device reads it back from the log:
    /// until then it counts for the checks of this device's next membership changes.
    public func acknowledgeUploaded(_ sequences: [UInt64]) throws {
        let vault = try Vault(configuration: configuration)
        try vault.write {
            let tables = SyncTables(vault: vault)
            let kept = try tables.sealedEnvelopes()
            for sequence in sequences {
                try tables.removeFromOutbox(sequence: sequence)
                if let envelope = kept[sequence], (try? EnvelopeHeader(envelope: envelope))?.kind == .membership { continue }
                try tables.removeSealedEnvelope(sequence: sequence)
            }
        }
    }

    /// Whether this device holds no key of its space yet (it joins by invitation).
    func needsKey() throws -> Bool {
        guard access?.identity != nil else { return false }
        return try ledger(in: try Vault(configuration: configuration)).keyring.keys.isEmpty
    }

    /// Takes this device's key from the newest box for it among `headers` (see SpaceLedger.findKey); true when it gained a key.
    /// When reading stopped at `opening`, only a key that opens it is taken.
    func findKey(in headers: [EnvelopeHeader], opening: SealedChangeSet? = nil) throws -> Bool {
        guard let identity = access?.identity else { return false }
        let vault = try Vault(configuration: configuration)
        return try vault.write {
            var ledger = try ledger(in: vault)
            let before = ledger.keyring.keys
            ledger.findKey(in: headers, identity: identity, opening: opening)
            try ledger.save(SyncTables(vault: vault))
            return ledger.keyring.keys.count > before.count || ledger.keyring.keys.contains { before[$0.key] !== $0.value }
        }
    }

    /// Why this device's change sets wait in the outbox, nil when they upload.
    func uploadWaitReason() throws -> String? {
        guard access?.identity != nil else { return nil }
        let ledger = try ledger(in: try Vault(configuration: configuration))
        guard let role = ledger.membership.currentDevices[device]?.role else {
            return ledger.membership.devices[device] != nil ? "this device was removed from the space"
                : "this device is not a member of the space yet: create the space (SyncSpace.create()) or be added by an owner"
        }
        if role < .writer { return "this device is a reader of the space: its changes stay on the device" }
        return !ledger.canSealCurrentEpoch
            ? "this device has not been given the space's current key yet (a member shares it after a rotation that missed this device)" : nil
    }

    /// Settles what the space's keys owe, when this device is the one to: a rotation a
    /// removal left owed (rule 7), or the current key for members sealed none of it (rule 9),
    /// by any writer or owner that holds the current key.
    /// One entry at a time: nothing is made while an entry of this device's has not come
    /// back from the log. Returns whether it made an entry.
    func settleKeys() throws -> Bool {
        guard access?.identity != nil else { return false }
        let vault = try Vault(configuration: configuration)
        let ledger = try ledger(in: vault)
        guard (ledger.membership.currentDevices[device]?.role ?? .reader) >= .writer,
              ledger.canSealCurrentEpoch else { return false }
        let pendingMembership = try SyncTables(vault: vault).sealedEnvelopes().values
            .contains { (try? EnvelopeHeader(envelope: $0))?.kind == .membership }
        guard !pendingMembership else { return false }
        if ledger.membership.rotationOwed {
            try space.rotateSyncKey()
            return true
        }
        let owed = ledger.keyOwed()
        guard !owed.recipients.isEmpty, owed.mine else { return false }
        try appendMembership([.shareKey(epoch: ledger.membership.epoch)])
        return true
    }

    /// ``settleKeys()``'s rotation alone (tests).
    func rotateIfOwed() throws -> Bool {
        let ledger = try ledger(in: try Vault(configuration: configuration))
        return ledger.membership.rotationOwed ? try settleKeys() : false
    }
}
