import CSodium
import Foundation

// MARK: - Reading a signed log
//
// A device judges every entry of its space's log at the entry's place, in
// log order, with nothing but the entries before it (MembershipState's rules)
// and the entry's own bytes. So every device that reads the same log reaches
// the same verdicts, whatever it received when.
//
// AN ENTRY AT POSITION p, SIGNED BY DEVICE d
//
//   version 1          applied as before while the space has no members;
//                      refused (unsigned) once a genesis came before p.
//   change set         refused unless d was a member at p (added before p,
//                      not removed before p), the signature verifies with
//                      d's key, and d's role is writer or owner. Then opened
//                      with the key of its epoch; a key this device lacks
//                      quarantines it (it may arrive later).
//   membership entry   its signature checked with d's key (the keys it names
//                      itself for a genesis), opened with the key of its epoch
//                      (or one a box in its own header gives this device),
//                      and applied by the rules. A box for this device, of an
//                      epoch the membership has reached, gives it that key,
//                      and the wrapped keys lead to the older ones. A device
//                      that lacks the key stops reading here (everything after
//                      depends on the entry) and looks ahead in the headers
//                      for a box of its own: a device added while another
//                      member rotated is sealed the new key by a key share
//                      (rule 9), and reads on.
//
// A refused entry is recorded (RefusedChangeSet) and stands in the inbox as
// an empty change set of its device and sequence, so that device's later
// change sets do not wait for it. A membership entry also stands there as an
// empty change set: it shares its device's sequence numbers with its change
// sets, so the relay stores each once, and the inbox sees no gap.

/// What one device knows of its space's trust: the membership the log's entries
/// make, the keys it holds, and each rotation's wrapped previous key.
struct SpaceLedger {
    let space: SyncSpaceID
    /// This device.
    let device: SyncDeviceID
    private(set) var membership: MembershipState
    private(set) var keyring: SpaceKeyring
    /// Each rotation's wrapped previous key, by the rotation's epoch.
    private(set) var wraps: [UInt32: [UInt8]] = [:]
    /// The devices each epoch's key was sealed to (the genesis device holds epoch 0's).
    private(set) var recipients: [UInt32: Set<SyncDeviceID>] = [:]
    /// The epochs whose key this device took from a verified entry (or was given, or made):
    /// a key found ahead in the headers only reads, until the entry that holds it is verified.
    private(set) var confirmed: Set<UInt32> = []
    /// Changes not yet written: membership entries and epochs.
    private var newEntries: [(UInt64, SyncDeviceID, [UInt8])] = []
    private var changedEpochs: Set<UInt32> = []

    /// Whether the space has members (a genesis entry was applied).
    var isSigned: Bool { membership.genesis != nil }

    /// The ledger stored in `tables`, with `syncKey` (when the device was given one) as epoch 0's key.
    static func load(_ tables: SyncTables, space: SyncSpaceID, device: SyncDeviceID, syncKey: SyncKey?) throws -> SpaceLedger {
        var ledger = SpaceLedger(space: space, device: device, membership: MembershipState(space: space), keyring: SpaceKeyring(space: space))
        for (epoch, key, wrapped, recipients, confirmed) in try tables.epochs() {
            if let key { ledger.keyring.insert(try SyncKey(bytes: key), epoch: epoch) }
            if confirmed { ledger.confirmed.insert(epoch) }
            if !wrapped.isEmpty { ledger.wraps[epoch] = wrapped }
            if !recipients.isEmpty { ledger.recipients[epoch] = Set(recipients) }
        }
        if let syncKey {
            ledger.keyring.insert(syncKey, epoch: 0)
            ledger.confirmed.insert(0)
        }
        for (position, signer, operations) in try tables.membershipEntries() {
            ledger.membership.apply(MembershipEntry(signer: signer, operations: try MembershipCodec.decode(operations)), at: position, replaying: true)
        }
        return ledger
    }

    /// Writes what changed since ``load(_:space:device:syncKey:)``.
    mutating func save(_ tables: SyncTables) throws {
        for (position, signer, operations) in newEntries { try tables.addMembershipEntry(position: position, signer: signer, operations: operations) }
        for epoch in changedEpochs.sorted() {
            var key: Data?
            if let held = keyring.keys[epoch] { key = try held.withBytes { (bytes) throws(SyncError) in Data(bytes) } }
            try tables.setEpoch(epoch, key: key, wrapped: wraps[epoch], recipients: recipients[epoch].map { Array($0) }, confirmed: confirmed.contains(epoch))
        }
        newEntries = []
        changedEpochs = []
    }

    /// Holds `key` as `epoch`'s (a space this device creates).
    mutating func adopt(_ key: SyncKey, epoch: UInt32) {
        keyring.insert(key, epoch: epoch)
        confirmed.insert(epoch)
        changedEpochs.insert(epoch)
    }

    /// Whether this device may seal under the space's current epoch: it holds that epoch's
    /// key, taken from a verified entry (a key only found ahead may be a forgery's).
    var canSealCurrentEpoch: Bool { keyring.keys[membership.epoch] != nil && confirmed.contains(membership.epoch) }

    /// The epoch new entries are sealed under: the membership's, when this device holds its key.
    var sealingEpoch: UInt32 {
        keyring.keys[membership.epoch] != nil ? membership.epoch : keyring.current
    }

    /// A sealer for this device's entries (signing as `identity`), or for reading only.
    func sealer(identity: DeviceIdentity?) throws(SyncError) -> ChangeSetSealer {
        try ChangeSetSealer(space: space, keys: keyring.keys, currentKeyID: sealingEpoch, identity: identity)
    }

    /// What reading an entry came to.
    enum Verdict {
        /// A change set to merge.
        case changeSet(ChangeSet)
        /// A membership entry applied, or this device's own entry: stands as an empty change set.
        case consumed
        /// Refused by the trust rules.
        case refused(SyncRefusal)
        /// Could not be opened (a key this device lacks, damage): kept apart, tried again later.
        case quarantined(SyncError)
        /// A membership entry this device cannot open: reading stops before it.
        case stop(SyncError)
    }

    /// Judges the entry `sealed` at `position` (after every earlier one), as `identity`.
    mutating func read(_ sealed: SealedChangeSet, at position: UInt64, identity: DeviceIdentity?) throws(SyncError) -> Verdict {
        let header: EnvelopeHeader
        do { header = try EnvelopeHeader(envelope: sealed.envelope) } catch { return .quarantined(error) }
        let own = header.device == device
        guard header.isSigned else {
            if let genesis = membership.genesis, genesis < position { return own ? .consumed : .refused(.unsigned) }
            return own ? .consumed : open(sealed, identity: identity)
        }
        if header.kind == .membership { return try readMembership(sealed, header, at: position, identity: identity) }
        if own { return .consumed }
        guard let member = membership.devices[header.device], member.added < position else { return .refused(.unknownSigner) }
        guard let role = membership.role(of: header.device, at: position) else { return .refused(.removedSigner) }
        guard header.signatureVerifies(sealed.envelope, signer: member.keys) else { return .refused(.badSignature) }
        guard role >= .writer else { return .refused(.readerWrite) }
        return open(sealed, identity: identity)
    }

    private func open(_ sealed: SealedChangeSet, identity: DeviceIdentity?) -> Verdict {
        do {
            let reader = try sealer(identity: identity)
            let (header, body) = try reader.openBody(sealed)
            guard header.kind == .changeSet else { return .quarantined(.malformedChangeSet("a membership entry in an unsigned envelope")) }
            return .changeSet(try reader.decode(body, of: sealed))
        } catch {
            return .quarantined(error)
        }
    }

    private mutating func readMembership(_ sealed: SealedChangeSet, _ header: EnvelopeHeader, at position: UInt64,
                                         identity: DeviceIdentity?) throws(SyncError) -> Verdict {
        // A member's entry is checked before it is opened; a genesis names its signer's keys inside.
        // The server stores a signed entry only when its signature verifies, so a membership entry
        // whose signature or sealing fails was altered on the way: reading stops here, rather than
        // go on with a membership other devices may not have.
        let member = membership.devices[header.device]
        if let member, !header.signatureVerifies(sealed.envelope, signer: member.keys) {
            return .stop(.authenticationFailed(device: sealed.device, sequence: sealed.sequence))
        }
        guard member != nil || membership.genesis == nil else { return .refused(.unknownSigner) }
        // A box for this device may hold the very key the entry is sealed under (a key share).
        var reader = keyring
        if let identity, header.boxes[device] != nil, !confirmed.contains(header.boxEpoch) {
            try? reader.receive(EpochRotation(epoch: header.boxEpoch, boxes: header.boxes, wrappedPrevious: header.wrappedPrevious.isEmpty ? (wraps[header.boxEpoch] ?? []) : header.wrappedPrevious),
                                as: device, identity: identity, history: wraps.mapValues { EpochRotation(epoch: 0, boxes: [:], wrappedPrevious: $0) })
        }
        let body: [UInt8]
        do {
            (_, body) = try ChangeSetSealer(space: space, keys: reader.keys, currentKeyID: sealingEpoch, identity: identity).openBody(sealed)
        } catch {
            // A key only found ahead that does not open it is no evidence of tampering: wait for the right one.
            if case .authenticationFailed = error, !confirmed.contains(header.keyID) { return .stop(.unknownKey(keyID: header.keyID)) }
            return .stop(error)
        }
        let operations: [MembershipOperation]
        do { operations = try MembershipCodec.decode(body) } catch { return .refused(.invalidMembershipEntry(error.description)) }
        if member == nil {
            guard case .genesis(let keys)? = operations.first else { return .refused(.unknownSigner) }
            guard header.signatureVerifies(sealed.envelope, signer: keys) else { return .refused(.badSignature) }
        }
        // A rotation's header holds the new epoch's boxes and the wrapped previous key; anything else, boxes of a reached epoch.
        let rotation = operations.compactMap { operation -> UInt32? in if case .rotate(let epoch) = operation { epoch } else { nil } }.first
        if let rotation {
            guard header.boxEpoch == rotation, !header.wrappedPrevious.isEmpty else { return .refused(.invalidMembershipEntry("a rotation without its keys")) }
        } else {
            guard header.wrappedPrevious.isEmpty, header.boxEpoch <= membership.epoch else { return .refused(.invalidMembershipEntry("key boxes of an epoch the space has not reached")) }
        }
        // Keys go to members only: every box's device must be a member once the entry applies.
        // A rotation whose boxes reach a device another entry removed first (two removals at
        // once) loses its rotation and keeps its removal (rule 7); any other such entry is refused.
        let epochBefore = membership.epoch
        var applied = operations
        var next = membership
        if let refusal = next.apply(MembershipEntry(signer: header.device, operations: applied), at: position) {
            membership.apply(MembershipEntry(signer: header.device, operations: applied), at: position)
            return .refused(.invalidMembershipEntry(refusal.reason))
        }
        var boxesCount = true
        if !Set(header.boxes.keys).isSubset(of: Set(next.currentDevices.keys)) {
            guard rotation != nil, operations.contains(where: \.isRemoval) else {
                membership.apply(MembershipEntry(signer: header.device, operations: []), at: position)
                return .refused(.invalidMembershipEntry("keys sealed to a device that is not a member"))
            }
            applied = operations.filter { if case .rotate = $0 { false } else { true } }
            next = membership
            if let refusal = next.apply(MembershipEntry(signer: header.device, operations: applied), at: position) {
                membership.apply(MembershipEntry(signer: header.device, operations: applied), at: position)
                return .refused(.invalidMembershipEntry(refusal.reason))
            }
            boxesCount = false
        }
        membership = next
        newEntries.append((position, header.device, applied == operations ? body : MembershipCodec.encode(applied)))
        if case .genesis? = operations.first {
            recipients[0, default: []].insert(header.device)
            changedEpochs.insert(0)
        }
        // A rotation's boxes count only when its rotation applied (one the rules refused, rule 7,
        // brings no key); other entries' boxes, when of an epoch the membership has reached.
        if rotation != nil { boxesCount = boxesCount && membership.epoch == header.boxEpoch && epochBefore != membership.epoch }
        if boxesCount, header.boxEpoch <= membership.epoch, !header.boxes.isEmpty {
            recipients[header.boxEpoch, default: []].formUnion(header.boxes.keys)
            changedEpochs.insert(header.boxEpoch)
            if rotation != nil {
                wraps[header.boxEpoch] = header.wrappedPrevious
            }
            if identity != nil, header.boxes[device] != nil, !confirmed.contains(header.boxEpoch), reader.keys[header.boxEpoch] != nil {
                // The key of a verified entry's box replaces one found ahead (which it confirms, or was forged).
                let before = Set(keyring.keys.keys)
                keyring = reader
                confirmed.insert(header.boxEpoch)
                changedEpochs.formUnion(Set(keyring.keys.keys).subtracting(before))
                changedEpochs.insert(header.boxEpoch)
            }
        }
        return .consumed
    }

    /// The members sealed no key of the current epoch (a device added while another member
    /// rotated), and whether this device can share it with them: it is a writer or owner and
    /// holds the key. Every such device may: a share that comes second changes nothing, and
    /// none waits for one particular device to come online.
    func keyOwed() -> (recipients: [SyncDeviceID: DevicePublicKeys], mine: Bool) {
        let epoch = membership.epoch
        let holders = recipients[epoch] ?? []
        let owed = membership.currentDevices.filter { !holders.contains($0.key) }.mapValues(\.keys)
        let mayShare = (membership.currentDevices[device]?.role ?? .reader) >= .writer && canSealCurrentEpoch
        return (owed, mayShare)
    }

    /// The newest key box for this device in `headers` (a device that joins, or one that
    /// stopped at an entry under a key it lacks, finds its way on with it before it reads
    /// further). Unverified until the log is read: an entry opened with it still has to be
    /// signed by a member.
    mutating func findKey(in headers: [EnvelopeHeader], identity: DeviceIdentity, opening: SealedChangeSet?) {
        // The first rotation to an epoch in the log is the one the rules accept (a later one to
        // the same epoch is refused), so the first wrapped key of an epoch is kept.
        for header in headers {
            if !header.wrappedPrevious.isEmpty, wraps[header.boxEpoch] == nil {
                wraps[header.boxEpoch] = header.wrappedPrevious
                changedEpochs.insert(header.boxEpoch)
            }
        }
        // Newest first; never in place of a key taken from a verified entry. When reading stopped
        // at an entry (`opening`), only a key that opens it is taken: a box anyone could have
        // sealed to this device's public key gives nothing else.
        for header in headers.reversed() where header.boxes[device] != nil && !confirmed.contains(header.boxEpoch) {
            let history = wraps.mapValues { EpochRotation(epoch: 0, boxes: [:], wrappedPrevious: $0) }
            let wrapped = header.wrappedPrevious.isEmpty ? (wraps[header.boxEpoch] ?? []) : header.wrappedPrevious
            var candidate = keyring
            guard (try? candidate.receive(EpochRotation(epoch: header.boxEpoch, boxes: header.boxes, wrappedPrevious: wrapped), as: device,
                                          identity: identity, history: history)) != nil else { continue }
            if let opening {
                let opens = (try? ChangeSetSealer(space: space, keys: candidate.keys, currentKeyID: header.boxEpoch, identity: nil).openBody(opening)) != nil
                guard opens else { continue }
            }
            let before = Set(keyring.keys.keys)
            keyring = candidate
            changedEpochs.formUnion(Set(keyring.keys.keys).subtracting(before))
            changedEpochs.insert(header.boxEpoch)
            return
        }
    }
}
