import Foundation
import VaultCore

/// The read side of a vault, as a `Results` sees it: the one collaborator a
/// `Results` (and its compiled query) reads through, instead of reaching into
/// `Vault` for connections, caches and object construction.
///
/// Everything it returns is at the vault's current ``version``: a `Results`
/// keeps its caches for one version and drops them when the version moves
/// (a write through the vault, or a refresh that took in another commit).
struct ObjectReader {
    let vault: Vault

    /// The vault's content version: cached rows and counts are valid while it stays put.
    var version: UInt64 { vault.session.checkedContentVersion }

    /// Whether a class has no table (a read-only vault written without it): such results are empty.
    func isAbsent(_ className: String) -> Bool { vault.isAbsent(className) }

    /// The schema of a class of this vault, by name (for compiling key paths through links):
    /// a registered model class, else a class the file stores without one (a runtime class).
    func schema(named className: String) -> ObjectSchema? { vault.schema(named: className) ?? vault.dynamicSchema(named: className) }

    /// Prepares a compiled query now, so that SQLite's objections are a thrown ``QueryError``.
    func prepare(_ sql: String, className: String) throws(QueryError) {
        try vault.prepareQuery(sql, className: className)
    }

    /// The row ids a query selects, in order.
    func rowIDs(_ query: SQLFragment) -> [Int64] {
        do {
            return try checkedRowIDs(query)
        } catch {
            vault.failRead(error, "querying")
        }
    }

    /// ``rowIDs(_:)``, throwing what a damaged vault gives (see Vault+CheckedReads).
    func checkedRowIDs(_ query: SQLFragment) throws -> [Int64] {
        try vault.withDatabase { db in
            // Read straight from the statement: no row arrays for what may be every id of a class.
            var ids: [Int64] = []
            try db.cachedStatement(query.sql).forEachRow(query.bindings) { statement in ids.append(statement.int64(at: 0)) }
            return ids
        }
    }

    /// The largest row id of `schema`'s table (0 when it is empty).
    func largestRowID(_ schema: ObjectSchema) -> Int64 {
        value(SQLFragment("SELECT max(\"_vk_id\") FROM \(schema.tableName)")).int64 ?? 0
    }

    /// The single integer a `count(*)` query returns.
    func count(_ query: SQLFragment) -> Int {
        vault.query { db in Int(try db.cachedStatement(query.sql).fetchFirstValue(query.bindings)?.int64 ?? 0) }
    }

    /// The single value an aggregate query returns (`.null` for none).
    func value(_ query: SQLFragment) -> DatabaseValue {
        vault.query { db in try db.cachedStatement(query.sql).fetchFirstValue(query.bindings) } ?? .null
    }

    /// Managed objects for a query whose columns are `_vk_id` then the class's
    /// columns (`arguments` follow the query's own bindings: LIMIT, OFFSET).
    func objects(_ schema: ObjectSchema, _ query: SQLFragment, arguments: [DatabaseValue] = []) -> [ObjectBase] {
        vault.query { db in try vault.materializeRows(schema, try db.cachedStatement(query.sql), query.bindings + arguments) }
    }

    /// Managed objects for `ids`, in that order (ids no longer present are skipped).
    func objects(_ schema: ObjectSchema, rowIDs ids: [Int64]) -> [ObjectBase] {
        do {
            return try checkedObjects(schema, rowIDs: ids)
        } catch {
            vault.failRead(error, "querying")
        }
    }

    /// ``objects(_:rowIDs:)``, throwing what a damaged vault gives (see Vault+CheckedReads).
    func checkedObjects(_ schema: ObjectSchema, rowIDs ids: [Int64]) throws -> [ObjectBase] {
        guard !ids.isEmpty else { return [] }
        var objects: [ObjectBase] = []
        var start = 0
        while start < ids.count {
            // Bounded IN lists keep under SQLite's variable limit.
            let chunk = Array(ids[start..<Swift.min(start + 500, ids.count)])
            start += chunk.count
            let placeholders = chunk.map { _ in "?" }.joined(separator: ", ")
            let rows = try vault.withDatabase { db in
                try vault.materializeRows(schema, try db.cachedStatement(schema.selectAllSQL + " WHERE \"_vk_id\" IN (\(placeholders))"), chunk.map { DatabaseValue.integer($0) })
            }
            var byID: [Int64: ObjectBase] = [:]
            for object in rows { if let id = object.manager?.rowID { byID[id] = object } }
            objects += chunk.compactMap { byID[$0] }
        }
        return objects
    }

    /// Managed objects whose row ids lie in `low...high`, in row-id order: one
    /// range scan (the fast path for iterating a whole class).
    func objects(_ schema: ObjectSchema, rowIDsFrom low: Int64, through high: Int64) -> [ObjectBase] {
        vault.query { db in try vault.materializeRows(schema, try schema.statement(.selectRange, on: db), [.integer(low), .integer(high)]) }
    }
}
