/// The column leaves of one cluster of one table, decoded once, from which the
/// objects of the cluster are read row by row.
final class ClusterLeafCursor {
    let table: TableInfo
    let cluster: ClusterLeaf
    private let leaves: ContiguousArray<Leaf>
    private let shapes: ContiguousArray<ColumnShape>
    private let kinds: ContiguousArray<ElementKind>

    init(table: TableInfo, cluster: ClusterLeaf, session: ReadSession) throws(RealmFileError) {
        self.table = table
        self.cluster = cluster
        var leaves = ContiguousArray<Leaf>()
        leaves.reserveCapacity(table.columns.count)
        for column in table.columns {
            session.location = "table \(table.name), column \(column.name)"
            do {
                leaves.append(try Self.leaf(of: column, table: table, cluster: cluster, session: session))
            } catch {
                throw error.located(className: table.className, objectKey: nil, property: column.name)
            }
        }
        self.leaves = leaves
        shapes = ContiguousArray(table.columns.map(\.shape))
        kinds = ContiguousArray(table.columns.map(\.element))
        session.location = "table \(table.name)"
    }

    /// The decoded leaf of `column` in `cluster`.
    private static func leaf(of column: ColumnInfo, table: TableInfo, cluster: ClusterLeaf, session: ReadSession)
        throws(RealmFileError) -> Leaf
    {
        let ref = try cluster.columnRef(column.key.leafIndex, session: session)
        let leaf: Leaf
        if column.shape == .single {
            var enumKeys: (() throws(RealmFileError) -> [String?])?
            if let enumRef = column.enumKeysRef {
                let cacheKey = "\(table.index):\(column.key.leafIndex)"
                enumKeys = { () throws(RealmFileError) -> [String?] in
                    if let cached = session.enumKeys[cacheKey] { return cached }
                    let node = try session.node(enumRef, "enum keys")
                    let keys = try StringLeaf(node: node, session: session).allStrings(session: session)
                    session.enumKeys[cacheKey] = keys
                    return keys
                }
            }
            leaf = try Leaf(kind: column.element, ref: ref, session: session, enumKeys: enumKeys)
        } else {
            leaf = try Leaf.refs(ref: ref, session: session)
        }
        guard leaf.count >= cluster.rowCount else {
            throw .corrupt("column leaf holds \(leaf.count) values for \(cluster.rowCount) objects\(session.whereText)")
        }
        return leaf
    }

    /// The object in row `row` (< `cluster.rowCount`).
    func object(at row: Int, session: ReadSession, depth: Int) throws(RealmFileError) -> RealmObject {
        let count = leaves.count
        var values: [RealmValue] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            do {
                try appendValue(of: index, row: row, to: &values, session: session, depth: depth)
            } catch {
                let column = table.columns[index].name
                throw Self.naming(error, column: column)
                    .located(className: table.className, objectKey: cluster.key(at: row), property: column)
            }
        }
        return RealmObject(key: cluster.key(at: row), values: values)
    }

    /// Decodes column `index` of row `row` onto `values`.
    @inline(__always)
    private func appendValue(of index: Int, row: Int, to values: inout [RealmValue], session: ReadSession, depth: Int)
        throws(RealmFileError)
    {
        switch shapes[index] {
        case .single:
            values.append(try leaves[index].value(at: row, session: session, depth: depth))
        case .list:
            let ref = try collectionRef(index, row: row, session: session)
            let elements = try CollectionReader.elements(ref: ref, kind: kinds[index], session: session, depth: depth)
            values.append(.list(elements))
        case .set:
            let ref = try collectionRef(index, row: row, session: session)
            let elements = try CollectionReader.elements(ref: ref, kind: kinds[index], session: session, depth: depth)
            values.append(.set(elements))
        case let .dictionary(intKeys):
            let ref = try collectionRef(index, row: row, session: session)
            let entries = try CollectionReader.dictionary(ref: ref, intKeys: intKeys, session: session, depth: depth)
            values.append(.dictionary(entries))
        }
    }

    /// Adds the column to a corruption message that does not name one yet.
    private static func naming(_ error: RealmFileError, column: String) -> RealmFileError {
        guard case let .corrupt(message) = error, !message.contains("column") else { return error }
        return .corrupt("\(message), column \(column)")
    }

    /// The collection ref of column `index` in row `row`.
    private func collectionRef(_ index: Int, row: Int, session: ReadSession) throws(RealmFileError) -> Int {
        guard case let .refs(node) = leaves[index] else { return 0 }
        let raw = node.int(row)
        guard raw >= 0, raw & 1 == 0 else {
            throw .corrupt("collection slot of object \(cluster.key(at: row)) is not a ref in table \(table.name), column \(table.columns[index].name)")
        }
        return Int(raw)
    }
}

extension ReadSession {
    /// The embedded object `key` of `table`, inline. The clusters last visited in each
    /// embedded table are kept, since owners usually refer to neighbouring objects.
    func embeddedObject(table: TableInfo, key: Int64, depth: Int) throws(RealmFileError) -> RealmValue {
        guard depth <= ReadSession.maxNestingDepth else {
            throw .corrupt("embedded objects nested deeper than \(ReadSession.maxNestingDepth) levels\(whereText)")
        }
        let savedLocation = location
        defer { location = savedLocation }
        var recent = embeddedLeafCache[table.index] ?? []
        for (position, cursor) in recent.enumerated() {
            if let row = cursor.cluster.row(of: key) {
                if position != 0 {
                    recent.remove(at: position)
                    recent.insert(cursor, at: 0)
                    embeddedLeafCache[table.index] = recent
                }
                return .embedded(try cursor.object(at: row, session: self, depth: depth))
            }
        }
        guard table.clusterRoot != 0,
              let (cluster, row) = try ClusterTree.find(key: key, root: table.clusterRoot, session: self) else {
            throw .corrupt("link to embedded object \(key) of \(table.name), which does not exist\(whereText)")
        }
        let cursor = try ClusterLeafCursor(table: table, cluster: cluster, session: self)
        recent.insert(cursor, at: 0)
        if recent.count > ReadSession.embeddedClustersKept { recent.removeLast() }
        embeddedLeafCache[table.index] = recent
        return .embedded(try cursor.object(at: row, session: self, depth: depth))
    }
}
