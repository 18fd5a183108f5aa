import Foundation
import VaultCore

/// Where a collection written in parts stands (``InterchangeWriter/appendToCollection(_:className:propertyIndex:owner:progress:)``).
@_spi(Interchange)
public struct CollectionProgress: Sendable {
    /// Elements of a list written so far.
    var position = 0
    /// NaN elements of a set written so far.
    var nanCount = 0

    /// A collection with nothing written yet.
    public init() {}
}

// MARK: - Writing objects without model instances
//
// The writer fills a new vault with objects given as values (``InterchangeValue``),
// straight into the tables the storage mapping describes (Storage/): one INSERT
// per object into its class table, one per collection element into the side
// tables, embedded objects first (their row id goes into the owner's column).
// Statements are prepared once per class and property and reused.
//
// Row ids are the caller's: top-level objects are written with the row id the
// caller chose (a class whose primary key is a required integer stores it as the
// row id), so that links — also row ids — can be written before their target
// exists. Foreign keys are off for the writer's transaction and checked once at
// its end (`PRAGMA foreign_key_check`): a link to an object that was never
// written fails the whole write, and nothing is kept.

/// Writes objects into a vault being created by ``Vault/createPopulated(configuration:schemas:schemaVersion:_:)``.
@_spi(Interchange)
public final class InterchangeWriter {
    let db: Database
    /// The classes, in the order given.
    public let schemas: [ObjectSchema]
    let schemaByName: [String: ObjectSchema]
    private var statementsByClass: [String: ClassStatements] = [:]
    /// UPDATE statements by class and written-property mask (InterchangeWriter+Upsert).
    var updateStatements: [String: Statement] = [:]
    private let timestampStatement: Statement
    /// Objects written so far, embedded objects included.
    public private(set) var objectCount = 0
    /// The class of the previous insert (objects come class by class): no lookups for the next.
    private var current: (name: String, schema: ObjectSchema, statements: ClassStatements)?
    /// For a vault built under a hidden name (``Vault/createPopulated(configuration:schemas:schemaVersion:_:)``):
    /// commit after this many rows or bytes, so that what was written leaves the page cache.
    /// SQLite keeps a WAL transaction's pages in memory until it commits, and nobody can see
    /// the hidden file's intermediate commits. Nil for a merge: one transaction.
    var commitEvery: (rows: Int, bytes: Int)?
    private var sinceCommit = (rows: 0, bytes: 0)
    /// Commits the build so far when `commitEvery` says so (called between rows: no statement is running).
    func commitIfLarge() throws {
        guard let limit = commitEvery, sinceCommit.rows >= limit.rows || sinceCommit.bytes >= limit.bytes else { return }
        try db.execute("COMMIT TRANSACTION")
        try db.execute("BEGIN IMMEDIATE TRANSACTION")
        sinceCommit = (0, 0)
    }

    private func wrote(rows: Int, bytes: Int) {
        sinceCommit.rows += rows
        sinceCommit.bytes += bytes
    }

    /// Every date written, by the Double it is stored as (see `recordDate`).
    private var datesWritten: [Double: VaultTimestamp] = [:]
    /// Reused argument buffers: no allocation per row.
    private var rowArguments: [DatabaseValue] = []
    private var listArguments: [DatabaseValue] = []

    init(database: Database, schemas: [ObjectSchema]) throws {
        db = database
        self.schemas = schemas
        schemaByName = Dictionary(schemas.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        timestampStatement = try database.makeStatement(ExactTimestamps.insertSQL)
    }

    /// The schema of `className`, if the vault has that class.
    public func schema(named className: String) -> ObjectSchema? { schemaByName[className] }

    /// Writes one object of `className`.
    ///
    /// - Parameters:
    ///   - rowID: The object's row id; for a class whose primary key is a required
    ///     integer, its primary-key value. Nil: the next free one (embedded objects).
    ///   - values: One value per property of the class's schema, in order
    ///     (`.null` for linking-objects properties, which are not stored).
    /// - Returns: The row id written.
    /// - Throws: ``InterchangeError`` naming the class and property of a value that
    ///   does not fit; `VaultError` from SQLite (a duplicate primary key, for one).
    @discardableResult
    public func insert(className: String, rowID: Int64?, values: [InterchangeValue]) throws -> Int64 {
        let schema: ObjectSchema, statements: ClassStatements
        if let current, current.name == className {
            (schema, statements) = (current.schema, current.statements)
        } else {
            guard let found = schemaByName[className] else {
                throw InterchangeError(className: className, property: "(class)", reason: "the vault has no such class")
            }
            (schema, statements) = (found, try self.statements(for: found))
            current = (className, schema, statements)
        }
        guard values.count == schema.properties.count else {
            throw InterchangeError(className: className, property: "(object)",
                                   reason: "\(values.count) values for \(schema.properties.count) properties")
        }
        // Embedded objects are written while their owner's values are encoded: they use their own buffer.
        var arguments = rowArguments
        rowArguments = []
        arguments.removeAll(keepingCapacity: true)
        if let rowID { arguments.append(.integer(rowID)) }
        for index in statements.columnProperties {
            arguments.append(try columnValue(values[index], property: schema.properties[index], className: className))
        }
        let insert = rowID == nil ? statements.insertWithoutRowID : statements.insertWithRowID
        try insert.execute(arguments)
        wrote(rows: 1, bytes: arguments.reduce(0) { $0 + $1.writtenByteCount })
        rowArguments = arguments
        let written = rowID ?? db.lastInsertedRowID
        objectCount += 1
        for (index, statement, batches) in statements.collections {
            try writeCollection(values[index], property: schema.properties[index], className: className,
                                owner: written, statement: statement, batches: batches)
        }
        try commitIfLarge()
        return written
    }

    // MARK: Values

    func columnValue(_ value: InterchangeValue, property: Property, className: String) throws -> DatabaseValue {
        if property.type == .mixed { return MixedCodec.encode(try mixedValue(value, className: className, property: property)) }
        if case .null = value {
            guard property.isOptional || property.type == .object else {
                throw InterchangeError(className: className, property: property.storedName, reason: "a required property has no value")
            }
            return .null
        }
        return try scalar(value, property: property, className: className)
    }

    /// A non-null value of a column or collection element of `property`'s type.
    private func scalar(_ value: InterchangeValue, property: Property, className: String) throws -> DatabaseValue {
        func mismatch() -> InterchangeError {
            InterchangeError(className: className, property: property.storedName,
                             reason: "a \(value.kindName) value for a \(property.objectClassName ?? property.type.rawValue) property")
        }
        switch (property.type, value) {
        case (.int, .int(let number)): return .integer(number)
        case (.bool, .bool(let flag)): return .integer(flag ? 1 : 0)
        case (.float, .float(let number)): return number._vaultEncoded
        case (.double, .double(let number)): return number._vaultEncoded
        case (.string, .string(let text)): return .text(text)
        case (.data, .data(let bytes)): return .blob(bytes)
        case (.date, .date(let timestamp)): return .real(try recordDate(timestamp, className: className, property: property))
        case (.decimal, .decimal(let text)):
            guard let stored = Decimal128.interchangeText(text) else {
                throw InterchangeError(className: className, property: property.storedName, reason: "a decimal VaultKit cannot hold exactly (more than 34 digits, or not a decimal)")
            }
            return .text(stored)
        case (.objectId, .objectId(let bytes)) where bytes.count == 12: return .blob(Data(bytes))
        case (.uuid, .uuid(let uuid)): return uuid._vaultEncoded
        case (.object, .link(let target, let rowID)):
            guard target == property.objectClassName else { throw mismatch() }
            return .integer(rowID)
        case (.object, .embedded(let fields)):
            guard let target = property.objectClassName, let embedded = schemaByName[target], embedded.isEmbedded else { throw mismatch() }
            return .integer(try insert(className: embedded.className, rowID: nil, values: fields))
        default: throw mismatch()
        }
    }

    private func mixedValue(_ value: InterchangeValue, className: String, property: Property, depth: Int = 0) throws -> MixedValue {
        switch value {
        case .null: return .none
        case .int(let number): return .int(number)
        case .bool(let flag): return .bool(flag)
        case .float(let number): return .float(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(text)
        case .data(let bytes): return .data(bytes)
        case .date(let timestamp): return .date(try recordDate(timestamp, className: className, property: property))
        case .decimal(let text):
            guard Decimal128.interchangeText(text) != nil, let decimal = try? Decimal128(string: text) else {
                throw InterchangeError(className: className, property: property.storedName, reason: "a decimal VaultKit cannot hold (infinite or out of range)")
            }
            return .decimal(decimal)
        case .objectId(let bytes) where bytes.count == 12: return .objectId(bytes)
        case .uuid(let uuid): return .uuid(uuid)
        case .link(let target, let rowID):
            guard schemaByName[target] != nil else {
                throw InterchangeError(className: className, property: property.storedName, reason: "a mixed link to \(target), which the vault has no class for")
            }
            return .link(className: target, rowID: rowID)
        case .list(let elements), .set(let elements):
            try checkMixedDepth(depth, className: className, property: property)
            return .list(try elements.map { try mixedValue($0, className: className, property: property, depth: depth + 1) })
        case .dictionary(let entries):
            try checkMixedDepth(depth, className: className, property: property)
            let sorted = try entries.map { ($0.key, try mixedValue($0.value, className: className, property: property, depth: depth + 1)) }
                .sorted { $0.0 < $1.0 }
            return .dictionary(sorted.map { (key: $0.0, value: $0.1) })
        default:
            throw InterchangeError(className: className, property: property.storedName, reason: "a \(value.kindName) cannot be a mixed value")
        }
    }

    /// The Double a date is stored as, its exact timestamp recorded when the Double alone
    /// would not give it back. Two different dates of this write that share a Double (less
    /// than its resolution apart: about 119 ns for present-day dates) are refused: the vault could keep
    /// only one of them exactly, and the other would silently read as it.
    private func recordDate(_ timestamp: VaultTimestamp, className: String, property: Property) throws -> Double {
        let stored = try ExactTimestamps.record(timestamp, with: timestampStatement)
        let previous = datesWritten.updateValue(timestamp, forKey: stored)
        if let previous, previous != timestamp {
            throw InterchangeError(className: className, property: property.storedName,
                                   reason: "two different dates of the import are less than a stored date's resolution apart; a vault cannot keep both exactly")
        }
        return stored
    }

    /// Refuses a nested list or dictionary deeper than a mixed value may nest.
    private func checkMixedDepth(_ depth: Int, className: String, property: Property) throws {
        guard depth < InterchangeValue.maximumMixedDepth else {
            throw InterchangeError(className: className, property: property.storedName,
                                   reason: "a mixed value nests lists and dictionaries deeper than \(InterchangeValue.maximumMixedDepth) levels")
        }
    }

    func writeCollection(_ value: InterchangeValue, property: Property, className: String, owner: Int64,
                         statement: Statement, batches: [Statement]) throws {
        var progress = CollectionProgress()
        try writeCollection(value, property: property, className: className, owner: owner, statement: statement, batches: batches, progress: &progress)
    }

    /// Writes the next part of one collection of an object: a large collection read from a
    /// stream is written a batch at a time (its object's row written after), so memory
    /// holds one batch, not the collection.
    /// - Parameters:
    ///   - part: The next elements: `.list`, `.set` or `.dictionary`, as the property's collection.
    ///   - propertyIndex: The collection property's index in the class's schema.
    ///   - owner: The row id the object will be inserted with.
    ///   - progress: Where the collection stands; start each collection with a new one.
    public func appendToCollection(_ part: InterchangeValue, className: String, propertyIndex: Int, owner: Int64,
                                   progress: inout CollectionProgress) throws {
        guard let schema = schemaByName[className], schema.properties.indices.contains(propertyIndex),
              let (_, statement, batches) = try statements(for: schema).collections.first(where: { $0.0 == propertyIndex }) else {
            throw InterchangeError(className: className, property: "(collection)", reason: "the class has no such collection property")
        }
        try writeCollection(part, property: schema.properties[propertyIndex], className: className, owner: owner,
                            statement: statement, batches: batches, progress: &progress)
        try commitIfLarge()
    }

    private func writeCollection(_ value: InterchangeValue, property: Property, className: String, owner: Int64,
                                 statement: Statement, batches: [Statement], progress: inout CollectionProgress) throws {
        func element(_ item: InterchangeValue) throws -> DatabaseValue {
            if property.type == .mixed { return MixedCodec.encode(try mixedValue(item, className: className, property: property)) }
            if case .null = item {
                guard property.isOptional else {
                    throw InterchangeError(className: className, property: property.storedName, reason: "a null element in a collection of required values")
                }
                return .null
            }
            return try scalar(item, property: property, className: className)
        }
        switch (property.collectionKind, value) {
        case (_, .null): return
        case (.list, .list(let items)):
            // Up to `listBatch` elements per statement: one statement run per short list, not one per element.
            var position = 0
            defer { progress.position += items.count }
            while position < items.count {
                let count = min(Self.listBatch, items.count - position)
                var arguments = listArguments
                listArguments = []
                arguments.removeAll(keepingCapacity: true)
                for offset in 0..<count {
                    arguments.append(.integer(owner))
                    arguments.append(.integer(Int64(progress.position + position + offset)))
                    arguments.append(try element(items[position + offset]))
                }
                let insert = count == 1 ? statement : batches[count - 2]
                try insert.execute(arguments)
                wrote(rows: count, bytes: arguments.reduce(0) { $0 + $1.writtenByteCount })
                listArguments = arguments
                position += count
            }
        case (.set, .set(let items)), (.set, .list(let items)):
            var nanCount = progress.nanCount
            defer { progress.nanCount = nanCount }
            for item in items {
                var stored = try element(item)
                // NaN equals nothing, so a set can hold it more than once (Realm's sets do):
                // each further NaN is stored with a suffix the decoder ignores.
                if case .text(let text) = stored, property.type == .float || property.type == .double, text.hasPrefix("NaN") {
                    if nanCount > 0 { stored = .text(text + "#\(nanCount)") }
                    nanCount += 1
                }
                try statement.execute([.integer(owner), stored])
                wrote(rows: 1, bytes: stored.writtenByteCount)
            }
        case (.map, .dictionary(let entries)):
            for entry in entries {
                let value = try element(entry.value)
                try statement.execute([.integer(owner), .text(entry.key), value])
                wrote(rows: 1, bytes: entry.key.utf8.count + value.writtenByteCount)
            }
        default:
            throw InterchangeError(className: className, property: property.storedName,
                                   reason: "a \(value.kindName) value for a \(property.collectionKind?.rawValue ?? "scalar") property")
        }
    }

    // MARK: Statements

    /// The most list elements one INSERT writes.
    private static let listBatch = 16

    struct ClassStatements {
        /// Indices of the properties written as columns (the row-id primary key excluded).
        let columnProperties: [Int]
        let insertWithRowID: Statement
        let insertWithoutRowID: Statement
        /// (property index, insert statement of its side table, for lists the inserts of 2…`listBatch` rows).
        let collections: [(Int, Statement, [Statement])]
    }

    func statements(for schema: ObjectSchema) throws -> ClassStatements {
        if let existing = statementsByClass[schema.className] { return existing }
        let columns = schema.columnIndexes.filter { !schema.properties[$0].isRowIDKey }
        let names = columns.map { quoteIdentifier(schema.properties[$0].storedName) }
        func insertSQL(withRowID: Bool) -> String {
            let all = (withRowID ? ["\"_vk_id\""] : []) + names
            if all.isEmpty { return "INSERT INTO \(schema.tableName) DEFAULT VALUES" }
            return "INSERT INTO \(schema.tableName) (\(all.joined(separator: ", "))) VALUES (\(all.map { _ in "?" }.joined(separator: ", ")))"
        }
        let collections = try schema.properties.indices.filter { schema.properties[$0].collectionKind != nil }.map { index in
            let property = schema.properties[index]
            var batches: [Statement] = []
            if property.collectionKind == .list {
                let table = schema.collectionTableName(for: property)
                for rows in 2...Self.listBatch {
                    let values = Array(repeating: "(?, ?, ?)", count: rows).joined(separator: ", ")
                    batches.append(try db.makeStatement("INSERT INTO \(table) (\"_vk_owner\", \"_vk_position\", \"value\") VALUES \(values)"))
                }
            }
            return (index, try db.makeStatement(schema.collectionInsertSQL(for: property)), batches)
        }
        let result = ClassStatements(columnProperties: columns,
                                     insertWithRowID: try db.makeStatement(insertSQL(withRowID: true)),
                                     insertWithoutRowID: try db.makeStatement(insertSQL(withRowID: false)),
                                     collections: collections)
        statementsByClass[schema.className] = result
        return result
    }
}

private extension DatabaseValue {
    /// The bytes a text or blob value adds to a row (counted toward the next commit of a build).
    var writtenByteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .blob(let bytes): bytes.count
        default: 8
        }
    }
}
