/// One decoded leaf: a column's slice of one cluster, or one leaf of a collection's
/// B+tree. Creating a leaf parses its headers and validates its sizes once; reading
/// element `i < count` afterwards only indexes into validated memory.
enum Leaf {
    case integers(Node)
    case optionalIntegers(Node)
    case bools(Node, nullable: Bool)
    case floats(Node, nullable: Bool)
    case doubles(Node, nullable: Bool)
    // Cases with large payloads are boxed, so that a leaf stays small to copy.
    indirect case strings(StringLeaf)
    indirect case binaries(StringLeaf)
    indirect case timestamps(seconds: Node, nanoseconds: Node)
    case decimals(Node)
    case fixedBytes(Node, size: Int, isUUID: Bool)
    indirect case mixed(MixedLeaf)
    /// `ArrayKey` in clusters stores key + 1 (0 = null); `ArrayKeyNonNullable` in link-list
    /// B+trees stores the key itself (`bplustree.hpp` `LeafTypeTrait<ObjKey>`): `adjust` is 1 or 0.
    case links(Node, targetTable: Int, adjust: Int64)
    case typedLinks(Node)
    /// A column of collection refs (`ArrayRef`): one B+tree or dictionary per object.
    case refs(Node)

    /// Decodes the node at `ref` as a leaf of `kind`.
    init(kind: ElementKind, ref: Int, session: ReadSession,
         enumKeys: (() throws(RealmFileError) -> [String?])? = nil) throws(RealmFileError)
    {
        try self.init(kind: kind, node: try session.node(ref, "leaf"), session: session, enumKeys: enumKeys)
    }

    /// Decodes `node` as a leaf of a list or set B+tree (links are stored without the +1).
    init(collectionOf kind: ElementKind, node: Node, session: ReadSession) throws(RealmFileError) {
        try self.init(kind: kind, node: node, session: session)
        if case let .links(keys, target, _) = self { self = .links(keys, targetTable: target, adjust: 0) }
    }

    /// Decodes `node` as a leaf of `kind`.
    init(kind: ElementKind, node: Node, session: ReadSession,
         enumKeys: (() throws(RealmFileError) -> [String?])? = nil) throws(RealmFileError)
    {
        func fixedWidth(_ size: Int) throws(RealmFileError) {
            guard node.payload.count >= node.count * size else {
                throw .corrupt("leaf at 0x\(String(node.ref, radix: 16)) is too short for \(node.count) values\(session.whereText)")
            }
        }
        switch kind {
        case .int:
            try node.requireIntegers("integers")
            self = .integers(node)
        case .optionalInt:
            try node.requireIntegers("nullable integers")
            guard node.count >= 1 else {
                throw .corrupt("nullable integer leaf at 0x\(String(node.ref, radix: 16)) has no null sentinel\(session.whereText)")
            }
            self = .optionalIntegers(node)
        case let .bool(nullable):
            try node.requireIntegers("booleans")
            self = .bools(node, nullable: nullable)
        case let .float(nullable):
            try fixedWidth(4)
            self = .floats(node, nullable: nullable)
        case let .double(nullable):
            try fixedWidth(8)
            self = .doubles(node, nullable: nullable)
        case .string:
            self = .strings(try StringLeaf(node: node, session: session, enumKeys: enumKeys))
        case .binary:
            self = .binaries(try StringLeaf(node: node, session: session))
        case .timestamp:
            guard node.hasRefs, node.count >= 2 else {
                throw .corrupt("timestamp leaf at 0x\(String(node.ref, radix: 16)) is malformed\(session.whereText)")
            }
            let seconds = try session.integerNode(try node.ref(0, "timestamp seconds"), "timestamp seconds")
            let nanoseconds = try session.integerNode(try node.ref(1, "timestamp nanoseconds"), "timestamp nanoseconds")
            guard seconds.count >= 1, nanoseconds.count >= seconds.count - 1 else {
                throw .corrupt("timestamp leaf at 0x\(String(node.ref, radix: 16)) has mismatched halves\(session.whereText)")
            }
            self = .timestamps(seconds: seconds, nanoseconds: nanoseconds)
        case .decimal:
            let width = node.width
            guard [0, 4, 8, 16].contains(width) else {
                throw .corrupt("decimal leaf at 0x\(String(node.ref, radix: 16)) has width \(width)\(session.whereText)")
            }
            try fixedWidth(width)
            self = .decimals(node)
        case .objectId, .uuid:
            if node.width != 0 { try fixedWidth(1) }
            self = .fixedBytes(node, size: kind == .uuid ? 16 : 12, isUUID: kind == .uuid)
        case .mixed:
            self = .mixed(try MixedLeaf(node: node, session: session))
        case let .link(target):
            try node.requireIntegers("links")
            self = .links(node, targetTable: target, adjust: 1)
        case .typedLink:
            try node.requireIntegers("typed links")
            self = .typedLinks(node)
        }
    }

    /// A leaf of collection refs (list, set and dictionary columns).
    static func refs(ref: Int, session: ReadSession) throws(RealmFileError) -> Leaf {
        let node = try session.node(ref, "collection refs")
        try node.requireIntegers("collection refs")
        return .refs(node)
    }

    /// The number of elements.
    var count: Int {
        switch self {
        case let .integers(node), let .bools(node, _), let .floats(node, _), let .doubles(node, _),
             let .decimals(node), let .links(node, _, _), let .refs(node):
            return node.count
        case let .optionalIntegers(node):
            return node.count - 1
        case let .strings(leaf), let .binaries(leaf):
            return leaf.count
        case let .timestamps(seconds, _):
            return seconds.count - 1
        case let .fixedBytes(node, size, _):
            // Blocks of one null-bit byte and 8 values (realm-core `array_fixed_bytes.hpp`).
            let blockSize = size * 8 + 1
            let bytes = node.count
            return max(0, (bytes - (bytes + blockSize - 1) / blockSize) / size)
        case let .mixed(leaf):
            return leaf.count
        case let .typedLinks(node):
            return node.count / 2
        }
    }
}
