import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

// MARK: - Recording commits off the write path
//
// A local commit must not wait for sync. So the commit itself only leaves a
// note in its own transaction: one row of `_vaultkit_sync_pending` holding
// the clock reading of the commit and which rows it inserted, deleted and
// wrote (class names and row ids, delta-coded: a few bytes per row). Nothing
// is read, nothing is diffed.
//
// The change set is made later, when the device next needs it — before an
// upload (`pendingChangeSets()`), before remote change sets are merged
// (`apply(_:)`), each inside a write transaction — by LocalRecorder, which
// compares the noted rows with their merge states. The merge states describe
// the rows as of the last change set, so the difference is exactly what the
// commits since then did; commits noted together become one change set (an
// object edited twice uploads its final value once).
//
// Stamps keep the commits' order and time: an object's operations are stamped
// with the clock reading of the last commit that touched it, raised above every
// stamp the device has issued or received (the hybrid logical clock's rule),
// so a commit made after a remote change was merged still wins over it.

/// Notes every local commit of a synced vault file, and turns the notes into change sets.
final class CommitRecorder: VaultCommitParticipant, @unchecked Sendable {
    private let device: SyncDeviceID
    private let now: @Sendable () -> UInt64
    /// Vaults (by identity) whose transactions apply remote change sets: not noted.
    private let lock = NSLock()
    private var applying: Set<ObjectIdentifier> = []
    /// Told after each noted commit (a sync session wakes to upload it).
    private var onNote: (@Sendable () -> Void)?

    func setNoteHandler(_ handler: (@Sendable () -> Void)?) { lock.withLock { onNote = handler } }

    /// Tells the note handler that the outbox grew outside a commit of the app's (a membership entry).
    func noteExternal() { lock.withLock { onNote }?() }

    init(device: SyncDeviceID, now: @escaping @Sendable () -> UInt64) {
        self.device = device
        self.now = now
    }

    /// Notes a local commit (see VaultCommitParticipant): one INSERT.
    func vaultWillCommit(_ vault: Vault, rows: CommittedRows) throws {
        let identity = ObjectIdentifier(vault)
        if lock.withLock({ applying.contains(identity) }) { return }
        try note(rows, in: vault)
        lock.withLock { onNote }?()
    }

    /// Marks `vault`'s transactions as applying remote change sets (not noted) or not.
    func setApplying(_ vault: Vault, _ on: Bool) {
        let identity = ObjectIdentifier(vault)
        lock.withLock { _ = on ? applying.insert(identity).inserted : applying.remove(identity) != nil }
    }

    private func note(_ rows: CommittedRows, in vault: Vault) throws {
        try SyncTables(vault: vault).addPendingCommit(clock: now() << 16, rows: PendingRows.encode(rows))
    }

    /// Turns the noted commits into the device's next change set in the outbox
    /// (nothing when they changed nothing sync sees). Inside a write transaction.
    func finalize(in vault: Vault, classes: [String: SyncedClass]) throws {
        let tables = SyncTables(vault: vault)
        let entries = try tables.pendingCommits()
        guard !entries.isEmpty else { return }
        var rows = CommittedRows()
        var clocks: [String: [Int64: UInt64]] = [:]
        for (clock, encoded) in entries {
            let noted = try PendingRows.decode(encoded)
            for (className, rowIDs) in noted.inserted { rows.inserted[className, default: []].formUnion(rowIDs) }
            for (className, rowIDs) in noted.deleted { rows.deleted[className, default: []].formUnion(rowIDs) }
            for (className, written) in noted.written { rows.written[className, default: []].formUnion(written) }
            for (className, rowIDs) in noted.inserted.merging(noted.deleted, uniquingKeysWith: { $0.union($1) })
                .merging(noted.written, uniquingKeysWith: { $0.union($1) }) {
                for rowID in rowIDs { clocks[className, default: [:]][rowID] = clock }
            }
        }
        try tables.removePendingCommits()
        let store = SyncStateStore(vault: vault)
        var recorder = LocalRecorder(store: store, classes: classes, device: device, latest: try store.meta("clock") ?? 0,
                                     commitClock: { className, rowID in clocks[className]?[rowID] ?? 0 })
        try recorder.record(rows)
        guard !recorder.operations.isEmpty else { return }
        let sequence = (try store.meta("sequence") ?? 0) + 1
        var dependencies = try store.applied()
        dependencies[device] = nil
        let changeSet = ChangeSet(author: device, sequence: sequence, dependencies: dependencies, operations: recorder.operations)
        try tables.addToOutbox(sequence: sequence, changeSet: try ChangeSetCodec.encode(changeSet))
        try store.setMeta("sequence", sequence)
        try store.setMeta("clock", recorder.latest)
        try store.flush()
    }

    /// Notes the objects that were in the vault before sync knew them, as created.
    func adoptUnrecordedObjects(_ vault: Vault) throws {
        var rows = CommittedRows()
        for className in try SyncedClass.all(in: vault).keys.sorted() {
            let known = try SyncTables(vault: vault).knownRows(className: className)
            let unknown = try vault.storedRowIDs(className: className).filter { !known.contains($0) }
            if !unknown.isEmpty { rows.inserted[className] = Set(unknown) }
        }
        guard !rows.inserted.isEmpty else { return }
        try vault.write { try note(rows, in: vault) }
    }
}

/// The rows of a noted commit: per class, the row ids inserted, deleted and
/// written, each list sorted and delta-coded (LocalRecorder compares every field).
enum PendingRows {
    static func encode(_ rows: CommittedRows) -> [UInt8] {
        var writer = ByteWriter()
        let classes = Set(rows.inserted.keys).union(rows.deleted.keys).union(rows.written.keys).sorted()
        writer.varint(UInt64(classes.count))
        for className in classes {
            writer.text(className)
            for rowIDs in [rows.inserted[className] ?? [], rows.deleted[className] ?? [], rows.written[className] ?? []] {
                writer.varint(UInt64(rowIDs.count))
                var previous: Int64 = 0
                for rowID in rowIDs.sorted() {
                    writer.zigzag(rowID &- previous)
                    previous = rowID
                }
            }
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(SyncError) -> CommittedRows {
        var reader = ByteReader(bytes)
        var rows = CommittedRows()
        for _ in 0..<(try reader.count()) {
            let className = try reader.text()
            var lists: [Set<Int64>] = []
            for _ in 0..<3 {
                var rowIDs = Set<Int64>()
                var previous: Int64 = 0
                for _ in 0..<(try reader.count()) {
                    previous = previous &+ (try reader.zigzag())
                    rowIDs.insert(previous)
                }
                lists.append(rowIDs)
            }
            if !lists[0].isEmpty { rows.inserted[className] = lists[0] }
            if !lists[1].isEmpty { rows.deleted[className] = lists[1] }
            if !lists[2].isEmpty { rows.written[className] = lists[2] }
        }
        guard reader.remaining == 0 else { throw reader.fail("bytes after the noted rows") }
        return rows
    }
}
