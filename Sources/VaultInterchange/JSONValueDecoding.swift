import Foundation
@_spi(Interchange) import VaultKit

/// Pass 2: for classes whose primary key is not the row id, each key's row id
/// (its object's position plus one), keyed by the key's canonical text.
struct KeyTables {
    private var rowIDs: [String: [String: Int64]] = [:]

    func rowID(of className: String, key: String) -> Int64? { rowIDs[className]?[key] }

    static func read(_ url: URL, schema: DocumentSchema) throws -> KeyTables {
        var tables = KeyTables()
        try schema.forEachObject(in: url) { objectSchema, position, json in
            guard !objectSchema.isEmbedded, let key = objectSchema.primaryKeyProperty, !schema.isRowIDKey(key),
                  let value = json[key.storedName] else { return }
            tables.rowIDs[objectSchema.className, default: [:]][JSONValueDecoding.keyText(value)] = Int64(position) + 1
        }
        return tables
    }
}

/// JSON values of the canonical encoding into the interchange writer's values.
struct JSONValueDecoding {
    /// The classes values are decoded for (the document's, or an existing vault's).
    let classes: (String) -> ObjectSchema?
    /// The row id of the object a link names (by primary key, or `{"class", "index"}`).
    let resolve: (ObjectSchema, JSONValue) throws -> Int64

    /// For a new vault: row ids follow the document (see CanonicalJSONImport).
    init(schema: DocumentSchema, keys: KeyTables) {
        classes = schema.schema(named:)
        resolve = { target, json in try Self.documentRowID(of: json, in: target, keys: keys) }
    }

    /// For an existing vault: `classes` are the vault's, `resolve` finds the target there.
    init(classes: @escaping (String) -> ObjectSchema?, resolve: @escaping (ObjectSchema, JSONValue) throws -> Int64) {
        self.classes = classes
        self.resolve = resolve
    }

    /// Whether a property is stored as the row id (a required integer primary key).
    static func isRowIDKey(_ property: Property) -> Bool {
        property.type == .int && !property.isOptional && property.collectionKind == nil
    }

    /// The text a primary-key value is looked up by.
    static func keyText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "s:" + text
        case .number(let text): "n:" + text
        default: "?"
        }
    }

    /// One top-level object: its row id and its values in schema order.
    func object(_ json: JSONValue, of objectSchema: ObjectSchema, position: Int) throws -> (Int64, [InterchangeValue]) {
        let name = objectName(json, objectSchema, position)
        let values = try fields(json, of: objectSchema, name: name)
        if let key = objectSchema.primaryKeyProperty, Self.isRowIDKey(key), case .int(let rowID) = values[objectSchema.properties.firstIndex { $0.isPrimaryKey } ?? 0] {
            return (rowID, values)
        }
        return (Int64(position) + 1, values)
    }

    private func objectName(_ json: JSONValue, _ objectSchema: ObjectSchema, _ position: Int) -> String {
        if let key = objectSchema.primaryKeyProperty, let value = json[key.storedName] {
            switch value {
            case .number(let text): return "with primary key \(text)"
            case .string: return "at position \(position) (by primary key)"
            default: break
            }
        }
        return "at position \(position)"
    }

    /// The values of an object, in `objectSchema`'s order; properties `including` rejects are `.null`, not decoded.
    func fields(_ json: JSONValue, of objectSchema: ObjectSchema, name: String,
                including: (Int) -> Bool = { _ in true }) throws -> [InterchangeValue] {
        guard case .object(let members) = json else {
            throw JSONImportError.invalidValue(className: objectSchema.className, object: name, property: "(object)", reason: "\(json.kindName), not an object")
        }
        var values = [InterchangeValue](repeating: .null, count: objectSchema.properties.count)
        var index: [String: Int] = [:]
        for (offset, property) in objectSchema.properties.enumerated() { index[property.storedName] = offset }
        for (key, value) in members {
            guard let offset = index[key] else {
                throw JSONImportError.invalidValue(className: objectSchema.className, object: name, property: key, reason: "the class declares no such property")
            }
            let property = objectSchema.properties[offset]
            guard including(offset) else { continue }
            do {
                values[offset] = try self.value(value, property: property)
            } catch let failure as Failure {
                throw JSONImportError.invalidValue(className: objectSchema.className, object: name, property: key, reason: failure.reason)
            }
        }
        return values
    }

    /// A value that does not fit (the caller names the object and property).
    struct Failure: Error {
        let reason: String
    }

    private func value(_ json: JSONValue, property: Property) throws -> InterchangeValue {
        if json == .null { return .null }
        switch property.collectionKind {
        case .list, .set:
            guard case .array(let items) = json else { throw Failure(reason: "\(json.kindName), not an array") }
            let elements = try items.map { $0 == .null ? InterchangeValue.null : try scalar($0, property: property) }
            return property.collectionKind == .set ? .set(elements) : .list(elements)
        case .map:
            guard case .object(let members) = json else { throw Failure(reason: "\(json.kindName), not an object") }
            return .dictionary(try members.map { InterchangeEntry(key: $0.key, value: $0.value == .null ? .null : try scalar($0.value, property: property)) })
        case nil:
            return try scalar(json, property: property)
        }
    }

    private func scalar(_ json: JSONValue, property: Property) throws -> InterchangeValue {
        switch property.type {
        case .mixed: return try mixed(json)
        case .object:
            guard let target = property.objectClassName, let targetSchema = classes(target) else {
                throw Failure(reason: "a link to an undeclared class")
            }
            if targetSchema.isEmbedded { return .embedded(try fields(json, of: targetSchema, name: "(embedded)")) }
            return .link(className: target, rowID: try resolve(targetSchema, json))
        default:
            return try plain(json, type: property.type)
        }
    }

    /// The row id of the object a link names in a new vault: by primary key, or `{"class", "index"}`.
    static func documentRowID(of json: JSONValue, in target: ObjectSchema, keys: KeyTables) throws -> Int64 {
        if case .number(let index)? = json["index"], json["class"] != nil {
            guard let position = Int64(index), position >= 0 else { throw Failure(reason: "a link with an invalid index") }
            return position + 1
        }
        guard let key = target.primaryKeyProperty else { throw Failure(reason: "a link to \(target.className), which has no primary key, without {\"class\", \"index\"}") }
        if isRowIDKey(key) {
            guard case .number(let text) = json, let value = Int64(text) else { throw Failure(reason: "a link whose key is not an integer") }
            return value
        }
        guard let rowID = keys.rowID(of: target.className, key: Self.keyText(json)) else {
            throw Failure(reason: "a link to a \(target.className) the document does not hold")
        }
        return rowID
    }

    private func mixed(_ json: JSONValue) throws -> InterchangeValue {
        if json == .null { return .null }
        guard case .string(let typeName)? = json["type"], let value = json["value"] else {
            throw Failure(reason: "a mixed value without \"type\" and \"value\"")
        }
        switch typeName {
        case "object":
            guard case .string(let className)? = json["class"], let target = classes(className), !target.isEmbedded else {
                throw Failure(reason: "a mixed link to an undeclared class")
            }
            return .link(className: className, rowID: try resolve(target, value))
        case "list":
            guard case .array(let items) = value else { throw Failure(reason: "a mixed list that is not an array") }
            return .list(try items.map(mixed))
        case "dictionary":
            guard case .object(let members) = value else { throw Failure(reason: "a mixed dictionary that is not an object") }
            return .dictionary(try members.map { InterchangeEntry(key: $0.key, value: try mixed($0.value)) })
        default:
            guard let type = PropertyType(rawValue: typeName), type != .mixed, type != .object else {
                throw Failure(reason: "the mixed type \(typeName) is unknown")
            }
            return try plain(value, type: type)
        }
    }

    func plain(_ json: JSONValue, type: PropertyType) throws -> InterchangeValue {
        func mismatch() -> Failure { Failure(reason: "\(json.kindName) for a \(type.rawValue) value") }
        switch (type, json) {
        case (.int, .number(let text)):
            guard let value = Int64(text) else { throw Failure(reason: "not a 64-bit integer") }
            return .int(value)
        case (.bool, .bool(let flag)): return .bool(flag)
        case (.float, _): return .float(Float(try floating(json)))
        case (.double, _): return .double(try floating(json))
        case (.string, .string(let text)): return .string(text)
        case (.data, .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw Failure(reason: "data that is not base64") }
            return .data(data)
        case (.date, .object):
            guard case .number(let seconds)? = json["seconds"], case .number(let nanoseconds)? = json["nanoseconds"],
                  let s = Int64(seconds), let n = Int32(nanoseconds), (0..<1_000_000_000).contains(n) else {
                throw Failure(reason: "a date that is not {\"seconds\", \"nanoseconds\"} with 0 ≤ nanoseconds < 10⁹")
            }
            return .date(VaultTimestamp(seconds: s, nanoseconds: n))
        case (.decimal, .string(let text)):
            guard (try? Decimal128(string: text)) != nil else { throw Failure(reason: "not a decimal") }
            return .decimal(text)
        case (.objectId, .string(let text)):
            guard let bytes = Self.hexBytes(text), bytes.count == 12 else { throw Failure(reason: "an ObjectId that is not 24 hex digits") }
            return .objectId(bytes)
        case (.uuid, .string(let text)):
            guard let uuid = UUID(uuidString: text) else { throw Failure(reason: "not a UUID") }
            return .uuid(uuid)
        default: throw mismatch()
        }
    }

    private func floating(_ json: JSONValue) throws -> Double {
        switch json {
        case .number(let text):
            guard let value = Double(text) else { throw Failure(reason: "not a number") }
            return value
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        default: throw Failure(reason: "\(json.kindName) for a floating-point value")
        }
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
