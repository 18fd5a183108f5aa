import Foundation
import VaultCore

/// The dynamic API: objects of a class named at run time, read and written by
/// property name (Realm's `dynamicObjects(_:)`), for tools and generic code.
extension Vault {
    /// Every object of the class named `className`, as ``DynamicObject``s: a
    /// live `Results` (filter, sort and observe it as any other). The class must
    /// be in the vault's schema (``schema``) or stored in its file — a class no
    /// model class of this process registered is read from the stored schema;
    /// another name is a programmer error.
    public func dynamicObjects(_ className: String) -> Results<DynamicObject> {
        guard let schema = dynamicSchema(named: className) else {
            preconditionFailure("Object type '\(className)' is not in the schema of the vault at \(path)")
        }
        do {
            return try Results(vault: self, schema: schema)
        } catch {
            preconditionFailure("VaultKit could not query \(className): \(error)")
        }
    }

    /// The object of class `typeName` with primary key `key`, as a ``DynamicObject``; `nil` if there is none.
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        guard let schema = dynamicSchema(named: typeName) else {
            preconditionFailure("Object type '\(typeName)' is not in the schema of the vault at \(path)")
        }
        guard let pk = schema.primaryKeyIndex else { preconditionFailure("\(typeName) has no primary key") }
        guard let encoded = BoxedValues.encode(key, for: pk, of: schema) else {
            preconditionFailure("\(key) is not a valid primary key value for \(typeName).\(schema.properties[pk].name)")
        }
        return object(schema, primaryKey: encoded) as? DynamicObject
    }

    /// The class's schema with objects made as ``DynamicObject`` (one per class and vault).
    /// A class no model class registered is read from the file's stored schema (see RuntimeSchema).
    func dynamicSchema(named className: String) -> ObjectSchema? {
        // Frozen vaults are read from many threads: the schemas made here are shared state.
        exclusiveIfFrozen { makeDynamicSchema(named: className) }
    }

    private func makeDynamicSchema(named className: String) -> ObjectSchema? {
        if let existing = session.schemas.dynamic[className] { return existing }
        guard let schema = schema(named: className) ?? runtimeSchema(named: className) else { return nil }
        let dynamic = ObjectSchema(copying: schema, materializingAs: DynamicObject.self)
        session.schemas.dynamic[className] = dynamic
        return dynamic
    }
}

extension Vault {
    /// Creates an object of the class named `typeName` from a dictionary of
    /// property values (or an array in property order), adds it, and returns it
    /// as a ``DynamicObject`` — Realm's `dynamicCreate(_:value:update:)`.
    /// Links may be given as objects of this vault, ``DynamicObject``s included,
    /// or as dictionaries describing new ones. Inside a write; an unknown class
    /// is a programmer error, as in Realm.
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](), update: UpdatePolicy = .error) -> DynamicObject {
        guard let schema = schema(named: typeName), let objectType = schema.type as? Object.Type else {
            preconditionFailure("Object type '\(typeName)' is not a top-level class in the schema of the vault at \(path)")
        }
        let object = objectType.init()
        object.assignValues(from: typedLinks(in: value, schema: schema))
        guard requireWrite("dynamicCreate(_:value:update:)") else { return DynamicObject() }
        var only: Set<String>?
        if let dictionary = value as? [String: Any?] { only = Set(dictionary.keys) } else if let dictionary = value as? [String: Any] { only = Set(dictionary.keys) }
        do {
            let rowID = try insertOrUpdate(object, policy: update, onlyProperties: only)
            return dynamicObject(className: schema.className, rowID: rowID) ?? DynamicObject()
        } catch {
            deferError(error)
            return DynamicObject()
        }
    }

    /// `value` with every ``DynamicObject`` given for a link replaced by this
    /// vault's object of the link's class (the model class the property holds).
    private func typedLinks(in value: Any, schema: ObjectSchema) -> Any {
        func typed(_ element: Any?) -> Any? {
            guard let dynamic = element as? DynamicObject, let manager = dynamic.manager else { return element }
            return object(className: manager.schema.className, rowID: manager.rowID) ?? element
        }
        func convert(_ element: Any?) -> Any? {
            if let array = element as? [Any?] { return array.map(typed) }
            return typed(element)
        }
        if let dictionary = value as? [String: Any?] {
            return Dictionary(uniqueKeysWithValues: dictionary.map { ($0.key, schema[$0.key]?.objectClassName == nil ? $0.value : convert($0.value)) })
        }
        if let array = value as? [Any?] {
            return array.enumerated().map { index, element in
                schema.properties.indices.contains(index) && schema.properties[index].objectClassName != nil ? convert(element) : element
            }
        }
        return value
    }
}
