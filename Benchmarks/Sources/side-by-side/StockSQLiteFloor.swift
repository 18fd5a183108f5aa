import Foundation
import GRDBSQLite

// What stock SQLite itself takes for the insert and update rows' statements,
// measured in the same run as the libraries: the floor under any library that
// stores objects in SQLite tables, whatever it does around the statements.
//
// Unencrypted, with no object layer. Inserts: the repetition's objects in one
// transaction, sixteen rows an `INSERT` (as VaultKit sends them). Updates: one
// `UPDATE … SET score = score + 1 WHERE _vk_id = ?` prepared once, the
// repetition's keys sent in row-id order (the order VaultKit sends its pending
// rows in, and SQLite's fastest), on a reopened connection whose page cache a
// scan has warmed (VaultKit's writer starts cold). Every transaction at
// synchronous = FULL (VaultKit's durability).
//
// Two layouts. One table of six columns with an index on email: the row store
// every VaultKit class is. A table per property, keyed by the row id (email's
// with its index): a store that keeps a column's values together, as Realm
// does, built on SQLite tables. An update rewrites the pages of the rows it
// touches; in the second layout those rows hold one value each.

/// Stock SQLite's own time for the insert and update rows, in two table layouts.
enum StockSQLiteFloor {
    /// How the benchmark's objects are stored.
    enum Layout: CaseIterable {
        /// One table, a row per object: VaultKit's layout.
        case oneTable
        /// A table per property, a row per object in each.
        case tablePerProperty

        var label: String {
            switch self {
            case .oneTable: "one table of six columns (VaultKit's layout)"
            case .tablePerProperty: "a table per property"
            }
        }
    }

    /// µs per object inserted and per update.
    struct Figures {
        var insert: Double
        var update: Double
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The properties besides the key: name, SQL type.
    private static let properties = [("name", "TEXT"), ("email", "TEXT"), ("age", "INTEGER"), ("score", "REAL"), ("created", "REAL")]
    /// Rows an `INSERT` statement takes.
    private static let rowsPerInsert = 16

    /// Inserts `items` into a fresh database in `directory` (timed), then reopens
    /// it, warms its cache and adds one to the score of each of `keys` in one
    /// transaction (timed, with its commit).
    static func measure(directory: URL, items: [Item], keys: [Int], layout: Layout) throws -> Figures {
        let path = directory.appendingPathComponent("stock-sqlite-\(layout).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let insert = try withConnection(path) { db in
            try execute(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -32768; " + schema(layout))
            let start = now()
            try execute(db, "BEGIN")
            try insertAll(items, into: db, layout: layout)
            try execute(db, "COMMIT")
            let microseconds = elapsed(since: start, items.count)
            try execute(db, "PRAGMA wal_checkpoint(TRUNCATE)")
            return microseconds
        }
        let table = layout == .oneTable ? "t" : "t_score"
        let column = layout == .oneTable ? "score" : "value"
        let sorted = keys.sorted()
        let update = try withConnection(path) { db in
            try execute(db, "PRAGMA synchronous = FULL; PRAGMA cache_size = -32768;")
            try withStatement(db, "SELECT sum(\(column)) FROM \(table)") { try step(db, $0, "warm the cache") }
            return try withStatement(db, "UPDATE \(table) SET \(column) = \(column) + 1 WHERE _vk_id = ?") { update in
                let start = now()
                try execute(db, "BEGIN")
                for key in sorted {
                    sqlite3_bind_int64(update, 1, Int64(key))
                    try step(db, update, "update")
                    // A key that matched no row would make the figure a lookup's, not an update's.
                    guard sqlite3_changes(db) == 1 else { throw Failure(description: "stock SQLite: no row \(key) to update") }
                }
                try execute(db, "COMMIT")
                return elapsed(since: start, sorted.count)
            }
        }
        return Figures(insert: insert, update: update)
    }

    private static func schema(_ layout: Layout) -> String {
        switch layout {
        case .oneTable:
            let columns = properties.map { "\($0.0) \($0.1) NOT NULL" }.joined(separator: ", ")
            return "CREATE TABLE t(_vk_id INTEGER PRIMARY KEY, \(columns)); CREATE INDEX t_email ON t(email);"
        case .tablePerProperty:
            return properties.map { "CREATE TABLE t_\($0.0)(_vk_id INTEGER PRIMARY KEY, value \($0.1) NOT NULL);" }.joined()
                + "CREATE INDEX t_email_value ON t_email(value);"
        }
    }

    /// `INSERT INTO table VALUES (…), (…), …` with `rows` rows of `width` values.
    private static func insertSQL(_ table: String, width: Int, rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        return "INSERT INTO \(table) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Every item, sixteen rows a statement (the rest one a statement).
    private static func insertAll(_ items: [Item], into db: OpaquePointer, layout: Layout) throws {
        // Each statement's table and the properties (indices into `properties`) a row of it holds.
        let tables: [(name: String, columns: [Int])] = layout == .oneTable
            ? [("t", Array(properties.indices))]
            : properties.indices.map { ("t_\(properties[$0].0)", [$0]) }
        for table in tables {
            let width = table.columns.count + 1
            try withStatement(db, insertSQL(table.name, width: width, rows: rowsPerInsert)) { batch in
                try withStatement(db, insertSQL(table.name, width: width, rows: 1)) { single in
                    var start = 0
                    while start < items.count {
                        let count = min(rowsPerInsert, items.count - start)
                        let statement = count == rowsPerInsert ? batch : single
                        let rows = count == rowsPerInsert ? count : 1
                        for row in 0..<rows {
                            let item = items[start + row]
                            let first = Int32(row * width + 1)
                            sqlite3_bind_int64(statement, first, Int64(item.id))
                            for (offset, column) in table.columns.enumerated() {
                                bind(statement, first + Int32(offset + 1), property: column, of: item)
                            }
                        }
                        try step(db, statement, "insert")
                        start += rows
                    }
                }
            }
        }
    }

    private static func bind(_ statement: OpaquePointer, _ index: Int32, property: Int, of item: Item) {
        switch property {
        case 0: bindText(statement, index, item.name)
        case 1: bindText(statement, index, item.email)
        case 2: sqlite3_bind_int64(statement, index, Int64(item.age))
        case 3: sqlite3_bind_double(statement, index, item.score)
        default: sqlite3_bind_double(statement, index, item.created.timeIntervalSinceReferenceDate)
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
@MainActor var stockSQLiteFloors: [StockSQLiteFloor.Layout: [StockSQLiteFloor.Figures]] = [:]

/// Measures both layouts for one repetition (skipped with `--only` and `--profile`).
@MainActor func measureStockSQLiteFloors(repetition: Int, items: [Item], keys: [Int]) throws {
    guard settings.only == nil, settings.profile == nil else { return }
    let directory = root.appendingPathComponent("stock-sqlite-\(repetition)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    for layout in StockSQLiteFloor.Layout.allCases {
        settleDisk()
        let figures = try StockSQLiteFloor.measure(directory: directory, items: items,
                                                   keys: Array(keys.prefix(settings.updates)), layout: layout)
        stockSQLiteFloors[layout, default: []].append(figures)
    }
}

/// Prints the floors next to VaultKit's insert and update and the 2.0 µs targets.
@MainActor func printStockSQLiteFloors(vaultKitInserts: [Double], vaultKitUpdates: [Double]) {
    guard !stockSQLiteFloors.isEmpty else { return }
    func summary(_ values: [Double]) -> String {
        String(format: "%.3f (%.3f–%.3f)", median(values), values.min() ?? .nan, values.max() ?? .nan)
    }
    func ratio(_ vaultKit: [Double], _ floors: [Double]) -> String {
        let ratios = zip(vaultKit, floors).map { $0 / $1 }
        return ratios.isEmpty ? "—" : String(format: "%.2f× (%.2f–%.2f)", median(ratios), ratios.min() ?? .nan, ratios.max() ?? .nan)
    }
    print("\nStock SQLite's own time for the insert and update rows (unencrypted, no object layer; inserts sixteen rows an "
        + "`INSERT`; updates one prepared `UPDATE … WHERE _vk_id = ?` a row, in row-id order, page cache warmed; "
        + "synchronous = FULL; the same objects and keys, this run), µs, median (range); issue #26's targets: 2.0 µs each:")
    print("| stored as | insert, per object | VaultKit's insert / this | update | VaultKit's update / this |")
    print("|---|---:|---:|---:|---:|")
    for layout in StockSQLiteFloor.Layout.allCases {
        guard let figures = stockSQLiteFloors[layout], !figures.isEmpty else { continue }
        let inserts = figures.map(\.insert), updates = figures.map(\.update)
        print("| \(layout.label) | \(summary(inserts)) | \(ratio(vaultKitInserts, inserts)) | \(summary(updates)) | \(ratio(vaultKitUpdates, updates)) |")
    }
}
