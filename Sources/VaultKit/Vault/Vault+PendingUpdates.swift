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
///
/// The first property set is kept inline and the rest in arrays, so the usual
/// update — one property of a row, in a loop over many rows — allocates
/// nothing: with two arrays here and a third for the statement's arguments it
/// made four allocations an update (callgrind, 10,000 updates a transaction:
/// about 1,000 instructions of about 25,000 each).
struct PendingRowUpdate {
    let schema: ObjectSchema
    let rowID: Int64
    /// The first property set and its encoded value.
    private(set) var firstProperty: Int
    private(set) var firstValue: DatabaseValue
    /// The properties set after the first, in the order first set, and their encoded values.
    private(set) var laterProperties: [Int] = []
    private(set) var laterValues: [DatabaseValue] = []

    init(schema: ObjectSchema, rowID: Int64, property: Int, value: DatabaseValue) {
        self.schema = schema
        self.rowID = rowID
        firstProperty = property
        firstValue = value
    }

    /// Every property set, in the order first set.
    var properties: [Int] { [firstProperty] + laterProperties }

    func isFor(_ otherSchema: ObjectSchema, rowID otherRowID: Int64) -> Bool { schema === otherSchema && rowID == otherRowID }

    mutating func set(_ index: Int, to value: DatabaseValue) {
        if index == firstProperty {
            firstValue = value
        } else if let position = laterProperties.firstIndex(of: index) {
            laterValues[position] = value
        } else {
            laterProperties.append(index)
            laterValues.append(value)
        }
    }

    /// Runs `body` with the UPDATE's arguments: each property's value, in
    /// ``properties`` order, then the row id.
    func withArguments(_ body: (UnsafeBufferPointer<DatabaseValue>) throws -> Void) rethrows {
        try withUnsafeTemporaryAllocation(of: DatabaseValue.self, capacity: laterValues.count + 2) { arguments in
            arguments.initializeElement(at: 0, to: firstValue)
            var initialized = 1
            defer { UnsafeMutableBufferPointer(rebasing: arguments[..<initialized]).deinitialize() }
            for value in laterValues {
                arguments.initializeElement(at: initialized, to: value)
                initialized += 1
            }
            arguments.initializeElement(at: initialized, to: .integer(rowID))
            initialized += 1
            try body(UnsafeBufferPointer(arguments))
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
        if var pending = session.pendingUpdate {
            session.pendingUpdate = nil   // keeps `pending`'s arrays uniquely referenced while it changes
            pending.set(index, to: value)
            session.pendingUpdate = pending
        } else {
            session.pendingUpdate = PendingRowUpdate(schema: schema, rowID: rowID, property: index, value: value)
        }
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
            if pending.laterProperties.isEmpty {
                statement = try pending.schema.updateStatement(forProperty: pending.firstProperty, on: writer)
            } else {
                statement = try writer.cachedStatement(pending.schema.updateSQL(columns: pending.properties))
            }
            try pending.withArguments { arguments in try statement.execute(arguments) }
        } catch {
            deferError(error)
        }
    }
}
