import Foundation
import VaultCore

// MARK: - Row ids are never given twice while a process holds objects
//
// A managed object is its class's table and a row id. SQLite gives a new row
// the largest row id in the table plus one, so deleting the rows with the
// largest ids frees those ids, and the next insert takes one again. An object
// the app still held for a deleted row — a detail screen's item, a
// `ThreadSafeReference`, an `ObjectKeyIdentifiable` id in a SwiftUI list —
// would then come back to life as the new object: `isInvalidated` false, the
// new object's values, writes landing on it. Realm's object keys are not
// reused like that, and VaultKit's must not be either.
//
// The rule: per file, this process remembers the largest row id each table has
// held since the process first wrote to it (loaded with `max("_vk_id")` at the
// first write transaction, before anything can be deleted, and raised by every
// object added). An object added whose row got an id at or below that mark
// (only possible after the rows above it were deleted) is renumbered to the
// mark plus one inside the same transaction, before anything refers to it; the
// change capture is told, so observers see one insertion of the final id.
//
// A class whose primary key is a required Int stores the key as the row id
// (see the storage essay in Vault.swift): there the key is the identity, and a
// new object with a deleted object's key is given its row id, as it must be.
//
// Scope. The mark lives in the file's ChangeCoordinator, so it is shared by
// every vault instance of the process and lasts as long as any of them is
// open — that is, as long as any managed object exists, since each holds its
// vault. Ids freed by another process, or by rows inserted without the object
// layer (a sync apply, an import), are not covered; Realm Core's own object
// keys are likewise a per-process counter.

/// The largest row id each table of one file has held in this process.
final class RowIDHighWater: Sendable {
    private struct State {
        var loaded: Set<String> = []
        var marks: [String: Int64] = [:]
    }
    private let state = Locked(State())

    /// The tables of `tables` whose mark is not loaded yet.
    func unloaded(_ tables: some Sequence<String>) -> [String] {
        state.withLock { state in tables.filter { !state.loaded.contains($0) } }
    }

    /// Records the largest row id `table` holds when first written in this process.
    func load(_ table: String, largest: Int64) {
        state.withLock { state in
            guard state.loaded.insert(table).inserted else { return }
            state.marks[table] = max(state.marks[table] ?? 0, largest)
        }
    }

    /// Takes the id SQLite gave a new row of `table`: nil when it is above every id
    /// the table has held (the mark rises to it), else the id to renumber it to.
    func claim(_ table: String, inserted rowID: Int64) -> Int64? {
        state.withLock { state in
            let mark = state.marks[table] ?? 0
            if rowID > mark {
                state.marks[table] = rowID
                return nil
            }
            state.marks[table] = mark + 1
            return mark + 1
        }
    }
}

extension Vault {
    /// Loads the marks of this vault's classes not loaded yet (at the start of a write transaction).
    func loadRowIDHighWater(on writer: Database) throws {
        let marks = session.coordinator.rowIDHighWater
        let tables = marks.unloaded(session.schemas.byName.keys)
        for className in tables {
            guard let schema = session.schemas.byName[className] else { continue }
            let largest = try writer.fetchOne("SELECT max(\"_vk_id\") FROM \(schema.tableName)")?[0].int64 ?? 0
            marks.load(className, largest: largest)
        }
    }

    /// The id a just-inserted row keeps: `rowID`, or a fresh one above every id its
    /// table has held in this process (see the essay above), the row renumbered to it.
    func keepRowIDUnused(_ rowID: Int64, schema: ObjectSchema, on db: Database) throws -> Int64 {
        // A class keyed by a required Int primary key stores the key as the row id: the key is the identity.
        if let key = schema.primaryKeyIndex, schema.properties[key].isRowIDKey { return rowID }
        guard let fresh = session.coordinator.rowIDHighWater.claim(schema.className, inserted: rowID) else { return rowID }
        try db.execute("UPDATE \(schema.tableName) SET \"_vk_id\" = ? WHERE \"_vk_id\" = ?", arguments: [.integer(fresh), .integer(rowID)])
        session.write.capture?.renumberInsertedRow(table: schema.className, from: rowID, to: fresh)
        return fresh
    }
}
