import Foundation
import VaultCore

/// The dynamic API: objects of a class named at run time, read and written by
/// property name (Realm's `dynamicObjects(_:)`), for tools and generic code.
extension Vault {
    /// Every object of the class named `className`, as ``DynamicObject``s: a
    /// live `Results` (filter, sort and observe it as any other). The class must
    /// be in the vault's schema (``schema``); another name is a programmer error.
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
    func dynamicSchema(named className: String) -> ObjectSchema? {
        if let existing = session.dynamicSchemas[className] { return existing }
        guard let schema = schema(named: className) else { return nil }
        let dynamic = ObjectSchema(copying: schema, materializingAs: DynamicObject.self)
        session.dynamicSchemas[className] = dynamic
        return dynamic
    }
}
