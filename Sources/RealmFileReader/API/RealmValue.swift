/// A value read from a Realm file.
///
/// Mixed (`AnyRealmValue`) values use the same cases: a nested list or
/// dictionary inside a mixed value is `.list` / `.dictionary`, and a typed link
/// inside a mixed value is `.link`.
public enum RealmValue: Sendable, Equatable {
    /// Null (an optional property without a value, or a link to nothing).
    case null
    /// A 64-bit signed integer.
    case int(Int64)
    /// A Boolean.
    case bool(Bool)
    /// A float. NaN is a value (distinct from `.null`).
    case float(Float)
    /// A double. NaN is a value (distinct from `.null`).
    case double(Double)
    /// A string.
    case string(String)
    /// Bytes.
    case data([UInt8])
    /// A timestamp: whole seconds since 1970-01-01T00:00:00Z (may be negative, rounded down) and
    /// nanoseconds, 0 ≤ n < 10⁹. (Realm stores nanoseconds with the sign of the seconds, so that
    /// −1.5 s is stored as (−1, −500000000); it is reported here as (−2, 500000000).)
    case date(seconds: Int64, nanoseconds: Int32)
    /// A decimal128.
    case decimal(RealmDecimal128)
    /// A 12-byte ObjectId, in storage (big-endian, as printed) order.
    case objectId([UInt8])
    /// A 16-byte UUID, in storage (as printed) order.
    case uuid([UInt8])
    /// A link to a top-level object of another (or the same) class.
    case link(RealmLink)
    /// An embedded object, inline.
    case embedded(RealmObject)
    /// A list, in list order.
    case list([RealmValue])
    /// A set, in Realm's stored order.
    case set([RealmValue])
    /// A dictionary, in Realm's stored key order.
    case dictionary([(key: String, value: RealmValue)])

    /// Compares two values case by case; floats and doubles compare by bit pattern,
    /// so that NaN equals NaN; dictionaries compare entry by entry in order.
    public static func == (lhs: RealmValue, rhs: RealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.int(a), .int(b)): return a == b
        case let (.bool(a), .bool(b)): return a == b
        case let (.float(a), .float(b)): return a.bitPattern == b.bitPattern
        case let (.double(a), .double(b)): return a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.date(s1, n1), .date(s2, n2)): return s1 == s2 && n1 == n2
        case let (.decimal(a), .decimal(b)): return a == b
        case let (.objectId(a), .objectId(b)): return a == b
        case let (.uuid(a), .uuid(b)): return a == b
        case let (.link(a), .link(b)): return a == b
        case let (.embedded(a), .embedded(b)): return a == b
        case let (.list(a), .list(b)): return a == b
        case let (.set(a), .set(b)): return a == b
        case let (.dictionary(a), .dictionary(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// Whether this is `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A link to an object: the target class and the object's key (`ObjKey`) in that class.
public struct RealmLink: Sendable, Hashable {
    /// The target class name (its table name without `class_`; the full table name if
    /// the table is not an Object Store class).
    public let className: String
    /// The target object's key, as `RealmObject.key` reports it.
    public let objectKey: Int64

    /// Creates a link.
    public init(className: String, objectKey: Int64) {
        self.className = className
        self.objectKey = objectKey
    }
}

/// One object: its key and its values, aligned with its class's `properties`.
public struct RealmObject: Sendable, Equatable {
    /// The object's key (`ObjKey`): unique within its class, ordered as the file stores objects.
    public let key: Int64
    /// One value per property of the class, in `RealmClassSchema.properties` order.
    public let values: [RealmValue]

    /// Creates an object.
    public init(key: Int64, values: [RealmValue]) {
        self.key = key
        self.values = values
    }
}
