/// What the reader knows about the tables of a file after opening it.
struct FileSchema: Sendable {
    /// Tables by their position in the group (nil where the group has a deleted slot).
    let tables: [TableInfo?]
    /// Table positions by table key.
    let tablesByKey: [Int64: Int]

    static let empty = FileSchema(tables: [], tablesByKey: [:])

    func table(at index: Int) -> TableInfo? {
        index >= 0 && index < tables.count ? tables[index] : nil
    }

    func table(withKey key: Int64) -> TableInfo? {
        guard let index = tablesByKey[key] else { return nil }
        return table(at: index)
    }

    func table(named name: String) -> TableInfo? {
        for case let table? in tables where table.name == name { return table }
        return nil
    }
}

/// How a table's objects live (realm-core `table.hpp` `Table::Type`, flags slot 12 bits 0–1).
enum TableKind: Sendable {
    case topLevel
    case embedded
    case asymmetric
}

/// One table of the group.
struct TableInfo: Sendable {
    /// The position in the group's table arrays.
    let index: Int
    /// The table name (`class_Post`, `metadata`, …).
    let name: String
    /// The table key (table top slot 3).
    let key: Int64
    /// The root of the table's cluster tree (table top slot 2; 0 if absent).
    let clusterRoot: Int
    let kind: TableKind
    /// Public columns in spec order (backlink columns are left out). Empty for tables
    /// whose columns were not read (tables that are neither classes nor `metadata`).
    let columns: [ColumnInfo]
    /// The primary key's position in `columns`.
    let primaryKeyColumn: Int?

    /// The class name: the table name without `class_`, or the whole name for other tables.
    var className: String {
        name.hasPrefix("class_") ? String(name.dropFirst(6)) : name
    }

    var isClass: Bool { name.hasPrefix("class_") }
}

/// How a column's values are shaped.
enum ColumnShape: Sendable, Equatable {
    case single
    case list
    case set
    /// A dictionary; `intKeys` when the spec records integer keys.
    case dictionary(intKeys: Bool)
}

/// One public column.
struct ColumnInfo: Sendable {
    let name: String
    let key: ColumnKey
    let element: ElementKind
    let shape: ColumnShape
    /// The ref of the enum-string key list (spec slot 4), for enum string columns.
    let enumKeysRef: Int?
    let property: RealmPropertySchema
}
