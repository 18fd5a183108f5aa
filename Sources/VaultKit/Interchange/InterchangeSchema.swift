import Foundation
import VaultCore

// Schemas for writing a vault without going through Swift model instances: the
// model classes an app declares (with every class they reach), or runtime
// classes described by another file (see Schema/RuntimeSchema).

extension Property {
    /// A stored property of a runtime class (its Swift name is its persisted name).
    @_spi(Interchange)
    public init(persistedName name: String, type: PropertyType, isOptional: Bool, isPrimaryKey: Bool = false,
                isIndexed: Bool = false, objectClassName: String? = nil, collectionKind: CollectionKind? = nil,
                isEmbeddedLink: Bool = false) {
        self.init(name: name, storedName: name, type: type, isOptional: isOptional, isPrimaryKey: isPrimaryKey,
                  isIndexed: isIndexed, objectClassName: objectClassName, collectionKind: collectionKind,
                  originProperty: nil, isEmbeddedLink: isEmbeddedLink)
    }

    /// Whether the property is a linking-objects (backlink) property: computed, never stored.
    @_spi(Interchange)
    public var isLinkingObjects: Bool { originProperty != nil }
}

extension ObjectSchema {
    /// The schema of a class no Swift type describes, stored and read as a runtime class.
    @_spi(Interchange)
    public static func runtime(className: String, properties: [Property], isEmbedded: Bool) -> ObjectSchema {
        ObjectSchema(runtimeClassName: className, properties: properties, isEmbedded: isEmbedded,
                     accessors: properties.map(PropertyAccessor.runtime(for:)))
    }

    /// The schemas of `types` and of every class they reach (links, collections,
    /// embedded objects, backlinks), each once, roots first.
    /// - Throws: ``VaultObjectError`` for a class that is not a valid model.
    @_spi(Interchange)
    public static func modelSchemas(for types: [ObjectBase.Type]) throws -> [ObjectSchema] {
        try closure(of: types, excluding: [])
    }

    /// The schemas of `roots` and every class they reach, except the `excluded` types.
    static func closure(of roots: [ObjectBase.Type], excluding excluded: Set<ObjectIdentifier>) throws -> [ObjectSchema] {
        var result: [ObjectSchema] = []
        var pending = Array(roots.reversed())
        var seen = excluded
        while let type = pending.popLast() {
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let schema = try ObjectSchema.schema(for: type)
            result.append(schema)
            pending += schema.linkTypes.compactMap { $0 }.reversed()
        }
        return result
    }

    /// Whether the schema describes a Swift model class (not a runtime class).
    var isModelClass: Bool { type != DynamicObject.self }
}
