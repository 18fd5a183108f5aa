/// Reads the group's tables and their specs (realm-core `group.hpp`/`group.cpp`,
/// `table.hpp`/`table.cpp` `Table::init`, `spec.hpp`/`spec.cpp`).
///
/// Top array: `[table names, table refs, logical file size, …]`; a table slot holding a
/// tagged integer instead of a ref is a deleted table. Table top:
///
///     0 spec · 2 cluster tree · 3 table key (tagged) · 4 search index refs (per leaf index)
///     7 opposite table keys (per leaf index: link targets) · 11 primary-key ColKey (tagged)
///     12 flags (tagged; bits 0–1 TopLevel 0, Embedded 1, Asymmetric 2)
///
/// Spec: `[types, names, attributes, (unused), enum keys, column keys]`, one entry per
/// column in schema order; backlink columns (type 14) have no name and come last.
enum SchemaReader {
    private struct TableTop {
        let index: Int
        let name: String
        let key: Int64
        let top: Node
    }

    static func read(topRef: Int, session: ReadSession) throws(RealmFileError) -> FileSchema {
        if topRef == 0 { return .empty }
        session.location = "the top array"
        let top = try session.node(topRef, "top array")
        guard top.hasRefs, top.count >= 3 else {
            throw .corrupt("the top array at 0x\(String(topRef, radix: 16)) is malformed")
        }
        // Slot 2 is the logical file size: a file shorter than that has lost its end.
        if let logicalSize = try top.optionalTagged(2, "logical file size"), logicalSize > Int64(session.image.size) {
            throw .truncated(expected: Int(clamping: logicalSize), actual: session.image.size)
        }
        let nameNode = try session.node(try top.ref(0, "table names"), "table names")
        let names = try self.names(nameNode, "table names", session: session)
        let tableRefs = try session.node(try top.ref(1, "table refs"), "table refs")
        try tableRefs.requireIntegers("table refs")
        guard tableRefs.count >= names.count else {
            throw .corrupt("the group has \(names.count) table names but \(tableRefs.count) tables")
        }

        var tops: [TableTop] = []
        var byKey: [Int64: Int] = [:]
        for index in 0..<names.count {
            guard let ref = try tableRefs.refOrNil(index, "table ref"), ref != 0 else { continue }
            let name = names[index] ?? ""
            session.location = "table \(name)"
            let tableTop = try session.node(ref, "table top")
            guard tableTop.hasRefs, tableTop.count >= 3 else {
                throw .corrupt("table top at 0x\(String(ref, radix: 16)) is malformed\(session.whereText)")
            }
            let key = try tableTop.optionalTagged(3, "table key") ?? Int64(index)
            tops.append(TableTop(index: index, name: name, key: key, top: tableTop))
            byKey[key] = index
        }
        // A table key's low 16 bits are its position in the group (`Group::key2ndx`).
        for (key, index) in byKey where Int(key & 0xFFFF) != index {
            throw .corrupt("table key \(key) does not match its position \(index) in the group")
        }

        var tables = [TableInfo?](repeating: nil, count: names.count)
        for entry in tops {
            session.location = "table \(entry.name)"
            let readColumns = entry.name.hasPrefix("class_") || entry.name == "metadata"
            tables[entry.index] = try table(entry, readColumns: readColumns, names: names, byKey: byKey, session: session)
        }
        session.location = ""
        return FileSchema(tables: tables, tablesByKey: byKey)
    }

    private static func table(_ entry: TableTop, readColumns: Bool, names: [String?], byKey: [Int64: Int],
                              session: ReadSession) throws(RealmFileError) -> TableInfo
    {
        let top = entry.top
        let clusterRoot = try top.optionalRef(2, "cluster tree") ?? 0
        let flags = try top.optionalTagged(12, "table flags") ?? 0
        let kind: TableKind = switch flags & 3 {
        case 1: .embedded
        case 2: .asymmetric
        default: .topLevel
        }
        var columns: [ColumnInfo] = []
        var primaryKeyColumn: Int?
        if readColumns {
            let primaryKey = try top.optionalTagged(11, "primary key column").map { ColumnKey(value: $0) }
            columns = try self.columns(of: entry, primaryKey: primaryKey, names: names, byKey: byKey, session: session)
            primaryKeyColumn = columns.firstIndex { $0.property.isPrimaryKey }
            // A table records its primary key's ColKey (or Realm's null key, all ones but the
            // top bit, or nothing); one that names no column would silently drop the key.
            if let primaryKey, primaryKey.value != Int64.max, primaryKeyColumn == nil {
                throw .corrupt("the primary key recorded for the table is none of its columns\(session.whereText)")
            }
        }
        return TableInfo(index: entry.index, name: entry.name, key: entry.key, clusterRoot: clusterRoot, kind: kind,
                         columns: columns, primaryKeyColumn: primaryKeyColumn)
    }

    private static func columns(of entry: TableTop, primaryKey: ColumnKey?, names tableNames: [String?],
                                byKey: [Int64: Int], session: ReadSession) throws(RealmFileError) -> [ColumnInfo]
    {
        let top = entry.top
        let className = entry.name.hasPrefix("class_") ? String(entry.name.dropFirst(6)) : entry.name
        let spec = try session.node(try top.ref(0, "spec"), "spec")
        guard spec.hasRefs, spec.count >= 6 else {
            throw .corrupt("the spec at 0x\(String(spec.ref, radix: 16)) is malformed\(session.whereText)")
        }
        let types = try session.integerNode(try spec.ref(0, "column types"), "column types")
        let columnNames = try names(try session.node(try spec.ref(1, "column names"), "column names"),
                                    "column names", session: session)
        let attributes = try session.integerNode(try spec.ref(2, "column attributes"), "column attributes")
        let enumKeys = try spec.optionalRef(4, "enum keys").flatMap { $0 == 0 ? nil : $0 }
            .map { (ref: Int) throws(RealmFileError) -> Node in try session.integerNode(ref, "enum keys") }
        let keys = try session.integerNode(try spec.ref(5, "column keys"), "column keys")
        guard attributes.count >= types.count, keys.count >= types.count else {
            throw .corrupt("the spec's arrays disagree on the column count\(session.whereText)")
        }
        let indexRefs = try top.optionalRef(4, "search indexes").flatMap { $0 == 0 ? nil : $0 }
            .map { (ref: Int) throws(RealmFileError) -> Node in try session.integerNode(ref, "search indexes") }
        let oppositeTables = try top.optionalRef(7, "link targets").flatMap { $0 == 0 ? nil : $0 }
            .map { (ref: Int) throws(RealmFileError) -> Node in try session.integerNode(ref, "link targets") }

        var result: [ColumnInfo] = []
        var nameIndex = 0
        for specIndex in 0..<types.count {
            let rawType = types.int(specIndex)
            if rawType & 0xFFFF == Int64(ColumnType.backlink) { continue }
            guard nameIndex < columnNames.count else {
                throw .corrupt("the spec has more columns than names\(session.whereText)")
            }
            let name = columnNames[nameIndex] ?? ""
            nameIndex += 1
            let key = ColumnKey(value: keys.int(specIndex))
            let specAttributes = Int(truncatingIfNeeded: attributes.int(specIndex))
            session.location = "table \(entry.name), column \(name)"

            var target: Int?
            var targetName: String?
            if [ColumnType.link, ColumnType.legacyLinkList].contains(key.columnType) {
                guard let oppositeTables, key.leafIndex < oppositeTables.count,
                      let index = byKey[oppositeTables.int(key.leafIndex)], index < tableNames.count else {
                    throw .corrupt("link column without a valid target table\(session.whereText)")
                }
                target = index
                let full = tableNames[index] ?? ""
                targetName = full.hasPrefix("class_") ? String(full.dropFirst(6)) : full
            }
            guard let element = ElementKind.of(columnType: key.columnType, nullable: key.isNullable, target: target),
                  let type = propertyType(key.columnType) else {
                throw .unsupportedColumnType(class: className, property: name, type: key.columnType)
            }
            let shape: ColumnShape
            let collection: RealmCollectionKind?
            if key.isList || key.columnType == ColumnType.legacyLinkList {
                (shape, collection) = (.list, .list)
            } else if key.isSet {
                (shape, collection) = (.set, .set)
            } else if key.isDictionary {
                (shape, collection) = (.dictionary(intKeys: rawType >> 16 == 0), .dictionary)
            } else {
                (shape, collection) = (.single, nil)
            }
            var enumRef: Int?
            if key.columnType == ColumnType.string, let enumKeys, specIndex < enumKeys.count,
               let ref = try enumKeys.refOrNil(specIndex, "enum keys"), ref != 0 {
                enumRef = ref
            }
            var indexed = false
            if let indexRefs, key.leafIndex < indexRefs.count, let ref = try indexRefs.refOrNil(key.leafIndex, "search index") {
                indexed = ref != 0 && specAttributes & ColumnAttribute.fullTextIndexed == 0
            }
            let property = RealmPropertySchema(
                name: name, type: type, isOptional: key.isNullable, collection: collection,
                objectType: targetName, isPrimaryKey: primaryKey == key, isIndexed: indexed)
            result.append(ColumnInfo(name: name, key: key, element: element, shape: shape, enumKeysRef: enumRef,
                                     property: property))
        }
        session.location = "table \(entry.name)"
        return result
    }

    /// The most names a group or spec holds: tables and columns are indexed with 16 bits
    /// (`Group::key2ndx`, `ColKey`).
    static let maxNames = 1 << 16

    /// The strings of a name array (table or column names): at most `maxNames` (checked
    /// before any is decoded), each valid UTF-8.
    private static func names(_ node: Node, _ what: String, session: ReadSession) throws(RealmFileError) -> [String?] {
        let leaf = try StringLeaf(node: node, session: session, nullable: false)
        guard leaf.count <= maxNames else {
            throw .corrupt("the \(what) claim \(leaf.count) entries (at most \(maxNames))\(session.whereText)")
        }
        do {
            return try leaf.allStrings(session: session)
        } catch {
            guard case let .invalidValue(_, _, _, reason) = error else { throw error }
            throw .corrupt("the \(what) hold \(reason)\(session.whereText)")
        }
    }

    private static func propertyType(_ columnType: Int) -> RealmPropertyType? {
        switch columnType {
        case ColumnType.int: return .int
        case ColumnType.bool: return .bool
        case ColumnType.string: return .string
        case ColumnType.binary: return .data
        case ColumnType.mixed: return .mixed
        case ColumnType.timestamp: return .date
        case ColumnType.float: return .float
        case ColumnType.double: return .double
        case ColumnType.decimal: return .decimal
        case ColumnType.link, ColumnType.legacyLinkList, ColumnType.typedLink: return .object
        case ColumnType.objectId: return .objectId
        case ColumnType.uuid: return .uuid
        default: return nil
        }
    }
}
