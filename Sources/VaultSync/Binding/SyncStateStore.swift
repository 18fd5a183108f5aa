import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

/// Sync's bookkeeping inside the vault: sealed by the same VFS as every page,
/// written in the same transactions as the objects it describes, so it can
/// never disagree with them after a crash.
///
///   _vaultkit_sync_meta     (key, value)        device id, clock, last local sequence, server cursor
///   _vaultkit_sync_objects  (class, pk, row, state)
///                           each synced object's merge state (ObjectStateCoding), and its row
///                           (NULL when deleted: the state keeps its incarnation)
///   _vaultkit_sync_pending  (id, clock, rows)   local commits not yet made into a change set (CommitRecorder)
///   _vaultkit_sync_outbox   (sequence, changeset)  local change sets not yet acknowledged
///   _vaultkit_sync_sealed   (sequence, envelope)   outbox entries as sealed for upload (retries send the same bytes)
///   _vaultkit_sync_applied  (device, sequence)     the last change set of each device applied
///   _vaultkit_sync_inbox    (device, sequence, changeset)  received, waiting for their predecessors
///   _vaultkit_sync_quarantine (server_sequence, device, sequence, reason, envelope)
///                           received envelopes that did not authenticate, skipped (QuarantinedChangeSet)
enum SyncTables {
    static let createSQL = """
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_objects(class TEXT NOT NULL, pk TEXT NOT NULL, row INTEGER, state BLOB NOT NULL, PRIMARY KEY(class, pk)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS _vaultkit_sync_objects_row ON _vaultkit_sync_objects(class, row);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_pending(id INTEGER PRIMARY KEY, clock INTEGER NOT NULL, rows BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_outbox(sequence INTEGER PRIMARY KEY, changeset BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_applied(device INTEGER PRIMARY KEY, sequence INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_inbox(device INTEGER NOT NULL, sequence INTEGER NOT NULL, changeset BLOB NOT NULL, PRIMARY KEY(device, sequence));
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_sealed(sequence INTEGER PRIMARY KEY, envelope BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_quarantine(server_sequence INTEGER PRIMARY KEY, device INTEGER NOT NULL, sequence INTEGER NOT NULL, reason TEXT NOT NULL, envelope BLOB NOT NULL);
        """
    static let existsSQL = "SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_sync_meta'"
}

/// The sync tables as one transaction sees them, with the object states it read cached.
final class SyncStateStore {
    let vault: Vault
    private struct Entry {
        var state: ObjectState
        var row: Int64?
    }
    private var entries: [SyncObjectKey: Entry] = [:]
    private var dirty: Set<SyncObjectKey> = []
    private var rowLookups: [String: [Int64: SyncObjectKey]] = [:]

    init(vault: Vault) { self.vault = vault }

    // MARK: Objects

    /// The state of `key` (never seen: incarnation 0).
    func state(of key: SyncObjectKey) throws -> ObjectState { try entry(key).state }

    /// The row of `key`, if it has one.
    func row(of key: SyncObjectKey) throws -> Int64? { try entry(key).row }

    /// The object whose row is `rowID` in `className`, if sync knows it.
    func key(className: String, row rowID: Int64) throws -> SyncObjectKey? {
        if let known = rowLookups[className]?[rowID] { return known }
        let rows = try vault.syncFetch("SELECT state FROM _vaultkit_sync_objects INDEXED BY _vaultkit_sync_objects_row WHERE class = ? AND row = ?", [.text(className), .integer(rowID)])
        guard let blob = rows.first?[0].data else { return nil }
        let (key, state) = try ObjectStateCoding.decode([UInt8](blob))
        if entries[key] == nil { entries[key] = Entry(state: state, row: rowID) }
        guard entries[key]?.row == rowID else { return nil }
        rowLookups[className, default: [:]][rowID] = key
        return key
    }

    /// Records `state` (and `row`) for `key`; written by ``flush()``.
    func update(_ key: SyncObjectKey, state: ObjectState, row: Int64?) throws {
        if let old = try entry(key).row, old != row { rowLookups[key.className]?[old] = nil }
        entries[key] = Entry(state: state, row: row)
        if let row { rowLookups[key.className, default: [:]][row] = key }
        dirty.insert(key)
    }

    /// A reference to the present object `key` for a link; nil when it is absent.
    func reference(to key: SyncObjectKey) throws -> SyncObjectReference? {
        let state = try state(of: key)
        guard state.isPresent else { return nil }
        return SyncObjectReference(className: key.className, primaryKey: key.primaryKey, incarnation: state.incarnation)
    }

    /// A link to the object at `rowID` of `className` (its key and present
    /// incarnation); nil when sync does not know the row as a present object.
    func link(className: String, row rowID: Int64) throws -> SyncValue? {
        guard let key = try key(className: className, row: rowID), let reference = try reference(to: key) else { return nil }
        return .link(reference)
    }

    /// A stored link of `property` (a row id of its target class) in sync form; null when it is null or unknown.
    func linkValue(_ property: Property, _ stored: DatabaseValue) throws -> SyncValue {
        guard let target = property.objectClassName, let rowID = stored.int64 else { return .null }
        return try link(className: target, row: rowID) ?? .null
    }

    /// Whether a link names its target's present incarnation.
    func isLive(_ reference: SyncObjectReference) throws -> Bool {
        let target = try state(of: reference.key)
        return target.isPresent && target.incarnation == reference.incarnation
    }

    /// Writes every changed state.
    func flush() throws {
        for key in dirty.sorted(by: { ($0.className, $0.primaryKey.canonicalText) < ($1.className, $1.primaryKey.canonicalText) }) {
            guard let entry = entries[key] else { continue }
            let bytes = try ObjectStateCoding.encode(entry.state, of: key)
            try vault.syncExecute("INSERT OR REPLACE INTO _vaultkit_sync_objects(class, pk, row, state) VALUES (?, ?, ?, ?)",
                                  [.text(key.className), .text(key.primaryKey.canonicalText), entry.row.map { .integer($0) } ?? .null, .blob(Data(bytes))])
        }
        dirty = []
    }

    private func entry(_ key: SyncObjectKey) throws -> Entry {
        if let cached = entries[key] { return cached }
        let rows = try vault.syncFetch("SELECT row, state FROM _vaultkit_sync_objects WHERE class = ? AND pk = ?",
                                       [.text(key.className), .text(key.primaryKey.canonicalText)])
        var entry = Entry(state: ObjectState(), row: nil)
        if let row = rows.first, let blob = row[1].data {
            entry = Entry(state: try ObjectStateCoding.decode([UInt8](blob)).state, row: row[0].int64)
        }
        entries[key] = entry
        return entry
    }

    // MARK: Metadata

    func meta(_ key: String) throws -> UInt64? {
        try vault.syncFetch("SELECT value FROM _vaultkit_sync_meta WHERE key = ?", [.text(key)]).first?[0].int64.map { UInt64(bitPattern: $0) }
    }

    func setMeta(_ key: String, _ value: UInt64) throws {
        try vault.syncExecute("INSERT OR REPLACE INTO _vaultkit_sync_meta(key, value) VALUES (?, ?)", [.text(key), .integer(Int64(bitPattern: value))])
    }

    /// For each device, the last of its change sets applied here.
    func applied() throws -> [SyncDeviceID: UInt64] {
        var result: [SyncDeviceID: UInt64] = [:]
        for row in try vault.syncFetch("SELECT device, sequence FROM _vaultkit_sync_applied") {
            guard let device = row[0].int64, let sequence = row[1].int64 else { continue }
            result[SyncDeviceID(rawValue: UInt64(bitPattern: device))] = UInt64(bitPattern: sequence)
        }
        return result
    }

    func setApplied(_ device: SyncDeviceID, _ sequence: UInt64) throws {
        try vault.syncExecute("INSERT OR REPLACE INTO _vaultkit_sync_applied(device, sequence) VALUES (?, ?)",
                              [.integer(Int64(bitPattern: device.rawValue)), .integer(Int64(bitPattern: sequence))])
    }
}
