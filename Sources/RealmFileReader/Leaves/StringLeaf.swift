/// A leaf of strings or binaries (realm-core `array_string.cpp` `ArrayString::init_from_mem`,
/// `array_binary.cpp`, `array_string_short.*`, `array_blobs_small.*`, `array_blobs_big.*`,
/// `array_blob.*`). The header tells the encodings apart:
///
/// - no refs, width in bytes: *short* strings (`ArrayStringShort`), fixed-width slots of
///   0, 1, 2, 4 … 64 bytes; the last byte of a slot holds `width − 1 − length`, and the
///   value `width` there means null (a width of 0 means every element is null, or "" for
///   a non-nullable array);
/// - no refs, other width type: *enum* strings, integer indexes into the column's key
///   list in the table's spec (strings only);
/// - refs, no context flag: *medium* (`ArraySmallBlobs`), `[end offsets, blob bytes, nulls]`
///   (the null array is missing in old files); strings carry a terminating zero;
/// - refs and context flag: *big* (`ArrayBigBlobs`), one ref per element to its own blob
///   node (0 = null); a blob whose header has the context flag is a chain of blobs
///   (values over ~16 MB), read by concatenating its children.
enum StringLeaf {
    case short(Node, nullable: Bool)
    case medium(offsets: Node, blob: Node, nulls: Node?)
    case big(Node)
    case enumerated(indices: Node, keys: [String?])

    /// Interprets `node` as a string/binary leaf. `enumKeys` supplies the key list of an
    /// enum-string column; `nullable` decides what a width-0 short array holds.
    init(node: Node, session: ReadSession, nullable: Bool = true,
         enumKeys: (() throws(RealmFileError) -> [String?])? = nil) throws(RealmFileError)
    {
        if !node.hasRefs {
            if node.widthType == 1 {
                guard node.payload.count >= node.count * node.width else {
                    throw .corrupt("short string array at 0x\(String(node.ref, radix: 16)) is too short\(session.whereText)")
                }
                self = .short(node, nullable: nullable)
            } else {
                guard let enumKeys else {
                    throw .corrupt("string array at 0x\(String(node.ref, radix: 16)) is an enum array but the column has no enum keys\(session.whereText)")
                }
                try node.requireIntegers("enum string indexes")
                self = .enumerated(indices: node, keys: try enumKeys())
            }
        } else if node.contextFlag {
            try node.requireIntegers("big blob refs")
            self = .big(node)
        } else {
            guard node.count >= 2 else {
                throw .corrupt("small blob array at 0x\(String(node.ref, radix: 16)) has \(node.count) slots\(session.whereText)")
            }
            let offsets = try session.integerNode(try node.ref(0, "blob offsets"), "blob offsets")
            let blob = try session.node(try node.ref(1, "blob bytes"), "blob bytes")
            guard blob.payload.count >= blob.count else {
                throw .corrupt("blob at 0x\(String(blob.ref, radix: 16)) is too short\(session.whereText)")
            }
            var nulls: Node?
            if node.count >= 3, let nullsRef = try node.refOrNil(2, "blob nulls"), nullsRef != 0 {
                let nullNode = try session.integerNode(nullsRef, "blob nulls")
                guard nullNode.count >= offsets.count else {
                    throw .corrupt("blob null array at 0x\(String(nullsRef, radix: 16)) is too short\(session.whereText)")
                }
                nulls = nullNode
            }
            self = .medium(offsets: offsets, blob: blob, nulls: nulls)
        }
    }

    /// The number of elements.
    var count: Int {
        switch self {
        case let .short(node, _): return node.count
        case let .medium(offsets, _, _): return offsets.count
        case let .big(node): return node.count
        case let .enumerated(indices, _): return indices.count
        }
    }

    /// The bytes of element `index` (without a string's terminating zero when `isString`),
    /// or nil for null. Enum strings are returned through `enumValue`.
    func element(_ index: Int, isString: Bool, session: ReadSession) throws(RealmFileError) -> ByteSpan? {
        switch self {
        case let .short(node, nullable):
            let width = node.width
            if width == 0 { return nullable ? nil : node.payload.slice(0, 0) }
            let start = index * width
            let pad = Int(node.payload.byte(start + width - 1))
            if pad == width { return nil }
            guard pad < width else {
                throw .corrupt("short string \(index) of node 0x\(String(node.ref, radix: 16)) has an invalid length\(session.whereText)")
            }
            return node.payload.slice(start, width - 1 - pad)
        case let .medium(offsets, blob, nulls):
            if let nulls, nulls.int(index) != 0 { return nil }
            let begin = index == 0 ? 0 : offsets.int(index - 1)
            let end = offsets.int(index)
            guard begin >= 0, begin <= end, end <= Int64(blob.count) else {
                throw .corrupt("blob offsets of node 0x\(String(offsets.ref, radix: 16)) are inconsistent\(session.whereText)")
            }
            var length = Int(end - begin)
            if isString { length = max(0, length - 1) }
            return blob.payload.slice(Int(begin), length)
        case let .big(node):
            let value = node.int(index)
            if value == 0 { return nil }
            guard value > 0, value & 1 == 0 else {
                throw .corrupt("big blob \(index) of node 0x\(String(node.ref, radix: 16)) is not a ref\(session.whereText)")
            }
            let span = try Self.blob(at: Int(value), session: session)
            return isString ? span.slice(0, max(0, span.count - 1)) : span
        case .enumerated:
            return nil
        }
    }

    /// Element `index` as a string, or nil for null.
    func string(_ index: Int, session: ReadSession) throws(RealmFileError) -> String? {
        if case let .enumerated(indices, keys) = self {
            let key = indices.int(index)
            guard key >= 0, key < Int64(keys.count) else {
                throw .corrupt("enum string index \(key) beyond the column's \(keys.count) keys\(session.whereText)")
            }
            return keys[Int(key)]
        }
        guard let span = try element(index, isString: true, session: session) else { return nil }
        guard let text = span.utf8String(0, span.count) else {
            throw .undecodable("a string that is not valid UTF-8")
        }
        return text
    }

    /// Element `index` as bytes, or nil for null.
    func binary(_ index: Int, session: ReadSession) throws(RealmFileError) -> [UInt8]? {
        if case .enumerated = self {
            guard let text = try string(index, session: session) else { return nil }
            return Array(text.utf8)
        }
        guard let span = try element(index, isString: false, session: session) else { return nil }
        return span.bytes(0, span.count)
    }

    /// Every element as a string (for names and enum key lists).
    func allStrings(session: ReadSession) throws(RealmFileError) -> [String?] {
        var result: [String?] = []
        result.reserveCapacity(count)
        for index in 0..<count { result.append(try string(index, session: session)) }
        return result
    }

    /// The bytes of the blob node at `ref`, concatenating a chain (context flag) of blobs.
    static func blob(at ref: Int, session: ReadSession) throws(RealmFileError) -> ByteSpan {
        let node = try session.node(ref, "blob")
        guard node.contextFlag else {
            guard node.payload.count >= node.count else {
                throw .corrupt("blob at 0x\(String(ref, radix: 16)) is too short\(session.whereText)")
            }
            return node.payload.slice(0, node.count)
        }
        guard node.hasRefs else {
            throw .corrupt("blob chain at 0x\(String(ref, radix: 16)) has no refs\(session.whereText)")
        }
        var parts: [ByteSpan] = []
        var total = 0
        for index in 0..<node.count {
            let part = try session.node(try node.ref(index, "blob chain"), "blob chain part")
            guard !part.contextFlag, part.payload.count >= part.count else {
                throw .corrupt("blob chain part at 0x\(String(part.ref, radix: 16)) is malformed\(session.whereText)")
            }
            parts.append(part.payload.slice(0, part.count))
            total += part.count
            // The parts of one value are distinct nodes of the file: together no longer than it.
            guard total <= session.image.size else {
                throw .corrupt("blob chain at 0x\(String(ref, radix: 16)) is longer than the file\(session.whereText)")
            }
        }
        let buffer = try ByteBuffer.allocate(count: total) { out throws(RealmFileError) in
            var offset = 0
            for part in parts {
                part.withUnsafeBytes { bytes in
                    if let source = bytes.baseAddress, let destination = out.baseAddress, bytes.count > 0 {
                        (destination + offset).copyMemory(from: source, byteCount: bytes.count)
                    }
                }
                offset += part.count
            }
        }
        return ByteSpan(buffer: buffer, start: 0, count: total)
    }
}
