import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

/// A vault whose commits sync between a user's devices: every local commit
/// becomes a change set in a durable outbox, and remote change sets are
/// merged in with write transactions that observers see like local ones.
///
/// Open it once per process for the vault file and keep it alive while the
/// app writes: from then on every commit of that file in this process (any
/// thread, any `Vault` instance) is recorded, in the same transaction. The
/// first time, the device gets its id and every object already in the vault
/// is recorded as created, so existing data syncs too.
///
/// ```swift
/// let synced = try SyncedVault(configuration: configuration)
/// try vault.write { vault.add(Task(title: "Call Ana")) }      // recorded
/// let outgoing = try synced.pendingChangeSets()               // seal and upload these
/// if let last = outgoing.last { try synced.acknowledgeUploaded(through: last.sequence) }
/// try synced.apply(received)                                  // merged, notified
/// ```
///
/// Every top-level class syncs and needs a primary key, as in Realm.
/// `AsymmetricObject` classes are upload-only: recorded here, never applied
/// from other devices. Embedded objects sync with their owner (a to-one one
/// property by property, one in a list or map as a whole element); mixed values
/// with their kind. A model sync cannot carry (see the VaultSync article) is
/// refused with ``SyncError/unsupportedModel(_:)``.
/// ``VaultSynchronizer`` carries the change sets through a ``SyncTransport``.
public final class SyncedVault: Sendable {
    /// The vault's configuration (every ``SyncedVault`` method opens the vault with it on the calling thread).
    public let configuration: Vault.Configuration
    /// This device's id, chosen at random the first time and kept in the vault.
    public let device: SyncDeviceID
    /// The space, keys and identity this vault syncs with (nil: only the explicit-sealer methods).
    public let access: SpaceAccess?
    let now: @Sendable () -> UInt64
    /// Records every local commit (registered with the vault file, held here).
    let recorder: CommitRecorder

    /// Enables sync on the vault of `configuration`, taking clock readings from `now` (milliseconds since 1970).
    public convenience init(configuration: Vault.Configuration,
                            now: @escaping @Sendable () -> UInt64 = HybridLogicalClock.wallClockMilliseconds) throws {
        try self.init(configuration: configuration, access: nil, now: now)
    }

    /// Enables sync on the vault of `configuration` for the space of `access`: with an
    /// identity, the device's id is the identity's and every entry it makes is signed.
    public init(configuration: Vault.Configuration, access: SpaceAccess?,
                now: @escaping @Sendable () -> UInt64 = HybridLogicalClock.wallClockMilliseconds) throws {
        self.configuration = configuration
        self.access = access
        self.now = now
        let vault = try Vault(configuration: configuration)
        // The classes known now must all be able to sync (an early, clear error); later ones are checked as they come.
        _ = try SyncedClass.all(in: vault)
        var device = SyncDeviceID(rawValue: 0)
        try vault.write {
            try SyncTables(vault: vault).create()
            let store = SyncStateStore(vault: vault)
            let stored = try store.meta("device").map(SyncDeviceID.init(rawValue:))
            if let identity = access?.identity {
                device = identity.publicKeys.deviceID
                if let stored, stored != device {
                    throw SyncError.invalidKey("this vault syncs as device \(stored), and the identity given is device \(device): open it with the identity it was first synced with")
                }
                if stored == nil { try store.setMeta("device", device.rawValue) }
            } else if let stored {
                device = stored
            } else {
                var generator = SystemRandomNumberGenerator()
                repeat { device = SyncDeviceID(rawValue: generator.next()) } while device.rawValue == 0
                try store.setMeta("device", device.rawValue)
            }
        }
        self.device = device
        recorder = CommitRecorder(device: device, now: now)
        vault.setCommitParticipant(recorder)
        try recorder.adoptUnrecordedObjects(vault)
    }

    /// Calls `handler` after every local commit is noted (inside its transaction:
    /// the commit is visible once the writer's transaction ends). A sync
    /// session uses it to upload at once.
    public func setLocalCommitHandler(_ handler: (@Sendable () -> Void)?) {
        recorder.setNoteHandler(handler)
    }

    // MARK: Outgoing

    /// The local change sets not yet acknowledged, in order. Commits made
    /// since the last call (or the last ``apply(_:serverCursor:quarantined:)``) first
    /// become one change set (see CommitRecorder).
    public func pendingChangeSets() throws -> [ChangeSet] {
        let vault = try Vault(configuration: configuration)
        recorder.setApplying(vault, true)
        defer { recorder.setApplying(vault, false) }
        try vault.write {
            let classes = try SyncedClass.all(in: vault)
            try recorder.finalize(in: vault, classes: classes)
            // Objects received for a class this vault has learned since (see RemoteApplier) get their rows.
            let store = SyncStateStore(vault: vault)
            var applier = RemoteApplier(store: store, classes: classes)
            try applier.adoptObjectsOfNewlyKnownClasses()
            try applier.writeRows()
            try store.flush()
        }
        return try SyncTables(vault: vault).outbox().map(ChangeSetCodec.decode)
    }

    /// The outbox sealed for upload. A change set is sealed once and its envelope kept
    /// until the relay acknowledges it, so every retry of an upload sends the same bytes:
    /// the relay refuses an author sequence it holds with other bytes
    /// (``SyncCloseCode/conflictingChangeSet``), and a new random nonce per attempt would
    /// make an interrupted upload look like one.
    public func sealedPendingChangeSets(with sealer: ChangeSetSealer) throws -> [SealedChangeSet] {
        let pending = try pendingChangeSets()
        guard !pending.isEmpty else { return [] }
        let vault = try Vault(configuration: configuration)
        return try vault.write {
            let tables = SyncTables(vault: vault)
            let kept = try tables.sealedEnvelopes()
            return try pending.map { changeSet in
                // Kept only while it was sealed for this space (a vault synced to another space seals again).
                if let envelope = kept[changeSet.sequence], envelope.count >= 24, Array(envelope[8..<24]) == sealer.space.bytes {
                    return SealedChangeSet(device: changeSet.author, sequence: changeSet.sequence, envelope: envelope)
                }
                let sealed = try sealer.seal(changeSet)
                try tables.setSealedEnvelope(sequence: changeSet.sequence, envelope: sealed.envelope)
                return sealed
            }
        }
    }

    /// Removes the local change sets up to `sequence` from the outbox: the relay holds them.
    public func acknowledgeUploaded(through sequence: UInt64) throws {
        let vault = try Vault(configuration: configuration)
        try vault.write {
            try SyncTables(vault: vault).removeUploaded(through: sequence)
        }
    }

    // MARK: Incoming

    /// Merges received change sets (duplicates and any order allowed) in one
    /// write transaction: each is applied exactly once, after its author's
    /// earlier ones and its dependencies; one that must wait is kept in the
    /// vault until they arrive. `serverCursor`, when given, is stored in the
    /// same transaction (see ``serverCursor()``). Returns how many were applied.
    ///
    /// A change set that does not fit this device's models throws
    /// ``SyncError/schemaMismatch(_:)`` and nothing of the call is applied.
    ///
    /// `quarantined` change sets (delivered, but not authentic) are kept apart in the same
    /// transaction, so the stored position may pass them (see ``QuarantinedChangeSet``).
    @discardableResult
    public func apply(_ changeSets: [ChangeSet], serverCursor: UInt64? = nil, quarantined: [QuarantinedChangeSet] = []) throws -> Int {
        try apply(changeSets, serverCursor: serverCursor, quarantined: quarantined, releasing: [])
    }

    /// ``apply(_:serverCursor:quarantined:)``, also taking the entries at `released` out of the quarantine.
    @discardableResult
    func apply(_ changeSets: [ChangeSet], serverCursor: UInt64? = nil, quarantined: [QuarantinedChangeSet] = [], releasing released: [UInt64]) throws -> Int {
        let vault = try Vault(configuration: configuration)
        recorder.setApplying(vault, true)
        defer { recorder.setApplying(vault, false) }
        return try vault.write {
            try merge(changeSets, in: vault, serverCursor: serverCursor, quarantined: quarantined, releasing: released)
        }
    }

    /// The body of ``apply(_:serverCursor:quarantined:)``, inside the caller's write transaction
    /// (with the recorder told that the vault is applying).
    func merge(_ changeSets: [ChangeSet], in vault: Vault, serverCursor: UInt64?, quarantined: [QuarantinedChangeSet], releasing released: [UInt64]) throws -> Int {
        // Local commits first: their change set comes before the remote ones, as it was made before them.
        let classes = try SyncedClass.all(in: vault)
        try recorder.finalize(in: vault, classes: classes)
        let store = SyncStateStore(vault: vault)
        var inbox = Inbox(store: store, device: device, applied: try store.applied())
        try inbox.load()
        for changeSet in changeSets { inbox.add(changeSet) }
        var clock = HybridLogicalClock(latest: try store.meta("clock") ?? 0, now: now)
        var applier = RemoteApplier(store: store, classes: classes)
        // Objects received for a class this vault did not have then, and has now, get their rows.
        try applier.adoptObjectsOfNewlyKnownClasses()
        let ready = inbox.takeReady()
        for changeSet in ready {
            try applier.merge(changeSet)
            clock.receive(changeSet.latestStamp.clock)
        }
        try applier.writeRows()
        try applier.recordUnknownClasses()
        try inbox.save()
        for position in released { try store.tables.release(quarantinedAt: position) }
        for entry in quarantined { try store.tables.quarantine(entry) }
        try store.setMeta("clock", clock.latest)
        if let serverCursor { try store.setMeta("serverCursor", max(serverCursor, try store.meta("serverCursor") ?? 0)) }
        try store.flush()
        return ready.filter { !$0.operations.isEmpty }.count
    }

    /// Opens again the change sets kept in quarantine, with `sealer`'s keys: those that now
    /// authenticate (a key this device has received since, an envelope format an update of
    /// the app reads) are merged and leave the quarantine, in one transaction. Returns how
    /// many left it.
    @discardableResult
    public func retryQuarantined(with sealer: ChangeSetSealer) throws -> Int {
        let kept = try quarantinedChangeSets()
        guard !kept.isEmpty else { return 0 }
        let delivered = kept.map { DeliveredChangeSet(serverSequence: $0.serverSequence,
                                                      changeSet: SealedChangeSet(device: $0.device, sequence: $0.sequence, envelope: $0.envelope)) }
        let (opened, stillQuarantined) = try sealer.openDelivered(delivered, skipping: device)
        guard !opened.isEmpty else { return 0 }
        let remaining = Set(stillQuarantined.map(\.serverSequence))
        let released = kept.filter { !remaining.contains($0.serverSequence) }
        try apply(opened, releasing: released.map(\.serverSequence))
        return released.count
    }

    /// The change sets this device skipped because they did not authenticate, oldest first.
    public func quarantinedChangeSets() throws -> [QuarantinedChangeSet] {
        let vault = try Vault(configuration: configuration)
        return try SyncTables(vault: vault).quarantined()
    }

    /// How far this device has taken in the relay's log (stored with ``apply(_:serverCursor:quarantined:)``).
    public func serverCursor() throws -> UInt64 {
        let vault = try Vault(configuration: configuration)
        return try SyncStateStore(vault: vault).meta("serverCursor") ?? 0
    }

    /// For each other device, the last of its change sets applied here.
    public func appliedChangeSets() throws -> [SyncDeviceID: UInt64] {
        let vault = try Vault(configuration: configuration)
        return try SyncStateStore(vault: vault).applied()
    }
}
