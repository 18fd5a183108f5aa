import Foundation
import GRDB

/// The GRDB record as GRDB's documentation writes records: a `Codable` struct
/// (columns by name), the form the baseline figures were measured with.
struct GRDBItem: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var id: Int
    var name: String
    var email: String
    var age: Int
    var score: Double
    var created: Date

    init(_ item: Item) {
        (id, name, email, age, score, created) = (item.id, item.name, item.email, item.age, item.score, item.created)
    }
}

/// GRDB 7.10.0 on a plain SQLite file: a `DatabasePool`, which puts the file
/// in WAL mode with `synchronous = NORMAL` (GRDB/Core/Database.swift,
/// `setUpWALMode`); with `fullSync`, `synchronous = FULL` on its writer connection.
final class GRDBContender: Contender {
    static let name = "GRDB"
    let pool: DatabasePool

    init(directory: URL, fullSync: Bool) throws {
        pool = try DatabasePool(path: directory.appendingPathComponent("bench.sqlite").path)
        if fullSync {
            // After the pool's own set-up: `setUpWALMode` sets NORMAL on the writer after
            // `prepareDatabase` runs (GRDB/Core/DatabasePool.swift), so FULL goes here.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        }
        try pool.write { db in
            try db.create(table: "item", ifNotExists: true) { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("email", .text).notNull().indexed()
                t.column("age", .integer).notNull()
                t.column("score", .double).notNull()
                t.column("created", .datetime).notNull()
            }
        }
    }

    func bulkInsert(_ items: [Item]) throws {
        try pool.write { db in for item in items { try GRDBItem(item).insert(db) } }
    }

    func singleCommits(_ items: [Item]) throws {
        for item in items { try pool.write { db in try GRDBItem(item).insert(db) } }
    }

    private func read(_ r: GRDBItem) -> Int { checksum(r.id, r.name, r.email, r.age, r.score, r.created) }

    /// The query interface: `GRDBItem.fetchOne(db, key:)`.
    func fetch(_ keys: [Int]) throws -> Int {
        try pool.read { db in
            var sum = 0
            for key in keys { if let r = try GRDBItem.fetchOne(db, key: key) { sum &+= read(r) } }
            return sum
        }
    }

    /// The cached-statement fast path: one prepared statement, re-bound per key.
    func fetchFast(_ keys: [Int]) throws -> Int {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT id, name, email, age, score, created FROM item WHERE id = ?")
            var sum = 0
            for key in keys { if let r = try GRDBItem.fetchOne(statement, arguments: [key]) { sum &+= read(r) } }
            return sum
        }
    }

    func iterateAll() throws -> Int {
        try pool.read { db in
            var sum = 0
            let cursor = try GRDBItem.fetchCursor(db, sql: "SELECT id, name, email, age, score, created FROM item")
            while let r = try cursor.next() { sum &+= read(r) }
            return sum
        }
    }

    func iteratePrefix(_ count: Int) throws -> Int {
        try pool.read { db in
            var sum = 0
            let cursor = try GRDBItem.fetchCursor(db, sql: "SELECT id, name, email, age, score, created FROM item")
            var read = 0
            while read < count, let r = try cursor.next() {
                sum &+= self.read(r)
                read += 1
            }
            return sum
        }
    }

    func filtered() throws -> Int {
        try pool.read { db in
            var sum = 0
            let cursor = try GRDBItem.filter(Column("age") >= 30 && Column("age") < 40)
                .select(Column("id"), Column("name"), Column("email"), Column("age"), Column("score"), Column("created"))
                .fetchCursor(db)
            while let r = try cursor.next() { sum &+= read(r) }
            return sum
        }
    }

    func update(_ keys: [Int]) throws {
        try pool.write { db in
            for key in keys {
                guard var r = try GRDBItem.fetchOne(db, key: key) else { continue }
                r.score += 1
                try r.update(db, columns: ["score"])
            }
        }
    }
}
