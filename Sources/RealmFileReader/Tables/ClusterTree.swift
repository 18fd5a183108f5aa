/// One leaf of a cluster tree: up to 256 objects, one slot per column
/// (realm-core `cluster.hpp`/`cluster.cpp`).
///
///     slot 0       the row count, tagged — keys are then offset + 0 … n−1 ("compact") —
///                  or a ref to an unsigned array of keys relative to the offset
///     slot 1 + i   the leaf of the column whose ColKey leaf index is i
struct ClusterLeaf {
    let node: Node
    /// The key offset inherited from the inner nodes above.
    let keyOffset: Int64
    /// Explicit relative keys, or nil for compact keys.
    let keys: Node?
    let rowCount: Int

    init(node: Node, keyOffset: Int64, session: ReadSession) throws(RealmFileError) {
        guard node.hasRefs, node.count >= 1 else {
            throw .corrupt("cluster at 0x\(String(node.ref, radix: 16)) is malformed\(session.whereText)")
        }
        self.node = node
        self.keyOffset = keyOffset
        let count: Int64
        if let ref = try node.refOrNil(0, "cluster keys") {
            let keyNode = try session.integerNode(ref, "cluster keys")
            keys = keyNode
            count = Int64(keyNode.count)
        } else {
            keys = nil
            count = try node.tagged(0, "cluster size")
        }
        // Realm splits a cluster at 256 objects (`cluster_node_size`, `cluster_tree.cpp`).
        guard count >= 0, count <= Int64(ReadSession.maxClusterNodeSize) else {
            throw .corrupt("cluster at 0x\(String(node.ref, radix: 16)) claims \(count) objects (Realm writes at most \(ReadSession.maxClusterNodeSize))\(session.whereText)")
        }
        rowCount = Int(count)
    }

    /// The ObjKey of row `row` (< `rowCount`).
    func key(at row: Int) -> Int64 {
        if let keys { return keyOffset &+ Int64(bitPattern: keys.unsigned(row)) }
        return keyOffset &+ Int64(row)
    }

    /// The row holding `key`, if this leaf has it.
    func row(of key: Int64) -> Int? {
        let relative = key &- keyOffset
        guard let keys else {
            return relative >= 0 && relative < Int64(rowCount) ? Int(relative) : nil
        }
        var low = 0
        var high = rowCount
        while low < high {
            let middle = (low + high) / 2
            if Int64(bitPattern: keys.unsigned(middle)) < relative { low = middle + 1 } else { high = middle }
        }
        return low < rowCount && Int64(bitPattern: keys.unsigned(low)) == relative ? low : nil
    }

    /// The ref of column leaf `leafIndex` (slot `leafIndex + 1`).
    func columnRef(_ leafIndex: Int, session: ReadSession) throws(RealmFileError) -> Int {
        guard leafIndex + 1 < node.count else {
            throw .corrupt("cluster at 0x\(String(node.ref, radix: 16)) has no slot for column \(leafIndex)\(session.whereText)")
        }
        let ref = try node.ref(leafIndex + 1, "column leaf")
        guard ref != 0 else {
            throw .corrupt("cluster at 0x\(String(node.ref, radix: 16)) has no leaf for column \(leafIndex)\(session.whereText)")
        }
        return ref
    }
}

/// Walks and searches cluster trees (realm-core `cluster_tree.cpp`).
///
/// An inner node has the B+tree flag and the slots `[keys ref or 0, depth (tagged),
/// subtree size (tagged), children…]`. Child `i` covers keys from its offset: `keys[i]`
/// when the keys array exists, else `i << (8·depth)` ("compact" form), relative to the
/// inner node's own offset.
enum ClusterTree {
    /// Visits every leaf of the tree rooted at `root`, in key order. Every inner node's
    /// subtree size must equal the objects of its leaves (`ClusterNodeInner::get_tree_size`).
    static func forEachLeaf(root: Int, session: ReadSession, _ body: (ClusterLeaf) throws(RealmFileError) -> Void)
        throws(RealmFileError)
    {
        try visit(root, offset: 0, level: 0, session: session, body)
    }

    /// Visits the leaves under `ref`; returns their number of objects.
    @discardableResult
    private static func visit(_ ref: Int, offset: Int64, level: Int, session: ReadSession,
                              _ body: (ClusterLeaf) throws(RealmFileError) -> Void) throws(RealmFileError) -> Int
    {
        guard level <= ReadSession.maxTreeDepth else {
            throw .corrupt("cluster tree deeper than \(ReadSession.maxTreeDepth) levels\(session.whereText)")
        }
        let node = try session.node(ref, "cluster")
        guard node.isInnerBPlusTreeNode else {
            let leaf = try ClusterLeaf(node: node, keyOffset: offset, session: session)
            try body(leaf)
            return leaf.rowCount
        }
        let inner = try InnerNode(node: node, session: session)
        var objects = 0
        for child in 0..<inner.childCount {
            let childRef = try node.ref(child + 3, "cluster child")
            let below = try visit(childRef, offset: offset &+ inner.offset(of: child), level: level + 1, session: session, body)
            objects = objects &+ below
        }
        guard Int64(objects) == inner.subtreeSize else {
            throw .corrupt("cluster inner node at 0x\(String(ref, radix: 16)) records \(inner.subtreeSize) objects but its leaves hold \(objects)\(session.whereText)")
        }
        return objects
    }

    /// The leaf and row of object `key`, or nil if the tree has no such object.
    static func find(key: Int64, root: Int, session: ReadSession) throws(RealmFileError) -> (ClusterLeaf, Int)? {
        var ref = root
        var offset: Int64 = 0
        for _ in 0...ReadSession.maxTreeDepth {
            let node = try session.node(ref, "cluster")
            if !node.isInnerBPlusTreeNode {
                let leaf = try ClusterLeaf(node: node, keyOffset: offset, session: session)
                guard let row = leaf.row(of: key) else { return nil }
                return (leaf, row)
            }
            let inner = try InnerNode(node: node, session: session)
            let relative = key &- offset
            guard let child = inner.child(containing: relative) else { return nil }
            offset = offset &+ inner.offset(of: child)
            ref = try node.ref(child + 3, "cluster child")
        }
        throw .corrupt("cluster tree deeper than \(ReadSession.maxTreeDepth) levels\(session.whereText)")
    }

    private struct InnerNode {
        let keys: Node?
        let shift: Int64
        let childCount: Int
        /// The objects under this node (slot 2, `s_sub_tree_size`).
        let subtreeSize: Int64

        init(node: Node, session: ReadSession) throws(RealmFileError) {
            guard node.hasRefs, node.count >= 3, node.count - 3 <= ReadSession.maxClusterNodeSize else {
                throw .corrupt("cluster inner node at 0x\(String(node.ref, radix: 16)) is malformed (\(node.count) slots)\(session.whereText)")
            }
            subtreeSize = try node.tagged(2, "cluster subtree size")
            let depth = try node.tagged(1, "cluster depth")
            guard depth >= 0, depth <= Int64(ReadSession.maxTreeDepth) else {
                throw .corrupt("cluster inner node at 0x\(String(node.ref, radix: 16)) has depth \(depth)\(session.whereText)")
            }
            shift = depth * 8
            childCount = node.count - 3
            let keysRef = try node.ref(0, "cluster inner keys")
            if keysRef != 0 {
                let keyNode = try session.integerNode(keysRef, "cluster inner keys")
                guard keyNode.count >= childCount else {
                    throw .corrupt("cluster inner node at 0x\(String(node.ref, radix: 16)) has too few keys\(session.whereText)")
                }
                keys = keyNode
            } else {
                keys = nil
            }
        }

        func offset(of child: Int) -> Int64 {
            if let keys { return Int64(bitPattern: keys.unsigned(child)) }
            return shift >= 63 ? 0 : Int64(child) << shift
        }

        func child(containing relative: Int64) -> Int? {
            if relative < 0 { return nil }
            guard let keys else {
                let index = shift >= 63 ? 0 : relative >> shift
                return index < Int64(childCount) ? Int(index) : nil
            }
            // The last child whose first key is ≤ relative.
            var low = 0
            var high = childCount
            while low < high {
                let middle = (low + high) / 2
                if Int64(bitPattern: keys.unsigned(middle)) <= relative { low = middle + 1 } else { high = middle }
            }
            return low == 0 ? nil : low - 1
        }
    }
}
