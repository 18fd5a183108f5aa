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

    /// Checks that a vault can store `schemas` under their names: each runtime class's
    /// names (see `checkRuntimeNames`), and no two classes whose names differ by letter
    /// case alone (SQLite's table names ignore case).
    /// - Throws: ``InterchangeError`` naming the class and property.
    @_spi(Interchange)
    public static func checkNames(of schemas: [ObjectSchema]) throws(InterchangeError) {
        for schema in schemas where !schema.isModelClass { try schema.checkRuntimeNames() }
        var tables = Set<String>()
        for schema in schemas where !tables.insert(schema.className.lowercased()).inserted {
            throw InterchangeError(className: schema.className, property: "(class)", reason: "another class has the same name but for letter case")
        }
    }

    /// Checks a runtime class's names against what a vault can store (model classes are
    /// checked when their schema is read): the same limits, and no name that would meet
    /// VaultKit's or SQLite's own tables and columns.
    func checkRuntimeNames() throws(InterchangeError) {
        func refuse(_ property: String, _ reason: String) -> InterchangeError {
            InterchangeError(className: className, property: property, reason: reason)
        }
        guard !className.isEmpty, className.utf8.count <= Self.maximumClassNameBytes else {
            throw refuse("(class)", "class names are 1 to \(Self.maximumClassNameBytes) bytes long (this one has \(className.utf8.count))")
        }
        for prefix in ["_vaultkit", "_vk_", "sqlite_"] where className.lowercased().hasPrefix(prefix) {
            throw refuse("(class)", "class names starting with \(prefix) are reserved")
        }
        // Spaces, dots, quotes and any other printable character are stored exactly;
        // control characters are not (SQLite's C API ends a name at NUL, and the
        // file records a class's property names one a line).
        if let scalar = Self.controlCharacter(in: className) {
            throw refuse("(class)", "the class name holds the control character U+\(scalar), which a vault cannot store in a name")
        }
        var seen = Set<String>()
        for property in properties where !property.isLinkingObjects {
            guard !property.storedName.isEmpty, property.storedName.utf8.count <= Self.maximumPropertyNameBytes else {
                throw refuse(property.storedName, "property names are 1 to \(Self.maximumPropertyNameBytes) bytes long")
            }
            guard property.storedName.lowercased() != "_vk_id", seen.insert(property.storedName.lowercased()).inserted else {
                throw refuse(property.storedName, "the name is reserved (_vk_id) or used twice")
            }
            if let scalar = Self.controlCharacter(in: property.storedName) {
                throw refuse(property.storedName.debugDescription, "the property name holds the control character U+\(scalar), which a vault cannot store in a name")
            }
        }
    }

    /// The first control character (C0, DEL or C1) in `name`, as four hexadecimal digits.
    static func controlCharacter(in name: String) -> String? {
        name.unicodeScalars.first { $0.properties.generalCategory == .control }
            .map { String(format: "%04X", $0.value) }
    }
}
