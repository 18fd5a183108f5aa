import Foundation

/// A property value as a change set carries it: every kind a vault stores,
/// exactly (floating-point values by their bits, so NaN payloads and -0 survive),
/// and links by the primary key and incarnation of their target.
public enum SyncValue: Hashable, Sendable {
    /// No value (`nil`).
    case null
    /// A `Bool`.
    case bool(Bool)
    /// An integer (every integer width, and integer-backed enums).
    case int(Int64)
    /// A `Float`, by its IEEE 754 bits.
    case float(UInt32)
    /// A `Double`, by its IEEE 754 bits.
    case double(UInt64)
    /// A `String`.
    case string(String)
    /// Bytes.
    case data([UInt8])
    /// A `Date`, by the bits of its seconds since 2001 (its own storage).
    case date(UInt64)
    /// A decimal, by its canonical text.
    case decimal(String)
    /// A 12-byte ObjectId.
    case objectId([UInt8])
    /// A 16-byte UUID.
    case uuid([UInt8])
    /// A link to an object (a to-one link, a collection element, a mixed link).
    indirect case link(SyncObjectReference)

    /// Whether a change set may use the value as a primary key (Realm's key types).
    public var isPrimaryKey: Bool {
        switch self {
        case .null, .int, .string, .objectId, .uuid: return true
        default: return false
        }
    }
}

/// Names an object across devices: its class, its primary key and the
/// incarnation it had when the operation was made. Incarnations count how
/// often the key was created and deleted (odd: present, even: deleted), so a
/// link made to an object that was deleted since never reaches a later object
/// created with the same key.
public struct SyncObjectReference: Hashable, Sendable {
    /// The class name.
    public var className: String
    /// The primary key.
    public var primaryKey: SyncValue
    /// The incarnation the author saw (odd: present).
    public var incarnation: UInt64

    /// A reference to `primaryKey` of `className` at `incarnation`.
    public init(className: String, primaryKey: SyncValue, incarnation: UInt64) {
        self.className = className
        self.primaryKey = primaryKey
        self.incarnation = incarnation
    }

    /// The object this names, whatever its incarnation.
    public var key: SyncObjectKey { SyncObjectKey(className: className, primaryKey: primaryKey) }
}

/// An object's identity: class and primary key (synced classes need one, as Realm requires).
public struct SyncObjectKey: Hashable, Sendable {
    /// The class name.
    public var className: String
    /// The primary key.
    public var primaryKey: SyncValue

    /// The object of `className` whose primary key is `primaryKey`.
    public init(className: String, primaryKey: SyncValue) {
        self.className = className
        self.primaryKey = primaryKey
    }
}

/// A collection's generation: a `removeAll` starts a new one. Operations made
/// in an older generation are discarded (Realm: a clear discards concurrent
/// inserts); of two concurrent clears the later one wins.
public struct SyncEpoch: Hashable, Comparable, Sendable {
    /// How many clears led to it.
    public var count: UInt64
    /// The stamp of the clear that started it (``SyncStamp/zero`` for the first generation).
    public var stamp: SyncStamp

    /// The generation after `count` clears, the last stamped `stamp`.
    public init(count: UInt64, stamp: SyncStamp) {
        self.count = count
        self.stamp = stamp
    }

    /// The first generation.
    public static let initial = SyncEpoch(count: 0, stamp: .zero)

    public static func < (lhs: SyncEpoch, rhs: SyncEpoch) -> Bool {
        lhs.count != rhs.count ? lhs.count < rhs.count : lhs.stamp < rhs.stamp
    }
}
