import Foundation
import VaultCore
@_spi(Interchange) import VaultKit

// MARK: - Importing the canonical JSON encoding
//
// `vault import` reads what `vault export --format json` writes (the encoding is
// described in CanonicalJSONExport) into a new vault, in three streaming passes
// over the file, each holding one object at a time:
//
//   1. the schema: every class's declaration, and its number of objects;
//   2. only when links or mixed values can point at a class whose primary key is
//      not an integer: that class's primary keys, so that a link written by key
//      finds its object's row id (the one table that grows with the document —
//      one key per object of such classes);
//   3. the objects, written by VaultKit's interchange writer into a vault built
//      under a hidden name and published only when complete.
//
// Row ids follow the document: an object of a class whose primary key is a
// required integer gets that key as row id, any other the position of the
// object in its class plus one — the same numbering a link `{"class", "index"}`
// uses — so links are written before their targets exist and checked at the
// end. Exporting the imported vault gives back the document byte for byte
// (linking-objects properties excepted: a vault without models has none).

/// Imports a document in the canonical JSON encoding into a new vault.
public enum CanonicalJSONImport {
    /// Imports the document at `url` into a new vault at `configuration`'s file.
    /// - Parameters:
    ///   - url: The JSON document (as `vault export --format json` writes it).
    ///   - configuration: The vault to create (its file must not exist) and its key.
    ///   - progress: Called with (objects written, objects in the document) every 1,000 objects and at the end.
    /// - Throws: ``JSONImportError``; nothing is written when it throws.
    @discardableResult
    public static func importDocument(at url: URL, into configuration: Vault.Configuration,
                                      progress: ((Int, Int) -> Void)? = nil) throws(JSONImportError) -> JSONImportSummary {
        guard configuration.inMemoryIdentifier == nil, let destination = configuration.fileURL else {
            throw .io("the import writes a vault file: give the configuration a fileURL")
        }
        if FileManager.default.fileExists(atPath: destination.path) { throw .destinationExists(path: destination.path) }
        do {
            let document = try DocumentSchema.read(url)
            let keys = try document.needsKeyTables ? KeyTables.read(url, schema: document) : KeyTables()
            let decoder = JSONValueDecoding(schema: document, keys: keys)
            try Vault.createPopulated(configuration: configuration, schemas: document.schemas, schemaVersion: document.schemaVersion) { writer in
                var done = 0
                try document.forEachObject(in: url) { schema, position, json in
                    let (rowID, values) = try decoder.object(json, of: schema, position: position)
                    try writer.insert(className: schema.className, rowID: rowID, values: values)
                    done += 1
                    if done % 1_000 == 0 { progress?(done, document.objectCount) }
                }
                progress?(done, document.objectCount)
            }
            return JSONImportSummary(schemaVersion: document.schemaVersion,
                                     classes: document.schemas.map { .init(className: $0.className, objects: document.counts[$0.className] ?? 0) })
        } catch {
            throw importError(error, destination: destination.path)
        }
    }

    private static func importError(_ error: any Error, destination: String) -> JSONImportError {
        switch error {
        case let error as JSONImportError: return error
        case let error as JSONSyntaxError: return .malformed(error.description)
        case let error as InterchangeError:
            return .invalidValue(className: error.className, object: "(one of its objects)", property: error.property, reason: error.reason)
        case let error as VaultError:
            if case .inUse = error { return .destinationExists(path: destination) }
            return .io(error.description)
        default: return .io("\(error)")
        }
    }
}

/// Pass 1: the document's schema version, classes and object counts.
struct DocumentSchema {
    let schemaVersion: UInt64
    let schemas: [ObjectSchema]
    let counts: [String: Int]
    private let byName: [String: ObjectSchema]

    var objectCount: Int { counts.values.reduce(0, +) }

    func schema(named name: String) -> ObjectSchema? { byName[name] }

    /// Whether a link or mixed value can name an object by a primary key that is not its row id.
    var needsKeyTables: Bool {
        let keyed = schemas.contains { !$0.isEmbedded && $0.primaryKeyProperty.map { !isRowIDKey($0) } ?? false }
        return keyed && schemas.contains { $0.properties.contains { $0.type == .object || $0.type == .mixed } }
    }

    func isRowIDKey(_ property: Property) -> Bool { JSONValueDecoding.isRowIDKey(property) }

    static func read(_ url: URL) throws -> DocumentSchema {
        let reader = try JSONStreamReader(url: url)
        var version: UInt64 = 0
        var declarations: [(name: String, embedded: Bool, properties: [JSONValue])] = []
        var counts: [String: Int] = [:]
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
                    var embedded = false, properties: [JSONValue] = [], count = 0
                    try walkClass(reader, className: className) { field, value in
                        switch field {
                        case "embedded": embedded = value == .bool(true)
                        case "properties":
                            guard case .array(let list) = value else { throw JSONImportError.invalidSchema(className: className, property: "(properties)", reason: "not an array") }
                            properties = list
                        default: break
                        }
                    } object: { _ in count += 1 }
                    declarations.append((className, embedded, properties))
                    counts[className] = count
                }
            default:
                _ = try reader.readValue()
            }
        }
        try reader.finish()
        let embeddedClasses = Set(declarations.filter(\.embedded).map(\.name))
        let schemas = try declarations.map { declaration in
            ObjectSchema.runtime(className: declaration.name,
                                 properties: try declaration.properties.compactMap { try property($0, className: declaration.name, embeddedClasses: embeddedClasses) },
                                 isEmbedded: declaration.embedded)
        }
        let names = Set(schemas.map(\.className))
        for schema in schemas {
            for property in schema.properties where property.objectClassName.map({ !names.contains($0) }) ?? false {
                throw JSONImportError.invalidSchema(className: schema.className, property: property.storedName,
                                                    reason: "it links to \(property.objectClassName ?? "?"), which the document does not declare")
            }
        }
        return DocumentSchema(schemaVersion: version, schemas: schemas, counts: counts,
                              byName: Dictionary(schemas.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Calls `field` for each member of a class entry except "objects", and `object` for each of its objects.
    static func walkClass(_ reader: JSONStreamReader, className: String, field: (String, JSONValue) throws -> Void,
                          object: (JSONValue) throws -> Void) throws {
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(first: &first) {
            guard key == "objects" else {
                try field(key, try reader.readValue())
                continue
            }
            try reader.beginArray()
            var firstObject = true
            while try reader.nextElement(first: &firstObject) { try object(try reader.readValue()) }
        }
    }

    /// Pass 3's walk: every top-level object with its class and position.
    func forEachObject(in url: URL, _ body: (ObjectSchema, Int, JSONValue) throws -> Void) throws {
        let reader = try JSONStreamReader(url: url)
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(first: &first) {
            guard key == "classes" else {
                _ = try reader.readValue()
                continue
            }
            try reader.beginObject()
            var firstClass = true
            while let className = try reader.nextKey(first: &firstClass) {
                guard let schema = byName[className] else { throw JSONImportError.malformed("the class \(className) changed while the file was read") }
                var position = 0
                try Self.walkClass(reader, className: className, field: { _, _ in }) { json in
                    try body(schema, position, json)
                    position += 1
                }
            }
        }
    }

    private static func property(_ json: JSONValue, className: String, embeddedClasses: Set<String>) throws -> Property? {
        guard case .string(let name)? = json["name"] else {
            throw JSONImportError.invalidSchema(className: className, property: "(unnamed)", reason: "a property without a name")
        }
        guard case .string(let typeName)? = json["type"] else {
            throw JSONImportError.invalidSchema(className: className, property: name, reason: "no type")
        }
        if typeName == "linkingObjects" { return nil }
        guard let type = PropertyType(rawValue: typeName) else {
            throw JSONImportError.invalidSchema(className: className, property: name, reason: "the type \(typeName) is not one a vault stores")
        }
        var collection: CollectionKind?
        switch json["collection"] {
        case .string("list")?: collection = .list
        case .string("set")?: collection = .set
        case .string("dictionary")?: collection = .map
        case .null?, nil: collection = nil
        default: throw JSONImportError.invalidSchema(className: className, property: name, reason: "the collection is not list, set, dictionary or null")
        }
        var objectType: String?
        if type == .object {
            guard case .string(let target)? = json["objectType"] else {
                throw JSONImportError.invalidSchema(className: className, property: name, reason: "a link without objectType")
            }
            objectType = target
        }
        let optional = json["optional"] == .bool(true) || (type == .object && collection == nil)
        let primaryKey = json["primaryKey"] == .bool(true)
        return Property(persistedName: name, type: type, isOptional: optional, isPrimaryKey: primaryKey,
                        isIndexed: primaryKey || json["indexed"] == .bool(true), objectClassName: objectType,
                        collectionKind: collection, isEmbeddedLink: objectType.map(embeddedClasses.contains) ?? false)
    }
}
