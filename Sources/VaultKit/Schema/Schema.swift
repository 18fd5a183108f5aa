import Foundation

/// The classes a vault stores (Realm's `Schema`): ``Vault/schema``.
public struct Schema: Sendable, CustomStringConvertible {
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
    public var schema: Schema { Schema(schemasByName.values) }
}
