import Foundation

/// A value as it moves in or out of a vault without a Swift model: what the Realm
/// importer writes and the JSON exporter reads. Exact where Swift types are not:
/// dates to the nanosecond (``VaultTimestamp``), decimals as their text, NaN kept.
///
/// Links carry the target's row id; a mixed value's nested lists and dictionaries
/// use ``list(_:)`` and ``dictionary(_:)``.
@_spi(Interchange)
public enum InterchangeValue: Sendable, Equatable {
    /// No value (an optional property without one, or a link to nothing).
    case null
    /// An integer.
    case int(Int64)
    /// A Boolean.
    case bool(Bool)
    /// A float (NaN is a value).
    case float(Float)
    /// A double (NaN is a value).
    case double(Double)
    /// A string.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A date, to the nanosecond.
    case date(VaultTimestamp)
    /// A decimal, as Realm spells it (`"1.50"`).
    case decimal(String)
    /// A 12-byte ObjectId.
    case objectId([UInt8])
    /// A 16-byte UUID.
    case uuid(UUID)
    /// A link to the object with row id `rowID` of class `className`.
    case link(className: String, rowID: Int64)
    /// An embedded object: one value per property of its class, in schema order.
    case embedded([InterchangeValue])
    /// A list, in order (also a mixed value's nested list).
    case list([InterchangeValue])
    /// A set, in stored order.
    case set([InterchangeValue])
    /// A dictionary (also a mixed value's nested dictionary).
    case dictionary([InterchangeEntry])

    /// Compares case by case; floats and doubles by bit pattern (NaN equals NaN).
    public static func == (lhs: InterchangeValue, rhs: InterchangeValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.int(a), .int(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case let (.float(a), .float(b)): a.bitPattern == b.bitPattern
        case let (.double(a), .double(b)): a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)): a == b
        case let (.decimal(a), .decimal(b)): a == b
        case let (.objectId(a), .objectId(b)): a == b
        case let (.uuid(a), .uuid(b)): a == b
        case let (.link(c1, r1), .link(c2, r2)): c1 == c2 && r1 == r2
        case let (.embedded(a), .embedded(b)): a == b
        case let (.list(a), .list(b)): a == b
        case let (.set(a), .set(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a == b
        default: false
        }
    }

    /// How deep a mixed value may nest lists and dictionaries (Realm's limit, held by
    /// every writer of a mixed value so that everything written reads back).
    public static let maximumMixedDepth = MixedValue.maximumDepth

    /// The kind's name, for error messages (never the value).
    public var kindName: String {
        switch self {
        case .null: "null"
        case .int: "int"
        case .bool: "bool"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .decimal: "decimal"
        case .objectId: "objectId"
        case .uuid: "uuid"
        case .link: "link"
        case .embedded: "embedded object"
        case .list: "list"
        case .set: "set"
        case .dictionary: "dictionary"
        }
    }
}

/// One key and value of a dictionary.
@_spi(Interchange)
public struct InterchangeEntry: Sendable, Equatable {
    /// The key.
    public let key: String
    /// The value.
    public let value: InterchangeValue

    /// An entry.
    public init(key: String, value: InterchangeValue) {
        self.key = key
        self.value = value
    }
}

/// Why a value could not be written into a vault: the class and property it was
/// for and what was wrong with it — never the value itself.
@_spi(Interchange)
public struct InterchangeError: Swift.Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of the object being written.
    public let className: String
    /// The property (its persisted name).
    public let property: String
    /// What was wrong.
    public let reason: String

    /// An error about `className.property`.
    public init(className: String, property: String, reason: String) {
        self.className = className
        self.property = property
        self.reason = reason
    }

    public var description: String { "\(className).\(property): \(reason)" }
}

extension Decimal128 {
    /// Realm's decimal128 holds 34 significant digits; a longer decimal is refused, not rounded.
    static let maximumSignificantDigits = 34

    /// The text a vault stores for a decimal given as text by an importer, or nil when the
    /// text is not exactly a decimal: digits with an optional point and exponent (no spaces,
    /// at most 34 significant digits) or `NaN` (with an optional sign).
    @_spi(Interchange)
    public static func interchangeText(_ text: String) -> String? {
        guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.properties.isWhitespace }) else { return nil }
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        let significant = mantissa.filter(\.isASCIIDigit).drop { $0 == "0" }
        guard significant.count <= maximumSignificantDigits, let decimal = try? Decimal128(string: text) else { return nil }
        return decimal.exactText
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
