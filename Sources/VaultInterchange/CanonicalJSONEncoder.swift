import Foundation
@_spi(Interchange) import VaultKit

/// The encoder behind ``CanonicalJSONExport`` (the encoding is described there).
struct Encoder {
    let reader: InterchangeReader
    let output: BufferedOutput
    /// Called after each top-level object is written.
    var objectWritten: (() -> Void)?

    init(reader: InterchangeReader, output: BufferedOutput) {
        self.reader = reader
        self.output = output
    }

    func document() throws {
        try output.append("{\"schemaVersion\":\(reader.schemaVersion),\"classes\":{")
        for (index, schema) in reader.schemas.enumerated() {
            try output.append((index == 0 ? "\n" : ",\n") + JSONText.string(schema.className) + ":")
            try classEntry(schema)
        }
        try output.append("\n}}\n")
    }

    private func classEntry(_ schema: ObjectSchema) throws {
        let primaryKey = schema.primaryKeyProperty.map { JSONText.string($0.storedName) } ?? "null"
        let properties = schema.properties.map(propertyEntry).joined(separator: ",")
        try output.append("{\"embedded\":\(schema.isEmbedded),\"primaryKey\":\(primaryKey),\"properties\":[\(properties)]")
        guard !schema.isEmbedded else { return try output.append("}") }
        try output.append(",\"objects\":[")
        var first = true
        try reader.forEachObject(of: schema.className) { _, values in
            try output.append((first ? "\n" : ",\n") + (try object(values, schema: schema)))
            first = false
            objectWritten?()
        }
        try output.append("]}")
    }

    private func propertyEntry(_ property: Property) -> String {
        var fields = ["\"name\":" + JSONText.string(property.storedName), "\"column\":" + JSONText.string(property.storedName)]
        if property.isLinkingObjects {
            fields += ["\"type\":\"linkingObjects\"", "\"optional\":false", "\"collection\":null"]
            fields.append("\"objectType\":" + JSONText.string(property.objectClassName ?? ""))
            fields.append("\"originProperty\":" + JSONText.string(property.originProperty ?? ""))
            return "{" + fields.joined(separator: ",") + "}"
        }
        fields.append("\"type\":\"\(property.type.rawValue)\"")
        fields.append("\"optional\":\(property.isOptional)")
        let collection = property.collectionKind.map { $0 == .map ? "\"dictionary\"" : "\"\($0.rawValue)\"" } ?? "null"
        fields.append("\"collection\":" + collection)
        if let objectType = property.objectClassName { fields.append("\"objectType\":" + JSONText.string(objectType)) }
        if property.isPrimaryKey { fields.append("\"primaryKey\":true") }
        if property.isIndexed || property.isPrimaryKey { fields.append("\"indexed\":true") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    private func object(_ values: [InterchangeValue], schema: ObjectSchema) throws -> String {
        var fields: [String] = []
        for (property, value) in zip(schema.properties, values) where !property.isLinkingObjects {
            fields.append(JSONText.string(property.storedName) + ":" + (try encode(value, property: property)))
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    func encode(_ value: InterchangeValue, property: Property) throws -> String {
        switch value {
        case .list(let items) where property.collectionKind != nil, .set(let items) where property.collectionKind != nil:
            return "[" + (try items.map { try element($0, property: property) }).joined(separator: ",") + "]"
        case .dictionary(let entries) where property.collectionKind != nil:
            return "{" + (try entries.map { JSONText.string($0.key) + ":" + (try element($0.value, property: property)) }).joined(separator: ",") + "}"
        default:
            return try element(value, property: property)
        }
    }

    private func element(_ value: InterchangeValue, property: Property) throws -> String {
        if property.type == .mixed { return try mixed(value) }
        if case .embedded(let fields) = value, let target = property.objectClassName, let schema = reader.schema(named: target) {
            return try object(fields, schema: schema)
        }
        return try plain(value)
    }

    private func mixed(_ value: InterchangeValue) throws -> String {
        switch value {
        case .null: return "null"
        case .link(let className, _):
            return "{\"type\":\"object\",\"class\":\(JSONText.string(className)),\"value\":\(try plain(value))}"
        case .list(let items), .set(let items):
            return "{\"type\":\"list\",\"value\":[" + (try items.map(mixed)).joined(separator: ",") + "]}"
        case .dictionary(let entries):
            return "{\"type\":\"dictionary\",\"value\":{"
                + (try entries.map { JSONText.string($0.key) + ":" + (try mixed($0.value)) }).joined(separator: ",") + "}}"
        default:
            return "{\"type\":\"\(value.kindName)\",\"value\":\(try plain(value))}"
        }
    }

    private func plain(_ value: InterchangeValue) throws -> String {
        switch value {
        case .null: return "null"
        case .int(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .float(let number): return JSONText.number(Double(number))
        case .double(let number): return JSONText.number(number)
        case .string(let text): return JSONText.string(text)
        case .data(let bytes): return "\"" + bytes.base64EncodedString() + "\""
        case .date(let timestamp): return "{\"seconds\":\(timestamp.seconds),\"nanoseconds\":\(timestamp.nanoseconds)}"
        case .decimal(let text): return JSONText.string(text)
        case .objectId(let bytes): return "\"" + JSONText.hex(bytes) + "\""
        case .uuid(let uuid): return "\"" + uuid.uuidString.lowercased() + "\""
        case .link(let className, let rowID):
            if let key = try reader.primaryKey(of: className, rowID: rowID) { return try plain(key) }
            return "{\"class\":\(JSONText.string(className)),\"index\":\(try reader.position(of: className, rowID: rowID))}"
        case .embedded, .list, .set, .dictionary:
            return "null"
        }
    }
}

/// JSON spellings.
enum JSONText {
    /// A JSON string literal: quotes, backslashes and control characters escaped, the rest as UTF-8.
    static func string(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A number as `%.17g` (integral values without exponent or point), or the strings for NaN and infinities.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "\"NaN\"" }
        if value.isInfinite { return value > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
        if value == 0 && value.sign == .minus { return "-0.0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.17g", value)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// Lower-case hex digits.
    static func hex(_ bytes: [UInt8]) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            result.append(digits[Int(byte >> 4)])
            result.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: result, as: UTF8.self)
    }
}
