import Foundation

// MARK: - Storage mapping
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
// value. To-one links are foreign keys with ON DELETE SET NULL, so deleting an
// object nils every link to it (foreign_keys is on for every connection).
//
// `_vaultkit_schema` records each class's stored definition, and
// `_vaultkit_metadata` the schema version: opening with different models is a
// "migration required" error listing the differences.
//
// Queries (Query/) compile to SQL over these tables; the SQL functions they
// use (`vk_fold`, `vk_match`, `COLLATE vk_decimal`, Decimal sums) are
// registered on every connection (see QuerySQLFunctions).

/// An encrypted object store: Realm's `Realm`, renamed.
///
/// ```swift
/// var config = Vault.Configuration(fileURL: url, encryptionKey: key64)
/// config.objectTypes = [Person.self]
/// let vault = try Vault(configuration: config)
/// try vault.write { vault.add(Person(firstName: "Ada"), update: .modified) }
/// let people = vault.objects(Person.self)
/// ```
///
/// ## Threads
/// A `Vault` and its managed objects belong to the thread that made them; open
/// another `Vault` with the same configuration on each thread.
///
/// ## Errors
/// Writes are transactional: ``write(_:)`` throws the first error met inside
/// its block (a duplicate primary key, a deleted object, an I/O or integrity
/// failure) and rolls everything back. Reads that cannot throw (property
/// getters, `count`, iteration) stop the process with a message if the vault
/// turns out to be damaged mid-read — they never return different data. Call
/// `try vault.verify()` (at launch, say) to find damage as a thrown error.
///
/// Modifying a managed object outside a write transaction is a programmer
/// error and traps, naming the class and property, as in Realm.
public final class Vault {
    /// The configuration the vault was opened with.
    public let configuration: Configuration
    /// The file path, or the in-memory name.
    public private(set) var path: String
    private(set) var database: VaultDatabase
    /// Bumped by every write through this vault and by refreshes that see other commits.
    private(set) var contentVersion: UInt64 = 1
    private var dataVersion: Int64 = 0
    private var schemas: [ObjectIdentifier: ObjectSchema] = [:]
    private var schemasByName: [String: ObjectSchema] = [:]
    /// Classes registered in a read-only vault that has no table for them: they read as empty.
    private(set) var absentClasses: Set<String> = []
    private var writeDepth = 0
    /// The writer connection, held from `beginWrite` to commit or cancel, and the thread holding it.
    private var borrowedWriter: Database?
    private var borrowingThread: UInt = 0
    private var deferredError: Error?

    /// Opens the vault of `Vault.Configuration.defaultConfiguration`.
    public convenience init() throws {
        try self.init(configuration: .defaultConfiguration)
    }

    /// Opens (creating if needed) the vault described by `configuration`, and
    /// checks the stored schema against the code's.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        var databaseConfiguration = try configuration.databaseConfiguration()
        databaseConfiguration.maximumReaderCount = 2
        let opened = try VaultDatabase(configuration: databaseConfiguration)
        database = opened
        path = opened.path
        do {
            try prepareStorage()
        } catch let error as VaultObjectError {
            guard case .migrationRequired = error, configuration.deleteVaultIfMigrationNeeded,
                  case .file(let url) = databaseConfiguration.storage else { throw error }
            database.close()
            schemas = [:]
            schemasByName = [:]
            Vault.deleteFiles(at: url)
            database = try VaultDatabase(configuration: databaseConfiguration)
            path = database.path
            try prepareStorage()
        }
    }

    private static func deleteFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    // MARK: - Schema

    /// The schemas of the classes registered so far.
    public var schema: [ObjectSchema] { schemas.values.sorted { $0.className < $1.className } }

    private func prepareStorage() throws {
        try withDatabase { db in
            try db.execute("PRAGMA foreign_keys = ON")
            // REPLACE in a map must fire the triggers that delete a replaced embedded value.
            try db.execute("PRAGMA recursive_triggers = ON")
            if !configuration.readOnly {
                try db.execute("""
                    CREATE TABLE IF NOT EXISTS _vaultkit_schema(class_name TEXT PRIMARY KEY, definition TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS _vaultkit_metadata(key TEXT PRIMARY KEY, value);
                    """)
            }
        }
        dataVersion = try currentDataVersion()
        guard let types = configuration.objectTypes else { return }
        var all: [ObjectSchema] = []
        var pending = types
        var seen = Set<ObjectIdentifier>()
        while let type = pending.popLast() {
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let schema = try ObjectSchema.schema(for: type)
            all.append(schema)
            pending += schema.properties.compactMap { $0.objectClassName }.compactMap { name in
                types.first { String(describing: $0) == name } ?? linkTarget(of: schema, named: name)
            }
        }
        try register(all, authoritative: true)
    }

    private func linkTarget(of schema: ObjectSchema, named name: String) -> ObjectBase.Type? {
        guard let index = schema.properties.firstIndex(where: { $0.objectClassName == name }) else { return nil }
        return schema.linkTypes[index]
    }

    /// Creates missing tables and checks existing ones against the code.
    private func register(_ list: [ObjectSchema], authoritative: Bool) throws {
        for schema in list {
            for property in schema.properties {
                guard let origin = property.originProperty, let originClass = property.objectClassName else { continue }
                let originSchema = list.first { $0.className == originClass } ?? schemasByName[originClass]
                guard let originSchema, let target = originSchema[origin], target.objectClassName == schema.className, target.originProperty == nil else {
                    throw VaultObjectError.invalidModel(className: schema.className, property: property.name,
                                                        reason: "originProperty '\(origin)' is not a property of \(originClass) that links to \(schema.className)")
                }
            }
        }
        let stored = try storedDefinitions()
        var differences: [String] = []
        var toCreate: [ObjectSchema] = []
        for schema in list {
            let definition = schema.storedDefinition
            if let existing = stored[schema.className] {
                if existing != definition {
                    differences += ObjectSchema.differences(className: schema.className, stored: existing, code: definition)
                }
            } else {
                toCreate.append(schema)
            }
        }
        let storedVersion = try storedSchemaVersion()
        if authoritative && !stored.isEmpty {
            let names = Set(list.map(\.className))
            differences += stored.keys.filter { !names.contains($0) }.sorted().map { "class \($0) was removed" }
            if !toCreate.isEmpty { differences += toCreate.map { "class \($0.className) was added" } }
        }
        if let storedVersion, configuration.schemaVersion < storedVersion {
            throw VaultObjectError.migrationRequired(path: path, storedVersion: storedVersion, codeVersion: configuration.schemaVersion,
                                                     differences: ["the schema version \(configuration.schemaVersion) is lower than the stored version \(storedVersion)"])
        }
        if !differences.isEmpty {
            throw VaultObjectError.migrationRequired(path: path, storedVersion: storedVersion ?? 0, codeVersion: configuration.schemaVersion, differences: differences)
        }
        if !toCreate.isEmpty && !configuration.readOnly {
            try database.write { db in
                for schema in toCreate {
                    for statement in schema.creationSQL() { try db.execute(statement) }
                    try db.execute("INSERT INTO _vaultkit_schema(class_name, definition) VALUES (?, ?)", arguments: [.text(schema.className), .text(schema.storedDefinition)])
                }
                try db.execute("INSERT OR REPLACE INTO _vaultkit_metadata(key, value) VALUES ('schemaVersion', ?)", arguments: [.integer(Int64(configuration.schemaVersion))])
            }
        } else if !toCreate.isEmpty {
            // Read-only: nothing can be created; those classes simply have no objects.
            absentClasses.formUnion(toCreate.map(\.className))
        } else if !configuration.readOnly, storedVersion != configuration.schemaVersion {
            try database.write { db in
                try db.execute("INSERT OR REPLACE INTO _vaultkit_metadata(key, value) VALUES ('schemaVersion', ?)", arguments: [.integer(Int64(configuration.schemaVersion))])
            }
        }
        for schema in list {
            schemas[ObjectIdentifier(schema.type)] = schema
            schemasByName[schema.className] = schema
        }
    }

    private func storedDefinitions() throws -> [String: String] {
        try withDatabase { db in
            guard try db.fetchOne("SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_schema'") != nil else { return [:] }
            var result: [String: String] = [:]
            for row in try db.fetchAll("SELECT class_name, definition FROM _vaultkit_schema") {
                if let name = row[0].string, let definition = row[1].string { result[name] = definition }
            }
            return result
        }
    }

    private func storedSchemaVersion() throws -> UInt64? {
        try withDatabase { db in
            guard try db.fetchOne("SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_metadata'") != nil else { return nil }
            return try db.fetchOne("SELECT value FROM _vaultkit_metadata WHERE key = 'schemaVersion'")?[0].int64.map { UInt64($0) }
        }
    }

    /// The schema of `type`, registering it on first use when `objectTypes` is nil.
    func schema(for type: ObjectBase.Type) -> ObjectSchema {
        if let schema = schemas[ObjectIdentifier(type)] { return schema }
        do {
            let schema = try ObjectSchema.schema(for: type)
            guard configuration.objectTypes == nil else { throw VaultObjectError.unknownType(schema.className) }
            var list = [schema]
            for (index, property) in schema.properties.enumerated() where property.objectClassName != nil {
                if let target = schema.linkTypes[index], schemas[ObjectIdentifier(target)] == nil, target != type {
                    list.append(try ObjectSchema.schema(for: target))
                }
            }
            try register(list, authoritative: false)
            return schema
        } catch {
            preconditionFailure("VaultKit cannot use \(type) with the vault at \(path): \(error)")
        }
    }

    // MARK: - Transactions

    /// Whether a write transaction is open.
    public var isInWriteTransaction: Bool { writeDepth > 0 }

    /// Runs `block` in a write transaction and commits it; rolls back and
    /// rethrows if `block` throws or any operation inside it failed.
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        try beginWrite()
        let result: Result
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        try commitWrite()
        return result
    }

    /// Opens a write transaction (`BEGIN IMMEDIATE`), first taking in other connections' commits.
    ///
    /// The vault keeps the writer connection for the whole transaction (one
    /// lock, not one per operation); commit or cancel it on the same thread.
    public func beginWrite() throws {
        guard !isInWriteTransaction else { throw VaultObjectError.alreadyInWriteTransaction }
        let writer = try database.borrowWriter()
        do {
            try writer.execute("BEGIN IMMEDIATE TRANSACTION")
        } catch {
            database.returnWriter(writer)
            throw error
        }
        borrowedWriter = writer
        borrowingThread = currentThreadIdentifier()
        writeDepth = 1
        deferredError = nil
        refreshIfChanged()
    }

    /// Runs `body` on the connection: the writer this vault holds during a
    /// write transaction, otherwise whatever `VaultDatabase` lends.
    func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        if let borrowedWriter, borrowingThread == currentThreadIdentifier() { return try body(borrowedWriter) }
        return try database.withConnection(body)
    }

    deinit {
        // A write transaction left open is rolled back, and the writer given back.
        if let writer = borrowedWriter {
            _ = try? writer.execute("ROLLBACK TRANSACTION")
            database.returnWriter(writer)
        }
    }

    /// Gives the writer back at the end of a write transaction.
    private func returnBorrowedWriter() {
        guard let writer = borrowedWriter else { return }
        precondition(borrowingThread == currentThreadIdentifier(), "A write transaction must end on the thread that began it (Vault at \(path))")
        borrowedWriter = nil
        database.returnWriter(writer)
    }

    /// Commits the open write transaction, or rolls it back and throws the first
    /// error an operation inside it recorded.
    public func commitWrite() throws {
        guard isInWriteTransaction else { throw VaultObjectError.notInWriteTransaction("commitWrite()") }
        if let error = deferredError {
            cancelWrite()
            throw error
        }
        do {
            try withDatabase { db in try db.execute("COMMIT TRANSACTION") }
        } catch {
            cancelWrite()
            throw error
        }
        writeDepth = 0
        dataVersion = (try? currentDataVersion()) ?? dataVersion
        returnBorrowedWriter()
    }

    /// Rolls back the open write transaction; objects read afterwards show the stored values.
    public func cancelWrite() {
        guard isInWriteTransaction else { return }
        _ = try? withDatabase { db in try db.execute("ROLLBACK TRANSACTION") }
        returnBorrowedWriter()
        writeDepth = 0
        deferredError = nil
        contentVersion &+= 1
    }

    /// Records the first error of the current write; `commitWrite` throws it.
    func deferError(_ error: Error) {
        if deferredError == nil { deferredError = error }
    }

    /// Whether an operation of the current write failed already (later ones are skipped).
    var hasDeferredError: Bool { deferredError != nil }

    /// Marks every cached value stale.
    func bumpContentVersion() { contentVersion &+= 1 }

    private func requireWrite(_ operation: String) -> Bool {
        guard isInWriteTransaction else {
            preconditionFailure("\(operation) needs a write transaction: wrap it in vault.write { … }")
        }
        return deferredError == nil
    }

    /// Takes in commits made by other connections or processes since the last look.
    public func refresh() {
        refreshIfChanged()
    }

    /// Drops cached values; managed objects reload on their next read.
    public func invalidate() {
        contentVersion &+= 1
    }

    private func currentDataVersion() throws -> Int64 {
        try withDatabase { db in try db.fetchOne("PRAGMA data_version")?[0].int64 ?? 0 }
    }

    /// Bumps the content version if another connection committed.
    func refreshIfChanged() {
        guard let current = try? currentDataVersion() else { return }
        if current != dataVersion {
            dataVersion = current
            contentVersion &+= 1
        }
    }

    // MARK: - Adding

    /// Adds an unmanaged object (and the unmanaged objects it links to); the
    /// object becomes managed. With a primary key, `update` says what happens
    /// when the key exists already.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        guard requireWrite("add(_:)") else { return }
        do {
            _ = try insertOrUpdate(object, policy: update)
        } catch {
            deferError(error)
        }
    }

    /// Adds each object of a sequence.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: Object {
        for object in objects { add(object, update: update) }
    }

    /// Creates an object of `type` from a dictionary of property values (public
    /// names) or another object, adds it and returns it.
    ///
    /// When updating an existing object from a dictionary, only the keys given
    /// are written (as in Realm); `add(_:update:)` compares every property.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        let object = T()
        object.assignValues(from: value)
        guard requireWrite("create(_:value:update:)") else { return object }
        var only: Set<String>?
        if let dictionary = value as? [String: Any?] { only = Set(dictionary.keys) }
        else if let dictionary = value as? [String: Any] { only = Set(dictionary.keys) }
        do {
            _ = try insertOrUpdate(object, policy: update, onlyProperties: only)
        } catch {
            deferError(error)
        }
        return object
    }

    /// The stored value of a link to `object`: an object is added first if
    /// unmanaged; an embedded object is stored as a new row owned by the caller.
    func storedReference(to object: ObjectBase?) -> DatabaseValue {
        guard let object else { return .null }
        do {
            if let object = object as? Object {
                return .integer(try insertOrUpdate(object, policy: .modified))
            }
            return .integer(try insertEmbedded(object))
        } catch {
            deferError(error)
            return .null
        }
    }

    /// Stores an unmanaged embedded object as a new row.
    private func insertEmbedded(_ object: ObjectBase) throws -> Int64 {
        let schema = schema(for: type(of: object))
        if object.manager != nil {
            throw VaultObjectError.invalidValue(className: schema.className, property: "", reason: "an embedded object has exactly one owner; assign a new object (for example \(schema.className)(value: existing)) instead of a managed one")
        }
        return try insertRow(object, schema: schema, policy: .error, onlyProperties: nil)
    }

    /// Stores `object`; returns its row id.
    private func insertOrUpdate(_ object: Object, policy: UpdatePolicy, onlyProperties: Set<String>? = nil) throws -> Int64 {
        let schema = schema(for: type(of: object))
        if let manager = object.manager {
            guard manager.vault === self || manager.vault.path == path else { throw VaultObjectError.wrongVault(className: schema.className) }
            guard !manager.isDeleted else { throw VaultObjectError.invalidatedObject(className: schema.className) }
            return manager.rowID
        }
        return try insertRow(object, schema: schema, policy: policy, onlyProperties: onlyProperties)
    }

    /// Inserts (or, with a primary key and an update policy, updates) the row of
    /// an unmanaged object and its collections; the object becomes managed.
    private func insertRow(_ object: ObjectBase, schema: ObjectSchema, policy: UpdatePolicy, onlyProperties: Set<String>?) throws -> Int64 {
        var values = [DatabaseValue](repeating: .null, count: schema.properties.count)
        var collections: [(index: Int, entries: [(key: String?, value: Any)])] = []
        for (index, accessor) in schema.accessors.enumerated() {
            switch accessor.readUnmanaged(object) {
            case .column(let value): values[index] = value
            case .link(let target): values[index] = storedReference(to: target)
            case .collection(let entries):
                if schema.properties[index].collectionKind != nil { collections.append((index, entries)) }
            }
        }
        for (index, entries) in collections where schema.properties[index].collectionKind == .map {
            for case let (key?, _) in entries {
                if let reason = Map<String, Int>.invalidKeyReason(key) {
                    throw VaultObjectError.invalidValue(className: schema.className, property: schema.properties[index].name, reason: reason)
                }
            }
        }
        var updatedExisting = false
        let rowID = try withDatabase { db -> Int64 in
            if policy != .error, let pk = schema.primaryKeyIndex,
               let existing = try schema.statement(.selectByPrimaryKey, on: db).fetchAll([values[pk]]).first,
               let rowID = existing[0].int64 {
                var stored = schema.expand(existing.values.dropFirst())
                let changed = schema.columnIndexes.filter { index in
                    guard index != pk else { return false }
                    if let onlyProperties, !onlyProperties.contains(schema.properties[index].name) { return false }
                    return policy == .all || stored[index] != values[index]
                }
                if !changed.isEmpty {
                    try db.execute(schema.updateSQL(columns: changed), arguments: changed.map { values[$0] } + [.integer(rowID)])
                }
                for index in changed { stored[index] = values[index] }
                values = stored
                updatedExisting = true
                return rowID
            }
            do {
                try schema.statement(.insert, on: db).execute(schema.hasOnlyColumns ? values : schema.columnIndexes.map { values[$0] })
            } catch VaultError.sqlite(let error) where error.code == .constraint && schema.primaryKeyIndex != nil {
                let key = schema.primaryKeyIndex.map { Self.describe(values[$0]) } ?? "?"
                throw VaultObjectError.duplicatePrimaryKey(className: schema.className, value: key)
            }
            return db.lastInsertedRowID
        }
        for (index, entries) in collections {
            if let onlyProperties, !onlyProperties.contains(schema.properties[index].name) { continue }
            let binding = CollectionBinding(vault: self, owner: schema, ownerRowID: rowID, propertyIndex: index)
            let encoded = entries.map { (key: $0.key, value: encodeElement($0.value, property: schema.properties[index])) }
            storeCollection(binding, entries: encoded, replacing: updatedExisting)
        }
        contentVersion &+= 1
        object.manager = ManagedObject(vault: self, schema: schema, rowID: rowID, values: values)
        return rowID
    }

    private static func describe(_ value: DatabaseValue) -> String {
        switch value {
        case .integer(let v): "\(v)"
        case .text(let v): "'\(v)'"
        case .blob(let v): v.count == 12 ? (ObjectId(bytes: [UInt8](v))?.stringValue ?? "blob") : "blob(\(v.count) bytes)"
        default: "\(value)"
        }
    }

    func updateColumn(_ schema: ObjectSchema, rowID: Int64, property: Property, value: DatabaseValue) {
        guard deferredError == nil else { return }
        do {
            try withDatabase { db in
                try db.execute(schema.updateSQL(columns: [schema.index(ofProperty: property.name) ?? 0]), arguments: [value, .integer(rowID)])
            }
            contentVersion &+= 1
        } catch {
            deferError(error)
        }
    }

    // MARK: - Deleting

    /// Deletes a managed object; links to it become nil. The object keeps its
    /// last values and reports `isInvalidated`.
    public func delete(_ object: ObjectBase) {
        guard requireWrite("delete(_:)") else { return }
        guard let manager = object.manager, manager.vault.path == path else {
            deferError(VaultObjectError.invalidValue(className: String(describing: type(of: object)), property: "", reason: "only managed objects of this vault can be deleted"))
            return
        }
        guard !manager.isDeleted else { return }
        do {
            try withDatabase { db in
                try manager.schema.statement(.delete, on: db).execute([.integer(manager.rowID)])
            }
            manager.markDeleted()
            contentVersion &+= 1
        } catch {
            deferError(error)
        }
    }

    /// Deletes every object of a sequence (a `Results`, an array…).
    public func delete<S: Sequence>(_ objects: S) where S.Element: ObjectBase {
        for object in Array(objects) { delete(object) }
    }

    /// Deletes every object of every class in the vault.
    public func deleteAll() {
        guard requireWrite("deleteAll()") else { return }
        do {
            try withDatabase { db in
                for row in try db.fetchAll("SELECT class_name FROM _vaultkit_schema") {
                    if let name = row[0].string { try db.execute("DELETE FROM \(quoteIdentifier(name))") }
                }
            }
            contentVersion &+= 1
        } catch {
            deferError(error)
        }
    }

    // MARK: - Reading

    /// Every object of `type`, live and lazy.
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        Results.all(vault: self, schema: schema(for: type))
    }

    /// The object of `type` whose primary key is `key`, or `nil`.
    public func object<Element: Object, Key>(ofType type: Element.Type, forPrimaryKey key: Key) -> Element? {
        let schema = schema(for: type)
        guard let pk = schema.primaryKeyIndex else {
            preconditionFailure("\(schema.className) has no primary key")
        }
        guard let encoded = schema.accessors[pk].encodeBoxed(key) else {
            preconditionFailure("\(key) is not a valid primary key value for \(schema.className).\(schema.properties[pk].name)")
        }
        return object(schema, primaryKey: encoded).map { unsafeDowncast($0, to: Element.self) }
    }

    /// The object of `type` whose primary key is `key`, or `nil` (keys of a
    /// persistable type are encoded without boxing).
    public func object<Element: Object, Key: PersistableValue>(ofType type: Element.Type, forPrimaryKey key: Key) -> Element? {
        let schema = schema(for: type)
        guard let pk = schema.primaryKeyIndex else {
            preconditionFailure("\(schema.className) has no primary key")
        }
        let property = schema.properties[pk]
        guard Key.vaultPropertyType == property.type, !Key.vaultIsOptional || property.isOptional else {
            preconditionFailure("\(key) is not a valid primary key value for \(schema.className).\(property.name)")
        }
        return object(schema, primaryKey: key.vaultEncoded).map { unsafeDowncast($0, to: Element.self) }
    }

    /// The managed object (of exactly `schema`'s class) whose encoded primary key is `key`.
    private func object(_ schema: ObjectSchema, primaryKey key: DatabaseValue) -> ObjectBase? {
        if isAbsent(schema.className) { return nil }
        do {
            return try withDatabase { db -> ObjectBase? in
                let statement = try schema.statement(.selectByPrimaryKey, on: db)
                try statement.bind(single: key)
                defer { statement.reset() }
                guard try statement.step() else { return nil }
                var values = [DatabaseValue](repeating: .null, count: schema.properties.count)
                for (column, property) in schema.columnIndexes.enumerated() { values[property] = statement.value(at: column + 1) }
                return materialize(schema, rowID: statement.int64(at: 0), values: values)
            }
        } catch {
            failRead(error, "looking up \(schema.className)")
        }
    }

    /// Whether the vault holds no objects.
    public var isEmpty: Bool {
        do {
            return try withDatabase { db in
                for row in try db.fetchAll("SELECT class_name FROM _vaultkit_schema") {
                    guard let name = row[0].string else { continue }
                    if try db.fetchOne("SELECT 1 FROM \(quoteIdentifier(name)) LIMIT 1") != nil { return false }
                }
                return true
            }
        } catch {
            failRead(error, "checking isEmpty")
        }
    }

    /// A managed instance for a stored row (`columns`: the class's column values).
    func materialize<C: Collection>(_ schema: ObjectSchema, rowID: Int64, columns: C) -> ObjectBase where C.Element == DatabaseValue {
        materialize(schema, rowID: rowID, values: schema.expand(columns))
    }

    /// Runs a statement whose columns are `_vk_id` then the class's columns, and
    /// builds one managed object per row, decoding each column straight into
    /// the object's value cache.
    func materializeRows(_ schema: ObjectSchema, _ statement: Statement, _ arguments: [DatabaseValue]) throws -> [ObjectBase] {
        try statement.bind(arguments)
        defer { statement.reset() }
        var objects: [ObjectBase] = []
        let columns = schema.columnIndexes
        let propertyCount = schema.properties.count
        while try statement.step() {
            var values = [DatabaseValue](repeating: .null, count: propertyCount)
            for (column, property) in columns.enumerated() { values[property] = statement.value(at: column + 1) }
            objects.append(materialize(schema, rowID: statement.int64(at: 0), values: values))
        }
        return objects
    }

    func materialize(_ schema: ObjectSchema, rowID: Int64, values: [DatabaseValue]) -> ObjectBase {
        let object = schema.type.init()
        object.manager = ManagedObject(vault: self, schema: schema, rowID: rowID, values: values)
        return object
    }

    /// Whether a class has no table (a read-only vault written without it); hashes nothing in the common case.
    func isAbsent(_ className: String) -> Bool { !absentClasses.isEmpty && absentClasses.contains(className) }

    /// The schema of a class in this vault, by class name.
    func schema(named className: String) -> ObjectSchema? { schemasByName[className] }

    /// The object of class `className` at `rowID`, or `nil` if it is gone.
    func object(className: String, rowID: Int64) -> ObjectBase? {
        guard let schema = schemasByName[className], !isAbsent(className) else { return nil }
        switch loadRow(schema, rowID: rowID) {
        case .success(let values?): return materialize(schema, rowID: rowID, values: values)
        case .success(nil): return nil
        case .failure(let error): failRead(error, "following a link to \(className)")
        }
    }

    /// One row's values (per property), `nil` when the row no longer exists.
    func loadRow(_ schema: ObjectSchema, rowID: Int64) -> Result<[DatabaseValue]?, Error> {
        Result {
            try withDatabase { db in
                try schema.statement(.selectByRowID, on: db).fetchAll([.integer(rowID)]).first.map { schema.expand($0.values) }
            }
        }
    }

    /// The objects linking to a managed object through a LinkingObjects property's origin.
    func linkingObjects(_ binding: CollectionBinding) -> [ObjectBase] {
        guard let originClass = binding.property.objectClassName, let originName = binding.property.originProperty,
              let origin = schemasByName[originClass], let originIndex = origin.index(ofProperty: originName) else { return [] }
        let originProperty = origin.properties[originIndex]
        let sql: String
        if originProperty.collectionKind != nil {
            sql = origin.selectAllSQL + " WHERE \"_vk_id\" IN (SELECT \"_vk_owner\" FROM \(origin.collectionTableName(for: originProperty)) WHERE \"value\" = ?) ORDER BY \"_vk_id\""
        } else {
            sql = origin.selectAllSQL + " WHERE \(originProperty.columnSQL) = ? ORDER BY \"_vk_id\""
        }
        let rows = query { db in try db.cachedStatement(sql).fetchAll([.integer(binding.ownerRowID)]) }
        return rows.compactMap { row in row[0].int64.map { materialize(origin, rowID: $0, columns: row.values.dropFirst()) } }
    }

    /// Prepares a compiled query's statement, turning SQLite's refusal into a ``QueryError``.
    func prepareQuery(_ sql: String, className: String) throws(QueryError) {
        guard !isAbsent(className) else { return }
        do {
            try withDatabase { db in _ = try db.cachedStatement(sql) }
        } catch {
            throw QueryError("SQLite could not prepare the query (\(error))")
        }
    }

    /// Runs a query on the vault's connection.
    func query<T>(_ body: (Database) throws -> T) -> T {
        do {
            return try withDatabase(body)
        } catch {
            failRead(error, "querying")
        }
    }

    /// A non-throwing read met an error: never return different data.
    func failRead(_ error: Error, _ context: String) -> Never {
        preconditionFailure("VaultKit could not continue \(context) in \(path): \(error). Run `try vault.verify()` to find such problems as thrown errors.")
    }

    // MARK: - Maintenance

    /// Authenticates every page SQLite reaches and runs its integrity check:
    /// the throwing way to find damage before a non-throwing read meets it.
    public func verify() throws {
        try database.verify()
    }

    /// Writes a compacted, encrypted copy to `fileURL`, under `encryptionKey` (or this vault's key).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        try database.writeCopy(toFile: fileURL, encryptionKey: encryptionKey)
    }
}

func quoteIdentifier(_ name: String) -> String {
    // The common case (no quote inside) skips Foundation's string search.
    guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
    return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
