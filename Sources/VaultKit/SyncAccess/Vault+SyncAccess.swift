import Foundation
import VaultCore

/// A property's stored value as sync reads and writes it (SPI for `VaultSync`).
@_spi(VaultSync)
public enum StoredPropertyValue: Sendable, Hashable {
    /// A column: a scalar as stored, a to-one link as its target's row id (or null).
    case column(DatabaseValue)
    /// A list's elements in order, a set's members, or a map's entries (keys
    /// set); object elements as row ids.
    case entries([StoredEntry])
}

/// One entry of a stored collection (SPI for `VaultSync`).
@_spi(VaultSync)
public struct StoredEntry: Sendable, Hashable {
    /// The map key (nil for lists and sets).
    public var key: String?
    /// The element as stored (an object as its row id).
    public var value: DatabaseValue

    /// An entry with `value` under `key`.
    public init(key: String? = nil, value: DatabaseValue) {
        self.key = key
        self.value = value
    }
}

@_spi(VaultSync)
extension Vault {
    // MARK: Reading

    /// The schema of the class named `className` in this vault (registered or stored).
    public func storedSchema(named className: String) -> ObjectSchema? {
        schema(named: className) ?? dynamicSchema(named: className)
    }

    /// The stored values of every property of one row (LinkingObjects left out);
    /// nil when the row does not exist.
    public func storedRow(className: String, rowID: Int64) throws -> [String: StoredPropertyValue]? {
        guard let schema = storedSchema(named: className) else { return nil }
        guard let values = try loadRow(schema, rowID: rowID).get() else { return nil }
        var row: [String: StoredPropertyValue] = [:]
        for (index, property) in schema.properties.enumerated() where property.originProperty == nil {
            if property.collectionKind != nil {
                let binding = CollectionBinding(vault: self, owner: schema, ownerRowID: rowID, propertyIndex: index)
                let entries = try withDatabase { db in
                    try db.cachedStatement(binding.selectEntriesSQL).fetchAll([.integer(rowID)]).map { StoredEntry(key: $0[1].string, value: $0[2]) }
                }
                row[property.name] = .entries(entries)
            } else {
                row[property.name] = .column(values[index])
            }
        }
        return row
    }

    /// Every row id of `className`, ascending.
    public func storedRowIDs(className: String) throws -> [Int64] {
        guard let schema = storedSchema(named: className) else { return [] }
        return try withDatabase { db in try db.fetchAll("SELECT \"_vk_id\" FROM \(schema.tableName) ORDER BY \"_vk_id\"").compactMap { $0[0].int64 } }
    }

    /// The row id of the object of `className` whose primary key is stored as `primaryKey`.
    public func storedRowID(className: String, primaryKey: DatabaseValue) throws -> Int64? {
        guard let schema = storedSchema(named: className), schema.primaryKeyIndex != nil else { return nil }
        return try withDatabase { db in try schema.statement(.selectByPrimaryKey, on: db).fetchAll([primaryKey]).first?[0].int64 }
    }

    /// Lends the vault's connection (the write transaction's, inside one) to sync's
    /// own table layer, which keeps its bookkeeping in `_vaultkit_sync_` tables written
    /// in the same transactions as the objects. VaultKit runs no SQL it is handed:
    /// every other operation of this interface is typed.
    public func withSyncConnection<T>(_ body: (Database) throws -> T) throws -> T {
        try withDatabase(body)
    }

    /// A stored mixed value (a column or a collection element of an `AnyVaultValue` property) decoded.
    public static func storedMixed(_ stored: DatabaseValue) throws -> MixedValue {
        do { return try MixedCodec.decode(stored) } catch { throw VaultObjectError.invalidValue(className: "", property: "", reason: "a stored mixed value does not decode") }
    }

    /// The stored form of a mixed value.
    public static func storedMixedValue(_ value: MixedValue) -> DatabaseValue { MixedCodec.encode(value) }

    // MARK: Writing (inside a write transaction)

    /// Inserts an object of `className` with primary key `primaryKey` and every
    /// other property at its type's zero value; returns its row id.
    public func storedInsert(className: String, primaryKey: DatabaseValue) throws -> Int64 {
        guard let schema = storedSchema(named: className), let pk = schema.primaryKeyIndex else {
            throw VaultObjectError.invalidValue(className: className, property: "", reason: "the class is not in this vault's schema with a primary key")
        }
        var values = schema.accessors.map(\.defaultEncoded)
        values[pk] = primaryKey
        let columns = schema.columnIndexes.map { values[$0] }
        let rowID = try withDatabase { db -> Int64 in
            try schema.statement(.insert, on: db).execute(columns)
            return db.lastInsertedRowID
        }
        bumpContentVersion()
        return rowID
    }

    /// Inserts an embedded object of `className` with every property at its
    /// type's zero value; returns its row id (link it from its owner at once).
    public func storedInsertEmbedded(className: String) throws -> Int64 {
        guard let schema = storedSchema(named: className), schema.isEmbedded else {
            throw VaultObjectError.invalidValue(className: className, property: "", reason: "the class is not an embedded class of this vault")
        }
        let values = schema.accessors.map(\.defaultEncoded)
        let rowID = try withDatabase { db -> Int64 in
            try schema.statement(.insert, on: db).execute(schema.columnIndexes.map { values[$0] })
            return db.lastInsertedRowID
        }
        bumpContentVersion()
        return rowID
    }

    /// The object (class and row) that holds the embedded object `rowID` of
    /// `className`, in a to-one property, a list or a map; nil when none does.
    public func storedOwner(ofEmbedded className: String, rowID: Int64) throws -> (className: String, rowID: Int64)? {
        for owner in session.schemas.byName.values.sorted(by: { $0.className < $1.className }) {
            for property in owner.properties where property.isEmbeddedLink && property.objectClassName == className {
                let sql = property.collectionKind == nil
                    ? "SELECT \"_vk_id\" FROM \(owner.tableName) WHERE \(property.columnSQL) = ?"
                    : "SELECT \"_vk_owner\" FROM \(owner.collectionTableName(for: property)) WHERE \"value\" = ?"
                let found = try withDatabase { db in try db.cachedStatement(sql).fetchAll([.integer(rowID)]).first?[0].int64 }
                if let found { return (owner.className, found) }
            }
        }
        return nil
    }

    /// Deletes the row `rowID` of `className` (links to it become nil, collections drop it).
    public func storedDelete(className: String, rowID: Int64) throws {
        guard let schema = storedSchema(named: className) else { return }
        try withDatabase { db in try schema.statement(.delete, on: db).execute([.integer(rowID)]) }
        try removeMixedLinks(to: schema, rowID: rowID)
        bumpContentVersion()
    }

    /// Sets a column property (a link as its target's row id, or null).
    public func storedSet(className: String, rowID: Int64, property name: String, value: DatabaseValue) throws {
        guard let schema = storedSchema(named: className), let index = schema.index(ofProperty: name), schema.properties[index].isColumn else {
            throw VaultObjectError.invalidValue(className: className, property: name, reason: "no such stored property")
        }
        session.write.capture?.willWrite(className: schema.className, rowID: rowID, propertyIndexes: CollectionOfOne(index), isUpdateStatement: true)
        try withDatabase { db in try schema.updateStatement(forProperty: index, on: db).execute([value, .integer(rowID)]) }
        bumpContentVersion()
    }

    /// Rewrites a list to `elements`, keeping the entries of elements that stay
    /// (matched in order, longest common subsequence first), so observers see
    /// the insertions and deletions a person would have made.
    public func storedRewriteList(className: String, rowID: Int64, property name: String, elements: [DatabaseValue]) throws {
        let binding = try collectionBinding(className: className, rowID: rowID, property: name, kind: .list)
        let old = try withDatabase { db in
            try db.cachedStatement(binding.selectEntriesSQL).fetchAll([.integer(rowID)]).map { (id: $0[0].int64 ?? 0, value: $0[2]) }
        }
        let kept = StoredListDiff.keptPairs(old: old.map(\.value), new: elements)
        var entryForNew = [Int64?](repeating: nil, count: elements.count)
        for (oldIndex, newIndex) in kept { entryForNew[newIndex] = old[oldIndex].id }
        let keptIDs = Set(entryForNew.compactMap { $0 })
        guard old.count != elements.count || keptIDs.count != old.count || !zip(old.map(\.id), entryForNew).allSatisfy({ $0 == $1 }) else { return }
        recordCollectionWrite(binding)
        try writeListEntries(binding, old: old.map(\.id), entries: zip(entryForNew, elements).map { (entryID: $0, value: $0 == nil ? $1 : .null) })
    }

    /// Adds and removes members of a set.
    public func storedUpdateSet(className: String, rowID: Int64, property name: String, adding: [DatabaseValue], removing: [DatabaseValue]) throws {
        try updateEntries(className: className, rowID: rowID, property: name, kind: .set, deleteSQL: \.deleteSetValueSQL,
                          deleting: removing, inserting: adding.map { [$0] })
    }

    /// Sets and removes keys of a map.
    public func storedUpdateMap(className: String, rowID: Int64, property name: String, setting: [StoredEntry], removing: [String]) throws {
        try updateEntries(className: className, rowID: rowID, property: name, kind: .map, deleteSQL: \.deleteMapKeySQL,
                          deleting: removing.map { .text($0) }, inserting: setting.map { [.text($0.key ?? ""), $0.value] })
    }

    /// Deletes entries (owner, key or value) and inserts entries (owner, columns…) of a set or map.
    private func updateEntries(className: String, rowID: Int64, property name: String, kind: CollectionKind,
                               deleteSQL: KeyPath<CollectionBinding, String>, deleting: [DatabaseValue], inserting: [[DatabaseValue]]) throws {
        guard !deleting.isEmpty || !inserting.isEmpty else { return }
        let binding = try collectionBinding(className: className, rowID: rowID, property: name, kind: kind)
        recordCollectionWrite(binding)
        try withDatabase { db in
            let delete = try db.cachedStatement(binding[keyPath: deleteSQL])
            for value in deleting { try delete.execute([.integer(rowID), value]) }
            let insert = try db.cachedStatement(binding.insertEntrySQL)
            for columns in inserting { try insert.execute([.integer(rowID)] + columns) }
        }
        bumpContentVersion()
    }

    private func collectionBinding(className: String, rowID: Int64, property name: String, kind: CollectionKind) throws -> CollectionBinding {
        guard let schema = storedSchema(named: className), let index = schema.index(ofProperty: name),
              schema.properties[index].collectionKind == kind else {
            throw VaultObjectError.invalidValue(className: className, property: name, reason: "no such stored \(kind.rawValue) property")
        }
        return CollectionBinding(vault: self, owner: schema, ownerRowID: rowID, propertyIndex: index)
    }
}

/// Which elements of a list stay when it becomes another (SPI for `VaultSync`).
@_spi(VaultSync)
public enum StoredListDiff {
    /// Pairs (old index, new index) of a longest common subsequence of `old`
    /// and `new`, in order. The common prefix and suffix are matched directly;
    /// the middle by dynamic programming when it is small, else by equal
    /// values in order (still a valid, if not the longest, subsequence).
    public static func keptPairs<Element: Hashable>(old: [Element], new: [Element]) -> [(Int, Int)] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        var pairs = (0..<prefix).map { ($0, $0) }
        let oldMiddle = Array(old[prefix..<(old.count - suffix)])
        let newMiddle = Array(new[prefix..<(new.count - suffix)])
        if !oldMiddle.isEmpty, !newMiddle.isEmpty {
            if oldMiddle.count * newMiddle.count <= 4_000_000 {
                pairs += longestCommonSubsequence(oldMiddle, newMiddle).map { ($0 + prefix, $1 + prefix) }
            } else {
                var next = 0
                for (index, element) in oldMiddle.enumerated() {
                    guard let found = newMiddle[next...].firstIndex(of: element) else { continue }
                    pairs.append((index + prefix, found + prefix))
                    next = found + 1
                    if next == newMiddle.count { break }
                }
            }
        }
        pairs += (0..<suffix).map { (old.count - suffix + $0, new.count - suffix + $0) }
        return pairs
    }

    /// Between two kept pairs (and before the first, after the last), the
    /// elements that go and those that come, paired up in order: replacements
    /// (`list[i] = x`) rather than a removal and an insertion.
    public static func replacements(kept: [(Int, Int)], oldCount: Int, newCount: Int) -> [(Int, Int)] {
        zip([(-1, -1)] + kept, kept + [(oldCount, newCount)]).flatMap { previous, next in
            Array(zip((previous.0 + 1)..<next.0, (previous.1 + 1)..<next.1))
        }
    }

    private static func longestCommonSubsequence<Element: Hashable>(_ a: [Element], _ b: [Element]) -> [(Int, Int)] {
        // lengths[i][j]: the LCS length of a[i...] and b[j...], in one flat array.
        let width = b.count + 1
        var lengths = [Int32](repeating: 0, count: (a.count + 1) * width)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i * width + j] = a[i] == b[j] ? lengths[(i + 1) * width + j + 1] + 1
                    : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] {
                pairs.append((i, j))
                i += 1
                j += 1
            } else if lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }
}
