import Foundation

/// Realm's rules for comparing mixed values (realm-core's `Mixed::compare`):
/// int, float, double and decimal compare by value with each other; every
/// other type compares only with itself. Ordering across types that do not
/// compare is what sorting uses (Realm's rank: nil, bool, numbers, string,
/// data, date, objectId, uuid, link, list, dictionary); queries never order
/// across them.
extension MixedValue {
    /// The sort rank of the value's type; numbers share one.
    var rank: Int {
        switch self {
        case .none: 0
        case .bool: 1
        case .int, .float, .double, .decimal: 2
        case .string: 3
        case .data: 4
        case .date: 5
        case .objectId: 6
        case .uuid: 7
        case .link: 8
        case .list: 9
        case .dictionary: 10
        }
    }

    var isNumeric: Bool { rank == 2 }

    /// The comparison of two values of comparable types, or nil when the
    /// types do not compare (a query's `<` is then false, `!=` true).
    func compare(to other: MixedValue) -> ComparisonResult? {
        if isNumeric && other.isNumeric { return Self.compareNumbers(self, other) }
        switch (self, other) {
        case (.none, .none): return .orderedSame
        case (.bool(let a), .bool(let b)): return Self.order(a ? 1 : 0, b ? 1 : 0)
        case (.string(let a), .string(let b)): return Self.order(Array(a.utf8), Array(b.utf8))
        case (.data(let a), .data(let b)): return Self.order(Array(a), Array(b))
        case (.date(let a), .date(let b)): return Self.order(a, b)
        case (.objectId(let a), .objectId(let b)): return Self.order(a, b)
        case (.uuid(let a), .uuid(let b)): return Self.order(withUnsafeBytes(of: a.uuid) { Array($0) }, withUnsafeBytes(of: b.uuid) { Array($0) })
        case (.link(let c1, let r1), .link(let c2, let r2)):
            return c1 == c2 ? Self.order(r1, r2) : Self.order(Array(c1.utf8), Array(c2.utf8))
        case (.list, .list), (.dictionary, .dictionary):
            // Collections are equal only when their contents are (the encoding is canonical).
            return self == other ? .orderedSame : nil
        default: return nil
        }
    }

    /// The total order of sorting: rank first, then `compare` within a rank.
    func sortOrder(_ other: MixedValue) -> ComparisonResult {
        if rank != other.rank { return rank < other.rank ? .orderedAscending : .orderedDescending }
        if case .list(let a) = self, case .list(let b) = other { return Self.order(a.count, b.count) }
        if case .dictionary(let a) = self, case .dictionary(let b) = other { return Self.order(a.count, b.count) }
        return compare(to: other) ?? .orderedSame
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    private static func order(_ a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
        a.lexicographicallyPrecedes(b) ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }

    /// Numbers: exactly between integers, by Decimal when one side is a
    /// decimal, and as Double otherwise (an integer beyond 2^53 against a
    /// double is compared through Decimal so that it is not rounded).
    private static func compareNumbers(_ a: MixedValue, _ b: MixedValue) -> ComparisonResult? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return order(x, y)
        case (.decimal, _), (_, .decimal), (.int, _), (_, .int):
            guard let x = a.decimalValue, let y = b.decimalValue else { return nil }
            if x.isNaN || y.isNaN { return nil }
            return order(x, y)
        default:
            guard let x = a.doubleValue, let y = b.doubleValue, !x.isNaN, !y.isNaN else { return nil }
            return order(x, y)
        }
    }

    /// The value as a Double, for numbers.
    var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .float(let f): Double(f)
        case .double(let d): d
        case .decimal(let d): NSDecimalNumber(decimal: d.decimalValue).doubleValue
        default: nil
        }
    }

    /// The value as a Decimal, for numbers (nil for infinities).
    var decimalValue: Decimal? {
        switch self {
        case .int(let i): return Decimal(i)
        case .decimal(let d): return d.decimalValue
        case .float, .double:
            guard let d = doubleValue, d.isFinite else { return nil }
            return Decimal(d)
        default: return nil
        }
    }
}

/// The type names of `@type` (realm-core's list, case-insensitive).
enum MixedTypeName {
    /// Which values a name matches.
    static func matcher(for name: String) -> ((MixedValue) -> Bool)? {
        switch name.lowercased() {
        case "null": { if case .none = $0 { true } else { false } }
        case "int", "integer", "int16", "int32", "int64", "short", "long", "byte", "char": { if case .int = $0 { true } else { false } }
        case "bool", "boolean": { if case .bool = $0 { true } else { false } }
        case "string": { if case .string = $0 { true } else { false } }
        case "binary", "data", "bytearray", "byte[]", "bindata": { if case .data = $0 { true } else { false } }
        case "date", "datetimeoffset", "timestamp": { if case .date = $0 { true } else { false } }
        case "float": { if case .float = $0 { true } else { false } }
        case "double": { if case .double = $0 { true } else { false } }
        case "decimal128", "decimal": { if case .decimal = $0 { true } else { false } }
        case "objectlink", "link": { if case .link = $0 { true } else { false } }
        case "objectid": { if case .objectId = $0 { true } else { false } }
        case "uuid", "guid": { if case .uuid = $0 { true } else { false } }
        case "numeric": { $0.isNumeric }
        case "object", "dictionary": { if case .dictionary = $0 { true } else { false } }
        case "array", "list": { if case .list = $0 { true } else { false } }
        case "collection": { $0.isCollection }
        default: nil
        }
    }

    static let known = "null, int, bool, float, double, string, binary, date, objectid, decimal128, uuid, link, numeric, list, dictionary, collection"
}
