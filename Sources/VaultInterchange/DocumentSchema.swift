import Foundation
@_spi(Interchange) import VaultKit

/// Pass 1 of a JSON import: the document's schema version, classes and object counts,
/// checked before any object is read — one primary key per class, of a type a key can
/// have, present in every object; names a vault stores exactly; embedded classes that
/// list no objects of their own; links to declared classes. Objects are skipped, not
/// built, so this pass takes constant memory.
struct DocumentSchema {
    let schemaVersion: UInt64
    let schemas: [ObjectSchema]
    let counts: [String: Int]
    private let byName: [String: ObjectSchema]

    var objectCount: Int { counts.values.reduce(0, +) }

    func schema(named name: String) -> ObjectSchema? { byName[name] }

    /// Whether any top-level class has a primary key (pass 2 then reads every key).
    var hasPrimaryKeys: Bool { schemas.contains { !$0.isEmbedded && $0.primaryKeyProperty != nil } }

    func isRowIDKey(_ property: Property) -> Bool { JSONValueDecoding.isRowIDKey(property) }

    /// One class entry as the document declares it.
    private struct Declaration {
        let name: String
        var embedded = false
        var primaryKey: String?? = .none
        var properties: [JSONValue] = []
        var objects = 0
    }

    static func read(_ url: URL) throws -> DocumentSchema {
        let reader = try JSONStreamReader(url: url)
        var version: UInt64 = 0
        var declarations: [Declaration] = []
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(first: &first) {
            switch key {
            case "schemaVersion":
                guard case .number(let text) = try reader.readValue(), let number = UInt64(text) else {
                    throw JSONImportError.malformed("schemaVersion is not a non-negative integer")
                }
                version = number
            case "classes":
                try reader.beginObject()
                var firstClass = true
                while let className = try reader.nextKey(first: &firstClass) {
                    declarations.append(try declaration(reader, className: className))
                }
            default:
                try reader.skipValue()
            }
        }
        try reader.finish()
        return try checked(declarations, version: version)
    }

    /// Reads one class entry, counting its objects without building them.
    private static func declaration(_ reader: JSONStreamReader, className: String) throws -> Declaration {
        var result = Declaration(name: className)
        func refuse(_ reason: String) -> JSONImportError { .invalidSchema(className: className, property: "(class)", reason: reason) }
        try reader.beginObject()
        var first = true
        while let field = try reader.nextKey(first: &first) {
            switch field {
            case "embedded":
                guard case .bool(let flag) = try reader.readValue() else { throw refuse("\"embedded\" is not true or false") }
                result.embedded = flag
            case "primaryKey":
                switch try reader.readValue() {
                case .null: result.primaryKey = .some(nil)
                case .string(let name): result.primaryKey = .some(name)
                default: throw refuse("\"primaryKey\" is neither a property name nor null")
                }
            case "properties":
                guard case .array(let list) = try reader.readValue() else { throw refuse("\"properties\" is not an array") }
                result.properties = list
            case "objects":
                try reader.beginArray()
                var firstObject = true
                while try reader.nextElement(first: &firstObject) {
                    try reader.skipValue()
                    result.objects += 1
                }
            default:
                try reader.skipValue()
            }
        }
        return result
    }

    private static func checked(_ declarations: [Declaration], version: UInt64) throws -> DocumentSchema {
        let embeddedClasses = Set(declarations.filter(\.embedded).map(\.name))
        var schemas: [ObjectSchema] = []
        for declaration in declarations {
            let properties = try declaration.properties.compactMap { try property($0, className: declaration.name, embeddedClasses: embeddedClasses) }
            let schema = ObjectSchema.runtime(className: declaration.name, properties: properties, isEmbedded: declaration.embedded)
            try checkKeys(of: schema, declaration: declaration)
            schemas.append(schema)
        }
        do {
            try ObjectSchema.checkNames(of: schemas)
        } catch {
            throw JSONImportError.invalidSchema(className: error.className, property: error.property, reason: error.reason)
        }
        let names = Set(schemas.map(\.className))
        for schema in schemas {
            for property in schema.properties where property.objectClassName.map({ !names.contains($0) }) ?? false {
                throw JSONImportError.invalidSchema(className: schema.className, property: property.storedName,
                                                    reason: "it links to \(property.objectClassName ?? "?"), which the document does not declare")
            }
        }
        return DocumentSchema(schemaVersion: version, schemas: schemas,
                              counts: Dictionary(declarations.map { ($0.name, $0.objects) }, uniquingKeysWith: { first, _ in first }),
                              byName: Dictionary(schemas.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first }))
    }

    /// One primary key at most, of a type a key can have, agreeing with the class's
    /// `primaryKey` field; embedded classes have none and list no objects of their own.
    private static func checkKeys(of schema: ObjectSchema, declaration: Declaration) throws {
        let keys = schema.properties.filter(\.isPrimaryKey)
        if keys.count > 1 {
            throw JSONImportError.invalidSchema(className: schema.className, property: keys[1].storedName,
                                                reason: "a second primary key (\(keys[0].storedName) is one already); a class has at most one")
        }
        if let key = keys.first {
            let keyTypes: Set<PropertyType> = [.int, .string, .objectId, .uuid]
            guard keyTypes.contains(key.type), key.collectionKind == nil else {
                throw JSONImportError.invalidSchema(className: schema.className, property: key.storedName,
                                                    reason: "a primary key is an int, string, objectId or uuid, not a collection")
            }
            if schema.isEmbedded {
                throw JSONImportError.invalidSchema(className: schema.className, property: key.storedName, reason: "an embedded class has no primary key")
            }
        }
        if case .some(let declared) = declaration.primaryKey, declared != keys.first?.storedName {
            throw JSONImportError.invalidSchema(className: schema.className, property: declared ?? keys.first?.storedName ?? "(primary key)",
                                                reason: "the class's primaryKey field and its properties' primaryKey flags disagree")
        }
        if schema.isEmbedded, declaration.objects > 0 {
            throw JSONImportError.invalidSchema(className: schema.className, property: "(objects)",
                                                reason: "an embedded class lists \(declaration.objects) objects of its own; its objects belong inside their owners")
        }
    }

    private static func property(_ json: JSONValue, className: String, embeddedClasses: Set<String>) throws -> Property? {
        guard case .string(let name)? = json["name"] else {
            throw JSONImportError.invalidSchema(className: className, property: "(unnamed)", reason: "a property without a name")
        }
        func refuse(_ reason: String) -> JSONImportError { .invalidSchema(className: className, property: name, reason: reason) }
        guard case .string(let typeName)? = json["type"] else { throw refuse("no type") }
        if typeName == "linkingObjects" { return nil }
        guard let type = PropertyType(rawValue: typeName) else { throw refuse("the type \(typeName) is not one a vault stores") }
        func flag(_ field: String) throws -> Bool {
            switch json[field] {
            case .bool(let value)?: return value
            case .null?, nil: return false
            default: throw refuse("\"\(field)\" is not true or false")
            }
        }
        var collection: CollectionKind?
        switch json["collection"] {
        case .string("list")?: collection = .list
        case .string("set")?: collection = .set
        case .string("dictionary")?: collection = .map
        case .null?, nil: collection = nil
        default: throw refuse("the collection is not list, set, dictionary or null")
        }
        var objectType: String?
        if type == .object {
            guard case .string(let target)? = json["objectType"] else { throw refuse("a link without objectType") }
            objectType = target
        }
        let optional = try flag("optional") || (type == .object && collection == nil)
        let primaryKey = try flag("primaryKey")
        let indexed = try flag("indexed")
        return Property(persistedName: name, type: type, isOptional: optional, isPrimaryKey: primaryKey,
                        isIndexed: primaryKey || indexed, objectClassName: objectType,
                        collectionKind: collection, isEmbeddedLink: objectType.map(embeddedClasses.contains) ?? false)
    }

    // MARK: Walking the objects

    /// Every top-level object with its class and position, built whole (a merge's walk).
    func forEachObject(in url: URL, _ body: (ObjectSchema, Int, JSONValue) throws -> Void) throws {
        try forEachObjectReader(in: url) { schema, position, reader in try body(schema, position, try reader.readValue()) }
    }

    /// Every top-level object's class and position, with the reader before its `{`: the
    /// body reads (or skips) exactly that object.
    func forEachObjectReader(in url: URL, _ body: (ObjectSchema, Int, JSONStreamReader) throws -> Void) throws {
        let reader = try JSONStreamReader(url: url)
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(first: &first) {
            guard key == "classes" else {
                try reader.skipValue()
                continue
            }
            try reader.beginObject()
            var firstClass = true
            while let className = try reader.nextKey(first: &firstClass) {
                guard let schema = byName[className] else { throw JSONImportError.malformed("the class \(className) changed while the file was read") }
                try reader.beginObject()
                var firstField = true
                while let field = try reader.nextKey(first: &firstField) {
                    guard field == "objects" else {
                        try reader.skipValue()
                        continue
                    }
                    try reader.beginArray()
                    var position = 0
                    var firstObject = true
                    while try reader.nextElement(first: &firstObject) {
                        try body(schema, position, reader)
                        position += 1
                    }
                }
            }
        }
    }

    /// Reads one object's primary-key member and skips the rest: `nil` when the object has none.
    static func primaryKeyMember(of schema: ObjectSchema, position: Int, reader: JSONStreamReader) throws -> JSONValue? {
        guard let key = schema.primaryKeyProperty?.storedName else {
            try reader.skipValue()
            return nil
        }
        guard try reader.peekNonSpaceByte() == UInt8(ascii: "{") else {
            throw JSONImportError.invalidValue(className: schema.className, object: "at position \(position)", property: "(object)",
                                               reason: "\(try reader.readValue().kindName), not an object")
        }
        try reader.beginObject()
        var found: JSONValue?
        var first = true
        while let member = try reader.nextKey(first: &first) {
            if member == key { found = try reader.readValue() } else { try reader.skipValue() }
        }
        return found
    }
}
