import Foundation
import VaultCore

/// The SQL of a class's table (see the storage-mapping essay in Vault.swift).
extension ObjectSchema {

    private var columnList: String {
        (columnIndexes.isEmpty ? ["\"_vk_id\""] : columnIndexes.map { properties[$0].columnSQL }).joined(separator: ", ")
    }

    /// The side table of a list, set or map property.
    func collectionTableName(for property: Property) -> String {
        quoteIdentifier(unquotedCollectionTableName(for: property))
    }

    /// The side table's name as SQLite reports it (change capture keys on it).
    func unquotedCollectionTableName(for property: Property) -> String {
        CollectionTableName.make(kind: property.collectionKind?.rawValue ?? "x", className: className, storedName: property.storedName)
    }

    func collectionInsertSQL(for property: Property) -> String {
        let table = collectionTableName(for: property)
        switch property.collectionKind {
        case .list: return "INSERT INTO \(table) (\"_vk_owner\", \"_vk_position\", \"value\") VALUES (?, ?, ?)"
        case .map: return "INSERT OR REPLACE INTO \(table) (\"_vk_owner\", \"key\", \"value\") VALUES (?, ?, ?)"
        default:
            // The UNIQUE constraint keeps a value once per owner, but SQLite's UNIQUE admits any
            // number of NULLs; a set holds nil at most once (Realm's rule), so that is checked here.
            return "INSERT OR IGNORE INTO \(table) (\"_vk_owner\", \"value\") SELECT ?1, ?2 WHERE ?2 IS NOT NULL "
                + "OR NOT EXISTS (SELECT 1 FROM \(table) WHERE \"_vk_owner\" = ?1 AND \"value\" IS NULL)"
        }
    }

    /// The arguments of ``collectionInsertSQL(for:)`` for one entry of `owner`'s collection.
    static func collectionInsertArguments(_ kind: CollectionKind?, owner: Int64, position: Int, key: String?, value: DatabaseValue) -> [DatabaseValue] {
        switch kind {
        case .list: [.integer(owner), .integer(Int64(position)), value]
        case .map: [.integer(owner), .text(key ?? ""), value]
        default: [.integer(owner), value]
        }
    }

    /// CREATE TABLE, its indexes, collection tables, and the triggers that
    /// delete embedded objects with their owner or when replaced.
    func creationSQL() -> [String] {
        var columns = ["\"_vk_id\" INTEGER PRIMARY KEY"]
        for index in columnIndexes where !properties[index].isRowIDKey {
            let property = properties[index]
            var column = "\(quoteIdentifier(property.storedName)) \(property.type.columnAffinity)"
            if !property.isOptional { column += " NOT NULL" }
            if let target = property.objectClassName {
                column += " REFERENCES \(quoteIdentifier(target))(\"_vk_id\") ON DELETE SET NULL"
            }
            columns.append(column)
        }
        var statements = ["CREATE TABLE IF NOT EXISTS \(tableName) (\(columns.joined(separator: ", ")))"]
        for index in columnIndexes where (properties[index].isIndexed || properties[index].objectClassName != nil) && !properties[index].isRowIDKey {
            let property = properties[index]
            let unique = property.isPrimaryKey ? "UNIQUE " : ""
            let name = quoteIdentifier("\(className)_\(property.storedName)_index")
            statements.append("CREATE \(unique)INDEX IF NOT EXISTS \(name) ON \(tableName)(\(quoteIdentifier(property.storedName)))")
            if property.isEmbeddedLink, let target = property.objectClassName {
                let column = quoteIdentifier(property.storedName)
                let embedded = quoteIdentifier(target)
                statements.append("CREATE TRIGGER IF NOT EXISTS \(quoteIdentifier("_vk_delete_\(className)_\(property.storedName)")) AFTER DELETE ON \(tableName) WHEN OLD.\(column) IS NOT NULL BEGIN DELETE FROM \(embedded) WHERE \"_vk_id\" = OLD.\(column); END")
                statements.append("CREATE TRIGGER IF NOT EXISTS \(quoteIdentifier("_vk_replace_\(className)_\(property.storedName)")) AFTER UPDATE OF \(column) ON \(tableName) WHEN OLD.\(column) IS NOT NULL AND OLD.\(column) IS NOT NEW.\(column) BEGIN DELETE FROM \(embedded) WHERE \"_vk_id\" = OLD.\(column); END")
            }
        }
        for property in properties where property.collectionKind != nil {
            let table = collectionTableName(for: property)
            var valueColumn = "\"value\" \(property.type.columnAffinity)"
            if !property.isOptional { valueColumn += " NOT NULL" }
            if let target = property.objectClassName {
                // Deleting an object removes it from lists and sets; a map keeps the key, now nil (Realm's rule).
                let action = property.collectionKind == .map ? "SET NULL" : "CASCADE"
                valueColumn += " REFERENCES \(quoteIdentifier(target))(\"_vk_id\") ON DELETE \(action)"
            }
            let owner = "\"_vk_owner\" INTEGER NOT NULL REFERENCES \(tableName)(\"_vk_id\") ON DELETE CASCADE"
            switch property.collectionKind {
            case .list:
                statements.append("CREATE TABLE IF NOT EXISTS \(table) (\(owner), \"_vk_position\" INTEGER NOT NULL, \(valueColumn))")
                statements.append("CREATE INDEX IF NOT EXISTS \(quoteIdentifier("_vk_list_\(className)_\(property.storedName)_order")) ON \(table)(\"_vk_owner\", \"_vk_position\")")
            case .map:
                statements.append("CREATE TABLE IF NOT EXISTS \(table) (\(owner), \"key\" TEXT NOT NULL, \(valueColumn), PRIMARY KEY(\"_vk_owner\", \"key\"))")
            default:
                statements.append("CREATE TABLE IF NOT EXISTS \(table) (\(owner), \(valueColumn), UNIQUE(\"_vk_owner\", \"value\"))")
            }
            if property.objectClassName != nil {
                statements.append("CREATE INDEX IF NOT EXISTS \(quoteIdentifier("_vk_\(property.collectionKind?.rawValue ?? "")_\(className)_\(property.storedName)_value")) ON \(table)(\"value\")")
            }
            if property.isEmbeddedLink, let target = property.objectClassName {
                statements.append("CREATE TRIGGER IF NOT EXISTS \(quoteIdentifier("_vk_delete_entry_\(className)_\(property.storedName)")) AFTER DELETE ON \(table) WHEN OLD.\"value\" IS NOT NULL BEGIN DELETE FROM \(quoteIdentifier(target)) WHERE \"_vk_id\" = OLD.\"value\"; END")
            }
        }
        return statements
    }

    var computedInsertSQL: String {
        if columnIndexes.isEmpty { return "INSERT INTO \(tableName) DEFAULT VALUES" }
        return insertSQL(rows: 1)
    }

    /// `INSERT INTO table (columns) VALUES (?, …), (?, …), …`: `rows` rows of one
    /// parameter per column.
    func insertSQL(rows: Int) -> String {
        let row = "(" + columnIndexes.map { _ in "?" }.joined(separator: ", ") + ")"
        return "INSERT INTO \(tableName) (\(columnList)) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    func updateSQL(columns: [Int]) -> String {
        let assignments = columns.map { "\(properties[$0].columnSQL) = ?" }.joined(separator: ", ")
        return "UPDATE \(tableName) SET \(assignments) WHERE \"_vk_id\" = ?"
    }

    var computedDeleteSQL: String { "DELETE FROM \(tableName) WHERE \"_vk_id\" = ?" }

    var computedSelectByRowIDSQL: String { "SELECT \(columnList) FROM \(tableName) WHERE \"_vk_id\" = ?" }

    ///
    /// An optional primary key compares with `IS`, so that nil is a key like any
    /// other (Realm's rule: at most one object whose key is nil, found by a nil
    /// lookup); `=` never matches NULL. SQLite uses the key's index for `IS` too.
    var computedSelectByPrimaryKeySQL: String {
        let key = primaryKeyProperty?.columnSQL ?? "\"_vk_id\""
        let comparison = primaryKeyProperty?.isOptional == true ? "IS" : "="
        return "SELECT \"_vk_id\", \(columnList) FROM \(tableName) WHERE \(key) \(comparison) ?"
    }

    /// `t0."_vk_id", t0."column"…`: the columns `materializeRows` reads, for queries aliasing the table t0.
    var computedAliasedColumnList: String {
        (["t0.\"_vk_id\""] + columnIndexes.map { "t0.\(properties[$0].columnSQL)" }).joined(separator: ", ")
    }

    /// `SELECT _vk_id, columns… FROM table` (callers append WHERE / ORDER BY).
    var computedSelectAllSQL: String { "SELECT \"_vk_id\", \(columnList) FROM \(tableName)" }

    /// The statements a vault prepares once per class and connection.
    enum StatementKind: Int {
        case insert, delete, selectByRowID, selectByPrimaryKey, selectRange
    }

    func statement(_ kind: StatementKind, on db: Database) throws(VaultError) -> Statement {
        try db.cachedStatement(key: Database.StatementKey(owner: self, kind: kind.rawValue)) {
            switch kind {
            case .insert: insertSQL
            case .delete: deleteSQL
            case .selectByRowID: selectByRowIDSQL
            case .selectByPrimaryKey: selectByPrimaryKeySQL
            case .selectRange: selectAllSQL + " WHERE \"_vk_id\" BETWEEN ? AND ? ORDER BY \"_vk_id\""
            }
        }
    }

    /// `INSERT INTO table (columns) VALUES (?, …), (?, …), …` with `rows` rows of
    /// parameters (see Vault+PendingInserts), prepared once per class, row count and connection.
    func insertStatement(rows: Int, on db: Database) throws(VaultError) -> Statement {
        guard rows > 1 else { return try statement(.insert, on: db) }
        // Kinds below zero: one per row count (the StatementKind cases and the update kinds are positive).
        return try db.cachedStatement(key: Database.StatementKey(owner: self, kind: -rows)) { insertSQL(rows: rows) }
    }

    /// `UPDATE … SET property = ? WHERE _vk_id = ?`, prepared once per class, property and connection.
    func updateStatement(forProperty index: Int, on db: Database) throws(VaultError) -> Statement {
        // Kinds above the StatementKind cases: one per property.
        try db.cachedStatement(key: Database.StatementKey(owner: self, kind: 1_000 + index)) { updateSQL(columns: [index]) }
    }

    // MARK: Stored definition

    /// What the vault records about the class: one line per stored column, in
    /// column-name order (so reordering declarations is not a change; renaming a
    /// Swift property through propertiesMapping is not either).
    var storedDefinition: String {
        properties.filter { $0.originProperty == nil }.sorted { $0.storedName < $1.storedName }.map { property in
            let element = property.objectClassName ?? property.type.rawValue
            return StoredDefinitionLine.encode([
                property.storedName, property.collectionKind.map { "\($0.rawValue)<\(element)>" } ?? element, property.isOptional ? "optional" : "required",
                property.isRowIDKey ? "primary-rowid" : (property.isPrimaryKey ? "primary" : (property.isIndexed ? "indexed" : "plain"))])
        }.joined(separator: "\n")
    }

    /// Human-readable differences between a stored definition and the code's.
    static func differences(className: String, stored: String, code: String) -> [String] {
        func parse(_ text: String) -> [String: String] {
            Dictionary(text.split(separator: "\n").map { line -> (String, String) in
                let parts = StoredDefinitionLine.decode(line)
                return (parts.first ?? "", parts.dropFirst().joined(separator: " "))
            }, uniquingKeysWith: { first, _ in first })
        }
        let old = parse(stored), new = parse(code)
        var result: [String] = []
        for name in Set(old.keys).union(new.keys).sorted() {
            switch (old[name], new[name]) {
            case (nil, let added?): result.append("\(className).\(name) was added (\(added))")
            case (let removed?, nil): result.append("\(className).\(name) was removed (was \(removed))")
            case (let before?, let after?) where before != after: result.append("\(className).\(name) changed from \(before) to \(after)")
            default: break
            }
        }
        return result
    }
}

/// The one spelling of a side table's name: `_vk_<list|set|map>_<Class>_<stored name>`.
enum CollectionTableName {
    /// What every side table's name starts with.
    static let prefix = "_vk_"

    static func make(kind: String, className: String, storedName: String) -> String {
        "\(prefix)\(kind)_\(className)_\(storedName)"
    }
}
