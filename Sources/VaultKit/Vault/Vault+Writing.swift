import Foundation
import VaultCore

/// Adding, updating and deleting objects inside a write transaction. The
/// setters and collections of managed objects write through here too.
extension Vault {
    // MARK: - Adding

    /// Adds an unmanaged object (and the unmanaged objects it links to); the
    /// object becomes managed. With a primary key, `update` says what happens
    /// when the key exists already.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        guard requireWrite("add(_:)") else { return }
        do {
            try requirePrimaryKey(for: type(of: object), update)
            _ = try withNestedWrite(NestedWrite(policy: update, given: nil)) { try insertOrUpdate(object, policy: update) }
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
        // The class passed, not the static type: `create(type(of: object), …)` from code that holds an `Object`.
        let object = type.init()
        // Which properties the value gave, for the object and each object it describes as a dictionary or an array:
        // updating an existing object writes those only (as Realm does), at every depth.
        let given = GivenProperties()
        // Another vault's object is copied, and so is every object it links to (Realm's rule for create).
        if let source = value as? ObjectBase {
            if let manager = source.manager {
                if isOtherVault(manager) { given.recordCopy(object, of: manager) }
            } else {
                given.recordCopy(object, ofUnmanaged: source)
            }
        }
        object.assignValues(from: value, given: given)
        guard requireWrite("create(_:value:update:)") else { return object }
        do {
            try requirePrimaryKey(for: Swift.type(of: object), update)
            _ = try withNestedWrite(NestedWrite(policy: update, given: given)) {
                try insertOrUpdate(object, policy: update, onlyProperties: given.properties(of: object))
            }
        } catch {
            deferError(error)
        }
        return object
    }

    /// An update policy other than `.error` needs a primary key to find the object to update.
    private func requirePrimaryKey(for type: Object.Type, _ update: UpdatePolicy) throws {
        guard update != .error else { return }
        let schema = try registeredSchema(for: type)
        if schema.primaryKeyIndex == nil { throw VaultObjectError.noPrimaryKey(className: schema.className) }
    }

    /// Whether `manager`'s object belongs to another vault (not this instance, nor another instance of this file).
    private func isOtherVault(_ manager: ManagedObject) -> Bool { manager.vault !== self && manager.vault.path != path }

    /// Runs `body` with `write` as the way linked objects are stored (the outermost call's).
    private func withNestedWrite<R>(_ write: NestedWrite, _ body: () throws -> R) throws -> R {
        guard session.write.nestedWrite == nil else { return try body() }
        session.write.nestedWrite = write
        // Clearing it releases nothing: `write` (the caller's) still holds its copies (see VaultSession+State.swift).
        defer { session.write.nestedWrite = nil }
        return try body()
    }

    /// The stored value of a link to `object`: an object is added first if
    /// unmanaged; an embedded object is stored as a new row owned by the caller.
    func storedReference(to object: ObjectBase?) -> DatabaseValue {
        guard let object else { return .null }
        if let dynamic = object as? DynamicObject {
            // Not a model class: only an object of this vault it reads can be linked.
            if let manager = dynamic.manager, manager.vault.path == path { return .integer(manager.rowID) }
            deferError(VaultObjectError.invalidValue(className: dynamic.className, property: "",
                                                     reason: "a DynamicObject can be linked only in the vault it was read from"))
            return .null
        }
        // A new object being inserted further up (a cycle): its row exists already.
        if let progress = session.write.rowsInProgress[ObjectIdentifier(object)], let rowID = progress { return .integer(rowID) }
        // Inside `create`, an object another vault manages is copied, as is a managed
        // embedded object (it can have one owner only) and an unmanaged object the
        // caller passed in, as Realm's create copies them.
        if let given = session.write.nestedWrite?.given {
            if let manager = object.manager {
                if isOtherVault(manager) || !(object is Object) { return storedReference(to: given.copy(of: object, manager: manager)) }
            } else if !given.madeHere(object) {
                // The caller's own unmanaged object: stored as a copy; it stays unmanaged.
                return storedReference(to: given.copy(ofUnmanaged: object))
            }
        }
        do {
            if let object = object as? Object {
                // Inside `add`/`create`, the caller's policy and the properties its value gave (Realm's rule);
                // elsewhere (a property set, a list append) an existing key updates the object.
                let nested = session.write.nestedWrite
                return .integer(try insertOrUpdate(object, policy: nested?.policy ?? .modified, onlyProperties: nested?.given?.properties(of: object)))
            }
            return .integer(try insertEmbedded(object))
        } catch {
            deferError(error)
            return .null
        }
    }

    /// Stores an unmanaged embedded object as a new row.
    private func insertEmbedded(_ object: ObjectBase) throws -> Int64 {
        let schema = try registeredSchema(for: type(of: object))
        if object.manager != nil {
            throw VaultObjectError.invalidValue(className: schema.className, property: "", reason: "an embedded object has exactly one owner; assign a new object (for example \(schema.className)(value: existing)) instead of a managed one")
        }
        return try insertRow(object, schema: schema, policy: .error, onlyProperties: nil)
    }

    /// Stores a new asymmetric object (see AsymmetricObject); returns its row id.
    func insertAsymmetric(_ object: AsymmetricObject, schema: ObjectSchema) throws -> Int64 {
        try insertRow(object, schema: schema, policy: .error, onlyProperties: nil)
    }

    /// Stores `object`; returns its row id.
    func insertOrUpdate(_ object: Object, policy: UpdatePolicy, onlyProperties: Set<String>? = nil) throws -> Int64 {
        let schema = try registeredSchema(for: type(of: object))
        if let manager = object.manager {
            guard manager.vault === self || manager.vault.path == path else { throw VaultObjectError.wrongVault(className: schema.className) }
            // An object whose insert rolled back is invalidated, not a row id to link (the row may be another's now).
            guard !manager.isDeleted, !manager.insertRolledBack else { throw VaultObjectError.invalidatedObject(className: schema.className) }
            return manager.rowID
        }
        return try insertRow(object, schema: schema, policy: policy, onlyProperties: onlyProperties)
    }

    /// Inserts (or, with a primary key and an update policy, updates) the row of
    /// an unmanaged object and its collections; the object becomes managed.
    ///
    /// Cycles of new objects (a friend list that leads back, a mentor's mentor)
    /// are inserted once each, as Realm does: a new object's row is inserted
    /// first with its links empty and the object becomes managed at once; only
    /// then are its links and collections stored, so whatever leads back to it
    /// finds its row. An existing row (an update policy) is known before its
    /// links are followed, for the same reason.
    ///
    /// `existingRowID` names the row to update instead of a primary-key lookup
    /// (an embedded object updated in place, see Vault+UpdateModified).
    func insertRow(_ object: ObjectBase, schema: ObjectSchema, policy: UpdatePolicy, onlyProperties: Set<String>?,
                   existingRowID: Int64? = nil) throws -> Int64 {
        let key = ObjectIdentifier(object)
        var inProgress = false
        defer { if inProgress { session.write.rowsInProgress[key] = nil } }
        // The row's values, in the buffer the managed object will own (no array per
        // object: building one costs a metadata lookup, a copy and a free). Freed
        // here unless an object adopted it.
        let values = ManagedObject.allocateRowStorage(for: schema)
        var adopted = false
        defer { if !adopted { ManagedObject.freeRowStorage(values, for: schema) } }
        var collections: [(index: Int, entries: [(key: String?, value: Any)])] = []
        var links: [(index: Int, target: ObjectBase)] = []
        // Mixed values that link to objects are stored after the row, as links are.
        var mixedLinks: [(index: Int, value: AnyVaultValue)] = []
        // By index into the accessors' own storage: an accessor is a struct of
        // closures, and a copy of one per property would retain each of them.
        try schema.accessors.withUnsafeBufferPointer { accessors in
            for index in accessors.indices {
                switch accessors[index].readUnmanaged(object) {
                // Over the fresh storage's NULL, which owns nothing: no destroy of the old value
                // (an assignment costs an outlined destroy through the value witnesses, per value).
                case .column(let value): (values + index).initialize(to: value)
                case .link(let target): if let target { links.append((index, target)) }
                case .mixed(let value):
                    if value.containsObject {
                        mixedLinks.append((index, value))
                    } else {
                        values[index] = try storedMixedColumn(value, schema: schema, index: index)
                    }
                case .collection(let entries):
                    if schema.properties[index].collectionKind != nil { collections.append((index, entries)) }
                }
            }
        }
        for (index, entries) in collections where schema.properties[index].collectionKind == .map {
            for case let (key?, _) in entries {
                if let reason = Map<String, Int>.invalidKeyReason(key) {
                    throw VaultObjectError.invalidValue(className: schema.className, property: schema.properties[index].name, reason: reason)
                }
            }
        }
        // An existing row to update?
        var existing: [DatabaseValue]?
        if let existingRowID {
            existing = try withDatabase { db in
                try schema.statement(.selectByRowID, on: db).fetchAll([.integer(existingRowID)]).first.map { [.integer(existingRowID)] + $0.values }
            }
        } else if policy != .error, let pk = schema.primaryKeyIndex {
            existing = try withDatabase { db in try schema.statement(.selectByPrimaryKey, on: db).fetchAll([values[pk]]).first?.values }
        }
        // Only an object that links to others can be reached again while it is inserted.
        let mayBeReachedAgain = !links.isEmpty || !mixedLinks.isEmpty || collections.contains { schema.properties[$0.index].objectClassName != nil }
        func markInProgress(_ rowID: Int64) {
            guard mayBeReachedAgain else { return }
            inProgress = true
            session.write.rowsInProgress[key] = .some(rowID)
        }
        let rowID: Int64
        let updatedExisting = existing != nil
        if let existing, let existingID = existing.first?.int64 {
            rowID = existingID
            markInProgress(rowID)
            // Only the links being written: a default-valued link of a partial update would otherwise add a stray object.
            func isWritten(_ index: Int) -> Bool { onlyProperties?.contains(schema.properties[index].name) ?? true }
            let stored = schema.expand(existing.dropFirst())
            for (index, target) in links where isWritten(index) {
                // `.modified` updates a stored embedded object where it is (Realm's rule; `.all` replaces it).
                if policy == .modified, schema.properties[index].isEmbeddedLink, let embeddedRow = stored[index].int64 {
                    values[index] = try updateEmbeddedInPlace(target, rowID: embeddedRow)
                } else {
                    values[index] = storedReference(to: target)
                }
            }
            for (index, value) in mixedLinks where isWritten(index) { values[index] = try storedMixedColumn(value, schema: schema, index: index) }
            let pk = schema.primaryKeyIndex
            let changed = schema.columnIndexes.filter { index in
                guard index != pk else { return false }
                if let onlyProperties, !onlyProperties.contains(schema.properties[index].name) { return false }
                return policy == .all || stored[index] != values[index]
            }
            if !changed.isEmpty {
                session.write.capture?.willWrite(className: schema.className, rowID: rowID, propertyIndexes: changed, isUpdateStatement: true)
                try withDatabase { db in
                    try db.execute(schema.updateSQL(columns: changed), arguments: changed.map { values[$0] } + [.integer(rowID)])
                }
            }
            // The row as stored now: what it held, with the changed columns written.
            for index in stored.indices where !changed.contains(index) { values[index] = stored[index] }
            object.manager = ManagedObject(vault: self, schema: schema, rowID: rowID, adopting: values)
            adopted = true
        } else if links.isEmpty, mixedLinks.isEmpty, insertCanWait(schema), let key = values[schema.primaryKeyIndex ?? 0].int64 {
            // Its row goes with others of its class, up to sixteen an INSERT (see Vault+PendingInserts).
            rowID = key
            object.manager = ManagedObject(vault: self, schema: schema, rowID: rowID, adopting: values)
            adopted = true
            insertLater(UnsafeBufferPointer(start: values, count: schema.properties.count), of: object, schema: schema)
            bumpContentVersion()
        } else {
            rowID = try withDatabase { db -> Int64 in
                // A UNIQUE index admits any number of NULLs; Realm admits one object
                // whose optional key is nil, so a second is refused here (with any
                // other policy the lookup above, which compares with IS, found it).
                if policy == .error, let pk = schema.primaryKeyIndex, schema.properties[pk].isOptional, values[pk].isNull,
                   try schema.statement(.selectByPrimaryKey, on: db).fetchAll([.null]).first != nil {
                    throw VaultObjectError.duplicatePrimaryKey(className: schema.className, value: schema.properties[pk].name)
                }
                do {
                    let statement = try schema.statement(.insert, on: db)
                    if schema.hasOnlyColumns {
                        try statement.execute(UnsafeBufferPointer(start: values, count: schema.properties.count))
                    } else {
                        try statement.execute(schema.columnIndexes.map { values[$0] })
                    }
                } catch VaultError.sqlite(let error) where error.code == .constraint && schema.primaryKeyIndex != nil {
                    throw VaultObjectError.duplicateKey(of: schema)
                }
                return try keepRowIDUnused(db.lastInsertedRowID, schema: schema, on: db)
            }
            // Managed from here on: links and collections that lead back find its row.
            markInProgress(rowID)
            object.manager = ManagedObject(vault: self, schema: schema, rowID: rowID, adopting: values)
            adopted = true
            bumpContentVersion()
            var linked = links.map { (index: $0.index, value: storedReference(to: $0.target)) }.filter { !$0.value.isNull }
            for (index, value) in mixedLinks { linked.append((index, try storedMixedColumn(value, schema: schema, index: index))) }
            if !linked.isEmpty {
                try withDatabase { db in
                    try db.execute(schema.updateSQL(columns: linked.map(\.index)), arguments: linked.map(\.value) + [.integer(rowID)])
                }
                // Into the object's own values (it adopted the buffer).
                for (index, value) in linked { values[index] = value }
            }
        }
        for (index, entries) in collections {
            if let onlyProperties, !onlyProperties.contains(schema.properties[index].name) { continue }
            let binding = CollectionBinding(vault: self, owner: schema, ownerRowID: rowID, propertyIndex: index)
            if updatedExisting, policy == .modified, schema.properties[index].type != .mixed {
                try mergeCollection(binding, entries: entries)
                continue
            }
            if updatedExisting {
                session.write.capture?.willWrite(className: schema.className, rowID: rowID, propertyIndexes: CollectionOfOne(index), isUpdateStatement: false)
            }
            let encoded = entries.map { (key: $0.key, value: encodeElement($0.value, property: schema.properties[index], owner: schema)) }
            storeCollection(binding, entries: encoded, replacing: updatedExisting)
        }
        adoptCollections(of: object, schema: schema, rowID: rowID)
        releaseUnmanagedLinks(of: object, schema: schema)
        bumpContentVersion()
        return rowID
    }

    /// The collection instances the object held become its live ones, as Realm's do:
    /// `let dogs = person.dogs; vault.add(person); dogs.append(rex)` writes to the vault.
    private func adoptCollections(of object: ObjectBase, schema: ObjectSchema, rowID: Int64) {
        // A class of columns only has nothing to adopt (most do: no loop over the properties per insert).
        guard !schema.hasOnlyColumns, let manager = object.manager else { return }
        let isCollection = schema.isCollection
        for index in isCollection.indices where isCollection[index] {
            let binding = CollectionBinding(vault: self, owner: schema, ownerRowID: rowID, propertyIndex: index)
            if let instance = schema.accessors[index].adoptCollection?(object, binding) { manager.keepCollection(instance, at: index) }
        }
    }

    /// Drops the objects a just-added object held in its links and mixed values
    /// while unmanaged (its reads go to the vault now): `a.spouse = b; b.spouse = a;
    /// vault.add(a)` must not leave the two, and the vault, alive for ever.
    private func releaseUnmanagedLinks(of object: ObjectBase, schema: ObjectSchema) {
        // By index, as above: a copy of an accessor would retain each of its closures.
        schema.accessors.withUnsafeBufferPointer { accessors in
            for index in accessors.indices { accessors[index].releaseUnmanaged?(object) }
        }
    }

    /// The column value of an unmanaged object's mixed property (adding the objects it links to).
    private func storedMixedColumn(_ value: AnyVaultValue, schema: ObjectSchema, index: Int) throws -> DatabaseValue {
        do {
            return MixedCodec.encode(try storedMixed(value))
        } catch {
            throw mixedError(error, "\(schema.className).\(schema.properties[index].name)")
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
            try removeMixedLinks(to: manager.schema, rowID: manager.rowID)
            manager.markDeleted()
            bumpContentVersion()
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
                for row in try db.fetchAll(SystemTables.selectClassNamesSQL) {
                    if let name = row[0].string { try db.execute(SystemTables.deleteAllSQL(className: name)) }
                }
            }
            bumpContentVersion()
        } catch {
            deferError(error)
        }
    }
}
