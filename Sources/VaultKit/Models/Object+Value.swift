import Foundation
import VaultCore

extension ObjectBase {
    /// An unmanaged object whose properties come from `value`: a dictionary of
    /// public property names to values, another object (its persisted values are
    /// copied), or an array of values in property order.
    ///
    /// ```swift
    /// let ada = Person(value: ["firstName": "Ada", "email": "ada@example.org"])
    /// let copy = Person(value: managedPerson)   // a detached copy
    /// ```
    /// Passing a value whose type does not fit a property is a programmer error
    /// and traps with the class and property named.
    public convenience init(value: Any) {
        self.init()
        assignValues(from: value)
    }

    /// For a link or a collection of objects given as a dictionary or an array
    /// (or an array of those), as Realm accepts them: the unmanaged objects they describe.
    static func linkedObjects(from value: Any?, linkType: ObjectBase.Type?, property: Property, given: GivenProperties? = nil) -> Any? {
        guard let linkType, let value, !(value is ObjectBase) else { return value }
        func object(_ description: Any) -> Any {
            guard description is [String: Any] || description is [String: Any?] || description is [Any?] else { return description }
            let made = linkType.init()
            made.assignValues(from: description, given: given)
            return made
        }
        if property.collectionKind == .list || property.collectionKind == .set, let array = value as? [Any] {
            return array.map(object)
        }
        if property.collectionKind == .map, let dictionary = value as? [String: Any] {
            return dictionary.mapValues(object)
        }
        if property.collectionKind == nil && property.originProperty == nil { return object(value) }
        return value
    }

    /// Sets this unmanaged object's properties from a dictionary, an array or an object;
    /// `given` records which properties a dictionary or an array gave, here and in the objects it describes.
    func assignValues(from value: Any, given: GivenProperties? = nil) {
        let schema: ObjectSchema
        do {
            schema = try ObjectSchema.schema(for: type(of: self))
        } catch {
            preconditionFailure("\(error)")
        }
        func assign(_ index: Int, _ newValue: Any?) {
            let property = schema.properties[index]
            let newValue = ObjectBase.linkedObjects(from: newValue, linkType: schema.linkTypes[index], property: property, given: given)
            guard schema.accessors[index].assignUnmanaged(self, newValue) else {
                preconditionFailure("Invalid value for \(schema.className).\(property.name): expected \(property.objectClassName ?? property.type.rawValue)\(property.isOptional ? "?" : ""), got \(newValue.map { "\(type(of: $0))" } ?? "nil")")
            }
        }
        // Keys that name no stored property are ignored, as Realm ignores them (a JSON payload's extra fields).
        func assignEntries<S: Sequence>(_ entries: S) where S.Element == (key: String, value: Any?) {
            var names: Set<String> = []
            for (name, newValue) in entries {
                guard let index = schema.index(ofProperty: name), schema.properties[index].originProperty == nil else { continue }
                assign(index, newValue)
                names.insert(schema.properties[index].name)
            }
            given?.record(self, names)
        }
        let stored = schema.properties.indices.filter { schema.properties[$0].originProperty == nil }
        switch value {
        case let dictionary as [String: Any?]:
            assignEntries(dictionary)
        case let dictionary as [String: Any]:
            assignEntries(dictionary.lazy.map { (key: $0.key, value: Optional($0.value)) })
        case let array as [Any?]:
            // In the order of the stored properties (linking objects have no value to give).
            precondition(array.count <= stored.count, "\(schema.className) has \(stored.count) properties; \(array.count) values were given")
            for (offset, newValue) in array.enumerated() { assign(stored[offset], newValue) }
            given?.record(self, Set(stored.prefix(array.count).map { schema.properties[$0].name }))
        case let other as ObjectBase:
            guard let otherSchema = try? ObjectSchema.schema(for: type(of: other)) else { return }
            for (index, property) in schema.properties.enumerated() where property.originProperty == nil {
                guard let sourceIndex = otherSchema.index(ofProperty: property.name) else { continue }
                assign(index, other.value(at: sourceIndex, schema: otherSchema))
            }
        default:
            preconditionFailure("Object(value:) takes a dictionary, an array or an object, not \(type(of: value))")
        }
    }
}

extension ObjectBase {
    /// The value of property `index`, boxed (for copies and key-value access):
    /// collections as arrays (maps as dictionaries) of their elements.
    /// The value of property `index`: collections as arrays and dictionaries,
    /// or — `liveCollections`, for key-value coding — a model object's live collections.
    func value(at index: Int, schema: ObjectSchema, liveCollections: Bool = false) -> Any? {
        if let manager, schema.properties[index].collectionKind != nil || schema.properties[index].originProperty != nil {
            let binding = CollectionBinding(vault: manager.vault, owner: schema, ownerRowID: manager.rowID, propertyIndex: index)
            let property = schema.properties[index]
            // A model object gives its live, typed collection, as Realm's `object["dogs"]` does;
            // a DynamicObject one typed by the stored property (List<DynamicObject> for links).
            if liveCollections, property.originProperty == nil, self is DynamicObject { return DynamicCollection.make(property, .managed(binding)) }
            if liveCollections, !(self is DynamicObject), let live = schema.accessors[index].makeLiveCollection { return live(binding) }
            if property.originProperty != nil { return manager.vault.linkingObjects(binding) }
            let entries = manager.vault.collectionEntries(binding).map { entry -> (String?, Any?) in
                let value: Any? = property.type == .object
                    ? entry.value.int64.flatMap { id in property.objectClassName.flatMap { manager.vault.object(className: $0, rowID: id) } }
                    : schema.accessors[index].decodeElement(entry.value)
                return (entry.key, value)
            }
            if property.collectionKind == .map {
                return Dictionary(entries.compactMap { entry in entry.0.map { ($0, entry.1 as Any) } }, uniquingKeysWith: { _, new in new })
            }
            return entries.map { $0.1 as Any }
        }
        if let manager {
            if schema.properties[index].type == .object {
                guard let rowID = manager.storage[index].int64, let target = schema.properties[index].objectClassName else { return nil }
                // A dynamic object's links are dynamic objects, as in Realm.
                if self is DynamicObject { return manager.vault.dynamicObject(className: target, rowID: rowID) }
                return manager.vault.object(className: target, rowID: rowID)
            }
            if schema.properties[index].type == .mixed {
                return manager.vault.liveMixed(stored: manager.currentValue(at: index), root: .property(manager, index: index))
            }
            let stored = manager.currentValue(at: index)
            // nil itself, not an optional holding nil (which `as? T == nil` would miss).
            if stored.isNull { return nil }
            return schema.accessors[index].decodeBoxed(stored)
        }
        switch schema.accessors[index].readUnmanaged(self) {
        case .column(let stored): return stored.isNull ? nil : schema.accessors[index].decodeBoxed(stored)
        case .link(let object): return object
        case .mixed(let value): return value
        case .collection(let entries):
            if schema.properties[index].collectionKind == .map {
                return Dictionary(entries.compactMap { entry in entry.key.map { ($0, entry.value) } }, uniquingKeysWith: { _, new in new })
            }
            return entries.map(\.value)
        }
    }

    /// The schema key-value access goes through: the managed row's, else the class's.
    var keyValueSchema: ObjectSchema? { manager?.schema ?? (try? ObjectSchema.schema(for: type(of: self))) }

    /// Sets property `index` from a boxed value (key-value access): on the row
    /// inside a write when managed, in the object when not.
    func setValue(_ value: Any?, at index: Int, schema: ObjectSchema) {
        let property = schema.properties[index]
        guard let manager else {
            guard schema.accessors[index].assignUnmanaged(self, value) else {
                preconditionFailure("Invalid value for \(schema.className).\(property.name): expected \(property.description)")
            }
            return
        }
        let vault = manager.vault
        precondition(vault.isInWriteTransaction, "Cannot modify managed object \(schema.className).\(property.name) outside a write transaction: wrap the change in vault.write { … }")
        guard property.isColumn else {
            guard property.originProperty == nil else {
                preconditionFailure("\(schema.className).\(property.name) is LinkingObjects: it is computed, and cannot be set")
            }
            // Realm's `object["dogs"] = [a, b]`: the collection's contents are replaced.
            replaceCollection(at: index, schema: schema, manager: manager, with: value)
            return
        }
        let encoded: DatabaseValue?
        if property.type == .object {
            if let object = value as? ObjectBase, let target = object.manager, target.vault.path == vault.path {
                encoded = target.schema.className == property.objectClassName ? .integer(target.rowID) : nil
            } else if let object = value as? ObjectBase, !(object is DynamicObject) {
                encoded = vault.storedReference(to: object)
            } else {
                encoded = value == nil || value is NSNull ? .null : nil
            }
        } else if property.type == .mixed {
            encoded = AnyVaultValue(boxed: value).map { vault.encodeMixed($0, property: property, schema: schema) }
        } else {
            encoded = BoxedValues.encode(value, for: index, of: schema)
        }
        guard let encoded else {
            vault.deferError(VaultObjectError.invalidValue(className: schema.className, property: property.name, reason: "the value is not a \(property.objectClassName ?? property.type.rawValue)"))
            return
        }
        manager.write(encoded: encoded, at: index)
    }
}

extension ObjectBase {
    /// Replaces a managed collection property's contents from an array (a
    /// dictionary for a map), as key-value coding sets it.
    fileprivate func replaceCollection(at index: Int, schema: ObjectSchema, manager: ManagedObject, with value: Any?) {
        let property = schema.properties[index]
        let vault = manager.vault
        let binding = CollectionBinding(vault: vault, owner: schema, ownerRowID: manager.rowID, propertyIndex: index)
        // `object["dogs"] = object["dogs"]`: already in place.
        if let current = (value as? any PersistableCollection)?.binding, current.isSame(as: binding) { return }
        let elements: [(key: String?, value: Any)]
        switch CollectionContents.entries(of: value, isMap: property.collectionKind == .map) {
        case .success(let entries): elements = entries
        case .failure(let refusal):
            vault.deferError(VaultObjectError.invalidValue(className: schema.className, property: property.name, reason: refusal.reason))
            return
        }
        let encoded = elements.map { (key: $0.key, value: vault.encodeElement($0.value, property: property, owner: schema)) }
        vault.replaceCollection(binding, with: encoded)
    }

    /// The value of property `key` — Realm's `value(forKey:)`: a column's value,
    /// a linked object, or a model object's live `List`, `MutableSet`, `Map` or
    /// `LinkingObjects`; `nil` for nil or an unknown key.
    public func value(forKey key: String) -> Any? { self[key] }

    /// Sets property `key` — Realm's `setValue(_:forKey:)`; inside a write for
    /// a managed object. A collection property is set from an array (a map from a
    /// dictionary), replacing its contents.
    public func setValue(_ value: Any?, forKey key: String) { self[key] = value }
}

/// The entries a collection property is set from by key-value coding: an
/// array or any sequence of elements (another `List` or `MutableSet`), a
/// dictionary of `String` keys or a `Map` for a map; `nil` empties it.
enum CollectionContents {
    struct Refusal: Error {
        let reason: String
    }

    static func entries(of value: Any?, isMap: Bool) -> Result<[(key: String?, value: Any)], Refusal> {
        guard let value, !(value is NSNull) else { return .success([]) }
        if let collection = value as? any PersistableCollection {
            return .success(collection.unmanagedEntries)
        }
        if isMap {
            guard let dictionary = value as? [String: Any] else { return .failure(Refusal(reason: "a map is set from a dictionary of String keys")) }
            return .success(dictionary.sorted { $0.key < $1.key }.map { (key: Optional($0.key), value: $0.value) })
        }
        if let array = value as? [Any] { return .success(array.map { (key: nil, value: $0) }) }
        if !(value is String), let sequence = value as? any Sequence {
            func elementsOf<S: Sequence>(_ sequence: S) -> [Any] { sequence.map { $0 as Any } }
            return .success(elementsOf(sequence).map { (key: nil, value: $0) })
        }
        return .failure(Refusal(reason: "a list or set is set from an array"))
    }
}
