import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

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

    /// The sync tables of ``vault``.
    let tables: SyncTables

    init(vault: Vault) {
        self.vault = vault
        tables = SyncTables(vault: vault)
    }

    // MARK: Objects

    /// The state of `key` (never seen: incarnation 0).
    func state(of key: SyncObjectKey) throws -> ObjectState { try entry(key).state }

    /// The row of `key`, if it has one.
    func row(of key: SyncObjectKey) throws -> Int64? { try entry(key).row }

    /// The object whose row is `rowID` in `className`, if sync knows it.
    func key(className: String, row rowID: Int64) throws -> SyncObjectKey? {
        if let known = rowLookups[className]?[rowID] { return known }
        guard let stored = try tables.objectState(className: className, row: rowID) else { return nil }
        let (key, state) = try ObjectStateCoding.decode(stored)
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
            try tables.setObject(className: key.className, primaryKey: key.primaryKey.canonicalText, row: entry.row, state: bytes)
        }
        dirty = []
    }

    private func entry(_ key: SyncObjectKey) throws -> Entry {
        if let cached = entries[key] { return cached }
        var entry = Entry(state: ObjectState(), row: nil)
        if let stored = try tables.object(className: key.className, primaryKey: key.primaryKey.canonicalText) {
            entry = Entry(state: try ObjectStateCoding.decode(stored.state).state, row: stored.row)
        }
        entries[key] = entry
        return entry
    }

    // MARK: Metadata

    func meta(_ key: String) throws -> UInt64? { try tables.meta(key) }

    func setMeta(_ key: String, _ value: UInt64) throws { try tables.setMeta(key, value) }

    /// For each device, the last of its change sets applied here.
    func applied() throws -> [SyncDeviceID: UInt64] { try tables.applied() }

    func setApplied(_ device: SyncDeviceID, _ sequence: UInt64) throws { try tables.setApplied(device, sequence) }
}
