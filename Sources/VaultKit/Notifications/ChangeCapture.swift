import Foundation
import VaultCore

// MARK: - Change capture
//
// A notification is the difference between two versions (see Vault+Versions
// for versions). Insertions and deletions of a collection are exact by
// construction: the notifier re-runs the collection's query at the new
// version and compares row ids with the ids it delivered last. What a query
// cannot tell is which rows were *modified*; Realm's rule is that any write
// to a property counts, even of the same value. That is captured here, per
// write transaction, on the writer connection that makes it:
//
//   - VaultKit's own statements say what they write: a property setter names
//     its column, `add(_:update:)` the columns it changes, a List/Set/Map
//     operation its owner's collection property. They are recorded as
//     (class, row id, property index) before the statement runs.
//   - SQLite's update hook reports every row the transaction inserts,
//     updates or deletes, including those foreign-key actions and triggers
//     change, which VaultKit never sees as statements: `ON DELETE SET NULL`
//     on a link (recorded as a write to the class's link columns: the hook
//     names the row, not the column), `ON DELETE CASCADE` removing a deleted
//     object from lists, sets and maps, the triggers that delete embedded
//     objects. Every delete VaultKit issues carries a `WHERE` clause, so
//     SQLite's truncate optimisation (which bypasses the hook) never applies.
//
// Capture costs nothing when nobody observes: the hook is installed at
// `beginWrite` only while some `Vault` observes the file (or sync records its
// commits: then only the rows are kept, not the properties — see SyncAccess),
// and the logical records are skipped with one branch otherwise. When on, it
// is one callback and a set insertion per changed row.
//
// At commit the transaction's changes go to the file's ChangeCoordinator
// under the commit sequence the transaction wrote; a rolled-back transaction
// leaves nothing. Notifiers ask the coordinator for the union of the changes
// between the version they delivered last and the one they deliver now, so
// several commits merge into one update (an object inserted and deleted in
// between is simply absent from both id lists). A commit the coordinator did
// not capture — another process's — is read back from the change log the
// writer left in the vault (see ChangeLog); failing that it still yields
// exact insertions and deletions, without modifications.
//
// "Someone observes" includes other processes: a writer whose own process
// has no observer checks at `beginWrite` whether any process listens on the
// vault's commit pipe (one non-blocking `open`, see CommitSignal).

/// The properties of one row a transaction wrote.
struct WrittenProperties: Sendable, Equatable {
    /// Property indexes (of the class's schema) VaultKit's statements wrote.
    var indexes: Set<Int> = []
    /// A foreign-key action or trigger updated the row: its link columns changed.
    var linkColumns = false
}

/// What one table's rows went through in a transaction (or several merged).
struct TableChanges: Sendable, Equatable {
    var inserted: Set<Int64> = []
    var deleted: Set<Int64> = []
    /// Rows updated in place, with what was written.
    var written: [Int64: WrittenProperties] = [:]

    var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && written.isEmpty }

    mutating func merge(_ other: TableChanges) {
        inserted.formUnion(other.inserted)
        deleted.formUnion(other.deleted)
        for (row, properties) in other.written {
            written[row, default: WrittenProperties()].indexes.formUnion(properties.indexes)
            if properties.linkColumns { written[row, default: WrittenProperties()].linkColumns = true }
        }
    }
}

/// The rows one or more transactions changed, by table name.
struct TransactionChanges: Sendable, Equatable {
    var tables: [String: TableChanges] = [:]

    var isEmpty: Bool { tables.values.allSatisfy(\.isEmpty) }

    mutating func merge(_ other: TransactionChanges) {
        for (table, changes) in other.tables { tables[table, default: TableChanges()].merge(changes) }
    }

    /// What was written to row `rowID` of class `className` (nil: nothing).
    func written(className: String, rowID: Int64) -> WrittenProperties? {
        tables[className]?.written[rowID]
    }
}

/// Records one write transaction's changes on the writer connection.
final class ChangeCapture {
    private(set) var changes = TransactionChanges()
    /// Whether observers need the changes (false: only sync's commit participant does).
    var isForObservers = true
    /// The row VaultKit's next own UPDATE statement writes (so the hook does not take it for a foreign-key action).
    private var expectedUpdate: (table: String, rowID: Int64)?

    /// The update-hook observer to install on the writer for the transaction.
    private(set) lazy var rowObserver = RowChangeObserver { [unowned self] kind, table, rowID in
        self.rowChanged(kind, table: table, rowID: rowID)
    }

    /// VaultKit is about to write these properties of a row with its own statement.
    func willWrite(className: String, rowID: Int64, propertyIndexes: some Sequence<Int>, isUpdateStatement: Bool) {
        // Sync's commit participant needs the rows only: the update hook names those an
        // UPDATE writes; a collection's owner (whose row no statement touches) is noted here.
        guard isForObservers else {
            if !isUpdateStatement { changes.tables[className, default: TableChanges()].written[rowID, default: WrittenProperties()].linkColumns = true }
            return
        }
        changes.tables[className, default: TableChanges()].written[rowID, default: WrittenProperties()].indexes.formUnion(propertyIndexes)
        if isUpdateStatement { expectedUpdate = (className, rowID) }
    }

    /// VaultKit is about to send the UPDATE of properties it announced with
    /// ``willWrite(className:rowID:propertyIndexes:isUpdateStatement:)`` (pending
    /// writes go to SQLite later, many rows at a time, see Vault+PendingUpdates).
    func willSendUpdate(className: String, rowID: Int64) {
        if isForObservers { expectedUpdate = (className, rowID) }
    }

    /// VaultKit is about to renumber a list entry's position (table: the list's
    /// side table, unquoted). A move is not a write of the element: Realm reports
    /// the entries a change shifted as moved or kept, never as modified, and the
    /// diff of entry ids already tells where each one went.
    func willMoveEntry(table: String, rowID: Int64) {
        if isForObservers { expectedUpdate = (table, rowID) }
    }

    /// A row VaultKit inserted was given another id by its own UPDATE (RowIDHighWater):
    /// one insertion of the final id, whatever the update hook reported for the move.
    func renumberInsertedRow(table: String, from old: Int64, to new: Int64) {
        guard var rows = changes.tables[table] else { return }
        rows.inserted.remove(old)
        rows.deleted.remove(old)
        rows.written[new] = nil
        rows.written[old] = nil
        rows.inserted.insert(new)
        changes.tables[table] = rows
        if expectedUpdate?.table == table { expectedUpdate = nil }
    }

    private func rowChanged(_ kind: RowChangeKind, table: String, rowID: Int64) {
        switch kind {
        case .insert:
            changes.tables[table, default: TableChanges()].inserted.insert(rowID)
        case .delete:
            changes.tables[table, default: TableChanges()].deleted.insert(rowID)
        case .update:
            if let expected = expectedUpdate, expected.rowID == rowID, expected.table == table {
                expectedUpdate = nil
                return
            }
            changes.tables[table, default: TableChanges()].written[rowID, default: WrittenProperties()].linkColumns = true
        }
    }
}
