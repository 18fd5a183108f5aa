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
final class ReadSession {
    static let maxTreeDepth = 24
    static let maxNestingDepth = 64

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

    /// Visits the leaves of the B+tree rooted at `ref`, in order (realm-core `bplustree.cpp`).
    ///
    /// An inner node (header flag 0x80) is `[elems-per-child (tagged) or offsets ref,
    /// child refs…, total element count (tagged)]`; a leaf is any other node. Empty
    /// trees are a leaf with no elements.
    func forEachBPlusTreeLeaf(_ ref: Int, depth: Int = 0, _ body: (Node) throws(RealmFileError) -> Void)
        throws(RealmFileError)
    {
        guard depth <= Self.maxTreeDepth else {
            throw .corrupt("B+tree deeper than \(Self.maxTreeDepth) levels\(whereText)")
        }
        let root = try node(ref, "B+tree node")
        guard root.isInnerBPlusTreeNode else {
            try body(root)
            return
        }
        guard root.count >= 3, root.hasRefs else {
            throw .corrupt("B+tree inner node at 0x\(String(ref, radix: 16)) is malformed\(whereText)")
        }
        for index in 1..<(root.count - 1) {
            let child = try root.ref(index, "B+tree child")
            try forEachBPlusTreeLeaf(child, depth: depth + 1, body)
        }
    }
}
