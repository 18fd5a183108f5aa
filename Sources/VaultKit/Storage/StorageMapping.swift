import Foundation
import VaultCore

// MARK: - Storage mapping
//
// How objects become rows. Everything that writes table SQL lives in this
// folder: class tables (ObjectSchema+Tables), collection side tables
// (CollectionTables) and the vault's own bookkeeping tables (below). The
// query compiler (Query/) reads the same tables.
//
// One table per class, named after it:
//
//   "Person" ("_vk_id" INTEGER PRIMARY KEY,       -- the row id every link points to
//             "first_name" TEXT NOT NULL,          -- a column per @Persisted property, by stored name
//             "age" INTEGER,                       -- optional properties allow NULL
//             "bestFriend" INTEGER REFERENCES "Person"("_vk_id") ON DELETE SET NULL)
//   UNIQUE INDEX on the primary key; INDEX on each `indexed:` property.
//
// A required integer primary key (`@Persisted(primaryKey: true) var id = 0`)
// is the row id itself: its column is "_vk_id", so a lookup by key or a
// link is one B-tree search and there is no separate index. Unsorted results
// of such a class come in key order; of other classes, in insertion order.
//
// Lists, sets and maps live in side tables "_vk_list_<Class>_<property>"
// ("_vk_owner", "_vk_position", "value"), "_vk_set_…" ("_vk_owner", "value",
// unique per owner) and "_vk_map_…" ("_vk_owner", "key", "value"); their rows
// are deleted with the owner (ON DELETE CASCADE), and elements that are
// objects are row ids with ON DELETE CASCADE, so deleting an object removes it
// from every collection. Embedded objects are rows of their own class's table
// referenced by exactly one parent column or collection entry; triggers delete
// them with the parent, when replaced, and when their entry is removed.
// LinkingObjects are not stored: they are queries over the origin's column or
// side table.
//
// Values: Bool and integers as INTEGER; Float and Double as REAL; Date as REAL
// seconds since 2001 (Date's own storage, so it round-trips exactly); String
// as TEXT; Data as BLOB; UUID as a 16-byte BLOB; ObjectId as a 12-byte BLOB
// (bytes order by creation time); Decimal as its canonical TEXT; enums by raw
// value; a mixed value (AnyVaultValue) in a column declared BLOB, tagged by
// its own type (the layout is in Mixed/MixedValue.swift). To-one links are
// foreign keys with ON DELETE SET NULL, so deleting an object nils every link
// to it (foreign_keys is on for every connection); mixed links are cleared by
// VaultKit when their object is deleted (Mixed/Vault+Mixed.swift).
//
// `_vaultkit_schema` records each class's stored definition, and
// `_vaultkit_metadata` the schema version: opening with different models is a
// "migration required" error listing the differences.
//
// Queries (Query/) compile to SQL over these tables; the SQL functions they
// use (`vk_fold`, `vk_match`, `COLLATE vk_decimal`, Decimal sums) are
// registered on every connection (see QuerySQLFunctions).

/// The vault's own bookkeeping tables: the stored schema and metadata.
enum SystemTables {
    /// Creates the tables if they do not exist: schema, metadata with the commit
    /// sequence (see Vault+Versions) at 0, and the change log (see ChangeLog).
    static let createSQL = """
        CREATE TABLE IF NOT EXISTS _vaultkit_schema(class_name TEXT PRIMARY KEY, definition TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_metadata(key TEXT PRIMARY KEY, value);
        INSERT OR IGNORE INTO _vaultkit_metadata(key, value) VALUES ('commitSequence', 0);
        \(ChangeLog.createSQL);
        """
    static let schemaTableExistsSQL = "SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_schema'"
    static let metadataTableExistsSQL = "SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_metadata'"
    /// Every stored class: (class_name, definition).
    static let selectDefinitionsSQL = "SELECT class_name, definition FROM _vaultkit_schema"
    /// Every stored class name.
    static let selectClassNamesSQL = "SELECT class_name FROM _vaultkit_schema"
    static let insertDefinitionSQL = "INSERT INTO _vaultkit_schema(class_name, definition) VALUES (?, ?)"
    static let selectSchemaVersionSQL = "SELECT value FROM _vaultkit_metadata WHERE key = 'schemaVersion'"
    static let storeSchemaVersionSQL = "INSERT OR REPLACE INTO _vaultkit_metadata(key, value) VALUES ('schemaVersion', ?)"
    /// Each class's Swift type (`Module.Class`), under `swiftType:<class>`: how a vault finds its classes at open.
    static let swiftTypeKeyPrefix = "swiftType:"
    static let selectSwiftTypesSQL = "SELECT key, value FROM _vaultkit_metadata WHERE key >= 'swiftType:' AND key < 'swiftType;'"
    static let selectSwiftTypeNamesSQL = "SELECT value FROM _vaultkit_metadata WHERE key >= 'swiftType:' AND key < 'swiftType;'"
    static let storeSwiftTypeSQL = "INSERT OR IGNORE INTO _vaultkit_metadata(key, value) VALUES ('swiftType:' || ?, ?)"
    /// Whether each class is embedded (1) or not (0), under `embedded:<class>`: the stored definition does not say.
    static let embeddedKeyPrefix = "embedded:"
    static let selectEmbeddedFlagsSQL = "SELECT key, value FROM _vaultkit_metadata WHERE key >= 'embedded:' AND key < 'embedded;'"
    static let storeEmbeddedFlagSQL = "INSERT OR REPLACE INTO _vaultkit_metadata(key, value) VALUES ('embedded:' || ?, ?)"
    /// Each class's stored property names in declaration order, under `order:<class>`
    /// (the definition sorts them by name): how a runtime class lists its properties.
    static let storePropertyOrderSQL = "INSERT OR REPLACE INTO _vaultkit_metadata(key, value) VALUES ('order:' || ?, ?)"
    static let selectPropertyOrderSQL = "SELECT value FROM _vaultkit_metadata WHERE key = 'order:' || ?"
    static let replaceDefinitionSQL = "INSERT OR REPLACE INTO _vaultkit_schema(class_name, definition) VALUES (?, ?)"
    static let deleteDefinitionSQL = "DELETE FROM _vaultkit_schema WHERE class_name = ?"
    static let selectCommitSequenceSQL = "SELECT value FROM _vaultkit_metadata WHERE key = 'commitSequence'"
    static let incrementCommitSequenceSQL = "UPDATE _vaultkit_metadata SET value = value + 1 WHERE key = 'commitSequence'"

    /// Deletes every object of a class (the `WHERE` keeps SQLite from the
    /// truncate optimisation, which would skip triggers and hooks).
    static func deleteAllSQL(className: String) -> String { "DELETE FROM \(quoteIdentifier(className)) WHERE 1" }
    /// One row of a class, if any.
    static func anyRowSQL(className: String) -> String { "SELECT 1 FROM \(quoteIdentifier(className)) LIMIT 1" }
}

/// What every connection of a vault (writer and readers) needs before VaultKit uses it.
enum ConnectionSetup {
    @Sendable
    static func prepare(_ db: Database) throws {
        // Links are foreign keys: deleting an object nils links to it (SET NULL)
        // and removes it from collections (CASCADE).
        try db.execute("PRAGMA foreign_keys = ON")
        // REPLACE in a map must fire the triggers that delete a replaced embedded value.
        try db.execute("PRAGMA recursive_triggers = ON")
        try QuerySQLFunctions.register(db)
    }
}

/// A SQL identifier in double quotes, with inner quotes doubled.
func quoteIdentifier(_ name: String) -> String {
    // The common case (no quote inside) skips Foundation's string search.
    guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
    return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
