import Foundation
import VaultCore

// MARK: - Property writes, one UPDATE per object
//
// Realm code sets an object's properties one by one:
//
//     try vault.write {
//         person.name = "Ada"
//         person.age = 36
//         person.email = "ada@example.org"
//     }
//
// Sent as they come, that is three `UPDATE` statements on one row: three
// B-tree descents, three rewrites of the record, three passes over its
// indexes. Instead a setter records the value in the session's *pending row
// update* (and in the object's own cache, so reads see it at once), and the
// row is written with one `UPDATE … SET name = ?, age = ?, email = ? WHERE
// _vk_id = ?` when the write moves on:
//
// - a setter of another row flushes the pending one first;
// - anything that reaches SQLite during the write (`withDatabase`: a query,
//   a lookup, an insert, a delete, a collection change, another object's
//   reload) flushes it first, so SQL never sees a row older than the objects do;
// - `commitWrite` flushes it before COMMIT; `cancelWrite` drops it.
//
// Nothing else can observe the row in between: the writer connection is held
// by this session for the whole transaction, and other connections see only
// committed versions. An error from the UPDATE (a NOT NULL or type
// constraint) is recorded like any other write error and fails the commit,
// as it did when each setter ran its own statement. Change capture is told of
// each property as it is set, and the one UPDATE then matches the expected
// statement, exactly as a single-property update did.
//
// A single property set, the common case, runs a statement prepared once per
// class, property and connection.

/// Property values written to one row and not yet sent to SQLite.
struct PendingRowUpdate {
    let schema: ObjectSchema
    let rowID: Int64
    /// Property indexes, in the order they were first set, and their encoded values.
    private(set) var properties: [Int] = []
    private(set) var values: [DatabaseValue] = []

    init(schema: ObjectSchema, rowID: Int64) {
        self.schema = schema
        self.rowID = rowID
    }

    func isFor(_ otherSchema: ObjectSchema, rowID otherRowID: Int64) -> Bool { schema === otherSchema && rowID == otherRowID }

    mutating func set(_ index: Int, to value: DatabaseValue) {
        if let position = properties.firstIndex(of: index) {
            values[position] = value
        } else {
            properties.append(index)
            values.append(value)
        }
    }
}

extension Vault {
    /// Writes a column value of a managed object's row: recorded now, sent with
    /// the row's other property writes as one UPDATE (see the essay above).
    /// `primaryKey`: the row's primary key value (nil for a class without one),
    /// so the session's key cache can take the new value (see PrimaryKeyCache).
    func updateColumn(_ schema: ObjectSchema, rowID: Int64, primaryKey: DatabaseValue?, propertyIndex index: Int, value: DatabaseValue) {
        guard deferredError == nil else { return }
        if let pending = session.pendingUpdate, !pending.isFor(schema, rowID: rowID) {
            flushPendingUpdate()
            guard deferredError == nil else { return }
        }
        session.capture?.willWrite(className: schema.className, rowID: rowID, propertyIndexes: CollectionOfOne(index), isUpdateStatement: true)
        var pending = session.pendingUpdate ?? PendingRowUpdate(schema: schema, rowID: rowID)
        session.pendingUpdate = nil   // keeps `pending` uniquely referenced while it changes
        pending.set(index, to: value)
        session.pendingUpdate = pending
        let version = contentVersion
        if let primaryKey { session.primaryKeyCache.patch(schema, rowID: rowID, primaryKey: primaryKey, index: index, value: value, from: version, to: version &+ 1) }
        contentVersion = version &+ 1
    }

    /// Sends the pending row update, if any, as one UPDATE on the writer.
    func flushPendingUpdate() {
        guard let pending = session.pendingUpdate else { return }
        session.pendingUpdate = nil
        guard let writer = borrowedWriter else {
            // Setters run only inside a write, which holds the writer: never drop a value silently.
            deferError(VaultObjectError.notInWriteTransaction("setting \(pending.schema.className) properties"))
            return
        }
        do {
            let statement: Statement
            if pending.properties.count == 1, let index = pending.properties.first {
                statement = try pending.schema.updateStatement(forProperty: index, on: writer)
            } else {
                statement = try writer.cachedStatement(pending.schema.updateSQL(columns: pending.properties))
            }
            try statement.execute(pending.values + [.integer(pending.rowID)])
        } catch {
            deferError(error)
        }
    }
}
