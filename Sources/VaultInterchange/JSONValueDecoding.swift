import Foundation
@_spi(Interchange) import VaultKit

/// Pass 2 of a JSON import into a new vault: every primary key, read before any object
/// is written. A required key that is missing or null, or a key two objects share, is
/// refused here, naming both objects; and every link by key is resolved against these
/// tables, so a link (mixed ones included) to a key the document does not hold is refused.
struct KeyTables {
    /// Classes whose key is the row id: the keys by position, and as a set.
    private var rowIDKeys: [String: (ordered: [Int64], present: Set<Int64>)] = [:]
    /// Other keyed classes: each key's row id (its object's position plus one), by canonical text.
    private var rowIDs: [String: [String: Int64]] = [:]

    func rowID(of className: String, key: String) -> Int64? { rowIDs[className]?[key] }

    /// Whether a class whose key is the row id holds an object with key `key`.
    func holds(_ className: String, rowIDKey key: Int64) -> Bool { rowIDKeys[className]?.present.contains(key) ?? false }

    /// The row id of the object at `position` of a class whose key is the row id.
    func rowID(of className: String, position: Int) -> Int64? {
        guard let ordered = rowIDKeys[className]?.ordered, ordered.indices.contains(position) else { return nil }
        return ordered[position]
    }

    static func read(_ url: URL, schema: DocumentSchema) throws -> KeyTables {
        var tables = KeyTables()
        /// Where each key was first seen, to name both objects of a duplicate.
        var firstSeen: [String: [String: Int]] = [:]
        try schema.forEachObjectReader(in: url) { objectSchema, position, reader in
            guard !objectSchema.isEmbedded, let key = objectSchema.primaryKeyProperty else {
                try reader.skipValue()
                return
            }
            let json = try DocumentSchema.primaryKeyMember(of: objectSchema, position: position, reader: reader)
            func refuse(_ reason: String) -> JSONImportError {
                .invalidValue(className: objectSchema.className, object: "at position \(position)", property: key.storedName, reason: reason)
            }
            guard let json else { throw refuse("the object has no primary key") }
            if json == .null, !key.isOptional { throw refuse("null for a required primary key") }
            let text: String
            do {
                text = try JSONValueDecoding.keyText(json, type: key.type)
            } catch let failure as JSONValueDecoding.Failure {
                throw refuse(failure.reason)
            }
            if let earlier = firstSeen[objectSchema.className]?[text] {
                throw refuse("the object at position \(earlier) has the same primary key; keys are unique")
            }
            firstSeen[objectSchema.className, default: [:]][text] = position
            if schema.isRowIDKey(key), case .number(let number) = json, let value = Int64(number) {
                tables.rowIDKeys[objectSchema.className, default: ([], [])].ordered.append(value)
                tables.rowIDKeys[objectSchema.className, default: ([], [])].present.insert(value)
            } else {
                tables.rowIDs[objectSchema.className, default: [:]][text] = Int64(position) + 1
            }
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
        let counts = schema.counts
        resolve = { target, json in try Self.documentRowID(of: json, in: target, keys: keys, objectCount: counts[target.className] ?? 0) }
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

    /// The canonical text a primary-key value is looked up by: the decoded value, so
    /// that two spellings of one key (hex digits in either case) are one key.
    /// - Throws: ``Failure`` for a value that is not of the key's type.
    static func keyText(_ value: JSONValue, type: PropertyType) throws -> String {
        if value == .null { return "null" }
        switch try plain(value, type: type) {
        case .int(let number): return "i:\(number)"
        case .string(let text): return "s:" + text
        case .objectId(let bytes): return "o:" + bytes.map { String(format: "%02x", $0) }.joined()
        case .uuid(let uuid): return "u:" + uuid.uuidString
        default: throw Failure(reason: "a \(type.rawValue) cannot be a primary key")
        }
    }

    /// The values of an object, in `objectSchema`'s order; properties `including` rejects are `.null`, not decoded.
    /// With `complete` (a new object of a new vault), a required property the object does
    /// not give is refused rather than given a default: an import writes what the document holds.
    func fields(_ json: JSONValue, of objectSchema: ObjectSchema, name: String, complete: Bool = false,
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
        if complete {
            let given = Set(members.map(\.key))
            try Self.requireGiven(objectSchema, name: name) { given.contains($0.storedName) }
        }
        return values
    }

    /// Refuses a new object that gives no value for a required property (a collection or a
    /// mixed value may be left out: empty, or null); `isGiven` says which properties it gives.
    static func requireGiven(_ objectSchema: ObjectSchema, name: String, isGiven: (Property) -> Bool) throws {
        for property in objectSchema.properties where !property.isLinkingObjects && !property.isOptional
            && property.collectionKind == nil && property.type != .mixed && !isGiven(property) {
            throw JSONImportError.invalidValue(className: objectSchema.className, object: name, property: property.storedName,
                                               reason: "the object gives no value for this required property")
        }
    }

    /// A value that does not fit (the caller names the object and property).
    struct Failure: Error {
        let reason: String
    }

    func value(_ json: JSONValue, property: Property) throws -> InterchangeValue {
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

    func scalar(_ json: JSONValue, property: Property) throws -> InterchangeValue {
        switch property.type {
        case .mixed: return try mixed(json)
        case .object:
            guard let target = property.objectClassName, let targetSchema = classes(target) else {
                throw Failure(reason: "a link to an undeclared class")
            }
            if targetSchema.isEmbedded { return .embedded(try fields(json, of: targetSchema, name: "(embedded)", complete: true)) }
            return .link(className: target, rowID: try resolve(targetSchema, json))
        default:
            return try Self.plain(json, type: property.type)
        }
    }

    /// The row id of the object a link names in a new vault: by primary key, or
    /// `{"class", "index"}` for a class without one. A link to an object the document
    /// does not hold is refused here, whatever kind of property holds it.
    static func documentRowID(of json: JSONValue, in target: ObjectSchema, keys: KeyTables, objectCount: Int) throws -> Int64 {
        if case .object(let members) = json {
            guard members.count == 2, case .string(target.className)? = json["class"], case .number(let index)? = json["index"] else {
                throw Failure(reason: "a link object that is not {\"class\", \"index\"} naming \(target.className)")
            }
            guard target.primaryKeyProperty == nil else {
                throw Failure(reason: "a link to \(target.className) by index; its objects are linked by primary key")
            }
            guard let position = Int64(index), position >= 0, position < Int64(objectCount) else {
                throw Failure(reason: "a link to object \(index) of \(target.className), which lists \(objectCount)")
            }
            return position + 1
        }
        guard let key = target.primaryKeyProperty else { throw Failure(reason: "a link to \(target.className), which has no primary key, without {\"class\", \"index\"}") }
        if isRowIDKey(key) {
            guard case .number(let text) = json, let value = Int64(text) else { throw Failure(reason: "a link whose key is not an integer") }
            guard keys.holds(target.className, rowIDKey: value) else { throw Failure(reason: "a link to a \(target.className) the document does not hold") }
            return value
        }
        guard let rowID = keys.rowID(of: target.className, key: try Self.keyText(json, type: key.type)) else {
            throw Failure(reason: "a link to a \(target.className) the document does not hold")
        }
        return rowID
    }

    /// A mixed value: `{"type", "value"}` (and `"class"` for a link), nested lists and
    /// dictionaries at most ``InterchangeValue/maximumMixedDepth`` deep — the limit every
    /// writer of a mixed value holds, so that what is imported reads back.
    private func mixed(_ json: JSONValue, depth: Int = 0) throws -> InterchangeValue {
        if json == .null { return .null }
        guard case .object(let members) = json, case .string(let typeName)? = json["type"], let value = json["value"] else {
            throw Failure(reason: "a mixed value that is not {\"type\", \"value\"}")
        }
        guard members.count == (typeName == "object" ? 3 : 2) else {
            throw Failure(reason: "a mixed value with members other than \"type\", \"value\"\(typeName == "object" ? " and \"class\"" : "")")
        }
        switch typeName {
        case "object":
            guard case .string(let className)? = json["class"], let target = classes(className), !target.isEmbedded else {
                throw Failure(reason: "a mixed link to an undeclared class")
            }
            return .link(className: className, rowID: try resolve(target, value))
        case "list", "dictionary":
            guard depth < InterchangeValue.maximumMixedDepth else {
                throw Failure(reason: "a mixed value nests lists and dictionaries deeper than \(InterchangeValue.maximumMixedDepth) levels")
            }
            if typeName == "list" {
                guard case .array(let items) = value else { throw Failure(reason: "a mixed list that is not an array") }
                return .list(try items.map { try mixed($0, depth: depth + 1) })
            }
            guard case .object(let entries) = value else { throw Failure(reason: "a mixed dictionary that is not an object") }
            return .dictionary(try entries.map { InterchangeEntry(key: $0.key, value: try mixed($0.value, depth: depth + 1)) })
        default:
            guard let type = PropertyType(rawValue: typeName), type != .mixed, type != .object else {
                throw Failure(reason: "the mixed type \(typeName) is unknown")
            }
            return try Self.plain(value, type: type)
        }
    }

    static func plain(_ json: JSONValue, type: PropertyType) throws -> InterchangeValue {
        func mismatch() -> Failure { Failure(reason: "\(json.kindName) for a \(type.rawValue) value") }
        switch (type, json) {
        case (.int, .number(let text)):
            guard let value = Int64(text) else { throw Failure(reason: "not an integer from -2⁶³ to 2⁶³ - 1") }
            return .int(value)
        case (.bool, .bool(let flag)): return .bool(flag)
        case (.float, _): return .float(try floating(json, Float.self))
        case (.double, _): return .double(try floating(json, Double.self))
        case (.string, .string(let text)): return .string(text)
        case (.data, .string(let text)):
            // Exactly the Base64 an export writes: padded, no line breaks, no bits past the data.
            guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else {
                throw Failure(reason: "data that is not padded Base64 (RFC 4648, no white space)")
            }
            return .data(data)
        case (.date, .object(let members)):
            guard members.count == 2, case .number(let seconds)? = json["seconds"], case .number(let nanoseconds)? = json["nanoseconds"],
                  let s = Int64(seconds), let n = Int32(nanoseconds), (0..<1_000_000_000).contains(n) else {
                throw Failure(reason: "a date that is not {\"seconds\", \"nanoseconds\"} with 0 ≤ nanoseconds < 10⁹")
            }
            return .date(VaultTimestamp(seconds: s, nanoseconds: n))
        case (.decimal, .string(let text)):
            guard Decimal128.interchangeText(text) != nil else {
                throw Failure(reason: "not a decimal of at most 34 significant digits (digits, an optional point and exponent, or NaN; no spaces)")
            }
            return .decimal(text)
        case (.objectId, .string(let text)):
            guard let bytes = Self.hexBytes(text), bytes.count == 12 else { throw Failure(reason: "an ObjectId that is not 24 hex digits") }
            return .objectId(bytes)
        case (.uuid, .string(let text)):
            guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { throw Failure(reason: "not a UUID (8-4-4-4-12 hex digits)") }
            return .uuid(uuid)
        default: throw mismatch()
        }
    }

    /// A float or double exactly as the text rounds to it; a finite number too large for the
    /// type (it would read as infinity) or too small (it would read as zero) is refused.
    private static func floating<F: BinaryFloatingPoint & LosslessStringConvertible>(_ json: JSONValue, _: F.Type) throws -> F {
        switch json {
        case .number(let text):
            guard let value = F(text), value.isFinite else { throw Failure(reason: "a number out of the range of a \(F.self == Float.self ? "float" : "double")") }
            let mantissa = text.prefix { $0 != "e" && $0 != "E" }
            if value == 0, mantissa.contains(where: { ("1"..."9").contains($0) }) {
                throw Failure(reason: "a number too small for a \(F.self == Float.self ? "float" : "double") (it would read as 0)")
            }
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
