/// A leaf of mixed values (realm-core `array_mixed.hpp`/`.cpp`): a has-refs node
/// `[composite, ints, int pairs, strings, refs, keys]` (formats before 24 stop after
/// `strings`). Each composite integer is
///
///     value << 8 | payload array index << 5 | (data type + 1)      (0 = null)
///
/// Ints that fit in 32 bits and bools live in `value`; bigger ints, floats and doubles
/// (bit patterns) and untyped links are in `ints`; timestamps, decimals (two words) and
/// typed links (table key, object key) are pairs in `int pairs`; strings, binaries,
/// ObjectIds and UUIDs are in the `strings` string leaf; nested lists and dictionaries
/// (format 24) are refs in `refs`.
struct MixedLeaf {
    let composite: Node
    let ints: Node?
    let pairs: Node?
    let strings: StringLeaf?
    let refs: Node?

    init(node: Node, session: ReadSession) throws(RealmFileError) {
        guard node.hasRefs, node.count >= 1 else {
            throw .corrupt("mixed leaf at 0x\(String(node.ref, radix: 16)) is malformed\(session.whereText)")
        }
        composite = try session.integerNode(try node.ref(0, "mixed composite"), "mixed composite")
        func optionalNode(_ slot: Int, _ what: String) throws(RealmFileError) -> Node? {
            guard let ref = try node.optionalRef(slot, what), ref != 0 else { return nil }
            return try session.integerNode(ref, what)
        }
        ints = try optionalNode(1, "mixed ints")
        pairs = try optionalNode(2, "mixed int pairs")
        if let ref = try node.optionalRef(3, "mixed strings"), ref != 0 {
            strings = try StringLeaf(node: try session.node(ref, "mixed strings"), session: session)
        } else {
            strings = nil
        }
        refs = try optionalNode(4, "mixed refs")
    }

    var count: Int { composite.count }

    /// The raw parts of element `index`: its data type (−1 for null), payload array and value.
    func parts(_ index: Int) -> (type: Int, payload: Int, value: Int64) {
        let raw = composite.int(index)
        if raw == 0 { return (-1, 0, 0) }
        return (Int(raw & 0x1F) - 1, Int((raw & 0xE0) >> 5), raw >> 8)
    }

    private func payloadIndex(_ value: Int64, in node: Node?, stride: Int, session: ReadSession)
        throws(RealmFileError) -> (Node, Int)
    {
        guard let node, value >= 0, value < Int64(node.count / stride) else {
            throw .corrupt("mixed value refers past its payload array\(session.whereText)")
        }
        return (node, Int(value) * stride)
    }

    private func stringBytes(_ value: Int64, session: ReadSession) throws(RealmFileError) -> ByteSpan {
        guard let strings, value >= 0, value < Int64(strings.count) else {
            throw .corrupt("mixed value refers past its string array\(session.whereText)")
        }
        return try strings.element(Int(value), isString: true, session: session) ?? ByteSpan(buffer: .empty, start: 0, count: 0)
    }

    /// Element `index` as a value; nested collections are read recursively.
    func value(at index: Int, session: ReadSession, depth: Int) throws(RealmFileError) -> RealmValue {
        let (type, payload, value) = parts(index)
        switch type {
        case -1:
            return .null
        case ColumnType.int:
            if payload == 0 { return .int(value) }
            let (node, at) = try payloadIndex(value, in: ints, stride: 1, session: session)
            return .int(node.int(at))
        case ColumnType.bool:
            guard value == 0 || value == 1 else { throw .undecodable("a Boolean that is neither true nor false") }
            return .bool(value != 0)
        case ColumnType.float:
            let (node, at) = try payloadIndex(value, in: ints, stride: 1, session: session)
            return .float(Float(bitPattern: UInt32(truncatingIfNeeded: node.int(at))))
        case ColumnType.double:
            let (node, at) = try payloadIndex(value, in: ints, stride: 1, session: session)
            return .double(Double(bitPattern: UInt64(bitPattern: node.int(at))))
        case ColumnType.string:
            let span = try stringBytes(value, session: session)
            guard let text = span.utf8String(0, span.count) else {
                throw .undecodable("a string that is not valid UTF-8")
            }
            return .string(text)
        case ColumnType.binary:
            let span = try stringBytes(value, session: session)
            return .data(span.bytes(0, span.count))
        case ColumnType.objectId, ColumnType.uuid:
            let span = try stringBytes(value, session: session)
            let size = type == ColumnType.uuid ? 16 : 12
            // `ArrayMixed` stores an ObjectId's 12 or a UUID's 16 bytes, no more, no fewer.
            guard span.count == size else {
                throw .undecodable("a mixed \(size == 16 ? "UUID" : "ObjectId") of \(span.count) bytes instead of \(size)")
            }
            let bytes = span.bytes(0, size)
            return type == ColumnType.uuid ? .uuid(bytes) : .objectId(bytes)
        case ColumnType.timestamp:
            let (node, at) = try payloadIndex(value, in: pairs, stride: 2, session: session)
            return try Leaf.date(seconds: node.int(at), nanoseconds: node.int(at + 1))
        case ColumnType.decimal:
            let (node, at) = try payloadIndex(value, in: pairs, stride: 2, session: session)
            let decimal = RealmDecimal128(low: UInt64(bitPattern: node.int(at)), high: UInt64(bitPattern: node.int(at + 1)))
            if decimal.isRealmNull { return .null }
            guard decimal.isCanonical else { throw .undecodable(RealmDecimal128.nonCanonicalReason) }
            return .decimal(decimal)
        case ColumnType.typedLink:
            let (node, at) = try payloadIndex(value, in: pairs, stride: 2, session: session)
            let tableKey = Int64(UInt32(truncatingIfNeeded: node.int(at)))
            return try Leaf.typedLink(tableKey: tableKey, key: node.int(at + 1), session: session, depth: depth)
        case ColumnType.link:
            // An untyped link has no target class of its own; it never occurs in values
            // Realm writes into mixed columns or collections.
            return .null
        case MixedDataType.list, MixedDataType.set, MixedDataType.dictionary:
            guard payload == 4 else {
                throw .corrupt("nested collection in a mixed value without a ref\(session.whereText)")
            }
            let (node, at) = try payloadIndex(value, in: refs, stride: 1, session: session)
            let ref = node.int(at)
            guard ref >= 0, ref & 1 == 0 else {
                throw .corrupt("nested collection ref is not a ref\(session.whereText)")
            }
            return try CollectionReader.nested(type: type, ref: Int(ref), session: session, depth: depth + 1)
        default:
            throw .corrupt("mixed value of unknown type \(type)\(session.whereText)")
        }
    }
}
