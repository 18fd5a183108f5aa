import Foundation
import VaultCore

// MARK: - Applying a schema change
//
// Every schema change — creating tables, altering them, a migration with its
// block — is one SQLite transaction on the writer connection. A crash at any
// point (SIGKILL included) leaves the file at the old schema, readable by the
// old app, or at the new one, complete: SQLite's journal makes the
// transaction atomic, and the schema version, the stored definitions and the
// data change together.
//
// Changing a table. SQLite's ALTER TABLE cannot change a column's type,
// nullability or constraints, so a class whose definition changed is rebuilt
// (SQLite's own recipe, "making other kinds of table schema changes"):
//
//   1. its indexes and triggers are dropped (their names are reused below);
//   2. the table is renamed `_vk_old_<Class>`, with `legacy_alter_table` on so
//      that the foreign keys of other tables, list side tables and trigger
//      bodies keep naming `<Class>` — the new table, once created;
//   3. the new table is created from the code's schema (with its indexes and
//      triggers; side tables that exist are kept, except those whose element
//      type changed: they start empty, their old entries copied to
//      `_vk_old_<side table>` for the block to read) and every row copied, with
//      the same row id, so links and collection entries stay valid: columns
//      whose stored type is unchanged are copied (a NULL becoming required
//      gets the type's zero value), new required columns get the zero value,
//      new optional ones NULL;
//   4. the migration block runs (see Migration): old values are read from
//      `_vk_old_<Class>`, new ones written to `<Class>`; the primary key's
//      unique index is made after it, so the block can give a new key its
//      values (keys still equal then fail the migration);
//   5. the old tables, the copies of old entries and the side tables of
//      removed collection properties are dropped, the definitions and version stored, foreign keys checked
//      (`PRAGMA foreign_key_check`: a dangling link is an error, never saved).
//
// Foreign-key enforcement is off for the transaction (it cannot change inside
// one): with it on, dropping a table would first delete its rows and fire every
// ON DELETE action in the other tables — nilling links, emptying lists.
//
// Concurrency. The plan is made again inside the transaction, under the
// write lock: a process that lost the race to create a new vault's tables
// finds them there and creates nothing (the statements say IF NOT EXISTS too).
enum SchemaChange {
    /// Creates, alters and migrates what registering `list` needs, in one transaction.
    static func apply(_ list: [ObjectSchema], to vault: Vault, runMigrationBlock: Bool) throws {
        let configuration = vault.configuration
        if let writer = vault.session.transaction.writer {
            // First use of a class inside a write: part of that transaction (only creating is possible there).
            let plan = try SchemaPlan(list, on: writer, codeVersion: configuration.schemaVersion)
            guard plan.toRebuild.isEmpty && plan.embeddingChanged.isEmpty else { throw plan.migrationRequiredError(path: vault.path) }
            try create(plan.toCreate, recordingTypesOf: list, on: writer)
            vault.session.write.registered(list.map(\.className))
            return
        }
        try vault.session.database.writeWithoutTransaction { db in
            try db.execute("PRAGMA foreign_keys = OFF")
            try db.execute("PRAGMA legacy_alter_table = ON")
            defer {
                _ = try? db.execute("PRAGMA legacy_alter_table = OFF")
                _ = try? db.execute("PRAGMA foreign_keys = ON")
            }
            try db.transaction(.immediate) { db in
                let plan = try SchemaPlan(list, on: db, codeVersion: configuration.schemaVersion)
                try plan.checkAllowed(path: vault.path, deletingIfNeeded: configuration.deleteVaultIfMigrationNeeded)
                try create(plan.toCreate, recordingTypesOf: list, on: db)
                for (schema, stored) in plan.toRebuild { try rebuild(schema, storedDefinition: stored, on: db) }
                let migration = Migration(database: db, plan: plan, schemas: list, path: vault.path)
                if runMigrationBlock, plan.versionIncreased, let block = configuration.migrationBlock {
                    block(migration, plan.storedVersion ?? 0)
                }
                if plan.versionIncreased || !plan.toRebuild.isEmpty {
                    VaultLog.log(.info, "migrated \(vault.path) from schema version \(plan.storedVersion ?? 0) to \(configuration.schemaVersion) (\(plan.toRebuild.count) classes rebuilt)")
                }
                try EmbeddingChange.apply(plan.embeddingChanged, schemas: list, on: db)
                try migration.finish()
                try migration.dropKeptOldEntries()
                for (schema, stored) in plan.toRebuild {
                    try createKeyIndexes(of: schema, on: db)
                    try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(oldTableName(schema.className)))")
                    try dropRemovedCollections(of: schema, storedDefinition: stored, on: db)
                    try db.execute(SystemTables.replaceDefinitionSQL, arguments: [.text(schema.className), .text(schema.storedDefinition)])
                }
                let violations = try db.fetchAll("PRAGMA foreign_key_check")
                if let first = violations.first {
                    throw VaultObjectError.invalidValue(className: first[0].string ?? "?", property: "(links)",
                                                        reason: "the migration left \(violations.count) link(s) to objects that do not exist")
                }
                try db.execute(SystemTables.storeSchemaVersionSQL, arguments: [.integer(Int64(bitPattern: configuration.schemaVersion))])
                let sequence = try vault.incrementCommitSequence(on: db)
                // No row change for observers, but the change log stays complete (see ChangeLog),
                // and so does this process's record (a gap would cost observers their modifications).
                try ChangeLog.append(TransactionChanges(), sequence: sequence, on: db, schemas: { _ in nil })
                vault.session.coordinator.record(TransactionChanges(), sequence: sequence)
            }
        }
        vault.session.coordinator.signalCommit()
    }

    /// The name that finds `type` again at open: its mangled name (nested types
    /// included), else `Module.Class`. A private or local class finds neither
    /// and is registered at its first use instead.
    static func recordedTypeName(_ type: ObjectBase.Type) -> String {
        if let mangled = _mangledTypeName(type), _typeByName(mangled) != nil { return mangled }
        return String(reflecting: type)
    }

    /// The name a rebuilt class's table has while its migration runs.
    static func oldTableName(_ className: String) -> String { "_vk_old_" + className }

    /// Copies a class's rows to `_vk_old_<Class>` for a migration's old objects to
    /// read (a class the migration did not rebuild, once the block changes it), indexed by row id.
    static func keepOldRows(of className: String, on db: Database) throws {
        let copy = oldTableName(className)
        try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(copy))")
        try db.execute("CREATE TABLE \(quoteIdentifier(copy)) AS SELECT * FROM \(quoteIdentifier(className)) ORDER BY \"_vk_id\"")
        try db.execute("CREATE UNIQUE INDEX \(quoteIdentifier(copy + "_id")) ON \(quoteIdentifier(copy))(\"_vk_id\")")
    }

    /// Copies side table `table`'s entries to `_vk_old_<table>` for a migration's old
    /// objects to read: in stored order (their row ids, which sets and lists order
    /// by, follow it), indexed by owner, since an old object reads its own entries.
    static func keepOldEntries(of table: String, on db: Database) throws {
        let copy = oldTableName(table)
        try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(copy))")
        try db.execute("CREATE TABLE \(quoteIdentifier(copy)) AS SELECT * FROM \(quoteIdentifier(table)) ORDER BY rowid")
        try db.execute("CREATE INDEX \(quoteIdentifier(copy + "_owner")) ON \(quoteIdentifier(copy))(\"_vk_owner\")")
    }

    private static func create(_ schemas: [ObjectSchema], recordingTypesOf list: [ObjectSchema], on db: Database) throws {
        for schema in schemas {
            for statement in schema.creationSQL() { try db.execute(statement) }
            try db.execute(SystemTables.replaceDefinitionSQL, arguments: [.text(schema.className), .text(schema.storedDefinition)])
        }
        for schema in list {
            try db.execute(SystemTables.storeSwiftTypeSQL, arguments: [.text(schema.className), .text(recordedTypeName(schema.type))])
            try db.execute(SystemTables.storeEmbeddedFlagSQL, arguments: [.text(schema.className), .integer(schema.isEmbedded ? 1 : 0)])
            let order = schema.properties.filter { $0.originProperty == nil }.map(\.storedName).joined(separator: "\n")
            try db.execute(SystemTables.storePropertyOrderSQL, arguments: [.text(schema.className), .text(order)])
        }
    }

    /// Steps 1–3 of the essay: the old table kept as `_vk_old_<Class>`, the new one filled.
    private static func rebuild(_ schema: ObjectSchema, storedDefinition: String, on db: Database) throws {
        let className = schema.className
        let old = StoredProperty.parse(storedDefinition)
        let oldRowIDKey = old.values.contains { $0.kind == "primary-rowid" }
        let newRowIDKey = schema.properties.contains { $0.isRowIDKey }
        guard oldRowIDKey == newRowIDKey else {
            throw VaultObjectError.invalidModel(className: className, property: schema.primaryKeyProperty?.name,
                                                reason: "a migration cannot make a required Int primary key of another property or stop one being it (objects are identified by it); add a new class and copy the objects in the migration block")
        }
        let rows = try db.fetchAll("SELECT type, name FROM sqlite_schema WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL",
                                   arguments: [.text(className)])
        for row in rows {
            guard let type = row[0].string, let name = row[1].string else { continue }
            try db.execute("DROP \(type == "index" ? "INDEX" : "TRIGGER") IF EXISTS \(quoteIdentifier(name))")
        }
        try db.execute("ALTER TABLE \(quoteIdentifier(className)) RENAME TO \(quoteIdentifier(oldTableName(className)))")
        // A collection whose element type changed starts empty (its entries could not be read as the new type);
        // its old entries stay readable by the migration block in a plain copy, dropped with the old table.
        for property in schema.properties where property.collectionKind != nil {
            let element = "\(property.collectionKind?.rawValue ?? "")<\(property.objectClassName ?? property.type.rawValue)>"
            if let before = old[property.storedName], before.element != element {
                let table = schema.unquotedCollectionTableName(for: property)
                if try db.fetchOne("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", arguments: [.text(table)]) != nil {
                    try keepOldEntries(of: table, on: db)
                }
                try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(table))")
            }
        }
        // The primary key's unique index waits until the block has run (`createKeyIndexes`): as in Realm,
        // a block may give a new key its values, or pass through duplicates it then removes.
        for statement in schema.creationSQL() where !isKeyIndex(statement) { try db.execute(statement) }

        var columns = ["\"_vk_id\""], sources = ["\"_vk_id\""]
        var arguments: [DatabaseValue] = []
        for index in schema.columnIndexes where !schema.properties[index].isRowIDKey {
            let property = schema.properties[index]
            columns.append(quoteIdentifier(property.storedName))
            let element = property.objectClassName ?? property.type.rawValue
            if let before = old[property.storedName], before.element == element, !before.isCollection {
                if before.isOptional && !property.isOptional {
                    sources.append("COALESCE(\(quoteIdentifier(property.storedName)), ?)")
                    arguments.append(schema.accessors[index].defaultEncoded)
                } else {
                    sources.append(quoteIdentifier(property.storedName))
                }
            } else {
                sources.append("?")
                arguments.append(schema.accessors[index].defaultEncoded)
            }
        }
        try db.execute("INSERT INTO \(quoteIdentifier(className)) (\(columns.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(quoteIdentifier(oldTableName(className)))",
                       arguments: arguments)
    }

    private static func isKeyIndex(_ statement: String) -> Bool { statement.hasPrefix("CREATE UNIQUE INDEX") }

    /// Creates a rebuilt class's primary-key index, once the migration block has run; keys left
    /// equal fail the migration, naming the class and property (never a value: it may be a user's data).
    private static func createKeyIndexes(of schema: ObjectSchema, on db: Database) throws {
        for statement in schema.creationSQL() where isKeyIndex(statement) {
            do {
                try db.execute(statement)
            } catch {
                guard case .sqlite(let failure) = error, failure.code == .constraint else { throw error }
                throw VaultObjectError.invalidValue(className: schema.className, property: schema.primaryKeyProperty?.name ?? "(primary key)",
                                                    reason: "after the migration two objects have the same primary key; give each a unique value in the migration block")
            }
        }
    }

    /// Drops the side tables of collection properties the class no longer has
    /// (the copies of old entries kept for the block go with `Migration.dropKeptOldEntries`).
    private static func dropRemovedCollections(of schema: ObjectSchema, storedDefinition: String, on db: Database) throws {
        let kept = Set(schema.properties.filter { $0.collectionKind != nil }.map(\.storedName))
        for property in StoredProperty.parse(storedDefinition).values where property.isCollection {
            if !kept.contains(property.storedName) {
                try db.execute("DROP TABLE IF EXISTS \(property.sideTable(of: schema.className))")
            }
        }
    }
}
