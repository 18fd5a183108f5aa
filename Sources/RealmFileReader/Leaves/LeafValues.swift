extension Leaf {
    static let floatNullPattern: UInt32 = 0x7fc0_00aa
    static let doubleNullPattern: UInt64 = 0x7ff8_0000_0000_00aa

    /// Element `index` (< `count`) as a value. Links to embedded classes become the
    /// embedded object, inline; unresolved links (to tombstones) read as null.
    func value(at index: Int, session: ReadSession, depth: Int) throws(RealmFileError) -> RealmValue {
        switch self {
        case let .integers(node):
            return .int(node.int(index))
        case let .optionalIntegers(node):
            let value = node.int(index + 1)
            return value == node.int(0) ? .null : .int(value)
        case let .bools(node, nullable):
            let value = node.int(index)
            if nullable && value == 3 { return .null }
            return .bool(value != 0)
        case let .floats(node, nullable):
            let bits = node.payload.uint32(index * 4)
            if nullable && bits == Self.floatNullPattern { return .null }
            return .float(Float(bitPattern: bits))
        case let .doubles(node, nullable):
            let bits = node.payload.uint64(index * 8)
            if nullable && bits == Self.doubleNullPattern { return .null }
            return .double(Double(bitPattern: bits))
        case let .strings(leaf):
            guard let text = try leaf.string(index, session: session) else { return .null }
            return .string(text)
        case let .binaries(leaf):
            guard let bytes = try leaf.binary(index, session: session) else { return .null }
            return .data(bytes)
        case let .timestamps(seconds, nanoseconds):
            let value = seconds.int(index + 1)
            if value == seconds.int(0) { return .null }
            return Self.date(seconds: value, nanoseconds: nanoseconds.int(index))
        case let .decimals(node):
            return Self.decimal(node: node, index: index)
        case let .fixedBytes(node, size, isUUID):
            if node.width == 0 { return .null }
            let block = index / 8
            let base = block * (size * 8 + 1)
            let offset = base + 1 + (index % 8) * size
            guard offset + size <= node.count else {
                throw .corrupt("fixed-size value \(index) beyond node 0x\(String(node.ref, radix: 16))\(session.whereText)")
            }
            if node.payload.byte(base) & (1 << UInt8(index % 8)) != 0 { return .null }
            let bytes = node.payload.bytes(offset, size)
            return isUUID ? .uuid(bytes) : .objectId(bytes)
        case let .mixed(leaf):
            return try leaf.value(at: index, session: session, depth: depth)
        case let .links(node, target, adjust):
            let key = node.int(index) &- adjust
            return try Self.link(table: target, key: key, session: session, depth: depth)
        case let .typedLinks(node):
            let tableKey = node.int(index * 2)
            if tableKey == 0 { return .null }
            let key = node.int(index * 2 + 1) &- 1
            return try Self.typedLink(tableKey: (tableKey &- 1) & 0x7FFF_FFFF, key: key, session: session, depth: depth)
        case let .refs(node):
            // Collection refs are read through `CollectionReader`; a bare ref has no value.
            _ = node
            return .null
        }
    }

    /// A timestamp, normalised so that 0 ≤ nanoseconds < 10⁹ (Realm keeps nanoseconds with the
    /// sign of the seconds: −1.5 s is stored as (−1, −500000000) and reported as (−2, 500000000)).
    static func date(seconds: Int64, nanoseconds: Int64) -> RealmValue {
        var s = seconds
        var n = nanoseconds % 1_000_000_000
        s = s &+ (nanoseconds - n) / 1_000_000_000
        if n < 0 {
            n += 1_000_000_000
            s = s &- 1
        }
        return .date(seconds: s, nanoseconds: Int32(n))
    }

    /// Decimal `index` of a variable-width `ArrayDecimal128` leaf (width 0, 4, 8 or 16 bytes).
    static func decimal(node: Node, index: Int) -> RealmValue {
        let value: RealmDecimal128
        switch node.width {
        case 0:
            // Every element is zero (context flag set) or null.
            if !node.contextFlag { return .null }
            value = RealmDecimal128(low: 0, high: 0x3040_0000_0000_0000)
        case 4:
            value = DecimalWidening.widen(bid32: node.payload.uint32(index * 4))
        case 8:
            value = DecimalWidening.widen(bid64: node.payload.uint64(index * 8))
        default:
            value = RealmDecimal128(low: node.payload.uint64(index * 16), high: node.payload.uint64(index * 16 + 8))
        }
        return value.isRealmNull ? .null : .decimal(value)
    }

    /// A link to object `key` of table `table`: null for the null key (−1) and for unresolved
    /// keys (≤ −2, links to tombstones), the object inline for an embedded target.
    static func link(table: Int, key: Int64, session: ReadSession, depth: Int) throws(RealmFileError) -> RealmValue {
        if key < 0 { return .null }
        guard let target = session.schema.table(at: table) else {
            throw .corrupt("link to a table that does not exist\(session.whereText)")
        }
        if target.kind == .embedded {
            return try session.embeddedObject(table: target, key: key, depth: depth + 1)
        }
        return .link(RealmLink(className: target.className, objectKey: key))
    }

    /// A typed link (table key, object key), as stored in typed-link columns and mixed values.
    static func typedLink(tableKey: Int64, key: Int64, session: ReadSession, depth: Int) throws(RealmFileError) -> RealmValue {
        if key < 0 { return .null }
        guard let target = session.schema.table(withKey: tableKey) else {
            throw .corrupt("typed link to unknown table key \(tableKey)\(session.whereText)")
        }
        return try link(table: target.index, key: key, session: session, depth: depth)
    }
}
