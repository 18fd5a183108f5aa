import Foundation
@_spi(Interchange) import VaultKit

/// The one place where the studio turns a stored value into text and text back
/// into a value, for every kind of property a form can edit.
///
/// Reading a property of a ``DynamicObject`` gives `Any?`; an optional
/// property's value arrives as an `Optional` boxed inside it, which
/// `String(describing:)` would print as `Optional("…")`. Every value is
/// therefore unwrapped first (``unwrap(_:)``), then spelled by its kind:
///
/// | kind | edit text | example |
/// |---|---|---|
/// | string | the text itself, unchanged (spaces kept) | `Ada` |
/// | int, float, double | Swift's shortest round-trip spelling | `2.5`, `1e+100`, `nan` |
/// | bool | `true` / `false` | `true` |
/// | decimal | Decimal128's text | `12.50` |
/// | date | ISO 8601 in UTC, with the fewest fraction digits that give the same `Date` back | `2024-05-01T12:00:00.25Z` |
/// | data | Base64 | `AAEC` |
/// | uuid, objectId | their canonical text | `7E0F…`, `65a1…` |
/// | mixed | the kind, a space, the value's text (`null` alone) | `int 5`, `string hello` |
///
/// For an optional property the empty text (for a string: nothing at all) is
/// `nil`. ``parse(_:for:className:)`` reads back exactly what ``editText(_:for:)``
/// writes: `parse(editText(v)) == v` for every value of every editable kind.
enum StudioValueCodec {
    /// `value` with every `Optional` layer removed: `nil` for `nil` (at any depth) or `NSNull`.
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if value is NSNull { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let child = mirror.children.first else { return nil }
        return unwrap(child.value)
    }

    /// Whether the studio's form can edit `property` (a scalar that is not the primary key or a link).
    static func isEditable(_ property: Property) -> Bool {
        guard property.collectionKind == nil, property.originProperty == nil, !property.isPrimaryKey else { return false }
        switch property.type {
        case .string, .int, .double, .float, .bool, .decimal, .date, .data, .uuid, .objectId, .mixed: return true
        default: return false
        }
    }

    /// The text an edit form shows for `value` (already unwrapped or not): the empty text for `nil`.
    /// `nil` when the value is not one the form can spell (a mixed value holding a link or a collection).
    static func editText(_ value: Any?, for property: Property) -> String? {
        guard let value = unwrap(value) else { return property.type == .mixed ? "null" : "" }
        if property.type == .mixed {
            guard let mixed = mixedValue(payload: value) else { return nil }
            return mixedText(mixed)
        }
        return scalarText(value)
    }

    /// A scalar's text (the edit text of its kind; a value of another kind as Swift prints it).
    static func scalarText(_ value: Any) -> String {
        switch value {
        case let text as String: return text
        case let date as Date: return dateText(date)
        case let data as Data: return data.base64EncodedString()
        case let uuid as UUID: return uuid.uuidString
        case let objectId as ObjectId: return objectId.stringValue
        case let decimal as Decimal128: return decimal.stringValue
        case let mixed as AnyVaultValue: return mixedText(mixed) ?? "(\(mixedKind(mixed)))"
        case let number as Int: return String(number)
        case let number as Double: return String(describing: number)
        case let number as Float: return String(describing: number)
        case let flag as Bool: return flag ? "true" : "false"
        case let object as DynamicObject: return object.className
        case is ObjectBase: return "object"
        default: return String(describing: value)
        }
    }

    /// The value `text` gives `property`, or a ``StudioError/badRequest(_:)`` naming the class and property.
    static func parse(_ text: String, for property: Property, className: String) throws -> Any? {
        func bad(_ expected: String) -> StudioError { .badRequest("\(className).\(property.name) needs \(expected)") }
        if property.type == .mixed {
            guard let value = parseMixed(text) else {
                throw bad("a kind and a value, such as “int 5”, “string hello” or “null”")
            }
            if case .none = value, !property.isOptional { throw bad("a value (it is not optional)") }
            return value
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if property.isOptional && (property.type == .string ? text.isEmpty : trimmed.isEmpty) { return nil }
        guard let value = parseScalar(property.type == .string ? text : trimmed, as: property.type) else {
            throw bad(expectation(for: property.type))
        }
        return value
    }

    /// What a form expects for a kind, for an error message.
    private static func expectation(for type: PropertyType) -> String {
        switch type {
        case .int: "an integer"
        case .double, .float: "a number"
        case .bool: "true or false"
        case .decimal: "a decimal number"
        case .date: "an ISO 8601 date such as 2024-05-01T12:00:00Z"
        case .data: "Base64 text"
        case .uuid: "a UUID such as 7E0F4A6B-0C5B-4B1E-9D6A-2C1E8B3F4A5D"
        case .objectId: "an ObjectId (24 hexadecimal digits)"
        default: "a value this page can edit"
        }
    }

    /// A scalar of `type` from its text, `nil` if the text is not one.
    static func parseScalar(_ text: String, as type: PropertyType) -> Any? {
        switch type {
        case .string: return text
        case .int: return Int(text)
        case .double: return Double(text)
        case .float: return Float(text)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: return nil
            }
        case .decimal: return text.isEmpty ? nil : try? Decimal128(string: text)
        case .date: return parseDate(text)
        case .data: return strictBase64(text)
        case .uuid: return UUID(uuidString: text)
        case .objectId: return try? ObjectId(string: text)
        default: return nil
        }
    }

    // MARK: Mixed values

    private static let mixedKinds: [String: PropertyType] = [
        "int": .int, "bool": .bool, "float": .float, "double": .double, "string": .string, "data": .data,
        "date": .date, "objectId": .objectId, "decimal": .decimal, "uuid": .uuid,
    ]

    /// `kind value`, or `null`; `nil` for a link, a list or a dictionary (not edited as text).
    static func mixedText(_ value: AnyVaultValue) -> String? {
        switch value {
        case .none: return "null"
        case .int(let v): return "int \(v)"
        case .bool(let v): return "bool \(v)"
        case .float(let v): return "float \(String(describing: v))"
        case .double(let v): return "double \(String(describing: v))"
        case .string(let v): return "string \(v)"
        case .data(let v): return "data \(v.base64EncodedString())"
        case .date(let v): return "date \(dateText(v))"
        case .objectId(let v): return "objectId \(v.stringValue)"
        case .decimal128(let v): return "decimal \(v.stringValue)"
        case .uuid(let v): return "uuid \(v.uuidString)"
        case .object, .list, .dictionary: return nil
        }
    }

    /// The mixed value whose payload `object["property"]` gives (Realm's key-value
    /// access hands out a mixed property's payload, not the value around it).
    static func mixedValue(payload: Any?) -> AnyVaultValue? {
        guard let payload = unwrap(payload) else { return AnyVaultValue.none }
        switch payload {
        case let v as AnyVaultValue: return v
        case let v as Int: return .int(v)
        case let v as Bool: return .bool(v)
        case let v as Float: return .float(v)
        case let v as Double: return .double(v)
        case let v as String: return .string(v)
        case let v as Data: return .data(v)
        case let v as Date: return .date(v)
        case let v as ObjectId: return .objectId(v)
        case let v as Decimal128: return .decimal128(v)
        case let v as UUID: return .uuid(v)
        case let v as Object: return .object(v)
        default: return nil
        }
    }

    /// The kind's name of a mixed value, for a page.
    static func mixedKind(_ value: AnyVaultValue) -> String {
        switch value {
        case .object: "a link"
        case .list: "a list"
        case .dictionary: "a dictionary"
        default: "a value"
        }
    }

    /// The mixed value `text` spells (see ``mixedText(_:)``), `nil` if it spells none.
    static func parseMixed(_ text: String) -> AnyVaultValue? {
        if text == "null" { return AnyVaultValue.none }
        guard let space = text.firstIndex(of: " "), let kind = mixedKinds[String(text[..<space])] else { return nil }
        let rest = String(text[text.index(after: space)...])
        guard let value = parseScalar(kind == .string ? rest : rest.trimmingCharacters(in: .whitespaces), as: kind) else { return nil }
        return mixedValue(payload: value)
    }

    // MARK: Dates and data

    /// Seconds between 1970 and 2001, the reference date of `Date`.
    private static let referenceOffset = Decimal(978_307_200)

    /// ISO 8601 in UTC with the fewest fraction digits that give exactly this `Date` back:
    /// the shortest decimal of its `Double` (Swift's round-trip spelling), moved to 1970.
    static func dateText(_ date: Date) -> String {
        let stored = date.timeIntervalSinceReferenceDate
        // Beyond Decimal's 38 digits (|seconds| ≥ 10¹⁵, or a fraction finer than 10⁻²⁸ s: no
        // calendar date anyone stores) whole seconds are shown; an unchanged save writes nothing.
        guard stored.isFinite, abs(stored) < 1e15, let exact = Decimal(string: "\(stored)", locale: posix),
              Double(NSDecimalNumber(decimal: exact).description(withLocale: posix)) == stored else {
            return isoFormatter.string(from: date)
        }
        let since1970 = exact + referenceOffset
        var whole = since1970
        var rounded = Decimal()
        NSDecimalRound(&rounded, &whole, 0, .down)
        if rounded > since1970 { rounded -= 1 }   // .down truncates toward zero; a floor is needed before 1970
        let fraction = since1970 - rounded
        let seconds = NSDecimalNumber(decimal: rounded).int64Value
        let text = isoFormatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        guard fraction != 0 else { return text }
        // `0.25` → `25`.
        let digits = NSDecimalNumber(decimal: fraction).description(withLocale: posix).drop { $0 != "." }.dropFirst()
        let spelled = String(text.dropLast()) + "." + digits + "Z"
        return parseDate(spelled) == date ? spelled : text
    }

    /// A date in ISO 8601 (`Z` or an offset; any number of fraction digits), `nil` if the
    /// text is not one. The value is the nearest `Double` to the decimal the text spells.
    static func parseDate(_ text: String) -> Date? {
        var whole = text
        var fraction = ""
        if let dot = text.firstIndex(of: ".") {
            let afterDot = text[text.index(after: dot)...]
            let digits = afterDot.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 30 else { return nil }
            fraction = String(digits)
            whole = String(text[..<dot]) + String(afterDot.dropFirst(digits.count))
        }
        guard let date = isoFormatter.date(from: whole), let seconds = Int64(exactly: date.timeIntervalSince1970),
              let fractionValue = Decimal(string: "0." + (fraction.isEmpty ? "0" : fraction), locale: posix) else { return nil }
        let sinceReference = Decimal(seconds) - referenceOffset + fractionValue
        guard let stored = Double(NSDecimalNumber(decimal: sinceReference).description(withLocale: posix)) else { return nil }
        return Date(timeIntervalSinceReferenceDate: stored)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// Base64 read strictly: the padding the length needs and nothing after it (`====` is not a byte).
    static func strictBase64(_ text: String) -> Data? {
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else { return nil }
        return data
    }

    /// A formatter per call: formatters are not documented as safe to share across threads on every platform.
    private static var isoFormatter: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }
}
