import Foundation
import VaultCore

/// An object read and written by property name, without its Swift class
/// (Realm's `DynamicObject`; in a migration, `MigrationObject`).
///
/// From ``Vault/dynamicObjects(_:)`` and ``Vault/dynamicObject(ofType:forPrimaryKey:)``
/// it is a managed object of the named class: `object["name"]` reads its row,
/// and sets it inside a write. In a migration an old object holds the values
/// it had before the block ran, keyed by the names the file stored, and a new
/// object reads and writes its row in the new schema. Values come back as the
/// property's Swift type (`Int`, `String`, `Date`, …, a `DynamicObject` for a
/// link). A list, set or map comes back as a live, typed collection, as in
/// Realm — `object["dogs"] as! List<DynamicObject>`, `object["tags"] as!
/// MutableSet<String>`, `object["scores"] as! Map<String, Int>` (see
/// ``Object/dynamicList(_:)``; the element types are listed there). A migration's
/// old object's collections are read-only; a new object's can be changed in
/// place or set from an array (a map from a dictionary), and a link or an
/// element may be set to an unmanaged object, which the migration adds.
///
/// Properties can also be named as members, as in Realm: `oldObject.name` is
/// `oldObject["name"]`.
@dynamicMemberLookup
public final class DynamicObject: Object {
    enum MigrationStorage {
        /// Values read before the migration block could change them, with the stored layout.
        case snapshot(Migration, [String: DatabaseValue], [String: StoredProperty])
        /// A row of the new schema's table.
        case live(Migration, ObjectSchema)
    }
    private var migrationClassName = ""
    private var migrationRowID: Int64 = 0
    private var migrationStorage: MigrationStorage?

    public required init() { super.init() }

    init(className: String, rowID: Int64, storage: MigrationStorage) {
        super.init()
        migrationClassName = className
        migrationRowID = rowID
        migrationStorage = storage
    }

    /// The property `member` (`object.name` is `object["name"]`).
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// A migration's object: the old schema of its class for an old object, the new one for a new object.
    override var unmanagedSchema: ObjectSchema? {
        switch migrationStorage {
        case nil: return nil
        case .snapshot(let migration, _, _): return migration.oldSchema[migrationClassName]
        case .live(_, let schema): return schema
        }
    }

    /// Whether this is an object of a running migration (old or new).
    var isMigrationObject: Bool { migrationStorage != nil }

    /// The object's class name.
    public var className: String { migrationStorage == nil ? (manager?.schema.className ?? "DynamicObject") : migrationClassName }
    var rowID: Int64 { migrationStorage == nil ? (manager?.rowID ?? 0) : migrationRowID }

    /// The value of a property: `nil` for nil (or a property the object does not have).
    /// Setting it on a migration's old object is a programmer error (old objects are read-only).
    public override subscript(key: String) -> Any? {
        get {
            switch migrationStorage {
            case nil:
                return super[key]
            case .snapshot(let migration, let values, let layout):
                guard let property = layout[key] else { return migration.unknownProperty(key, of: className, side: "the file's schema") }
                if property.isCollection {
                    let store = MigrationCollection(migration: migration, className: className, ownerRowID: rowID, property: property.property,
                                                    side: .old(property))
                    return DynamicCollection.make(property.property, .detached(store))
                }
                guard let value = values[key] else { return nil }
                if let linked = property.linkedClass {
                    guard let target = value.int64 else { return nil }
                    return migration.oldObject(ofClass: linked, rowID: target)
                }
                return property.valueType.flatMap { BoxedValues.decode(value, as: $0) }
            case .live(let migration, let schema):
                guard let index = schema.index(ofProperty: key) else { return migration.unknownProperty(key, of: className, side: "the new schema") }
                let property = schema.properties[index]
                if property.collectionKind != nil { return DynamicCollection.make(property, .detached(newCollection(migration, schema, property))) }
                guard property.isColumn else { return nil }
                var value: DatabaseValue = .null
                migration.run(className: className, property: key) { db in
                    value = try db.fetchOne("SELECT \(property.columnSQL) FROM \(schema.tableName) WHERE \"_vk_id\" = ?", arguments: [.integer(rowID)])?[0] ?? .null
                }
                if let linked = property.objectClassName {
                    guard let target = value.int64, let targetSchema = migration.newSchemas[linked] else { return nil }
                    return DynamicObject(className: linked, rowID: target, storage: .live(migration, targetSchema))
                }
                // nil itself, not an optional holding nil (which `new["x"] == nil` would miss).
                if value.isNull { return nil }
                // As the old object gives it (and Realm both): stored values, integers of any width and enums
                // as numbers that cast to any width (`new["count"] as! Int` for an Int32, `as! Int8`).
                return BoxedValues.decode(value, as: property.type)
            }
        }
        set {
            switch migrationStorage {
            case nil:
                super[key] = newValue
            case .snapshot(let migration, _, _):
                // After a failure (an object `create` could not make) the rest of the block is skipped, as the migration will be.
                guard migration.error == nil else { return }
                preconditionFailure("\(className).\(key): the old object of a migration is read-only; write to the new object")
            case .live(let migration, let schema):
                guard let index = schema.index(ofProperty: key), schema.properties[index].originProperty == nil else {
                    preconditionFailure("\(className) has no property '\(key)' that a migration can set")
                }
                let property = schema.properties[index]
                if property.collectionKind != nil {
                    let store = newCollection(migration, schema, property)
                    switch CollectionContents.entries(of: newValue, isMap: property.collectionKind == .map) {
                    case .success(let entries): store.store(entries.map { ($0.key, detachedBox($0.value)) })
                    case .failure(let refusal): store.refuse(refusal.reason)
                    }
                    return
                }
                let encoded = property.type == .object
                    ? property.objectClassName.flatMap { migration.reference(to: newValue, ofClass: $0) }
                    : BoxedValues.encode(newValue, for: index, of: schema)
                guard let encoded else {
                    migration.record(VaultObjectError.invalidValue(className: className, property: key, reason: "the migration set a value that is not a \(schema.properties[index].objectClassName ?? schema.properties[index].type.rawValue)"))
                    return
                }
                migration.run(className: className, property: key) { db in
                    try migration.preserveOldRows(of: className)
                    try db.execute("UPDATE \(schema.tableName) SET \(schema.properties[index].columnSQL) = ? WHERE \"_vk_id\" = ?", arguments: [encoded, .integer(rowID)])
                }
            }
        }
    }

    /// A migration's object prints as Realm prints one: `Person {\n\tname = Ada;\n}`,
    /// links as the linked class, collections as their kind and size.
    public override var description: String {
        guard let storage = migrationStorage, let schema = unmanagedSchema else { return super.description }
        var properties = schema.properties.filter { $0.originProperty == nil }
        // An old object reads what the file stores: only those names (another would be a migration error).
        if case .snapshot(_, _, let layout) = storage { properties = properties.filter { layout[$0.name] != nil } }
        let lines = properties.map { property in "\t\(property.name) = \(Self.describe(self[property.name], property));" }
        return "\(className) {\n" + lines.joined(separator: "\n") + "\n}"
    }

    private static func describe(_ value: Any?, _ property: Property) -> String {
        guard let value else { return "nil" }
        if let kind = property.collectionKind {
            let count = (value as? any Collection)?.count ?? 0
            return "\(kind.rawValue.capitalized)<\(property.objectClassName ?? property.type.rawValue)> (\(count) elements)"
        }
        if property.type == .object { return "\(property.objectClassName ?? "?") object" }
        return "\(value)"
    }

    /// A new object's collection property, in the new schema's side table.
    private func newCollection(_ migration: Migration, _ schema: ObjectSchema, _ property: Property) -> MigrationCollection {
        MigrationCollection(migration: migration, className: className, ownerRowID: rowID, property: property, side: .new(schema))
    }
}

/// Values without a Swift class: a stored value as its property type's Swift
/// type, and a boxed value as a property's column value.
enum BoxedValues {
    /// A stored value as the Swift type of its property type, as Realm's dynamic
    /// access gives it: integers (any width, and enums' raw values) as an `NSNumber`,
    /// which casts to `Int`, `Int8`…`Int64` or `Double` as Realm's do; decimals as ``Decimal128``.
    static func decode(_ value: DatabaseValue, as type: PropertyType) -> Any? {
        switch type {
        case .bool: Bool._vaultDecode(value)
        case .int: Int64._vaultDecode(value).map { NSNumber(value: $0) }
        case .float: Float._vaultDecode(value)
        case .double: Double._vaultDecode(value)
        case .string: String._vaultDecode(value)
        case .data: Data._vaultDecode(value)
        case .date: Date._vaultDecode(value)
        case .uuid: UUID._vaultDecode(value)
        case .decimal: Decimal128._vaultDecode(value)
        case .objectId: ObjectId._vaultDecode(value)
        // The payload, as Realm's migration objects give it (`newObject["any"] as! String`).
        case .mixed: AnyVaultValue._vaultDecode(value)?.keyValuePayload
        case .object: nil
        }
    }

    /// The column value for a property of `schema` (`nil`: not a value the property can hold).
    static func encode(_ value: Any?, for index: Int, of schema: ObjectSchema) -> DatabaseValue? {
        let property = schema.properties[index]
        guard let value, !(value is NSNull) else { return property.isOptional || property.type == .object ? .null : nil }
        if property.type == .object {
            if let dynamic = value as? DynamicObject, dynamic.className == property.objectClassName { return .integer(dynamic.rowID) }
            if let object = value as? ObjectBase, let manager = object.manager, manager.schema.className == property.objectClassName { return .integer(manager.rowID) }
            return nil
        }
        if let encoded = schema.accessors[index].encodeBoxed(value) { return encoded }
        if property.type == .mixed {
            // Any value a mixed property can hold, as Realm takes it (`new["any"] = 12345`).
            return (value as? AnyVaultValue ?? AnyVaultValue(boxed: value))?._vaultEncoded
        }
        // A value of another Swift type of the same kind (an Int for an Int32 property, a Double for a Float,
        // an Int for a Double), kept only when the property's type reads it back (300 is not an Int8).
        var candidate: DatabaseValue?
        if let persistable = value as? any PersistableValue, type(of: persistable)._vaultPropertyType == property.type {
            candidate = persistable._vaultEncoded
        } else if property.type == .decimal, let decimal = try? Decimal128(value: value) {
            candidate = decimal._vaultEncoded   // any number or a decimal string (Realm's `Decimal128(value:)`)
        } else if property.type == .int, value is NSNumber, let integer = value as? Int64 {
            candidate = .integer(integer)   // a number read from a migration object (exactly an integer, or refused)
        } else if property.type == .double || property.type == .float {
            if let integer = value as? Int { candidate = .real(Double(integer)) }
            if let double = value as? Double { candidate = property.type == .float ? Float(double)._vaultEncoded : .real(double) }
        }
        guard let candidate, schema.accessors[index].decodeBoxed(candidate) != nil else { return nil }
        return candidate
    }
}

extension Migration {
    /// The object a link of an old object points at, with its old values.
    func oldObject(ofClass className: String, rowID: Int64) -> DynamicObject? {
        guard let (table, layout, _) = oldTable(className) else { return nil }
        let ordered = layout.values.filter { !$0.isCollection }.sorted { $0.storedName < $1.storedName }
        let list = ordered.map(\.columnSQL).joined(separator: ", ")
        guard !ordered.isEmpty, let row = try? database.fetchOne("SELECT \(list) FROM \(table) WHERE \"_vk_id\" = ?", arguments: [.integer(rowID)]) else { return nil }
        var values: [String: DatabaseValue] = [:]
        for (offset, property) in ordered.enumerated() { values[property.storedName] = row[offset] }
        return DynamicObject(className: className, rowID: rowID, storage: .snapshot(self, values, layout))
    }
}
