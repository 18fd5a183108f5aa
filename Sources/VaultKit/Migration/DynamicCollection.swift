import Foundation

/// The typed collection a ``DynamicObject`` gives for a collection property,
/// as Realm's dynamic API does: there is no Swift class to take the element
/// type from, so it follows from the stored property.
///
/// | stored elements | collection |
/// |---|---|
/// | links | `List<DynamicObject>`, `MutableSet<DynamicObject>`, `Map<String, DynamicObject?>` |
/// | integers of any width | `List<Int>` (`List<Int?>` when optional) |
/// | `Bool`, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`, `ObjectId` | that type (or its optional) |
/// | decimals | `Decimal128` (or `Decimal128?`) |
/// | mixed values | `AnyVaultValue` |
///
/// So `object["dogs"] as! List<DynamicObject>` (in a migration,
/// `List<MigrationObject>`) and `object["tags"] as! MutableSet<String>` work
/// as they do with Realm.
enum DynamicCollection {
    /// Where the collection's elements are.
    enum Backing {
        /// A managed object's side table, read through its vault.
        case managed(CollectionBinding)
        /// A migration's object (see MigrationCollection).
        case detached(DetachedElements)
    }

    /// The collection for `property` (`nil` for a property that is not a list, set or map).
    static func make(_ property: Property, _ backing: Backing) -> Any? {
        guard let kind = property.collectionKind else { return nil }
        func build<Element: PersistableValue>(_: Element.Type) -> Any {
            switch (kind, backing) {
            case (.list, .managed(let binding)): List<Element>(binding: binding)
            case (.list, .detached(let store)): List<Element>(detached: store)
            case (.set, .managed(let binding)): MutableSet<Element>(binding: binding)
            case (.set, .detached(let store)): MutableSet<Element>(detached: store)
            case (.map, .managed(let binding)): Map<String, Element>(binding: binding)
            case (.map, .detached(let store)): Map<String, Element>(detached: store)
            }
        }
        return build(elementType(of: property))
    }

    /// The element type for a collection property's elements.
    static func elementType(of property: Property) -> any PersistableValue.Type {
        func type<T: PersistableValue>(_: T.Type) -> any PersistableValue.Type { property.isOptional ? T?.self : T.self }
        switch property.type {
        case .bool: return type(Bool.self)
        case .int: return type(Int.self)
        case .float: return type(Float.self)
        case .double: return type(Double.self)
        case .string: return type(String.self)
        case .data: return type(Data.self)
        case .date: return type(Date.self)
        case .uuid: return type(UUID.self)
        case .decimal: return type(Decimal128.self)
        case .objectId: return type(ObjectId.self)
        case .mixed: return AnyVaultValue.self
        // A map's object values may be nil (a deleted target leaves nil), as in Realm.
        case .object: return property.collectionKind == .map ? DynamicObject?.self : DynamicObject.self
        }
    }
}

extension Object {
    /// The list of objects `propertyName`, its elements as ``DynamicObject``s
    /// (Realm's `dynamicList(_:)`): for a managed object, or a migration's.
    /// A property that is not a list of objects is a programmer error, as in Realm.
    ///
    /// A dynamic object's `object["name"]` gives every collection this way,
    /// typed by the stored property as Realm's dynamic API types them:
    ///
    /// | stored elements | collection |
    /// |---|---|
    /// | links | `List<DynamicObject>`, `MutableSet<DynamicObject>`, `Map<String, DynamicObject?>` |
    /// | integers of any width | `List<Int>` (`List<Int?>` when optional) |
    /// | `Bool`, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`, `ObjectId` | that type (or its optional) |
    /// | decimals | `Decimal128` (or `Decimal128?`) |
    /// | mixed values | `AnyVaultValue` |
    ///
    /// ```swift
    /// migration.enumerateObjects(ofType: "Person") { old, new in
    ///     let dogs = new!.dynamicList("dogs")        // new!["dogs"] as! List<MigrationObject>
    ///     dogs.append(migration.create("Dog", value: ["name": "Rex"]))
    /// }
    /// ```
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        guard let list = dynamicCollection(propertyName, kind: .list) as? List<DynamicObject> else {
            preconditionFailure("\(objectSchema.className).\(propertyName) is not a list of objects")
        }
        return list
    }

    /// The set of objects `propertyName`, as ``DynamicObject``s (Realm's `dynamicMutableSet(_:)`).
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        guard let set = dynamicCollection(propertyName, kind: .set) as? MutableSet<DynamicObject> else {
            preconditionFailure("\(objectSchema.className).\(propertyName) is not a set of objects")
        }
        return set
    }

    /// The map of objects `propertyName`, its values as ``DynamicObject``s (Realm's `dynamicMap(_:)`).
    public func dynamicMap<Key: MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        guard let map = dynamicCollection(propertyName, kind: .map) as? Map<Key, DynamicObject?> else {
            preconditionFailure("\(objectSchema.className).\(propertyName) is not a map of String keys to objects")
        }
        return map
    }

    private func dynamicCollection(_ propertyName: String, kind: CollectionKind) -> Any? {
        if let dynamic = self as? DynamicObject { return dynamic[propertyName] }
        guard let manager else {
            preconditionFailure("\(objectSchema.className).\(propertyName): dynamic collections are read from a managed object; add it to a vault first")
        }
        guard let index = manager.schema.index(ofProperty: propertyName), manager.schema.properties[index].collectionKind == kind else { return nil }
        let binding = CollectionBinding(vault: manager.vault, owner: manager.schema, ownerRowID: manager.rowID, propertyIndex: index)
        return DynamicCollection.make(manager.schema.properties[index], .managed(binding))
    }
}
