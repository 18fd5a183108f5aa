import CSQLite

/// What happened to a row (sqlite.org/c3ref/update_hook.html).
package enum RowChangeKind: Sendable {
    case insert, update, delete
}

/// Receives every row a connection inserts, updates or deletes — including
/// the rows foreign-key actions and triggers change — as it happens.
///
/// SQLite's update hook reports rowid tables only, and not the rows of a
/// `DELETE` without `WHERE` that SQLite truncates in one step: VaultKit's
/// deletes always carry a `WHERE`. The handler must not use the connection.
package final class RowChangeObserver {
    let handler: (RowChangeKind, String, Int64) -> Void

    package init(_ handler: @escaping (_ kind: RowChangeKind, _ table: String, _ rowID: Int64) -> Void) {
        self.handler = handler
    }
}

extension Database {
    /// Installs (or, with `nil`, removes) the observer of row changes on this connection.
    package func setRowChangeObserver(_ observer: RowChangeObserver?) {
        rowChangeObserver = observer
        guard let observer else {
            sqlite3_update_hook(handle, nil, nil)
            return
        }
        sqlite3_update_hook(handle, reportRowChange, Unmanaged.passUnretained(observer).toOpaque())
    }
}

private let reportRowChange: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int64) -> Void = { box, operation, _, table, rowID in
    guard let box, let table else { return }
    let kind: RowChangeKind
    switch operation {
    case SQLITE_INSERT: kind = .insert
    case SQLITE_DELETE: kind = .delete
    default: kind = .update
    }
    Unmanaged<RowChangeObserver>.fromOpaque(box).takeUnretainedValue().handler(kind, String(cString: table), rowID)
}
