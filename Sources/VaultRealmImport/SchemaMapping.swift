import Foundation
import RealmFileReader
@_spi(Interchange) import VaultKit

/// How one class of the Realm file lands in the vault: the vault's schema for it
/// and, for each of that schema's properties, the file property it takes its
/// value from (nil: none — a linking-objects property, or an optional property
/// the models add).
struct ClassMapping: Sendable {
    let file: RealmClassSchema
    let target: ObjectSchema
    let fileIndex: [Int?]
}

/// Builds the vault's schemas from the file's (schema-less import) or checks the
/// file against the app's models (typed import).
enum SchemaMapping {
    /// The vault type of a Realm property type.
    static func propertyType(_ type: RealmPropertyType) -> PropertyType {
        switch type {
        case .int: .int
        case .bool: .bool
        case .float: .float
        case .double: .double
        case .string: .string
        case .data: .data
        case .date: .date
        case .decimal: .decimal
        case .objectId: .objectId
        case .uuid: .uuid
        case .mixed: .mixed
        case .object: .object
        }
    }

    static func collectionKind(_ kind: RealmCollectionKind?) -> CollectionKind? {
        switch kind {
        case .list: .list
        case .set: .set
        case .dictionary: .map
        case nil: nil
        }
    }

    /// Runtime schemas describing the file's classes exactly.
    static func runtimeMappings(for classes: [RealmClassSchema]) -> [ClassMapping] {
        let embedded = Set(classes.filter(\.isEmbedded).map(\.name))
        return classes.map { cls in
            let properties = cls.properties.map { property in
                let type = propertyType(property.type)
                let collection = collectionKind(property.collection)
                // A to-one link is always optional in a vault (as in Realm).
                let optional = type == .object && collection == nil ? true : property.isOptional
                return Property(persistedName: property.name, type: type, isOptional: optional,
                                isPrimaryKey: property.isPrimaryKey, isIndexed: property.isIndexed || property.isPrimaryKey,
                                objectClassName: property.objectType, collectionKind: collection,
                                isEmbeddedLink: property.objectType.map(embedded.contains) ?? false)
            }
            let schema = ObjectSchema.runtime(className: cls.name, properties: properties, isEmbedded: cls.isEmbedded)
            return ClassMapping(file: cls, target: schema, fileIndex: Array(cls.properties.indices))
        }
    }

    /// The mappings of a typed import: file classes the models declare map onto the
    /// models (checked property by property); the others become runtime classes.
    /// Returns the mappings and the vault's full schema list (models the file lacks included).
    static func modelMappings(for classes: [RealmClassSchema], models: [ObjectSchema])
        throws(RealmImportError) -> (mappings: [ClassMapping], schemas: [ObjectSchema], runtimeClasses: [String])
    {
        let modelByName = Dictionary(models.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        var mappings: [ClassMapping] = []
        var runtime: [RealmClassSchema] = []
        for cls in classes {
            guard let model = modelByName[cls.name] else {
                runtime.append(cls)
                continue
            }
            mappings.append(try check(cls, against: model))
        }
        let runtimeMappings = runtimeMappings(for: runtime)
        return (mappings + runtimeMappings, models + runtimeMappings.map(\.target), runtime.map(\.name))
    }

    private static func check(_ cls: RealmClassSchema, against model: ObjectSchema) throws(RealmImportError) -> ClassMapping {
        func mismatch(_ property: String, _ reason: String) -> RealmImportError {
            .schemaMismatch(className: cls.name, property: property, reason: reason)
        }
        if cls.isEmbedded != model.isEmbedded {
            throw mismatch("(class)", cls.isEmbedded ? "the file's class is embedded, the model's is not" : "the model's class is embedded, the file's is not")
        }
        let filePrimaryKey = cls.primaryKey
        let modelPrimaryKey = model.primaryKeyProperty?.storedName
        if filePrimaryKey != modelPrimaryKey {
            throw mismatch(filePrimaryKey ?? modelPrimaryKey ?? "?", "the primary key is \(filePrimaryKey ?? "none") in the file and \(modelPrimaryKey ?? "none") in the model")
        }
        var stored: [String: Int] = [:]
        for (index, property) in model.properties.enumerated() where !property.isLinkingObjects { stored[property.storedName] = index }
        var fileIndex = [Int?](repeating: nil, count: model.properties.count)
        for (index, property) in cls.properties.enumerated() {
            guard let modelIndex = stored[property.name] else {
                throw mismatch(property.name, "the file stores it and the model has no persisted property of that name")
            }
            let target = model.properties[modelIndex]
            let type = propertyType(property.type)
            let collection = collectionKind(property.collection)
            let fileKind = describe(type: type, objectType: property.objectType, collection: collection)
            let modelKind = describe(type: target.type, objectType: target.objectClassName, collection: target.collectionKind)
            if fileKind != modelKind {
                throw mismatch(property.name, "the file stores \(fileKind), the model declares \(modelKind)")
            }
            if type != .object && type != .mixed && property.isOptional && !target.isOptional {
                throw mismatch(property.name, "the file's values are optional and the model's are required")
            }
            fileIndex[modelIndex] = index
        }
        for (index, property) in model.properties.enumerated() where fileIndex[index] == nil && !property.isLinkingObjects {
            if property.collectionKind == nil && !property.isOptional && property.type != .object && property.type != .mixed {
                throw mismatch(property.storedName, "the model declares a required property the file does not store")
            }
        }
        return ClassMapping(file: cls, target: model, fileIndex: fileIndex)
    }

    private static func describe(type: PropertyType, objectType: String?, collection: CollectionKind?) -> String {
        let element = type == .object ? "links to \(objectType ?? "?")" : type.rawValue
        return collection.map { "a \($0.rawValue) of \(element)" } ?? element
    }
}
