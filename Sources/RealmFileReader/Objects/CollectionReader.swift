/// Reads lists, sets and dictionaries (realm-core `list.hpp`, `set.hpp`, `dictionary.cpp`,
/// `bplustree.cpp`, `collection_parent.cpp`).
///
/// - A list or set is one B+tree of elements per object; the object's column slot holds
///   its root ref (0 for an empty collection). Link lists and link sets skip unresolved
///   links (keys ≤ −2), as `LnkLst`/`LnkSet` hide them.
/// - A dictionary (format ≥ 23) is `[keys B+tree, values B+tree of mixed]`; keys are
///   strings (or integers, a key type no SDK uses). In format 22 a dictionary was a
///   small cluster tree of its own with a string key column (slot 1) and a mixed value
///   column (slot 2); `Dictionary::migrate` in `dictionary.cpp` converts it.
/// - A mixed value may hold a nested list (a B+tree of mixed) or dictionary (format 24).
enum CollectionReader {
    /// The elements of the list or set whose B+tree root is `ref`.
    static func elements(ref: Int, kind: ElementKind, session: ReadSession, depth: Int) throws(RealmFileError)
        -> [RealmValue]
    {
        if ref == 0 { return [] }
        guard depth <= ReadSession.maxNestingDepth else {
            throw .corrupt("collections nested deeper than \(ReadSession.maxNestingDepth) levels\(session.whereText)")
        }
        var result: [RealmValue] = []
        let isLink: Bool
        if case .link = kind { isLink = true } else { isLink = false }
        try session.forEachBPlusTreeLeaf(ref) { (node: Node) throws(RealmFileError) -> Int in
            let leaf = try Leaf(collectionOf: kind, node: node, session: session)
            let count = leaf.count
            // Bounded before anything is allocated or read: a leaf holds at most 1,000 elements.
            try session.requireBPlusTreeLeafSize(count, ref: node.ref)
            result.reserveCapacity(result.count + count)
            for index in 0..<count {
                if isLink, case let .links(keys, _, adjust) = leaf, keys.int(index) &- adjust < 0 { continue }
                result.append(try leaf.value(at: index, session: session, depth: depth))
            }
            return count
        }
        return result
    }

    /// The entries of the dictionary at `ref`, keys as strings.
    static func dictionary(ref: Int, intKeys: Bool, session: ReadSession, depth: Int) throws(RealmFileError)
        -> [(key: String, value: RealmValue)]
    {
        if ref == 0 { return [] }
        guard depth <= ReadSession.maxNestingDepth else {
            throw .corrupt("collections nested deeper than \(ReadSession.maxNestingDepth) levels\(session.whereText)")
        }
        if session.fileFormat < 23 {
            return try legacyDictionary(ref: ref, session: session, depth: depth)
        }
        let top = try session.node(ref, "dictionary")
        guard top.hasRefs, top.count >= 2 else {
            throw .corrupt("dictionary at 0x\(String(ref, radix: 16)) is malformed\(session.whereText)")
        }
        let keysRef = try top.ref(0, "dictionary keys")
        let valuesRef = try top.ref(1, "dictionary values")
        let keys: [RealmValue] = try elements(ref: keysRef, kind: intKeys ? .int : .string, session: session, depth: depth)
        let values = try elements(ref: valuesRef, kind: .mixed, session: session, depth: depth)
        guard keys.count == values.count else {
            throw .corrupt("dictionary at 0x\(String(ref, radix: 16)) has \(keys.count) keys but \(values.count) values\(session.whereText)")
        }
        var result: [(key: String, value: RealmValue)] = []
        result.reserveCapacity(keys.count)
        for (key, value) in zip(keys, values) {
            result.append((key: Self.keyText(key), value: value))
        }
        return result
    }

    private static func keyText(_ key: RealmValue) -> String {
        switch key {
        case let .string(text): return text
        case let .int(number): return String(number)
        default: return ""
        }
    }

    /// A format-22 dictionary: a cluster tree with keys in column 0 and values in column 1.
    private static func legacyDictionary(ref: Int, session: ReadSession, depth: Int) throws(RealmFileError)
        -> [(key: String, value: RealmValue)]
    {
        var result: [(key: String, value: RealmValue)] = []
        try ClusterTree.forEachLeaf(root: ref, session: session) { (cluster: ClusterLeaf) throws(RealmFileError) in
            guard cluster.node.count >= 3 else {
                throw .corrupt("legacy dictionary cluster at 0x\(String(cluster.node.ref, radix: 16)) is malformed\(session.whereText)")
            }
            let keys = try Leaf(kind: .string, ref: try cluster.node.ref(1, "dictionary keys"), session: session)
            let values = try Leaf(kind: .mixed, ref: try cluster.node.ref(2, "dictionary values"), session: session)
            guard keys.count >= cluster.rowCount, values.count >= cluster.rowCount else {
                throw .corrupt("legacy dictionary cluster at 0x\(String(cluster.node.ref, radix: 16)) is short\(session.whereText)")
            }
            for row in 0..<cluster.rowCount {
                let key = try keys.value(at: row, session: session, depth: depth)
                let value = try values.value(at: row, session: session, depth: depth)
                result.append((key: keyText(key), value: value))
            }
        }
        return result
    }

    /// A collection nested in a mixed value: `type` is 19 (list), 20 (set) or 21 (dictionary).
    static func nested(type: Int, ref: Int, session: ReadSession, depth: Int) throws(RealmFileError) -> RealmValue {
        switch type {
        case MixedDataType.dictionary:
            return .dictionary(try dictionary(ref: ref, intKeys: false, session: session, depth: depth))
        case MixedDataType.set:
            return .set(try elements(ref: ref, kind: .mixed, session: session, depth: depth))
        default:
            return .list(try elements(ref: ref, kind: .mixed, session: session, depth: depth))
        }
    }
}
