import Foundation
import VaultCore

/// A list, set or map of a migration's object, read and written in its side
/// table through the migration's connection (there is no vault yet).
///
/// `oldObject["dogs"]` and `newObject["dogs"]` are a `List<MigrationObject>`
/// over one of these, as in Realm. An old object's collection reads the table
/// the file stored it in and cannot be changed; a new object's reads and
/// writes the new schema's table, each change replacing the owner's entries
/// inside the migration's transaction. Elements come out as stored values
/// (`DatabaseValue`) that the collection decodes as its element type, links
/// as ``DynamicObject``s of the same side (old or new).
final class MigrationCollection: DetachedElements {
    /// Which schema the owner is read in.
    enum Side {
        /// The file's schema before the migration, as stored: read-only.
        case old(StoredProperty)
        /// The code's schema: writable.
        case new(ObjectSchema)
    }

    private let migration: Migration
    private let className: String                 // the owner's class
    private let ownerRowID: Int64                 // the owner's row id (the same in old and new tables)
    private let property: Property                // the collection property: kind, element type, optionality
    private let side: Side

    init(migration: Migration, className: String, ownerRowID: Int64, property: Property, side: Side) {
        self.migration = migration
        self.className = className
        self.ownerRowID = ownerRowID
        self.property = property
        self.side = side
    }

    /// The side table, quoted. An old object's is asked for on every read: once
    /// the block first changes a side table the new schema shares, the old
    /// entries are read from the copy made just before (`Migration.preserveOldEntries`).
    private var table: String {
        switch side {
        case .old(let stored): migration.oldSideTable(stored, className: className)
        case .new(let schema): schema.collectionTableName(for: property)
        }
    }

    var vault: Vault? { nil }

    // MARK: Reading

    private func rows() -> [Row] {
        let sql = switch property.collectionKind {
        case .list: "SELECT NULL, \"value\" FROM \(table) WHERE \"_vk_owner\" = ? ORDER BY \"_vk_position\", rowid"
        case .map: "SELECT \"key\", \"value\" FROM \(table) WHERE \"_vk_owner\" = ? ORDER BY \"key\""
        default: "SELECT NULL, \"value\" FROM \(table) WHERE \"_vk_owner\" = ? ORDER BY rowid"
        }
        do {
            return try migration.database.fetchAll(sql, arguments: [.integer(ownerRowID)])
        } catch {
            migration.record(error)
            return []
        }
    }

    /// A stored element: a link as the object on this side, anything else as stored.
    private func element(_ stored: DatabaseValue) -> Any {
        guard property.type == .object else { return stored }
        guard let rowID = stored.int64, let target = property.objectClassName else { return NSNull() }
        switch side {
        case .old:
            return migration.oldObject(ofClass: target, rowID: rowID) ?? NSNull()
        case .new:
            guard let schema = migration.newSchemas[target] else { return NSNull() }
            return DynamicObject(className: target, rowID: rowID, storage: .live(migration, schema))
        }
    }

    func detachedElements() -> [Any] { rows().map { element($0[1]) } }

    func detachedEntries() -> [(key: String, value: Any)] {
        rows().compactMap { row in row[0].string.map { ($0, element(row[1])) } }
    }

    // MARK: Writing

    func replaceDetachedElements(_ elements: [Any]) {
        store(elements.map { (nil, $0) })
    }

    func replaceDetachedEntries(_ entries: [(key: String, value: Any)]) {
        store(entries.map { ($0.key, $0.value) })
    }

    func refuse(_ reason: String) {
        migration.record(VaultObjectError.invalidValue(className: className, property: property.name, reason: reason))
    }

    /// Replaces the owner's entries with `entries` (keys for a map).
    func store(_ entries: [(key: String?, value: Any)]) {
        guard case .new(let schema) = side else {
            preconditionFailure("\(className).\(property.name): the old object of a migration is read-only; change the new object's collection")
        }
        var encoded: [(key: String?, value: DatabaseValue)] = []
        for entry in entries {
            if let key = entry.key, let reason = Map<String, Int>.invalidKeyReason(key) { return refuse(reason) }
            guard let value = encode(entry.value) else {
                return refuse("an element is not a \(property.objectClassName ?? property.type.rawValue)\(property.isOptional ? " or nil" : "")")
            }
            encoded.append((entry.key, value))
        }
        let insert = schema.collectionInsertSQL(for: property)
        migration.run(className: className, property: property.name) { db in
            try migration.preserveOldEntries(of: schema.unquotedCollectionTableName(for: property), className: className)
            try db.execute("DELETE FROM \(table) WHERE \"_vk_owner\" = ?", arguments: [.integer(ownerRowID)])
            for (position, entry) in encoded.enumerated() {
                try db.execute(insert, arguments: ObjectSchema.collectionInsertArguments(property.collectionKind, owner: ownerRowID,
                                                                                         position: position, key: entry.key, value: entry.value))
            }
        }
    }

    /// The stored form of an element; `nil` when it cannot be one.
    private func encode(_ element: Any) -> DatabaseValue? {
        if element is NSNull { return property.isOptional || property.type == .mixed ? .null : nil }
        switch property.type {
        case .object:
            guard let target = property.objectClassName else { return nil }
            return migration.reference(to: element, ofClass: target)
        case .mixed:
            return (element as? AnyVaultValue ?? AnyVaultValue(boxed: element))?._vaultEncoded
        default:
            if let value = element as? any PersistableValue, type(of: value)._vaultPropertyType == property.type { return value._vaultEncoded }
            if property.type == .double || property.type == .float {
                if let integer = element as? Int { return .real(Double(integer)) }
                if let double = element as? Double { return .real(double) }
            }
            return nil
        }
    }
}

extension Migration {
    /// An unmanaged object's stored properties' values by name (nil ones left out).
    static func propertyValues(of object: ObjectBase) -> [String: Any] {
        guard let schema = try? ObjectSchema.schema(for: type(of: object)) else { return [:] }
        var values: [String: Any] = [:]
        for (index, property) in schema.properties.enumerated() where property.originProperty == nil {
            if let value = object.value(at: index, schema: schema) { values[property.name] = value }
        }
        return values
    }

    /// A link to `element` from the new schema: a new-side object of class
    /// `className`, or an unmanaged object of that class, which is created first
    /// (as Realm adds an unmanaged object assigned in a migration; the same
    /// object linked again links the same row).
    func reference(to element: Any?, ofClass className: String) -> DatabaseValue? {
        guard let element, !(element is NSNull) else { return .null }
        if let dynamic = element as? DynamicObject, dynamic.isMigrationObject {
            return dynamic.className == className ? .integer(dynamic.rowID) : nil
        }
        guard let object = element as? ObjectBase, object.manager == nil,
              let schema = try? ObjectSchema.schema(for: type(of: object)), schema.className == className else { return nil }
        if let created = createdForObjects[ObjectIdentifier(object)] { return .integer(created.rowID) }
        let created = create(className, value: Self.propertyValues(of: object))
        guard error == nil else { return nil }
        createdForObjects[ObjectIdentifier(object)] = (object, created.rowID)
        return .integer(created.rowID)
    }
}
