import Foundation
import VaultCore

// MARK: - Property writes, one UPDATE per object, sent in row order
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
// _vk_id = ?` later.
//
// Rows wait together. A setter of another row puts the pending one with the
// rows set before it (`VaultSession.pendingRows`), and they are all sent, in
// row-id order, when the write moves on (new rows waiting for their INSERT
// go before them, see Vault+PendingInserts):
//
// - anything that reaches SQLite during the write (`withDatabase`: a query,
//   a lookup, an insert, a delete, a collection change, another object's
//   reload) sends them first, so SQL never sees a row older than the objects do;
// - `commitWrite` sends them before COMMIT; `cancelWrite` drops them;
// - `pendingRowLimit` rows waiting send them, which bounds their memory.
//
// Why in row-id order: a loop that sets a property of many objects (updates
// by key, in whatever order the app has them) touches rows all over the
// table. Sent in row-id order, consecutive UPDATEs descend to the same or the
// next leaf page, which is still in the processor's cache, and SQLite's own
// time for scattered updates drops markedly (stock SQLite in both orders:
// Benchmarks/Scripts/plain-sqlite-updates.c; figures in Benchmarks/README.md,
// "Pending updates in row-id order").
// Rows with one id (one row set again after others, rows of two classes)
// are sent in the order they were set (the sort is stable), so the final
// values are those the app set. No statement of another kind runs in
// between but the INSERTs of new rows, which change no existing row, and
// UPDATEs of distinct rows commute: primary keys never change,
// and the only triggers on a class's table act on the row's own embedded
// objects.
//
// Nothing else can observe the rows in between: the writer connection is held
// by this session for the whole transaction, and other connections see only
// committed versions. An error from an UPDATE (a NOT NULL or type
// constraint) is recorded like any other write error and fails the commit,
// as it did when each setter ran its own statement. Change capture is told of
// each property as it is set, and of each row's UPDATE just before it is sent
// (`ChangeCapture.willSendUpdate`), so the update hook's report matches the
// expected statement, exactly as a single-property update did.
//
// A single property set, the common case, runs a statement prepared once per
// class, property and connection.

/// Property values written to one row and not yet sent to SQLite.
///
/// The first property set is kept inline and the rest in arrays, so the usual
/// update — one property of a row, in a loop over many rows — allocates
/// nothing (with two arrays here and a third for the statement's arguments it
/// made four allocations an update; see Benchmarks/README.md, "Pending updates
/// in row-id order").
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
    /// The most rows whose property writes wait to be sent together (about
    /// 100 bytes each: at most some 1.6 MB per write transaction).
    static let pendingRowLimit = 16_384

    /// Writes a column value of a managed object's row: recorded now, sent with
    /// the row's other property writes as one UPDATE (see the essay above).
    /// `primaryKey`: the row's primary key value (nil for a class without one),
    /// so the session's key cache can take the new value (see PrimaryKeyCache).
    func updateColumn(_ schema: ObjectSchema, rowID: Int64, primaryKey: DatabaseValue?, propertyIndex index: Int, value: DatabaseValue) {
        guard session.write.deferredError == nil else { return }
        if let pending = session.pendingUpdate, !pending.isFor(schema, rowID: rowID) {
            session.pendingUpdate = nil
            session.pendingRows.append(pending)
            if session.pendingRows.count >= Self.pendingRowLimit {
                sendPendingRows()
                guard session.write.deferredError == nil else { return }
            }
        }
        session.write.capture?.willWrite(className: schema.className, rowID: rowID, propertyIndexes: CollectionOfOne(index), isUpdateStatement: true)
        if var pending = session.pendingUpdate {
            session.pendingUpdate = nil   // keeps `pending`'s arrays uniquely referenced while it changes
            pending.set(index, to: value)
            session.pendingUpdate = pending
        } else {
            session.pendingUpdate = PendingRowUpdate(schema: schema, rowID: rowID, property: index, value: value)
        }
        let version = session.checkedContentVersion
        if let primaryKey { session.primaryKeyCache.patch(schema, rowID: rowID, primaryKey: primaryKey, index: index, value: value, from: version, to: version &+ 1) }
        session.contentVersion = version &+ 1
    }

    /// Sends the new rows waiting for their INSERT, then every pending row update,
    /// in row-id order, one UPDATE each on the writer.
    func flushPendingUpdate() {
        if session.pendingInserts != nil { sendPendingInserts() }
        guard let pending = session.pendingUpdate else { return }
        session.pendingUpdate = nil
        session.pendingRows.append(pending)
        sendPendingRows()
    }

    /// Sends `session.pendingRows` (see the essay above) and empties it; the
    /// first error is deferred to the commit and the rest are not sent.
    private func sendPendingRows() {
        // A pending update may be to a new row still waiting for its INSERT.
        if session.pendingInserts != nil { sendPendingInserts() }
        let rows = session.pendingRows
        session.pendingRows = []
        guard let writer = session.transaction.writer else {
            // Setters run only inside a write, which holds the writer: never drop a value silently.
            if let first = rows.first { deferError(VaultObjectError.notInWriteTransaction("setting \(first.schema.className) properties")) }
            return
        }
        do {
            // Through the buffer: each row is read in place, not copied (a copy retained its schema and arrays).
            try rows.withUnsafeBufferPointer { rows in
                for position in Self.rowOrder(rows) {
                    let statement: Statement
                    if rows[position].laterProperties.isEmpty {
                        statement = try rows[position].schema.updateStatement(forProperty: rows[position].firstProperty, on: writer)
                    } else {
                        statement = try writer.cachedStatement(rows[position].schema.updateSQL(columns: rows[position].properties))
                    }
                    session.write.capture?.willSendUpdate(className: rows[position].schema.className, rowID: rows[position].rowID)
                    try rows[position].withArguments { arguments in try statement.execute(arguments) }
                }
            }
        } catch {
            deferError(error)
        }
    }

    /// The positions of `rows` by row id, rows of equal id in the order they
    /// were set (a stable order: one row set again, or rows of two classes,
    /// or one row set through two schema objects — a typed and a dynamic
    /// object — keep their order). Already ordered rows, as a loop over a
    /// class's objects sets them, are not sorted.
    static func rowOrder(_ rows: UnsafeBufferPointer<PendingRowUpdate>) -> [Int] {
        // Row ids below 2⁴⁷ (all VaultKit assigns) and positions below 2¹⁶ (the
        // pending rows are fewer) make one integer each, in the order wanted: a
        // plain integer sort, far cheaper than a stable sort of pairs.
        var packed: [UInt64] = []
        packed.reserveCapacity(rows.count)
        var ordered = true
        var previous = Int64.min
        for (position, row) in rows.enumerated() {
            guard row.rowID >= 0, row.rowID < 1 << 47, position < 1 << 16 else { return stableRowOrder(rows) }
            if row.rowID < previous { ordered = false }
            previous = row.rowID
            packed.append(UInt64(row.rowID) << 16 | UInt64(position))
        }
        if ordered { return Array(rows.indices) }
        packed.sort()
        return packed.map { Int($0 & 0xFFFF) }
    }

    /// ``rowOrder(_:)`` for any row ids.
    private static func stableRowOrder(_ rows: UnsafeBufferPointer<PendingRowUpdate>) -> [Int] {
        var keys = rows.enumerated().map { (rowID: $0.element.rowID, position: $0.offset) }
        keys.sort { ($0.rowID, $0.position) < ($1.rowID, $1.position) }
        return keys.map(\.position)
    }
}
