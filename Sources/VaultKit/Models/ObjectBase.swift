import Foundation
import VaultCore

/// The root of every model class; subclass ``Object`` or ``EmbeddedObject``.
///
/// An instance is *unmanaged* (a plain Swift object: `@Persisted` values live in
/// the object) until it is added to a vault; then it is *managed*: its
/// properties read and write the vault's row, through a cache that is
/// refreshed when the vault changes.
open class ObjectBase: CustomStringConvertible {
    /// The object's link to its row once managed, retained by hand (released in
    /// `deinit`): a getter borrows it for the read without a retain/release
    /// pair. Read by every property access, set by VaultKit when the object
    /// becomes managed: no dynamic exclusivity check (see ManagedObject).
    @usableFromInline @exclusivity(unchecked) final var managerReference: Unmanaged<ManagedObject>?

    /// The object's link to its row once managed; `nil` while unmanaged.
    @inlinable final var manager: ManagedObject? {
        get { managerReference?.takeUnretainedValue() }
        set {
            let previous = managerReference
            managerReference = newValue.map { Unmanaged.passRetained($0) }
            previous?.release()
            if let newValue, newValue.schema.bindsManagedObjects { newValue.schema.bindManagedObject(self) }
        }
    }

    /// Creates an unmanaged object with the declared default values.
    public required init() {}

    deinit {
        guard let reference = managerReference else { return }
        // An object taking part in Observation leaves its session's list (see Observation/).
        let manager = reference.takeUnretainedValue()
        if manager.tracking != nil { manager.stopTracking() }
        // Its row may still wait for its INSERT: the session's list must not name it any more.
        if manager.waitsForInsert { manager.vault.forgetPendingInsert(of: self) }
        reference.release()
    }

    /// The stored name of each public property name, for classes whose stored
    /// names differ from their Swift names (for example an existing schema):
    /// `["firstName": "first_name"]`. Queries and the API keep using public names.
    open class func propertiesMapping() -> [String: String] { [:] }

    /// The class's name as the vault stores it (Realm's `Object.className()`).
    /// VaultKit names a class's table after the Swift class; to store it under
    /// another name, rename the class and migrate (`vault port` reports overrides).
    public class func className() -> String { String(describing: self) }

    /// The schema VaultKit reads from this class (Realm's `Object.sharedSchema()`);
    /// nil when the class is not a valid model.
    public class func sharedSchema() -> ObjectSchema? { try? ObjectSchema.schema(for: self) }

    /// Whether the object was deleted from its vault (its properties keep their last values).
    public var isInvalidated: Bool {
        guard let manager else { return false }
        // At the vault's current version: a deletion committed elsewhere shows once the vault advanced.
        manager.ensureFresh()
        return manager.isDeleted
    }

    /// The vault that manages this object, or `nil` while unmanaged.
    public var vault: Vault? { manager?.vault }

    /// The object's schema (name, properties, primary key), as Realm's
    /// `objectSchema`: a managed object's is the one its vault reads it with
    /// (a dynamic object's names the stored properties), an unmanaged one's is
    /// its class's. A class that is not a valid model stops the program here
    /// with the reason, as it would when a vault opened with it.
    public var objectSchema: ObjectSchema {
        if let manager { return manager.schema }
        if let schema = unmanagedSchema { return schema }
        do {
            return try ObjectSchema.schema(for: type(of: self))
        } catch {
            preconditionFailure("\(type(of: self)) is not a valid model class: \(error)")
        }
    }

    /// The schema of an object with no manager that is not its class's: a
    /// migration's dynamic object reads the old or the new schema of the class it stands for.
    var unmanagedSchema: ObjectSchema? { nil }

    /// Key-value access by public property name (Realm's `object["name"]`):
    /// the value boxed (`nil` for nil or an unknown name); a mixed property's
    /// payload, not the ``AnyVaultValue`` around it (`nil` for `.none`). A managed model
    /// object's collection is its live `List`, `MutableSet`, `Map` or
    /// `LinkingObjects`; an unmanaged object's (and a ``DynamicObject``'s) is an
    /// array or a dictionary. Setting a managed object's property needs a write
    /// transaction, as any change does; a collection is set from an array (a map
    /// from a dictionary), replacing its contents.
    open subscript(key: String) -> Any? {
        get {
            guard let schema = keyValueSchema, let index = schema.index(ofProperty: key) else { return nil }
            let value = value(at: index, schema: schema, liveCollections: true)
            // A mixed property gives its payload, as Realm's does (`object["any"] as? String`).
            if schema.properties[index].type == .mixed, schema.properties[index].collectionKind == nil, let mixed = value as? AnyVaultValue {
                return mixed.keyValuePayload
            }
            return value
        }
        set {
            guard let schema = keyValueSchema, let index = schema.index(ofProperty: key) else {
                preconditionFailure("\(type(of: self)) has no property '\(key)'")
            }
            setValue(newValue, at: index, schema: schema)
        }
    }

    /// The class and its property values, as Realm prints an object:
    /// `Person {\n\tname = Ada;\n\tage = 36;\n}`. Links show the linked class,
    /// collections their kind and size (never whole graphs). An invalidated
    /// object prints as such. Override it with `override var description`.
    open var description: String {
        guard let schema = keyValueSchema else { return String(describing: type(of: self)) }
        if isInvalidated { return "[invalid object of type \(schema.className)]" }
        let lines = schema.properties.indices.map { index -> String in
            let property = schema.properties[index]
            let text: String
            if property.originProperty != nil {
                text = "LinkingObjects<\(property.objectClassName ?? "?")>"
            } else if let kind = property.collectionKind {
                let count = (value(at: index, schema: schema) as? [Any])?.count ?? (value(at: index, schema: schema) as? [String: Any])?.count ?? 0
                text = "\(kind.rawValue.capitalized)<\(property.objectClassName ?? property.type.rawValue)> (\(count) elements)"
            } else if property.type == .object {
                text = value(at: index, schema: schema) == nil ? "nil" : "\(property.objectClassName ?? "?") object"
            } else {
                text = value(at: index, schema: schema).map { "\($0)" } ?? "nil"
            }
            return "\t\(property.name) = \(text);"
        }
        return "\(schema.className) {\n" + lines.joined(separator: "\n") + "\n}"
    }

    /// Whether both are the same stored object (same vault file, class and row),
    /// or the same instance when unmanaged.
    public func isSameObject(as other: ObjectBase?) -> Bool {
        guard let other else { return false }
        if self === other { return true }
        if let mine = self as? DynamicObject, let theirs = other as? DynamicObject, mine.isMigrationObject, theirs.isMigrationObject {
            return mine.className == theirs.className && mine.rowID == theirs.rowID
        }
        guard let mine = manager, let theirs = other.manager else { return false }
        return mine.schema === theirs.schema && mine.rowID == theirs.rowID && mine.vault.path == theirs.vault.path
    }
}

/// A model class stored in its own table, with an optional primary key.
///
/// ```swift
/// final class Person: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var firstName = ""
///     @Persisted(indexed: true) var email = ""
///     @Persisted var status = Status.active
///     @Persisted var bestFriend: Person?
///     var scratch = 0                       // not @Persisted: not stored
///     convenience init(firstName: String) { self.init(); self.firstName = firstName }
/// }
/// ```
open class Object: ObjectBase, Hashable {
    public required init() { super.init() }

    /// Managed objects are equal when they are the same stored object
    /// (``ObjectBase/isSameObject(as:)``); unmanaged ones when they are the same instance.
    public static func == (lhs: Object, rhs: Object) -> Bool { lhs.isSameObject(as: rhs) }

    public func hash(into hasher: inout Hasher) {
        if let manager {
            hasher.combine(manager.schema.className)
            hasher.combine(manager.rowID)
        } else if let dynamic = self as? DynamicObject, dynamic.isMigrationObject {
            hasher.combine(dynamic.className)
            hasher.combine(dynamic.rowID)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

/// `Identifiable` by stored identity, for SwiftUI lists (Realm's name and type).
///
/// Opt-in, as in Realm, because many models declare their own `id` property:
/// `final class Task: Object, ObjectKeyIdentifiable { … }`. Objects and
/// embedded objects both conform.
public protocol ObjectKeyIdentifiable: Identifiable {
    /// The stable identity of the object (see the default below).
    var id: UInt64 { get }
}

/// Realm's earlier spelling of ``ObjectKeyIdentifiable``.
@available(*, deprecated, renamed: "ObjectKeyIdentifiable")
public typealias ObjectKeyIdentifable = ObjectKeyIdentifiable

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// As Realm's: a managed object's key in its class (its row id), the same
    /// for every instance that reads the same stored object and unique among
    /// the objects of its class; an unmanaged object's address.
    public var id: UInt64 {
        if let manager { return UInt64(bitPattern: manager.rowID) }
        return UInt64(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
    }
}

/// An object owned by exactly one parent, stored with it and deleted with it.
/// It has no primary key and is never added on its own.
open class EmbeddedObject: ObjectBase {
    public required init() { super.init() }
}

extension EmbeddedObject: PersistableValue {
    public static var _vaultPropertyType: PropertyType { .object }
    public static var _vaultLinkTarget: ObjectBase.Type? { self }
    public static func _vaultDefaultValue() -> Self { Self() }
    public static func _vaultDecode(_ value: DatabaseValue) -> Self? { nil }   // resolved by the vault
    public var _vaultEncoded: DatabaseValue { manager.map { .integer($0.rowID) } ?? .null }
}

extension Object: PersistableValue {
    public static var _vaultPropertyType: PropertyType { .object }
    public static var _vaultLinkTarget: ObjectBase.Type? { self }
    public static func _vaultDefaultValue() -> Self { Self() }
    public static func _vaultDecode(_ value: DatabaseValue) -> Self? { nil }   // links are resolved by the vault
    public var _vaultEncoded: DatabaseValue { manager.map { .integer($0.rowID) } ?? .null }
}
