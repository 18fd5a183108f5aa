/// How one element of a column leaf or collection leaf is encoded, which follows
/// from the column type and the nullable attribute (realm-core `column_type_traits.hpp`
/// `ColumnTypeTraits<T>::cluster_leaf_type`, and `Cluster::create` in `cluster.cpp`).
enum ElementKind: Sendable, Equatable {
    /// `ArrayInteger`: plain integers.
    case int
    /// `ArrayIntNull`: element 0 is the null sentinel, values follow.
    case optionalInt
    /// `ArrayBool`/`ArrayBoolNull`: integers 0/1, 3 = null when nullable.
    case bool(nullable: Bool)
    /// `BasicArray<float>`: 4 bytes each; null is the NaN `0x7fc000aa` (`null.hpp`).
    case float(nullable: Bool)
    /// `BasicArray<double>`: 8 bytes each; null is the NaN `0x7ff80000000000aa`.
    case double(nullable: Bool)
    /// `ArrayString`.
    case string
    /// `ArrayBinary`.
    case binary
    /// `ArrayTimestamp`.
    case timestamp
    /// `ArrayDecimal128`.
    case decimal
    /// `ArrayFixedBytes<ObjectId, 12>`.
    case objectId
    /// `ArrayFixedBytes<UUID, 16>`.
    case uuid
    /// `ArrayMixed`.
    case mixed
    /// `ArrayKey`: key + 1, 0 = null; the target is a table index in the schema.
    case link(targetTable: Int)
    /// `ArrayTypedLink`: pairs (table key + 1, key + 1).
    case typedLink

    /// The element kind of a column of `columnType` (nil for unknown types and backlinks).
    static func of(columnType: Int, nullable: Bool, target: Int?) -> ElementKind? {
        switch columnType {
        case ColumnType.int: return nullable ? .optionalInt : .int
        case ColumnType.bool: return .bool(nullable: nullable)
        case ColumnType.float: return .float(nullable: nullable)
        case ColumnType.double: return .double(nullable: nullable)
        case ColumnType.string: return .string
        case ColumnType.binary: return .binary
        case ColumnType.timestamp: return .timestamp
        case ColumnType.decimal: return .decimal
        case ColumnType.objectId: return .objectId
        case ColumnType.uuid: return .uuid
        case ColumnType.mixed: return .mixed
        case ColumnType.link, ColumnType.legacyLinkList:
            guard let target else { return nil }
            return .link(targetTable: target)
        case ColumnType.typedLink: return .typedLink
        default: return nil
        }
    }
}
