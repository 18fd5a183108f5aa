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
            // `ArrayBool` stores 0 and 1, and 3 for null when nullable (`array_bool.hpp`).
            let value = node.int(index)
            if nullable && value == 3 { return .null }
            guard value == 0 || value == 1 else { throw .undecodable("a Boolean that is neither true nor false") }
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
            return try Self.date(seconds: value, nanoseconds: nanoseconds.int(index))
        case let .decimals(node):
            return try Self.decimal(node: node, index: index)
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
    ///
    /// Realm's `Timestamp` holds −10⁹ < nanoseconds < 10⁹; anything else is refused, as is the
    /// one value the normalised form cannot hold (before `Int64.min` seconds).
    static func date(seconds: Int64, nanoseconds: Int64) throws(RealmFileError) -> RealmValue {
        // Signs are not checked: files written through older SDKs hold mixed signs, which
        // Realm Core reads as the sum (the shared fixtures have such dates).
        guard nanoseconds > -1_000_000_000, nanoseconds < 1_000_000_000 else {
            throw .undecodable("a date whose nanoseconds are out of range")
        }
        if nanoseconds >= 0 { return .date(seconds: seconds, nanoseconds: Int32(nanoseconds)) }
        let (earlier, overflow) = seconds.subtractingReportingOverflow(1)
        guard !overflow else { throw .undecodable("a date before the earliest one a vault can hold") }
        return .date(seconds: earlier, nanoseconds: Int32(nanoseconds + 1_000_000_000))
    }

    /// Decimal `index` of a variable-width `ArrayDecimal128` leaf (width 0, 4, 8 or 16 bytes).
    /// Realm writes canonical encodings only; a non-canonical one (which IEEE 754 reads as
    /// zero) cannot be what was stored, and is refused.
    static func decimal(node: Node, index: Int) throws(RealmFileError) -> RealmValue {
        let value: RealmDecimal128
        switch node.width {
        case 0:
            // Every element is zero (context flag set) or null.
            if !node.contextFlag { return .null }
            value = RealmDecimal128(low: 0, high: 0x3040_0000_0000_0000)
        case 4:
            let bits = node.payload.uint32(index * 4)
            guard DecimalWidening.isCanonical(bid32: bits) else { throw .undecodable(RealmDecimal128.nonCanonicalReason) }
            value = DecimalWidening.widen(bid32: bits)
        case 8:
            let bits = node.payload.uint64(index * 8)
            guard DecimalWidening.isCanonical(bid64: bits) else { throw .undecodable(RealmDecimal128.nonCanonicalReason) }
            value = DecimalWidening.widen(bid64: bits)
        default:
            value = RealmDecimal128(low: node.payload.uint64(index * 16), high: node.payload.uint64(index * 16 + 8))
        }
        if value.isRealmNull { return .null }
        guard value.isCanonical else { throw .undecodable(RealmDecimal128.nonCanonicalReason) }
        return .decimal(value)
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
