/// A column key (realm-core `keys.hpp` `ColKey`): a 64-bit value packing
///
///     bits 0–15   leaf index: the column's slot in every cluster (slot = index + 1)
///     bits 16–21  column type (`column_type.hpp`)
///     bits 22–29  attributes (`ColumnAttrMask`: nullable, list, dictionary, set, …)
///     bits 30–61  a tag that makes keys unique over the table's history
struct ColumnKey: Hashable, Sendable {
    let value: Int64

    var leafIndex: Int { Int(value & 0xFFFF) }
    var columnType: Int { Int((value >> 16) & 0x3F) }
    var attributes: Int { Int((value >> 22) & 0xFF) }

    var isNullable: Bool { attributes & ColumnAttribute.nullable != 0 }
    var isList: Bool { attributes & ColumnAttribute.list != 0 }
    var isDictionary: Bool { attributes & ColumnAttribute.dictionary != 0 }
    var isSet: Bool { attributes & ColumnAttribute.set != 0 }
}

/// Column attribute bits (realm-core `column_type.hpp` `ColumnAttr`).
enum ColumnAttribute {
    static let indexed = 1
    static let unique = 2
    static let strongLinks = 8
    static let nullable = 16
    static let list = 32
    static let dictionary = 64
    static let set = 128
    static let fullTextIndexed = 256
}

/// Column types (realm-core `column_type.hpp`; 13 is the link-list type of formats before 24,
/// `Spec::migrate_column_keys` in `spec.cpp`).
enum ColumnType {
    static let int = 0
    static let bool = 1
    static let string = 2
    static let binary = 4
    static let mixed = 6
    static let timestamp = 8
    static let float = 9
    static let double = 10
    static let decimal = 11
    static let link = 12
    static let legacyLinkList = 13
    static let backlink = 14
    static let objectId = 15
    static let typedLink = 16
    static let uuid = 17
}

/// Data types inside a mixed value (realm-core `data_type.hpp`): the column types of the
/// scalar kinds plus 19 list, 20 set, 21 dictionary for nested collections (format 24).
enum MixedDataType {
    static let list = 19
    static let set = 20
    static let dictionary = 21
}
