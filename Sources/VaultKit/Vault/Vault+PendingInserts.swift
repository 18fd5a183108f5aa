import Foundation
import VaultCore

// MARK: - New rows, sixteen to an INSERT
//
// A bulk import is a loop of `add`s inside one write:
//
//     try vault.write {
//         for item in items { vault.add(Item(value: item)) }
//     }
//
// Sent as they come, that is one `INSERT` statement per object, and each
// statement pays SQLite's fixed costs again: binding and resetting, opening a
// cursor on the table and one on each index, a descent from the root to find
// the row's place, closing the cursors when the statement halts. For a row of
// a few columns those costs are a large part of the insert (stock SQLite, one
// statement a row against sixteen: Benchmarks/README.md, "Pending inserts,
// sixteen rows a statement"). So a new row whose id
// is known without SQLite waits, and up to sixteen go in one
// `INSERT … VALUES (…), (…), …`: SQLite keeps its cursors open from one row to
// the next, and appending a row after the last one it wrote needs no descent.
//
// Which rows wait: those of a class whose primary key is a required `Int` (the
// key is the row id, see RowIDHighWater), whose properties are all columns,
// inserted by `add`/`create` as new rows with no link and no mixed value that
// holds an object. Any other insert — a row whose id SQLite chooses, a row
// with links, collections or embedded objects to store after it — runs at
// once, as before. The object becomes managed at once, with its row id and its
// values, exactly as if its row had been written.
//
// Why only a key that is the row id: a waiting row's id must be known before
// SQLite sees it, and elsewhere SQLite chooses it. VaultKit numbering such rows
// itself was tried (one above the table's largest id, read once, and above
// RowIDHighWater's mark) for String-keyed rows and gained nothing measurable in
// time: an explicit row id costs SQLite a descent of the table that its own
// numbering (append after the last row) avoids, which takes back most of what
// sixteen rows a statement save. Not worth a second way of numbering rows.
//
// When they are sent, in the order added:
//
// - when sixteen wait (so at most fifteen rows and their values are held;
//   fewer for a class of more than 62 columns, so that a statement's
//   parameters stay within SQLite's limit);
// - when a row of another class is to wait (a run holds one class);
// - whenever anything reaches SQLite during the write (`withDatabase`: a
//   query, a lookup, another insert, a delete, a collection change, a reload),
//   and before pending property writes are sent (Vault+PendingUpdates), which
//   may set a waiting row's properties: SQL never sees fewer rows than the
//   objects do;
// - by `commitWrite`, before COMMIT; `cancelWrite` drops them.
//
// Nothing else can observe the rows in between: the writer connection is held
// by this session for the whole transaction. Change capture learns of the
// rows from SQLite's update hook when the statement runs, as it did.
//
// A refused row. A multi-row INSERT is one statement: if a row breaks a
// constraint (an existing primary key, the usual case), none of its rows is
// stored. The rows are then sent again one at a time, up to the refused one:
// that object becomes unmanaged again (as an `add` refused at once leaves it),
// the error (`duplicatePrimaryKey`) is recorded as the write's error, and
// nothing after it is sent — the commit throws that error and rolls the write
// back, as it did when each `add` ran its own statement. Objects added after
// the refused one, which such an `add` would have skipped, stay managed and are
// invalidated by the rollback.

/// New rows of one class whose INSERT has not run yet (see the essay above).
struct PendingInserts {
    /// The class of every waiting row.
    let schema: ObjectSchema
    /// The rows' column values, one row after another (`schema.columnIndexes.count` each).
    private(set) var values: [DatabaseValue] = []
    /// The objects the rows belong to, in the order added, unretained: an object
    /// holds its vault, so retaining it here would keep a vault released in the
    /// middle of a write — and the write lock it holds — alive for ever. An object
    /// released while its row waits takes itself off (`forget`, from its
    /// `deinit`), so every entry left names a live object.
    private(set) var objects: [Unmanaged<ObjectBase>?] = []

    init(schema: ObjectSchema) {
        self.schema = schema
        let rows = Vault.insertRows(width: schema.columnIndexes.count)
        values.reserveCapacity(rows * schema.columnIndexes.count)
        objects.reserveCapacity(rows)
    }

    var count: Int { objects.count }

    /// Takes `object` off the list (it is being deinitialised).
    mutating func forget(_ object: ObjectBase) {
        let target = Unmanaged.passUnretained(object).toOpaque()
        if let index = objects.firstIndex(where: { $0?.toOpaque() == target }) { objects[index] = nil }
    }

    /// Marks every object still listed as no longer waiting (its row was sent, or the write ended).
    func endWaiting() {
        for case let object? in objects { object.takeUnretainedValue().manager?.waitsForInsert = false }
    }

    /// Adds a row: `row` holds one value per column, in column order.
    mutating func append(_ row: UnsafeBufferPointer<DatabaseValue>, of object: ObjectBase) {
        values.append(contentsOf: row)
        objects.append(Unmanaged.passUnretained(object))
        object.manager?.waitsForInsert = true
    }
}

extension Vault {
    /// The most new rows one INSERT carries (and so the most that wait).
    static let insertRowsPerStatement = 16

    /// The most rows of `width` columns one INSERT carries: sixteen, or the largest
    /// power of two whose parameters stay within 999 (SQLite's smallest limit on
    /// the parameters of one statement; builds since 3.32 allow 32,766).
    static func insertRows(width: Int) -> Int {
        var rows = insertRowsPerStatement
        while rows > 1 && rows * width > 999 { rows /= 2 }
        return rows
    }

    /// Whether `add` may leave this new row to a multi-row INSERT: a class keyed by
    /// a required Int (the key is the row id), all of whose properties are columns,
    /// and narrow enough for two rows a statement.
    func insertCanWait(_ schema: ObjectSchema) -> Bool {
        guard schema.hasOnlyColumns, let key = schema.primaryKeyIndex, schema.properties[key].isRowIDKey else { return false }
        return Self.insertRows(width: schema.columnIndexes.count) > 1 && session.transaction.writer != nil
    }

    /// Leaves a new row to a multi-row INSERT (see the essay above); `row`: its
    /// column values. Sends the waiting rows when they fill an INSERT (sixteen, fewer
    /// for a wide class), or when this row is of another class.
    func insertLater(_ row: UnsafeBufferPointer<DatabaseValue>, of object: ObjectBase, schema: ObjectSchema) {
        if let pending = session.pendingInserts, pending.schema !== schema { sendPendingInserts() }
        var pending = session.pendingInserts ?? PendingInserts(schema: schema)
        session.pendingInserts = nil   // keeps `pending`'s arrays uniquely referenced while they grow
        pending.append(row, of: object)
        session.pendingInserts = pending
        if pending.count >= Self.insertRows(width: schema.columnIndexes.count) { sendPendingInserts() }
    }

    /// Takes an object being deinitialised off the list of waiting rows (its row still goes in).
    func forgetPendingInsert(of object: ObjectBase) {
        guard var pending = session.pendingInserts else { return }
        session.pendingInserts = nil   // keeps `pending`'s arrays uniquely referenced while it changes
        pending.forget(object)
        session.pendingInserts = pending
    }

    /// Drops the waiting rows (the write is cancelled).
    func dropPendingInserts() {
        session.pendingInserts?.endWaiting()
        session.pendingInserts = nil
    }

    /// Sends the waiting new rows: as many full INSERTs (``insertRows(width:)``) as
    /// fit, the rest in statements of half as many rows, then a quarter, down to
    /// one. The first error is recorded as the write's error (a refused row is
    /// found and its object unmanaged).
    func sendPendingInserts() {
        guard let pending = session.pendingInserts else { return }
        session.pendingInserts = nil
        pending.endWaiting()
        guard let writer = session.transaction.writer else {
            deferError(VaultObjectError.notInWriteTransaction("adding \(pending.schema.className) objects"))
            return
        }
        let schema = pending.schema
        let width = schema.columnIndexes.count
        pending.values.withUnsafeBufferPointer { values in
            var start = 0
            while start < pending.count {
                var rows = Self.insertRows(width: width)
                while rows > pending.count - start { rows /= 2 }
                let chunk = UnsafeBufferPointer(rebasing: values[(start * width)..<((start + rows) * width)])
                do {
                    try schema.insertStatement(rows: rows, on: writer).execute(chunk)
                } catch VaultError.sqlite(let error) where error.code == .constraint {
                    refuseRow(of: pending, from: start, rows: rows, values: values, on: writer)
                    return
                } catch {
                    deferError(error)
                    return
                }
                start += rows
            }
        }
    }

    /// A multi-row INSERT broke a constraint, so none of its rows was stored: sends
    /// them one at a time up to the one refused, unmanages that object and records
    /// the error (see the essay above).
    private func refuseRow(of pending: PendingInserts, from start: Int, rows: Int, values: UnsafeBufferPointer<DatabaseValue>, on writer: Database) {
        let schema = pending.schema
        let width = schema.columnIndexes.count
        for row in start..<(start + rows) {
            do {
                try schema.insertStatement(rows: 1, on: writer).execute(UnsafeBufferPointer(rebasing: values[(row * width)..<((row + 1) * width)]))
            } catch VaultError.sqlite(let error) where error.code == .constraint {
                pending.objects[row]?.takeUnretainedValue().manager = nil
                deferError(VaultObjectError.duplicateKey(of: schema))
                return
            } catch {
                deferError(error)
                return
            }
        }
    }
}
