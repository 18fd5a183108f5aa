import Foundation
import RealmFileReader

/// Encodes what `RealmFile` reads in the fixtures' canonical JSON form (see
/// `shared/fixtures/realm/README.md`), as Foundation objects comparable with what
/// `JSONSerialization` parses.
struct CanonicalJSON {
    let file: RealmFile
    /// Every object of every top-level class, in file order.
    private var objects: [String: [RealmObject]] = [:]
    /// (class, key) → the link encoding of that object (its primary key, or {"class","index"}).
    private var linkTargets: [String: [Int64: Any]] = [:]
    private let schemas: [String: RealmClassSchema]

    /// Reads every object of `file` (unless `loadObjects` is false: then only values without
    /// links can be encoded).
    init(file: RealmFile, loadObjects: Bool = true) throws {
        self.file = file
        schemas = Dictionary(uniqueKeysWithValues: file.classes.map { ($0.name, $0) })
        for cls in file.classes where !cls.isEmbedded && loadObjects {
            var list: [RealmObject] = []
            try file.forEachObject(ofClass: cls.name) { list.append($0) }
            objects[cls.name] = list
        }
        for cls in file.classes where !cls.isEmbedded {
            var targets: [Int64: Any] = [:]
            let pkIndex = cls.primaryKey.flatMap { cls.propertyIndex(named: $0) }
            for (position, object) in (objects[cls.name] ?? []).enumerated() {
                if let pkIndex {
                    targets[object.key] = encode(object.values[pkIndex], property: cls.properties[pkIndex])
                } else {
                    targets[object.key] = ["class": cls.name, "index": position] as [String: Any]
                }
            }
            linkTargets[cls.name] = targets
        }
    }

    /// The whole document: `{"schemaVersion", "classes": {…}}`.
    func document() -> [String: Any] {
        var classes: [String: Any] = [:]
        for cls in file.classes {
            var entry: [String: Any] = [
                "embedded": cls.isEmbedded,
                "primaryKey": cls.primaryKey.map { $0 as Any } ?? NSNull(),
                "properties": cls.properties.map(propertyJSON),
            ]
            if !cls.isEmbedded {
                entry["objects"] = (objects[cls.name] ?? []).map { objectJSON($0, cls) }
            }
            classes[cls.name] = entry
        }
        return [
            "schemaVersion": file.schemaVersion.map { NSNumber(value: $0) as Any } ?? NSNull(),
            "classes": classes,
        ]
    }

    private func propertyJSON(_ property: RealmPropertySchema) -> [String: Any] {
        var entry: [String: Any] = [
            "name": property.name,
            "type": property.type.rawValue,
            "optional": property.isOptional,
            "collection": property.collection.map { $0.rawValue as Any } ?? NSNull(),
        ]
        if let objectType = property.objectType { entry["objectType"] = objectType }
        if property.isPrimaryKey { entry["primaryKey"] = true }
        if property.isIndexed { entry["indexed"] = true }
        return entry
    }

    private func objectJSON(_ object: RealmObject, _ cls: RealmClassSchema) -> [String: Any] {
        var entry: [String: Any] = [:]
        for (index, property) in cls.properties.enumerated() {
            entry[property.name] = encode(object.values[index], property: property)
        }
        return entry
    }

    /// A property's value: collections element by element, scalars by the property type.
    func encode(_ value: RealmValue, property: RealmPropertySchema) -> Any {
        switch value {
        case let .list(items), let .set(items):
            return items.map { encodeScalar($0, property: property) }
        case let .dictionary(entries):
            var result: [String: Any] = [:]
            for (key, item) in entries { result[key] = encodeScalar(item, property: property) }
            return result
        default:
            return encodeScalar(value, property: property)
        }
    }

    private func encodeScalar(_ value: RealmValue, property: RealmPropertySchema) -> Any {
        if property.type == .mixed { return encodeMixed(value) }
        if case let .embedded(object) = value {
            guard let objectType = property.objectType, let cls = schemas[objectType] else { return "?" }
            return objectJSON(object, cls)
        }
        return encodePlain(value)
    }

    private func encodeMixed(_ value: RealmValue) -> Any {
        switch value {
        case .null: return NSNull()
        case let .link(link):
            return ["type": "object", "class": link.className, "value": linkTargets[link.className]?[link.objectKey] ?? NSNull()]
        case let .list(items), let .set(items):
            return ["type": "list", "value": items.map(encodeMixed)]
        case let .dictionary(entries):
            var result: [String: Any] = [:]
            for (key, item) in entries { result[key] = encodeMixed(item) }
            return ["type": "dictionary", "value": result]
        default:
            return ["type": typeName(value), "value": encodePlain(value)]
        }
    }

    private func typeName(_ value: RealmValue) -> String {
        switch value {
        case .int: return "int"
        case .bool: return "bool"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .decimal: return "decimal"
        case .objectId: return "objectId"
        case .uuid: return "uuid"
        default: return "?"
        }
    }

    private func encodeFloating(_ value: Double) -> Any {
        if value.isNaN { return "NaN" }
        if value == .infinity { return "Infinity" }
        if value == -.infinity { return "-Infinity" }
        return NSNumber(value: value)
    }

    private func encodePlain(_ value: RealmValue) -> Any {
        switch value {
        case .null: return NSNull()
        case let .int(number): return NSNumber(value: number)
        case let .bool(flag): return flag
        case let .float(number): return encodeFloating(Double(number))
        case let .double(number): return encodeFloating(number)
        case let .string(text): return text
        case let .data(bytes): return Data(bytes).base64EncodedString()
        case let .date(seconds, nanoseconds):
            return ["seconds": NSNumber(value: seconds), "nanoseconds": NSNumber(value: nanoseconds)]
        case let .decimal(decimal): return decimal.description
        case let .objectId(bytes): return bytes.map { String(format: "%02x", $0) }.joined()
        case let .uuid(bytes):
            let hex = bytes.map { String(format: "%02x", $0) }.joined()
            var text = ""
            for (index, character) in hex.enumerated() {
                if [8, 12, 16, 20].contains(index) { text.append("-") }
                text.append(character)
            }
            return text
        case let .link(link):
            return linkTargets[link.className]?[link.objectKey] ?? NSNull()
        case .embedded:
            return "embedded object outside an object property"
        case let .list(items), let .set(items):
            return items.map(encodePlain)
        case let .dictionary(entries):
            var result: [String: Any] = [:]
            for (key, item) in entries { result[key] = encodePlain(item) }
            return result
        }
    }
}
