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
    static func linkedObjects(from value: Any?, linkType: ObjectBase.Type?, property: Property) -> Any? {
        guard let linkType, let value, !(value is ObjectBase) else { return value }
        func object(_ description: Any) -> Any {
            guard description is [String: Any] || description is [String: Any?] || description is [Any?] else { return description }
            let made = linkType.init()
            made.assignValues(from: description)
            return made
        }
        if property.collectionKind == .list || property.collectionKind == .set, let array = value as? [Any] {
            return array.map(object)
        }
        if property.collectionKind == nil && property.originProperty == nil { return object(value) }
        return value
    }

    /// Sets this unmanaged object's properties from a dictionary, an array or an object.
    func assignValues(from value: Any) {
        let schema: ObjectSchema
        do {
            schema = try ObjectSchema.schema(for: type(of: self))
        } catch {
            preconditionFailure("\(error)")
        }
        func assign(_ index: Int, _ newValue: Any?) {
            let property = schema.properties[index]
            let newValue = ObjectBase.linkedObjects(from: newValue, linkType: schema.linkTypes[index], property: property)
            guard schema.accessors[index].assignUnmanaged(self, newValue) else {
                preconditionFailure("Invalid value for \(schema.className).\(property.name): expected \(property.objectClassName ?? property.type.rawValue)\(property.isOptional ? "?" : ""), got \(newValue.map { "\(type(of: $0))" } ?? "nil")")
            }
        }
        switch value {
        case let dictionary as [String: Any?]:
            for (name, newValue) in dictionary {
                guard let index = schema.index(ofProperty: name) else {
                    preconditionFailure("\(schema.className) has no property named '\(name)'")
                }
                assign(index, newValue)
            }
        case let dictionary as [String: Any]:
            for (name, newValue) in dictionary {
                guard let index = schema.index(ofProperty: name) else {
                    preconditionFailure("\(schema.className) has no property named '\(name)'")
                }
                assign(index, newValue)
            }
        case let array as [Any?]:
            precondition(array.count <= schema.properties.count, "\(schema.className) has \(schema.properties.count) properties; \(array.count) values were given")
            for (index, newValue) in array.enumerated() { assign(index, newValue) }
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
    func value(at index: Int, schema: ObjectSchema) -> Any? {
        if let manager, schema.properties[index].collectionKind != nil || schema.properties[index].originProperty != nil {
            let binding = CollectionBinding(vault: manager.vault, owner: schema, ownerRowID: manager.rowID, propertyIndex: index)
            let property = schema.properties[index]
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
                return manager.vault.object(className: target, rowID: rowID)
            }
            if schema.properties[index].type == .mixed {
                return manager.vault.liveMixed(stored: manager.currentValue(at: index), root: .property(manager, index: index))
            }
            return schema.accessors[index].decodeBoxed(manager.currentValue(at: index))
        }
        switch schema.accessors[index].readUnmanaged(self) {
        case .column(let stored): return schema.accessors[index].decodeBoxed(stored)
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
            preconditionFailure("\(schema.className).\(property.name) is a collection: change it through its List, MutableSet or Map")
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
