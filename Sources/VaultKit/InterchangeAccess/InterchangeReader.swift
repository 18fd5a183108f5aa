import Foundation
import VaultCore

// MARK: - Reading objects as values
//
// The reader walks a vault's classes and objects as ``InterchangeValue``s, from
// one snapshot (everything it returns is of one version), without Swift models:
// the JSON exporter's source. It streams: one object's values at a time, read
// with statements prepared once per class and property, so memory does not
// grow with the vault.

/// Reads every object of a vault as values; see ``Vault/readInterchange(_:)``.
@_spi(Interchange)
public final class InterchangeReader {
    private let db: Database
    private let vault: Vault
    /// The vault's schema version.
    public let schemaVersion: UInt64
    /// Every class the file stores, by name.
    public let schemas: [ObjectSchema]
    private let schemaByName: [String: ObjectSchema]
    private let timestampLookup: Statement?
    private var statements: [String: Statement] = [:]

    init(vault: Vault, database: Database) throws {
        self.vault = vault
        db = database
        schemaVersion = (try database.fetchOne(SystemTables.selectSchemaVersionSQL)?[0].int64).map { UInt64(bitPattern: $0) } ?? 0
        schemas = vault.storedSchema.objectSchema.sorted { $0.className < $1.className }
        schemaByName = Dictionary(schemas.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        // No entries (most vaults, and imports of whole-microsecond dates): no lookup per date.
        let hasEntries = try database.fetchOne(ExactTimestamps.tableExistsSQL) != nil
            && database.fetchOne(ExactTimestamps.anyEntrySQL) != nil
        timestampLookup = hasEntries ? try database.makeStatement(ExactTimestamps.selectSQL) : nil
    }

    /// The schema of `className`.
    public func schema(named className: String) -> ObjectSchema? { schemaByName[className] }

    /// The number of objects of a class.
    public func count(of className: String) throws -> Int {
        guard let schema = schemaByName[className] else { return 0 }
        return Int(try db.fetchOne("SELECT count(*) FROM \(schema.tableName)")?[0].int64 ?? 0)
    }

    /// Visits every object of a top-level class: sorted by primary key if it has one,
    /// else in row-id (insertion) order. `values` has one entry per property
    /// (`.null` for linking-objects properties).
    public func forEachObject(of className: String, _ body: (_ rowID: Int64, _ values: [InterchangeValue]) throws -> Void) throws {
        guard let schema = schemaByName[className] else { return }
        let order = schema.primaryKeyProperty.map { $0.columnSQL } ?? "\"_vk_id\""
        let select = try db.makeStatement(schema.selectAllSQL + " ORDER BY \(order)")
        defer { select.reset() }
        while try select.step() {
            let rowID = select.int64(at: 0)
            let columns = (1..<select.columnCount).map { select.value(at: $0) }
            try body(rowID, try values(of: schema, rowID: rowID, columns: columns))
        }
    }

    /// The primary-key value of the object `rowID` of `className` (nil if it has none or is gone).
    public func primaryKey(of className: String, rowID: Int64) throws -> InterchangeValue? {
        guard let schema = schemaByName[className], let key = schema.primaryKeyProperty else { return nil }
        if key.isRowIDKey { return .int(rowID) }
        let statement = try cached("SELECT \(key.columnSQL) FROM \(schema.tableName) WHERE \"_vk_id\" = ?")
        guard let stored = try statement.fetchFirstValue([.integer(rowID)]) else { return nil }
        return try value(stored, property: key)
    }

    /// The position of the object `rowID` among its class's objects in ``forEachObject(of:_:)`` order
    /// (how a link to an object without primary key is written).
    public func position(of className: String, rowID: Int64) throws -> Int {
        guard let schema = schemaByName[className] else { return 0 }
        let statement = try cached("SELECT count(*) FROM \(schema.tableName) WHERE \"_vk_id\" < ?")
        return Int(try statement.fetchFirstValue([.integer(rowID)])?.int64 ?? 0)
    }

    // MARK: Decoding

    private func values(of schema: ObjectSchema, rowID: Int64, columns: [DatabaseValue]) throws -> [InterchangeValue] {
        var result = [InterchangeValue](repeating: .null, count: schema.properties.count)
        for (index, stored) in zip(schema.columnIndexes, columns) {
            result[index] = try value(stored, property: schema.properties[index])
        }
        for (index, property) in schema.properties.enumerated() where property.collectionKind != nil {
            result[index] = try collection(of: schema, property: property, owner: rowID)
        }
        return result
    }

    private func value(_ stored: DatabaseValue, property: Property) throws -> InterchangeValue {
        if property.type == .mixed {
            guard let mixed = try? MixedCodec.decode(stored) else {
                throw InterchangeError(className: "?", property: property.storedName, reason: "a stored mixed value does not decode")
            }
            return try value(mixed)
        }
        if case .null = stored { return .null }
        switch property.type {
        case .int: return stored.int64.map(InterchangeValue.int) ?? .null
        case .bool: return .bool((stored.int64 ?? 0) != 0)
        case .float: return Float._vaultDecode(stored).map(InterchangeValue.float) ?? .null
        case .double: return Double._vaultDecode(stored).map(InterchangeValue.double) ?? .null
        case .string: return stored.string.map(InterchangeValue.string) ?? .null
        case .data: return stored.data.map(InterchangeValue.data) ?? .null
        case .date:
            guard let seconds = stored.double else { return .null }
            return .date(try ExactTimestamps.timestamp(of: seconds, lookup: timestampLookup))
        case .decimal: return stored.string.map(InterchangeValue.decimal) ?? .null
        case .objectId: return stored.data.map { .objectId([UInt8]($0)) } ?? .null
        case .uuid: return UUID._vaultDecode(stored).map(InterchangeValue.uuid) ?? .null
        case .object:
            guard let rowID = stored.int64, let target = property.objectClassName else { return .null }
            if let embedded = schemaByName[target], embedded.isEmbedded { return try embeddedObject(embedded, rowID: rowID) }
            return .link(className: target, rowID: rowID)
        case .mixed: return .null
        }
    }

    private func value(_ mixed: MixedValue) throws -> InterchangeValue {
        switch mixed {
        case .none: return .null
        case .int(let number): return .int(number)
        case .bool(let flag): return .bool(flag)
        case .float(let number): return .float(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(text)
        case .data(let bytes): return .data(bytes)
        case .date(let seconds): return .date(try ExactTimestamps.timestamp(of: seconds, lookup: timestampLookup))
        case .objectId(let bytes): return .objectId(bytes)
        case .decimal(let decimal): return .decimal(decimal.exactText)
        case .uuid(let uuid): return .uuid(uuid)
        case .link(let className, let rowID): return .link(className: className, rowID: rowID)
        case .list(let elements): return .list(try elements.map(value))
        case .dictionary(let entries): return .dictionary(try entries.map { InterchangeEntry(key: $0.key, value: try value($0.value)) })
        }
    }

    private func embeddedObject(_ schema: ObjectSchema, rowID: Int64) throws -> InterchangeValue {
        let statement = try cached(schema.selectByRowIDSQL)
        let row = try statement.fetchAll([.integer(rowID)])
        guard let first = row.first else { return .null }
        return .embedded(try values(of: schema, rowID: rowID, columns: first.values))
    }

    private func collection(of schema: ObjectSchema, property: Property, owner: Int64) throws -> InterchangeValue {
        let table = schema.collectionTableName(for: property)
        switch property.collectionKind {
        case .list:
            let rows = try cached("SELECT \"value\" FROM \(table) WHERE \"_vk_owner\" = ? ORDER BY \"_vk_position\"").fetchAll([.integer(owner)])
            return .list(try rows.map { try element($0[0], property: property) })
        case .set:
            let rows = try cached("SELECT \"value\" FROM \(table) WHERE \"_vk_owner\" = ? ORDER BY rowid").fetchAll([.integer(owner)])
            return .set(try rows.map { try element($0[0], property: property) })
        case .map:
            let rows = try cached("SELECT \"key\", \"value\" FROM \(table) WHERE \"_vk_owner\" = ? ORDER BY \"key\"").fetchAll([.integer(owner)])
            return .dictionary(try rows.map { InterchangeEntry(key: $0[0].string ?? "", value: try element($0[1], property: property)) })
        case nil: return .null
        }
    }

    private func element(_ stored: DatabaseValue, property: Property) throws -> InterchangeValue {
        try value(stored, property: property)
    }

    private func cached(_ sql: String) throws -> Statement {
        if let statement = statements[sql] { return statement }
        let statement = try db.makeStatement(sql)
        statements[sql] = statement
        return statement
    }
}

extension Vault {
    /// Runs `body` with a reader of this vault's current version (one snapshot throughout).
    @_spi(Interchange)
    public func readInterchange<T>(_ body: (InterchangeReader) throws -> T) throws -> T {
        try withDatabase { db in try body(try InterchangeReader(vault: self, database: db)) }
    }
}
