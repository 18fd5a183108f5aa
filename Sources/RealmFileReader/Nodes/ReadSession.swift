/// The state of one read operation (opening, counting, or iterating a class):
/// the file image, the schema, a work budget and small caches.
///
/// The budget makes every operation finite on any input. In a file written by
/// Realm every node has exactly one parent, so reading everything once visits
/// each node once; a corrupt file whose refs form cycles or point many parents
/// at one subtree would otherwise make a traversal run (nearly) forever. Each
/// node read costs 1 + count/8 + payload length/64 — at most 1 + 1.2 × its length in
/// a valid file, where every element takes at least a bit, yet enough to pay for the
/// elements of a zero-width array — and an operation may spend `2 × size + 1,000,000`
/// units. Depth limits on B+trees, cluster trees, embedded objects and nested
/// collections bound recursion.
///
/// Counts are bounded by what holds them. A node's payload must lie inside the file, so an
/// element of a width of at least one bit is backed by file bytes; the elements of a
/// zero-width node take no bytes at all (all zero, all null or all empty), so their count
/// is bounded by what Realm writes instead: at most 1,000 elements in a B+tree node
/// (`REALM_MAX_BPNODE_SIZE`, realm-core `features.h`), 256 objects or children in a
/// cluster node (`cluster_node_size`, `cluster_tree.cpp`), and one element per table or
/// column in the group and spec arrays, whose indexes have 16 bits (`Group::key2ndx`,
/// `ColKey`). Inner nodes record the size of their subtree, which must match the leaves.
final class ReadSession {
    static let maxTreeDepth = 24
    static let maxNestingDepth = 64
    /// Realm's `REALM_MAX_BPNODE_SIZE`: the most elements of a B+tree leaf or children of an inner node.
    static let maxBPlusTreeNodeSize = 1000
    /// Realm's `cluster_node_size` (`cluster_tree.cpp`): the most objects of a cluster leaf or
    /// children of an inner cluster node.
    static let maxClusterNodeSize = 256
    /// The most elements a node whose payload takes no bytes may claim (see above).
    static let maxElementsWithoutBytes = 1 << 16

    let image: FileImage
    let fileFormat: Int
    let schema: FileSchema
    private var budget: Int
    /// Where the reader is, for error messages ("table class_Post, column title").
    var location = ""
    /// Enum-string key lists, per (table, column), decoded once.
    var enumKeys: [String: [String?]] = [:]
    /// The cluster leaves last visited per embedded table (most recent first), for
    /// inline embedded objects.
    var embeddedLeafCache: [Int: [ClusterLeafCursor]] = [:]
    static let embeddedClustersKept = 16

    init(image: FileImage, fileFormat: Int, schema: FileSchema) {
        self.image = image
        self.fileFormat = fileFormat
        self.schema = schema
        budget = min(image.size, Int.max / 4) * 2 + 1_000_000
    }

    /// `" in <location>"` or nothing.
    var whereText: String { location.isEmpty ? "" : " in \(location)" }

    /// Reads and validates the node at `ref`.
    func node(_ ref: Int, _ what: @autoclosure () -> String = "") throws(RealmFileError) -> Node {
        let size = image.size
        guard ref > 0, ref % 8 == 0, ref >= FileHeader.size else {
            throw .corrupt("invalid ref 0x\(String(ref, radix: 16)) (\(what()))\(whereText)")
        }
        guard ref <= size - Node.headerSize else {
            throw .corrupt("ref 0x\(String(ref, radix: 16)) outside the file (size 0x\(String(size, radix: 16))) (\(what()))\(whereText)")
        }
        let header = try image.span(at: ref, count: Node.headerSize)
        guard header.uint32(0) == Node.checksum else {
            throw .corrupt("no node at ref 0x\(String(ref, radix: 16)) (header checksum is not \"AAAA\") (\(what()))\(whereText)")
        }
        let flags = header.byte(4)
        let count = Int(header.byte(5)) << 16 | Int(header.byte(6)) << 8 | Int(header.byte(7))
        guard let length = Node.payloadLength(flags: flags, count: count) else {
            throw .corrupt("node at 0x\(String(ref, radix: 16)) has an invalid width type (\(what()))\(whereText)")
        }
        guard length <= size - ref - Node.headerSize else {
            throw .corrupt("node at 0x\(String(ref, radix: 16)) (\(count) elements) runs past the end of the file (\(what()))\(whereText)")
        }
        // Zero-width elements take no bytes: their count is bounded by what Realm writes.
        guard length > 0 || count <= Self.maxElementsWithoutBytes else {
            throw .corrupt("node at 0x\(String(ref, radix: 16)) claims \(count) elements that take no bytes (\(what()))\(whereText)")
        }
        budget -= 1 + count / 8 + length / 64
        if budget < 0 {
            throw .corrupt("the file's refs revisit the same nodes over and over (cyclic or shared structure)\(whereText)")
        }
        let payload = try image.span(at: ref + Node.headerSize, count: length)
        return Node(ref: ref, flags: flags, count: count, payload: payload)
    }

    /// Reads the node at `ref` and checks it is a (bit-packed) integer array.
    func integerNode(_ ref: Int, _ what: @autoclosure () -> String) throws(RealmFileError) -> Node {
        let node = try node(ref, what())
        try node.requireIntegers(what())
        return node
    }

    /// Visits the leaves of the B+tree rooted at `ref`, in order (realm-core `bplustree.cpp`),
    /// and returns the number of elements in the tree.
    ///
    /// An inner node (header flag 0x80) is `[elems-per-child (tagged) or offsets ref,
    /// child refs…, total element count (tagged)]`; a leaf is any other node. Empty
    /// trees are a leaf with no elements. `body` decodes a leaf and returns its element
    /// count, which must not exceed Realm's 1,000 (it should check that before reading the
    /// elements); an inner node must have at most 1,000 children, and its total must equal
    /// the sum of its children's.
    @discardableResult
    func forEachBPlusTreeLeaf(_ ref: Int, depth: Int = 0, _ body: (Node) throws(RealmFileError) -> Int)
        throws(RealmFileError) -> Int
    {
        guard depth <= Self.maxTreeDepth else {
            throw .corrupt("B+tree deeper than \(Self.maxTreeDepth) levels\(whereText)")
        }
        let root = try node(ref, "B+tree node")
        guard root.isInnerBPlusTreeNode else {
            let count = try body(root)
            try requireBPlusTreeLeafSize(count, ref: ref)
            return count
        }
        guard root.count >= 3, root.hasRefs, root.count - 2 <= Self.maxBPlusTreeNodeSize else {
            throw .corrupt("B+tree inner node at 0x\(String(ref, radix: 16)) is malformed (\(root.count) slots)\(whereText)")
        }
        let total = try root.tagged(root.count - 1, "B+tree size")
        var sum = 0
        for index in 1..<(root.count - 1) {
            let child = try root.ref(index, "B+tree child")
            sum = sum &+ (try forEachBPlusTreeLeaf(child, depth: depth + 1, body))
        }
        guard Int64(sum) == total else {
            throw .corrupt("B+tree inner node at 0x\(String(ref, radix: 16)) records \(total) elements but its leaves hold \(sum)\(whereText)")
        }
        return sum
    }

    /// Throws unless `count` elements fit in one B+tree leaf as Realm writes them.
    func requireBPlusTreeLeafSize(_ count: Int, ref: Int) throws(RealmFileError) {
        guard count <= Self.maxBPlusTreeNodeSize else {
            throw .corrupt("B+tree leaf at 0x\(String(ref, radix: 16)) claims \(count) elements (Realm writes at most \(Self.maxBPlusTreeNodeSize) a leaf)\(whereText)")
        }
    }
}
