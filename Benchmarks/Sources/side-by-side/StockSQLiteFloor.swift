import Foundation
import GRDBSQLite

// What stock SQLite itself takes for the update row's work, measured in the same
// run as the libraries: the floor under any library that stores objects in
// SQLite tables, whatever it does around the statements.
//
// Unencrypted, with no object layer and nothing read: one `UPDATE … SET score = ?
// WHERE _vk_id = ?` prepared once, the rows sent in row-id order (the order
// VaultKit sends its pending rows in, and SQLite's fastest), the connection's
// page cache warmed by a scan first (VaultKit's writer starts cold), one
// transaction with synchronous = FULL (VaultKit's durability). Two layouts: the
// benchmark's own six-column table with its email index (the row store every
// VaultKit class is), and a table holding the one column alone (a store that
// keeps a column's values together, as Realm does, built on SQLite tables).

/// Stock SQLite's own time for the update row's statements, in two table layouts.
enum StockSQLiteFloor {
    /// The table the updates go to.
    enum Layout: CaseIterable {
        /// The benchmark's six columns and its index on `email`.
        case sixColumns
        /// `_vk_id` and `score` only.
        case oneColumn

        var label: String {
            switch self {
            case .sixColumns: "the same six-column table"
            case .oneColumn: "a table of the updated column alone"
            }
        }

        fileprivate var schema: String {
            switch self {
            case .sixColumns:
                "CREATE TABLE t(_vk_id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, age INTEGER NOT NULL, "
                    + "score REAL NOT NULL, created REAL NOT NULL); CREATE INDEX t_email ON t(email);"
            case .oneColumn:
                "CREATE TABLE t(_vk_id INTEGER PRIMARY KEY, score REAL NOT NULL);"
            }
        }

        fileprivate var insert: String {
            switch self {
            case .sixColumns: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)"
            case .oneColumn: "INSERT INTO t VALUES (?, ?)"
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// µs per update: `items` stored in a fresh database in `directory` (untimed),
    /// the connection reopened and its cache warmed, then one transaction adding
    /// one to the score of each of `keys` (timed, with its commit).
    static func updateMicroseconds(directory: URL, items: [Item], keys: [Int], layout: Layout) throws -> Double {
        let path = directory.appendingPathComponent("stock-sqlite-\(layout).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try withConnection(path) { db in
            try execute(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \(layout.schema) BEGIN")
            try withStatement(db, layout.insert) { insert in
                for item in items {
                    sqlite3_bind_int64(insert, 1, Int64(item.id))
                    if layout == .oneColumn {
                        sqlite3_bind_double(insert, 2, item.score)
                    } else {
                        bindText(insert, 2, item.name)
                        bindText(insert, 3, item.email)
                        sqlite3_bind_int64(insert, 4, Int64(item.age))
                        sqlite3_bind_double(insert, 5, item.score)
                        sqlite3_bind_double(insert, 6, item.created.timeIntervalSinceReferenceDate)
                    }
                    try step(db, insert, "insert")
                }
            }
            try execute(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE);")
        }
        let sorted = keys.sorted()
        return try withConnection(path) { db in
            try execute(db, "PRAGMA synchronous = FULL; PRAGMA cache_size = -32768;")
            try withStatement(db, "SELECT sum(score) FROM t") { try step(db, $0, "warm the cache") }
            return try withStatement(db, "UPDATE t SET score = score + 1 WHERE _vk_id = ?") { update in
                let start = now()
                try execute(db, "BEGIN")
                for key in sorted {
                    sqlite3_bind_int64(update, 1, Int64(key))
                    try step(db, update, "update")
                }
                try execute(db, "COMMIT")
                return elapsed(since: start, sorted.count)
            }
        }
    }

    private static func withConnection<T>(_ path: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        var connection: OpaquePointer?
        guard sqlite3_open(path, &connection) == SQLITE_OK, let db = connection else {
            sqlite3_close(connection)
            throw Failure(description: "stock SQLite: cannot open \(path)")
        }
        defer { sqlite3_close(db) }
        return try body(db)
    }

    private static func withStatement<T>(_ db: OpaquePointer, _ sql: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else {
            throw Failure(description: "stock SQLite: \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        return try body(statement)
    }

    private static func execute(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "stock SQLite: \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    /// Steps `statement` to its end and resets it.
    private static func step(_ db: OpaquePointer, _ statement: OpaquePointer, _ what: String) throws {
        var result = sqlite3_step(statement)
        while result == SQLITE_ROW { result = sqlite3_step(statement) }
        sqlite3_reset(statement)
        guard result == SQLITE_DONE else {
            throw Failure(description: "stock SQLite, \(what): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    /// Binds `text`, which SQLite copies before the call returns (SQLITE_TRANSIENT).
    private static func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(statement, index, text, -1, transient)
    }
}

/// Stock SQLite's figures, per layout, one per repetition.
@MainActor var stockSQLiteFloors: [StockSQLiteFloor.Layout: [Double]] = [:]

/// Measures both layouts for one repetition (skipped with `--only` and `--profile`).
@MainActor func measureStockSQLiteFloors(repetition: Int, items: [Item], keys: [Int]) throws {
    guard settings.only == nil, settings.profile == nil else { return }
    let directory = root.appendingPathComponent("stock-sqlite-\(repetition)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    for layout in StockSQLiteFloor.Layout.allCases {
        settleDisk()
        let microseconds = try StockSQLiteFloor.updateMicroseconds(directory: directory, items: items,
                                                                   keys: Array(keys.prefix(settings.updates)), layout: layout)
        stockSQLiteFloors[layout, default: []].append(microseconds)
    }
}

/// Prints the floors next to VaultKit's update and the 2.0 µs target.
@MainActor func printStockSQLiteFloors(vaultKitUpdates: [Double]) {
    guard !stockSQLiteFloors.isEmpty else { return }
    print("\nStock SQLite's own time for the update row's statements (unencrypted, no object layer: one prepared "
        + "`UPDATE … WHERE _vk_id = ?` a row, rows in row-id order, page cache warmed, synchronous = FULL; the same keys, this run):")
    print("| table | µs per update, median (range) | VaultKit's update / this, median (range) | under the 2.0 µs target |")
    print("|---|---:|---:|---|")
    for layout in StockSQLiteFloor.Layout.allCases {
        guard let floors = stockSQLiteFloors[layout], !floors.isEmpty else { continue }
        let ratios = zip(vaultKitUpdates, floors).map { $0 / $1 }
        let ratio = ratios.isEmpty ? "—" : String(format: "%.2f× (%.2f–%.2f)", median(ratios), ratios.min() ?? .nan, ratios.max() ?? .nan)
        let under = floors.allSatisfy { $0 <= 2.0 } ? "yes, every repetition" : floors.contains { $0 <= 2.0 } ? "in some repetitions" : "no"
        print(String(format: "| %@ | %.3f (%.3f–%.3f) | %@ | %@ |", layout.label, median(floors), floors.min() ?? .nan,
                     floors.max() ?? .nan, ratio, under))
    }
}
