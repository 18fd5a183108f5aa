import Foundation
import VaultCore

// MARK: - Runtime classes
//
// A vault can hold classes this process has no Swift type for: written by
// another app or an older version of this one, by a tool, or registered by a
// model class that is private to another module. Realm's dynamic API reads
// them anyway, and so does VaultKit's: `dynamicObjects(_:)` and
// `dynamicObject(ofType:forPrimaryKey:)` on a class that no model class
// registered build its schema from what the file stores (`_vaultkit_schema`,
// with the embedded flags and the declaration order of properties in
// `_vaultkit_metadata`) and read its objects as
// ``DynamicObject``s — values, links (as DynamicObjects), lists, sets and maps
// (as arrays and dictionaries), embedded objects and mixed values.
//
// Such a schema has no Swift accessors to discover, so each property's
// accessor is chosen by its stored type: the Swift type VaultKit stores that
// type as (Int, String, Date, Decimal128, …, optional when the property is).
// It decodes and encodes column values and collection elements; it never reads
// an object's memory, because no unmanaged instance of a runtime class exists.
// Runtime schemas are kept by the vault's session beside the dynamic schemas
// of model classes, never in the registered list: a model class that later
// registers the same name replaces nothing and is checked as usual.

extension PropertyAccessor {
    /// An accessor for a stored property of a runtime class, by value type `Value`.
    init<Value: PersistableValue>(runtime _: Value.Type, isCollection: Bool) {
        readUnmanaged = { _ in .column(.null) }
        assignUnmanaged = { _, _ in false }
        makeLiveCollection = nil
        adoptCollection = nil
        if isCollection {
            decodeBoxed = { _ in nil }
            decodeElement = { stored in Value._vaultDecode(stored) }
            defaultEncoded = .null
            encodeBoxed = { _ in nil }
        } else {
            decodeBoxed = { stored in Value._vaultDecode(stored) }
            decodeElement = { _ in nil }
            let isLink = Value._vaultPropertyType == .object
            defaultEncoded = Value._vaultIsOptional || isLink ? .null : Value._vaultStorageZeroEncoded
            encodeBoxed = { value in
                if value == nil || value is NSNull { return Value._vaultIsOptional ? .null : nil }
                return (value as? Value)?._vaultEncoded
            }
        }
    }

    /// The accessor of a runtime class's property.
    static func runtime(for property: Property) -> PropertyAccessor {
        func make<Value: PersistableValue>(_ type: Value.Type) -> PropertyAccessor {
            PropertyAccessor(runtime: type, isCollection: property.collectionKind != nil)
        }
        return make(runtimeValueType(property.type, optional: property.isOptional))
    }

    /// The Swift type VaultKit stores a property type as.
    private static func runtimeValueType(_ type: PropertyType, optional: Bool) -> any PersistableValue.Type {
        switch type {
        case .bool: optional ? Bool?.self : Bool.self
        case .int: optional ? Int?.self : Int.self
        case .float: optional ? Float?.self : Float.self
        case .double: optional ? Double?.self : Double.self
        case .string: optional ? String?.self : String.self
        case .data: optional ? Data?.self : Data.self
        case .date: optional ? Date?.self : Date.self
        case .uuid: optional ? UUID?.self : UUID.self
        case .decimal: optional ? Decimal128?.self : Decimal128.self
        case .objectId: optional ? ObjectId?.self : ObjectId.self
        case .object: DynamicObject?.self
        case .mixed: AnyVaultValue.self
        }
    }
}

extension Vault {
    /// The schema of a class the file stores but no model class registered, from
    /// its stored definition; nil when the file has no such class.
    func runtimeSchema(named className: String) -> ObjectSchema? {
        guard let (definition, embeddedFlags, order) = try? withDatabase({ db -> (String, [String: Bool], [String])? in
            guard try db.fetchOne(SystemTables.schemaTableExistsSQL) != nil,
                  let definition = try db.fetchOne("SELECT definition FROM _vaultkit_schema WHERE class_name = ?", arguments: [.text(className)])?[0].string
            else { return nil }
            var embedded: [String: Bool] = [:]
            var order: [String] = []
            if try db.fetchOne(SystemTables.metadataTableExistsSQL) != nil {
                for row in try db.fetchAll(SystemTables.selectEmbeddedFlagsSQL) {
                    if let key = row[0].string, let value = row[1].int64 { embedded[String(key.dropFirst(SystemTables.embeddedKeyPrefix.count))] = value != 0 }
                }
                if let names = try db.fetchOne(SystemTables.selectPropertyOrderSQL, arguments: [.text(className)])?[0].string {
                    order = names.split(separator: "\n").map(String.init)
                }
            }
            return (definition, embedded, order)
        }) else { return nil }
        return ObjectSchema(stored: className, definition: definition, embeddedFlags: embeddedFlags, order: order)
    }
}

extension ObjectSchema {
    /// A class as the file stores it: its definition, the classes' embedded flags,
    /// and the declaration order the file recorded (files written before it was
    /// recorded: by name). Read and written through ``DynamicObject``.
    convenience init(stored className: String, definition: String, embeddedFlags: [String: Bool], order: [String]) {
        let position = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let stored = StoredProperty.parse(definition).values.sorted {
            (position[$0.storedName] ?? Int.max, $0.storedName) < (position[$1.storedName] ?? Int.max, $1.storedName)
        }
        let properties = stored.map { storedProperty -> Property in
            let property = storedProperty.property
            let isEmbeddedLink = property.objectClassName.map { embeddedFlags[$0] ?? false } ?? false
            return Property(name: property.name, storedName: property.storedName, type: property.type, isOptional: property.isOptional,
                            isPrimaryKey: property.isPrimaryKey, isIndexed: property.isIndexed, objectClassName: property.objectClassName,
                            collectionKind: property.collectionKind, originProperty: nil, isEmbeddedLink: isEmbeddedLink)
        }
        self.init(runtimeClassName: className, properties: properties, isEmbedded: embeddedFlags[className] ?? false,
                  accessors: properties.map(PropertyAccessor.runtime(for:)))
    }
}

extension Vault {
    /// Every class the vault's file stores: the model classes this vault
    /// registered, as declared, and the others as the file describes them
    /// (readable through ``dynamicObjects(_:)``). Realm's schema of a file opened
    /// without its models; ``schema`` lists the registered classes only.
    public var storedSchema: Schema {
        let names = (try? withDatabase { db -> [String] in
            guard try db.fetchOne(SystemTables.schemaTableExistsSQL) != nil else { return [] }
            return try db.fetchAll(SystemTables.selectClassNamesSQL).compactMap { $0[0].string }
        }) ?? []
        return Schema(names.compactMap { name in session.schemas.byName[name] ?? dynamicSchema(named: name) })
    }
}
