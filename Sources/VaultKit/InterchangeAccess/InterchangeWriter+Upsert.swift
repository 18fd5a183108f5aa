import Foundation
import VaultCore

// MARK: - Writing into an existing vault
//
// Importing into a vault that already holds objects updates those with the same
// primary key and creates the others (Realm's `create(_:value:update: .all)`),
// inside one write transaction of the vault, so that observers hear it as one
// commit and a failure leaves nothing. Links need their targets' row ids, which
// objects created by the import only get when they are written: the importer
// writes every object first without its links (and without the properties that
// may hold one: mixed values, embedded objects that link), then sets those in a
// second pass, finding each target by its primary key.

extension InterchangeWriter {
    /// The row id of the object of `className` whose primary key is `key`, if it exists.
    public func rowID(of className: String, primaryKey key: InterchangeValue) throws -> Int64? {
        guard let schema = schemaByName[className], let property = schema.primaryKeyProperty else { return nil }
        if case .null = key, !property.isOptional { return nil }
        let stored = try columnValue(key, property: property, className: className)
        let statement = try db.cachedStatement("SELECT \"_vk_id\" FROM \(schema.tableName) WHERE \(property.columnSQL) IS ?")
        return try statement.fetchFirstValue([stored])?.int64
    }

    /// Updates the object with the same primary key, or creates one: only the properties
    /// `writing` marks are written (an update keeps the others; a new object gets nil,
    /// empty collections, or the value given). Returns the row id.
    @discardableResult
    public func upsert(className: String, values: [InterchangeValue], writing: [Bool]) throws -> Int64 {
        guard let schema = schemaByName[className] else {
            throw InterchangeError(className: className, property: "(class)", reason: "the vault has no such class")
        }
        if let index = schema.primaryKeyIndex, let existing = try rowID(of: className, primaryKey: values[index]) {
            try update(className: className, rowID: existing, values: values, writing: writing)
            return existing
        }
        // A new object: what the document does not give is nil, empty, or the type's default
        // (Realm's `create` gives a missing property its default value).
        var fresh = values
        for index in fresh.indices where !writing[index] {
            let property = schema.properties[index]
            fresh[index] = property.collectionKind == nil && !property.isOptional ? Self.defaultValue(of: property.type) : .null
        }
        var rowID: Int64?
        if let index = schema.primaryKeyIndex, schema.properties[index].isRowIDKey, case .int(let key) = values[index] { rowID = key }
        return try insert(className: className, rowID: rowID, values: fresh)
    }

    /// The value a new object's required property gets when none is given: VaultKit's defaults.
    static func defaultValue(of type: PropertyType) -> InterchangeValue {
        switch type {
        case .int: .int(0)
        case .bool: .bool(false)
        case .float: .float(0)
        case .double: .double(0)
        case .string: .string("")
        case .data: .data(Data())
        case .date: .date(VaultTimestamp(storedValue: 0))
        case .decimal: .decimal("0")
        case .objectId: ObjectId._vaultDefaultValue()._vaultEncoded.data.map { .objectId([UInt8]($0)) } ?? .null
        case .uuid: .uuid(UUID())
        case .object, .mixed: .null
        }
    }

    /// Writes the properties `writing` marks of the object `rowID` of `className`:
    /// columns updated in place, collections replaced.
    public func update(className: String, rowID: Int64, values: [InterchangeValue], writing: [Bool]) throws {
        guard let schema = schemaByName[className] else {
            throw InterchangeError(className: className, property: "(class)", reason: "the vault has no such class")
        }
        let columns = schema.columnIndexes.filter { writing[$0] && !schema.properties[$0].isRowIDKey }
        if !columns.isEmpty {
            let key = className + "#" + columns.map(String.init).joined(separator: ",")
            let statement: Statement
            if let cached = updateStatements[key] {
                statement = cached
            } else {
                statement = try db.makeStatement(schema.updateSQL(columns: columns))
                updateStatements[key] = statement
            }
            var arguments: [DatabaseValue] = []
            for index in columns { arguments.append(try columnValue(values[index], property: schema.properties[index], className: className)) }
            arguments.append(.integer(rowID))
            try statement.execute(arguments)
        }
        let statements = try statements(for: schema)
        for (index, statement, batches) in statements.collections where writing[index] {
            let property = schema.properties[index]
            try db.cachedStatement("DELETE FROM \(schema.collectionTableName(for: property)) WHERE \"_vk_owner\" = ?").execute([.integer(rowID)])
            try writeCollection(values[index], property: property, className: className, owner: rowID,
                                statement: statement, batches: batches)
        }
    }
}

extension Vault {
    /// Runs `body` with a writer of this vault's classes inside one write transaction
    /// (``write(_:)``): everything it writes commits together, or — if it throws —
    /// nothing does. Observers hear it as one commit.
    @_spi(Interchange)
    public func writeInterchange(_ body: (InterchangeWriter) throws -> Void) throws {
        try write {
            try withDatabase { db in
                let writer = try InterchangeWriter(database: db, schemas: storedSchema.objectSchema)
                try body(writer)
            }
        }
    }
}
