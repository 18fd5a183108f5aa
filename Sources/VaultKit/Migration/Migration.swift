import Foundation
import VaultCore

// MARK: - Migrations
//
// Realm's migration API over the rebuild SchemaChange performs. When a vault
// opens with a higher `schemaVersion` than the file's, the changed tables are
// rebuilt first — so the new schema is in place, every object copied with
// its row id and every unchanged property value — and the old tables are kept
// as `_vk_old_<Class>` while `migrationBlock` runs. The block then sees both:
//
//   - `enumerateObjects(ofType:)` walks the old table in row-id order, in
//     batches, handing each object's old values (read before the block could
//     change them) and the same object in the new table, whose writes are
//     UPDATEs of that row;
//   - `renameProperty` copies a column (or a collection's entries) from the
//     old table to the new name;
//   - `create`, `delete` and `deleteData(forType:)` insert and delete rows.
//
// Old objects stay old, as in Realm (whose old objects are a read-only copy of
// the file): where old and new objects share a table — a class not rebuilt, a
// collection kept under its name and element type — the block's first change
// to it copies the table for the old objects (see MigrationOldValues.swift).
//
// Everything runs inside the schema change's one transaction; an operation
// that fails (a value of the wrong type, a duplicate primary key) is recorded,
// the rest of the block's operations are skipped, and the whole migration is
// rolled back with that error: the file stays at the old version. Links and
// entries left pointing at deleted objects are repaired before commit as the
// schema's foreign keys would have (links set to nil, entries removed), since
// foreign-key actions are off while tables are rebuilt.

/// Realm's migration block: called once when a vault opens with a higher
/// `schemaVersion` than the file's, with the version the file had.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

/// An object in a migration, read and written by property name (Realm's `MigrationObject`).
public typealias MigrationObject = DynamicObject

/// The changes a migration block makes (Realm's `Migration`). Valid only
/// inside the block.
public final class Migration {
    let database: Database
    let plan: SchemaPlan
    /// The code's schemas, by class name.
    let newSchemas: [String: ObjectSchema]
    let path: String
    /// The first failure: the rest is skipped and the migration rolled back with it.
    private(set) var error: Swift.Error?
    private var deletedClasses: Set<String> = []
    /// Classes not rebuilt whose rows were copied to `_vk_old_<Class>` before the block first changed them.
    var keptOldClassTables: Set<String> = []
    /// Names a rename gave that the new schema does not have, by class: the stored name each stands for.
    private var renamedProperties: [String: [String: String]] = [:]
    /// Unmanaged objects the block linked, and the rows made for them: linked again, an object is not created twice.
    var createdForObjects: [ObjectIdentifier: (object: ObjectBase, rowID: Int64)] = [:]

    init(database: Database, plan: SchemaPlan, schemas: [ObjectSchema], path: String) {
        self.database = database
        self.plan = plan
        self.newSchemas = Dictionary(schemas.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        self.path = path
    }

    /// The objects `create` made, by class. A class the migration did not rebuild is read and written in one
    /// table, so its enumeration skips these: they are not old objects (and would be enumerated forever by a
    /// block that creates one per object).
    private var created: [String: Set<Int64>] = [:]

    /// The schema the file stored before the migration (Realm's `oldSchema`):
    /// class and property names as stored, types, optionality, keys and indexes.
    public var oldSchema: Schema { storedSchema }
    /// Built once per migration: old objects' `objectSchema` reads it too.
    private lazy var storedSchema = Schema(plan.stored.map { className, definition in
        // Properties in the order the file recorded (Realm's: declaration order).
        let order = (try? database.fetchOne(SystemTables.selectPropertyOrderSQL, arguments: [.text(className)]))?[0].string
        return ObjectSchema(stored: className, definition: definition, embeddedFlags: plan.storedEmbedded,
                            order: order.map { $0.split(separator: "\n").map(String.init) } ?? [])
    })
    /// The code's schema, which the migration moves the data to (Realm's `newSchema`).
    public var newSchema: Schema { Schema(newSchemas.values) }

    /// Calls `block` for every object of the class: its old values (`nil` for
    /// a class new in this version) and the object in the new schema to update
    /// (`nil` for a class the code no longer has).
    public func enumerateObjects(ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void) {
        guard error == nil, !deletedClasses.contains(typeName) else { return }
        let newSchema = newSchemas[typeName]
        guard let old = oldTable(typeName) else {
            guard let newSchema else { return }
            // A class new in this version: the objects there when the enumeration starts (created by the block before).
            let last = (try? database.fetchOne("SELECT max(\"_vk_id\") FROM \(quoteIdentifier(typeName))"))?[0].int64 ?? 0
            forEachRow({ (quoteIdentifier(typeName), nil) }, columns: [:], through: last) { rowID, _ in
                block(nil, DynamicObject(className: typeName, rowID: rowID, storage: .live(self, newSchema)))
            }
            return
        }
        // Where the old rows are is asked for per batch: the block's first change to a class it did not rebuild
        // copies them (preserveOldRows). Once they are apart from the new ones, rows whose new object the block
        // deleted are skipped, as in Realm; while they share the table, rows `create` made are.
        let source = { [unowned self] () -> (table: String, existing: String?) in
            let now = self.oldTable(typeName)
            let shared = now?.sharedWithNew ?? true
            return (now?.table ?? quoteIdentifier(typeName), shared || newSchema == nil ? nil : quoteIdentifier(typeName))
        }
        forEachRow(source, columns: old.columns, through: .max) { rowID, values in
            if sharesTable(typeName), created[typeName]?.contains(rowID) == true { return }
            let oldObject = DynamicObject(className: typeName, rowID: rowID, storage: .snapshot(self, values, old.columns))
            block(oldObject, newSchema.map { DynamicObject(className: typeName, rowID: rowID, storage: .live(self, $0)) })
        }
    }

    /// Creates an object of the class with the given values (a dictionary by
    /// property name, an array in property order, or an unmanaged object);
    /// properties not given take the model's defaults, as a new instance of the
    /// class has them (Realm's rule). A link may be given as a migration object
    /// or an unmanaged object (created too), a list or set as an array, a map as
    /// a dictionary.
    @discardableResult
    public func create(_ typeName: String, value: Any = [Any]()) -> MigrationObject {
        guard let schema = newSchemas[typeName] else {
            record(VaultObjectError.invalidValue(className: typeName, property: "(class)",
                                                 reason: "Migration.create: \(typeName) is not a class of the new schema; list it in Configuration.objectTypes (without objectTypes, a class the file does not store yet is found at its first use, after the migration)"))
            return DynamicObject(className: typeName, rowID: 0, storage: .snapshot(self, [:], [:]))
        }
        // An unmanaged object's values, as Realm's `create` takes any object with the properties.
        let value: Any = (value as? ObjectBase).flatMap { $0.manager == nil ? Self.propertyValues(of: $0) : nil } ?? value
        // Properties not given take the model's defaults, as `add` would (Realm reads them from a new instance).
        let prototype = schema.type.init()
        /// The value given for a property: `.none` when not given (the default applies), `.some(nil)` for nil.
        func given(_ position: Int, _ property: Property) -> Any?? {
            if let dictionary = value as? [String: Any] {
                return dictionary.index(forKey: property.name).map { dictionary[$0].value }
            }
            return (value as? [Any]).flatMap { position < $0.count ? .some($0[position]) : nil }
        }
        var columns: [String] = [], arguments: [DatabaseValue] = []
        for (position, index) in schema.properties.indices.enumerated() where schema.properties[index].isColumn {
            let property = schema.properties[index]
            columns.append(property.columnSQL)
            if let given = given(position, property) ?? (property.isRowIDKey ? nil : .some(prototype.value(at: index, schema: schema))) {
                let encoded = property.type == .object
                    ? property.objectClassName.flatMap { reference(to: given, ofClass: $0) }
                    : BoxedValues.encode(given, for: index, of: schema)
                guard let encoded else {
                    record(VaultObjectError.invalidValue(className: typeName, property: property.name, reason: "the value given to Migration.create is not a \(property.type.rawValue)"))
                    return DynamicObject(className: typeName, rowID: 0, storage: .live(self, schema))
                }
                arguments.append(encoded)
            } else {
                arguments.append(property.isRowIDKey ? .null : schema.accessors[index].defaultEncoded)
            }
        }
        let sql = columns.isEmpty ? "INSERT INTO \(schema.tableName) DEFAULT VALUES"
            : "INSERT INTO \(schema.tableName) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        run(className: typeName, property: schema.primaryKeyProperty?.name) { db in try db.execute(sql, arguments: arguments) }
        let created = DynamicObject(className: typeName, rowID: database.lastInsertedRowID, storage: .live(self, schema))
        if error == nil, sharesTable(typeName) { self.created[typeName, default: []].insert(created.rowID) }
        for (position, property) in schema.properties.enumerated() where property.collectionKind != nil {
            if let given = given(position, property) { created[property.name] = given }
        }
        return created
    }

    /// Deletes an object of the new schema (a `newObject` of `enumerateObjects`, or one `create` returned).
    public func delete(_ object: MigrationObject) {
        run(className: object.className, property: nil) { db in
            try preserveOldRows(of: object.className)
            try db.execute("DELETE FROM \(quoteIdentifier(object.className)) WHERE \"_vk_id\" = ?", arguments: [.integer(object.rowID)])
        }
    }

    /// Deletes every object of the class, and the class itself when the code no
    /// longer has it. Returns whether the file had the class.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard let definition = plan.stored[typeName] else {
            // A class new in this version: only what the block created so far.
            guard let schema = newSchemas[typeName] else { return false }
            run(className: typeName, property: nil) { db in try db.execute(SystemTables.deleteAllSQL(className: schema.className)) }
            return true
        }
        deletedClasses.insert(typeName)
        run(className: typeName, property: nil) { db in
            if let schema = newSchemas[typeName] {
                try db.execute(SystemTables.deleteAllSQL(className: schema.className))
                return
            }
            for property in StoredProperty.parse(definition).values where property.isCollection {
                try db.execute("DROP TABLE IF EXISTS \(property.sideTable(of: typeName))")
            }
            try db.execute(SystemTables.deleteAllSQL(className: typeName))
            try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(typeName))")
            try db.execute(SystemTables.deleteDefinitionSQL, arguments: [.text(typeName)])
            try db.execute("DELETE FROM _vaultkit_metadata WHERE key = ?", arguments: [.text(SystemTables.swiftTypeKeyPrefix + typeName)])
        }
        return true
    }

    /// Moves a property's values to its new name (Realm's `renameProperty`):
    /// `oldName` as the file stored it, `newName` a property of the new schema
    /// (its Swift name or its stored name) of the same type. Renames chain, as
    /// an app that renamed a property in two releases writes them
    /// (`a` → `b` for version 1, `b` → `c` for version 2): a name the new schema
    /// does not have is remembered as the old property's, for a later rename.
    /// A rename that cannot be made (no such property, another type, optional
    /// becoming required) fails the migration, naming the class and properties.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        let stored = StoredProperty.parse(plan.stored[typeName] ?? "")
        let originalName = stored[oldName] == nil ? renamedProperties[typeName]?[oldName] : oldName
        guard let schema = newSchemas[typeName], let old = oldTable(typeName), let originalName, let before = stored[originalName] else {
            return record(VaultObjectError.invalidValue(className: typeName, property: oldName,
                                                        reason: "renameProperty: \(typeName) had no property '\(oldName)' in the file's schema"))
        }
        guard let index = schema.index(ofProperty: newName) ?? schema.properties.firstIndex(where: { $0.storedName == newName }) else {
            renamedProperties[typeName, default: [:]][newName] = originalName   // an intermediate name of a chain
            return
        }
        let property = schema.properties[index]
        let element = property.collectionKind.map { "\($0.rawValue)<\(property.objectClassName ?? property.type.rawValue)>" }
            ?? property.objectClassName ?? property.type.rawValue
        guard before.element == element, !(before.isOptional && !property.isOptional && property.collectionKind == nil && property.objectClassName == nil) else {
            let change = before.element == element ? "from optional to required" : "from \(before.element) to \(element)"
            return record(VaultObjectError.invalidValue(className: typeName, property: property.name,
                                                        reason: "renameProperty cannot rename '\(oldName)' to '\(newName)': it would change \(change)"))
        }
        run(className: typeName, property: property.name) { db in
            if property.collectionKind != nil {
                try preserveOldEntries(of: schema.unquotedCollectionTableName(for: property), className: typeName)
                try db.execute("DELETE FROM \(schema.collectionTableName(for: property)) WHERE 1")
                try db.execute("INSERT INTO \(schema.collectionTableName(for: property)) SELECT * FROM \(oldSideTable(before, className: typeName))")
            } else {
                try db.execute("UPDATE \(schema.tableName) SET \(property.columnSQL) = (SELECT o.\(before.columnSQL) FROM \(old.table) AS o WHERE o.\"_vk_id\" = \(schema.tableName).\"_vk_id\") WHERE 1")
            }
        }
    }

    // MARK: Internals

    /// The side tables (unquoted) the file's schema had, which old objects read unless a copy was kept.
    lazy var oldSideTables: Set<String> = Set(plan.stored.flatMap { className, definition in
        StoredProperty.parse(definition).values.filter(\.isCollection).map { $0.unquotedSideTable(of: className) }
    })

    /// The copies of old entries kept so far: the rebuilds' (all made before the
    /// block runs, read once here) and those `preserveOldEntries` adds.
    lazy var keptOldEntries: Set<String> = {
        let prefix = SchemaChange.oldTableName(CollectionTableName.prefix)
        let rows = (try? database.fetchAll("SELECT name FROM sqlite_schema WHERE type = 'table' AND substr(name, 1, ?) = ?",
                                           arguments: [.integer(Int64(prefix.utf8.count)), .text(prefix)])) ?? []
        return Set(rows.compactMap { $0[0].string })
    }()

    /// Reads a table in row-id order up to row id `last`, 512 rows a batch (so the block may write meanwhile).
    /// `source` gives, per batch, the table and the table a row must still be in (if any).
    private func forEachRow(_ source: () -> (table: String, existing: String?), columns: [String: StoredProperty], through last: Int64,
                            _ body: (Int64, [String: DatabaseValue]) -> Void) {
        let readable = columns.values.filter { !$0.isCollection }.sorted { $0.storedName < $1.storedName }
        let list = (["\"_vk_id\""] + readable.map(\.columnSQL)).joined(separator: ", ")
        var after = Int64.min
        while error == nil {
            let rows: [Row]
            let (table, existing) = source()
            let existence = existing.map { " AND \"_vk_id\" IN (SELECT \"_vk_id\" FROM \($0))" } ?? ""
            do {
                rows = try database.fetchAll("SELECT \(list) FROM \(table) WHERE \"_vk_id\" > ? AND \"_vk_id\" <= ?\(existence) ORDER BY \"_vk_id\" LIMIT 512",
                                             arguments: [.integer(after), .integer(last)])
            } catch {
                record(error)
                return
            }
            guard let lastRead = rows.last?[0].int64 else { return }
            for row in rows {
                guard error == nil, let rowID = row[0].int64 else { return }
                var values: [String: DatabaseValue] = [:]
                for (offset, property) in readable.enumerated() { values[property.storedName] = row[offset + 1] }
                body(rowID, values)
            }
            after = lastRead
        }
    }

    /// Runs one operation unless an earlier one failed; records its failure.
    func run(className: String, property: String?, _ operation: (Database) throws -> Void) {
        guard error == nil else { return }
        do {
            try operation(database)
        } catch VaultError.sqlite(let failure) where failure.code == .constraint {
            // No value in the message: it may be the user's data.
            record(VaultObjectError.invalidValue(className: className, property: property ?? "(object)",
                                                 reason: "the migration would leave two objects with the same primary key, or a required value missing"))
        } catch {
            record(error)
        }
    }

    /// A property a migration object does not have: Realm stops the program; here the
    /// migration fails with the names (a misspelt name would otherwise migrate nil quietly).
    func unknownProperty(_ key: String, of className: String, side: String) -> Any? {
        record(VaultObjectError.invalidValue(className: className, property: key, reason: "\(className) has no property '\(key)' in \(side); the migration block read it"))
        return nil
    }

    func record(_ failure: Swift.Error) {
        if error == nil { error = failure }
    }

    /// Ends the block: throws its failure, else repairs links to deleted objects.
    func finish() throws {
        if let error { throw error }
        for violation in try database.fetchAll("PRAGMA foreign_key_check") {
            guard let table = violation[0].string, let rowID = violation[1].int64, let foreignKey = violation[3].int64 else { continue }
            if table.hasPrefix("_vk_") {
                try database.execute("DELETE FROM \(quoteIdentifier(table)) WHERE rowid = ?", arguments: [.integer(rowID)])
            } else if let column = try database.fetchAll("PRAGMA foreign_key_list(\(quoteIdentifier(table)))").first(where: { $0[0].int64 == foreignKey })?[3].string {
                try database.execute("UPDATE \(quoteIdentifier(table)) SET \(quoteIdentifier(column)) = NULL WHERE rowid = ?", arguments: [.integer(rowID)])
            }
        }
    }
}
