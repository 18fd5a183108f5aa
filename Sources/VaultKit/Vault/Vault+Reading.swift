import Foundation
import VaultCore

/// Reading objects: by class, by primary key, by row; building managed
/// instances from rows; the one way a non-throwing read fails.
extension Vault {
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
        guard Key._vaultPropertyType == property.type, !Key._vaultIsOptional || property.isOptional else {
            preconditionFailure("\(key) is not a valid primary key value for \(schema.className).\(property.name)")
        }
        return object(schema, primaryKey: key._vaultEncoded).map { unsafeDowncast($0, to: Element.self) }
    }

    /// The managed object (of exactly `schema`'s class) whose encoded primary key is `key`.
    func object(_ schema: ObjectSchema, primaryKey key: DatabaseValue) -> ObjectBase? {
        // A frozen vault is read from many threads at once: its key cache is shared state.
        if session.isFrozen { return exclusiveIfFrozen { lookUpObject(schema, primaryKey: key) } }
        return lookUpObject(schema, primaryKey: key)
    }

    private func lookUpObject(_ schema: ObjectSchema, primaryKey key: DatabaseValue) -> ObjectBase? {
        if isAbsent(schema.className) { return nil }
        // Inside a write too: property sets patch it (see PrimaryKeyCache); other changes empty it.
        let cache = session.primaryKeyCache
        let version = session.checkedContentVersion
        if let cached = cache.lookup(schema, key, version: version) {
            return cached.map { materialize(schema, rowID: $0.rowID, values: $0.values) }
        }
        do {
            let object = try withDatabase { db -> ObjectBase? in
                let statement = try schema.statement(.selectByPrimaryKey, on: db)
                try statement.bind(single: key)
                defer { statement.reset() }
                guard try statement.step() else { return nil }
                return materializeCurrentRow(schema, statement, RowContext(vault: self))
            }
            if version == session.checkedContentVersion {
                let row = object?.manager.map { PrimaryKeyCache.Row(rowID: $0.rowID, values: Array(UnsafeBufferPointer(start: $0.storage, count: schema.properties.count))) }
                cache.store(row, schema, key, version: version)
            }
            return object
        } catch {
            failRead(error, "looking up \(schema.className)")
        }
    }

    /// Whether the vault holds no objects.
    public var isEmpty: Bool {
        do {
            return try withDatabase { db in
                for row in try db.fetchAll(SystemTables.selectClassNamesSQL) {
                    guard let name = row[0].string else { continue }
                    if try db.fetchOne(SystemTables.anyRowSQL(className: name)) != nil { return false }
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
        // Read once for the whole batch: they cannot change while the statement runs.
        let context = RowContext(vault: self)
        while try statement.step() { objects.append(materializeCurrentRow(schema, statement, context)) }
        return objects
    }

    /// What every object built from one statement shares.
    struct RowContext {
        let version: UInt64
        let tracksObservation: Bool
        init(vault: Vault) {
            version = vault.session.checkedContentVersion
            tracksObservation = vault.session.tracksObservation
        }
    }

    /// A managed object for the statement's current row (`_vk_id`, then the
    /// class's columns), decoded straight into the object's value cache.
    @inline(__always)
    func materializeCurrentRow(_ schema: ObjectSchema, _ statement: Statement, _ context: RowContext) -> ObjectBase {
        let object = schema.type.init()
        let manager = ManagedObject(vault: self, schema: schema, rowID: statement.int64(at: 0),
                                    version: context.version, tracksObservation: context.tracksObservation)
        let storage = manager.storage
        schema.columnIndexes.withUnsafeBufferPointer { properties in
            // Each slot holds the NULL the storage was made with, which owns nothing:
            // initialised over, not assigned (an assignment first destroys the NULL
            // through the enum's outlined destroy, a call per column for nothing;
            // Benchmarks/README.md, "Row buffers").
            for (offset, property) in properties.enumerated() { (storage + property).initialize(to: statement.value(at: offset + 1)) }
        }
        object.manager = manager
        return object
    }

    func materialize(_ schema: ObjectSchema, rowID: Int64, values: [DatabaseValue]) -> ObjectBase {
        let object = schema.type.init()
        object.manager = ManagedObject(vault: self, schema: schema, rowID: rowID, values: values)
        return object
    }

    /// The objects linking to a managed object through a LinkingObjects
    /// property: the backlink query of ``CompiledResults`` (there is one).
    func linkingObjects(_ binding: CollectionBinding) -> [ObjectBase] {
        guard let originClass = binding.property.objectClassName, let origin = session.schemas.byName[originClass] else { return [] }
        return Array(Results<ObjectBase>.all(vault: self, schema: origin, base: .linkingObjects(binding)))
    }

    /// The object of class `className` at `rowID`, or `nil` if it is gone.
    func object(className: String, rowID: Int64) -> ObjectBase? {
        // A class no model class registered: a DynamicObject, from the stored schema (RuntimeSchema).
        guard let schema = session.schemas.byName[className] ?? dynamicSchema(named: className), !isAbsent(className) else { return nil }
        switch loadRow(schema, rowID: rowID) {
        case .success(let values?): return materialize(schema, rowID: rowID, values: values)
        case .success(nil): return nil
        case .failure(let error): failRead(error, "following a link to \(className)")
        }
    }

    /// One row's values (per property), `nil` when the row no longer exists.
    func loadRow(_ schema: ObjectSchema, rowID: Int64) -> Result<[DatabaseValue]?, Swift.Error> {
        Result {
            try withDatabase { db in
                try schema.statement(.selectByRowID, on: db).fetchAll([.integer(rowID)]).first.map { schema.expand($0.values) }
            }
        }
    }

    /// The objects linking to a managed object through a LinkingObjects property's origin.

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
    func failRead(_ error: Swift.Error, _ context: String) -> Never {
        preconditionFailure("VaultKit could not continue \(context) in \(path): \(error). Run `try vault.verify()` to find such problems as thrown errors.")
    }

}
