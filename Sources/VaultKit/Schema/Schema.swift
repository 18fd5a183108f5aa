import Foundation

/// The classes a vault stores (Realm's `Schema`): ``Vault/schema``.
public struct Schema: Sendable, CustomStringConvertible, Equatable {
    /// Every class, sorted by name.
    public let objectSchema: [ObjectSchema]

    init(_ schemas: some Sequence<ObjectSchema>) {
        objectSchema = schemas.sorted { $0.className < $1.className }
    }

    /// The class named `className`, if the schema has it.
    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    public var description: String { objectSchema.map(\.description).joined(separator: "\n") }
}

extension ObjectSchema: Equatable {
    /// Whether both describe the same class: name, embedding and properties.
    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        lhs.className == rhs.className && lhs.isEmbedded == rhs.isEmbedded && lhs.properties == rhs.properties
    }

    /// The Swift class of the objects (``DynamicObject`` for a class no model declares).
    public var objectClass: AnyClass { type }

    /// Whether the class is an ``AsymmetricObject`` (written, never read back).
    public var isAsymmetric: Bool { type is AsymmetricObject.Type }
}

extension PropertyType {
    /// Realm's name for ``decimal``.
    public static var decimal128: PropertyType { .decimal }
    /// Realm's name for ``mixed`` (`AnyRealmValue`).
    public static var any: PropertyType { .mixed }
    /// Realm's name for ``uuid``.
    public static var UUID: PropertyType { .uuid }
}

/// The types a ``VaultOptional`` can hold (Realm's `RealmOptionalType`).
public typealias VaultOptionalType = PersistableValue
/// The types a ``VaultProperty`` can hold (Realm's `RealmPropertyType`).
public typealias VaultPropertyType = PersistableValue

extension Property {
    /// The column name (Realm's name for ``storedName``).
    public var columnName: String { storedName }
    /// Whether the property is a `List`.
    public var isArray: Bool { collectionKind == .list }
    /// Whether the property is a `MutableSet`.
    public var isSet: Bool { collectionKind == .set }
    /// Whether the property is a `Map`.
    public var isMap: Bool { collectionKind == .map }
}

extension Vault {
    /// The classes this vault has registered: those of `objectTypes`, or with
    /// `objectTypes` nil those found at open and used since (see <doc:Migrations>).
    public var schema: Schema { Schema(session.schemas.byName.values) }
}
