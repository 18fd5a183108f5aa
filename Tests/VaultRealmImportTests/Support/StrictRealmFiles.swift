import Foundation
import VaultTestSupport

/// Small Realm files built node by node (`SyntheticRealm`), each valid or damaged in one
/// way a file Realm wrote cannot be: what the import's checks must refuse, and the valid
/// twin that shows the refusal is for that one difference.
enum StrictRealmFiles {
    typealias R = SyntheticRealm

    /// Column types and attributes (realm-core `column_type.hpp`, `ColumnAttr`).
    static let int = 0, string = 2, link = 12
    static let nullable = 16, set = 128

    static func column(_ name: String, leaf: Int, type: Int, attributes: Int = 0) -> R.Column {
        R.Column(name: name, type: type, attributes: attributes, key: R.columnKey(leaf: leaf, type: type, attributes: attributes))
    }

    /// `Item`: a required int primary key `_id` and an int `v`, one object per id.
    static func intKeys(_ ids: [Int64]) -> Data {
        var b = R()
        let columns = [column("_id", leaf: 0, type: int), column("v", leaf: 1, type: int)]
        let leaf = b.slots([.tagged(Int64(ids.count)), .ref(b.ints(ids)), .ref(b.ints(ids.map { $0 &* 10 }))])
        let item = b.table(key: 0, columns: columns, cluster: leaf, primaryKey: columns[0].key)
        return b.finish(tables: [("class_Item", item)], format: 24)
    }

    /// `Item`: a string primary key `_id` (nil: null), required unless `optional`, and an int `v`.
    static func stringKeys(_ ids: [String?], optional: Bool = false) -> Data {
        var b = R()
        let columns = [column("_id", leaf: 0, type: string, attributes: optional ? nullable : 0), column("v", leaf: 1, type: int)]
        let leaf = b.slots([.tagged(Int64(ids.count)), .ref(b.shortStrings(ids)), .ref(b.ints(ids.map { _ in 1 }))])
        let item = b.table(key: 0, columns: columns, cluster: leaf, primaryKey: columns[0].key)
        return b.finish(tables: [("class_Item", item)], format: 24)
    }

    /// `Item` without a primary key: a required string `name` given as bytes (nil: null), one object each.
    static func names(_ names: [[UInt8]?], className: String = "Item", property: String = "name") -> Data {
        var b = R()
        let columns = [column(property, leaf: 0, type: string)]
        let leaf = b.slots([.tagged(Int64(names.count)), .ref(b.shortStringBytes(names))])
        let item = b.table(key: 0, columns: columns, cluster: leaf)
        return b.finish(tables: [("class_" + className, item)], format: 24)
    }

    /// `Item` without a primary key: a set of ints `tags`, one object per element list.
    static func intSets(_ sets: [[Int64]]) -> Data {
        var b = R()
        let columns = [column("tags", leaf: 0, type: int, attributes: set)]
        let roots = sets.map { elements in elements.isEmpty ? 0 : b.ints(elements) }
        let leaf = b.slots([.tagged(Int64(sets.count)), .ref(b.slots(roots.map { .ref($0) }))])
        let item = b.table(key: 0, columns: columns, cluster: leaf)
        return b.finish(tables: [("class_Item", item)], format: 24)
    }

    /// `Owner` objects, each with a to-one link `child` (key + 1; 0 = none) to class `Child`,
    /// which has an int `n` and `children` objects and is embedded unless `embedded` is false
    /// (then a link to a missing object is a dangling link). `childKey` gives `Child` a primary key.
    static func owners(links: [Int64], children: Int, embedded: Bool = true, childKey: Bool = false) -> Data {
        var b = R()
        let ownerColumns = [column("child", leaf: 0, type: link, attributes: nullable)]
        let ownerLeaf = b.slots([.tagged(Int64(links.count)), .ref(b.ints(links))])
        let owner = b.table(key: 0, columns: ownerColumns, cluster: ownerLeaf, linkTargets: [1])
        let childColumns = [column("n", leaf: 0, type: int)]
        let childLeaf = b.slots([.tagged(Int64(children)), .ref(b.ints((0..<children).map { Int64($0) + 100 }))])
        let child = b.table(key: 1, columns: childColumns, cluster: childLeaf,
                            primaryKey: childKey ? childColumns[0].key : nil, flags: embedded ? 1 : 0)
        return b.finish(tables: [("class_Owner", owner), ("class_Child", child)], format: 24)
    }
}
