import Foundation

/// What a managed collection is bound to: its owner's row and the property.
struct CollectionBinding {
    let vault: Vault
    let owner: ObjectSchema
    let ownerRowID: Int64
    let propertyIndex: Int
    var property: Property { owner.properties[propertyIndex] }
    var table: String { owner.collectionTableName(for: property) }
}

/// List, MutableSet, Map and LinkingObjects: properties stored outside the owner's row.
protocol PersistableCollection: PersistableValue {
    /// The collection kind; `nil` for LinkingObjects (computed, not stored).
    static var collectionKind: CollectionKind? { get }
    /// The element (for maps: the value) type.
    static var elementType: any PersistableValue.Type { get }
    /// A live instance bound to a managed owner.
    static func makeManaged(_ binding: CollectionBinding) -> Self
    /// The entries of an unmanaged instance: (map key or nil, element).
    var unmanagedEntries: [(key: String?, value: Any)] { get }
    /// Fills an unmanaged instance from an array (maps: a dictionary); false if an element does not fit.
    func assignUnmanaged(from value: Any) -> Bool
}

extension PersistableCollection {
    /// Decodes a stored scalar element (links are resolved by the vault).
    static func decodeElementBoxed(_ stored: DatabaseValue) -> Any? {
        func decode<E: PersistableValue>(_ type: E.Type) -> Any? { E.vaultDecode(stored) }
        return decode(elementType)
    }
}

extension PersistableCollection {
    public static var vaultPropertyType: PropertyType { elementType.vaultPropertyType }
    public static var vaultIsOptional: Bool { elementType.vaultIsOptional }
    public static var vaultLinkTarget: ObjectBase.Type? { elementType.vaultLinkTarget }
    public static func vaultDecode(_ value: DatabaseValue) -> Self? { nil }
    public var vaultEncoded: DatabaseValue { .null }
}

extension Vault {
    /// The stored entries of a managed collection, in order, with their entry row ids.
    func collectionEntries(_ binding: CollectionBinding) -> [(entryID: Int64, key: String?, value: DatabaseValue)] {
        let kind = binding.property.collectionKind
        let sql: String
        switch kind {
        case .list: sql = "SELECT rowid, NULL, \"value\" FROM \(binding.table) WHERE \"_vk_owner\" = ? ORDER BY \"_vk_position\", rowid"
        case .map: sql = "SELECT rowid, \"key\", \"value\" FROM \(binding.table) WHERE \"_vk_owner\" = ? ORDER BY \"key\""
        default: sql = "SELECT rowid, NULL, \"value\" FROM \(binding.table) WHERE \"_vk_owner\" = ? ORDER BY rowid"
        }
        return query { db in
            try db.cachedStatement(sql).fetchAll([.integer(binding.ownerRowID)]).map { ($0[0].int64 ?? 0, $0[1].string, $0[2]) }
        }
    }

    /// Rewrites a managed list to `entries`, keeping the rows of kept entries
    /// (so embedded elements are moved, never deleted and re-created), deleting
    /// removed ones and inserting new ones.
    func rewriteList(_ binding: CollectionBinding, old: [Int64], entries: [(entryID: Int64?, element: Any)]) {
        guard requireCollectionWrite(binding) else { return }
        // Encode first: encoding may add linked objects, which takes the connection itself.
        let encoded: [(entryID: Int64?, value: DatabaseValue)] = entries.map { entry in
            (entry.entryID, entry.entryID == nil ? encodeElement(entry.element, property: binding.property) : .null)
        }
        do {
            try withDatabase { db in
                let kept = Set(entries.compactMap(\.entryID))
                let delete = try db.cachedStatement("DELETE FROM \(binding.table) WHERE rowid = ?")
                for id in old where !kept.contains(id) { try delete.execute([.integer(id)]) }
                let move = try db.cachedStatement("UPDATE \(binding.table) SET \"_vk_position\" = ? WHERE rowid = ?")
                let insert = try db.cachedStatement(binding.owner.collectionInsertSQL(for: binding.property))
                for (position, entry) in encoded.enumerated() {
                    if let id = entry.entryID {
                        try move.execute([.integer(Int64(position)), .integer(id)])
                    } else {
                        try insert.execute([.integer(binding.ownerRowID), .integer(Int64(position)), entry.value])
                    }
                }
            }
            bumpContentVersion()
        } catch {
            deferError(error)
        }
    }

    /// Replaces every entry of a managed collection (inside a write).
    func replaceCollection(_ binding: CollectionBinding, with entries: [(key: String?, value: DatabaseValue)]) {
        guard requireCollectionWrite(binding) else { return }
        storeCollection(binding, entries: entries, replacing: true)
    }

    /// Writes a collection's entries (replacing what is there) without the write-transaction check.
    func storeCollection(_ binding: CollectionBinding, entries: [(key: String?, value: DatabaseValue)], replacing: Bool) {
        do {
            try withDatabase { db in
                if replacing {
                    try db.cachedStatement("DELETE FROM \(binding.table) WHERE \"_vk_owner\" = ?").execute([.integer(binding.ownerRowID)])
                }
                let insert = try db.cachedStatement(binding.owner.collectionInsertSQL(for: binding.property))
                for (position, entry) in entries.enumerated() {
                    switch binding.property.collectionKind {
                    case .list: try insert.execute([.integer(binding.ownerRowID), .integer(Int64(position)), entry.value])
                    case .map: try insert.execute([.integer(binding.ownerRowID), .text(entry.key ?? ""), entry.value])
                    default: try insert.execute([.integer(binding.ownerRowID), entry.value])
                    }
                }
            }
            bumpContentVersion()
        } catch {
            deferError(error)
        }
    }

    /// Runs one statement on a managed collection's table (inside a write).
    func mutateCollection(_ binding: CollectionBinding, _ sql: String, _ arguments: [DatabaseValue]) {
        guard requireCollectionWrite(binding) else { return }
        do {
            try withDatabase { db in try db.cachedStatement(sql).execute(arguments) }
            bumpContentVersion()
        } catch {
            deferError(error)
        }
    }

    private func requireCollectionWrite(_ binding: CollectionBinding) -> Bool {
        precondition(isInWriteTransaction, "Cannot modify \(binding.owner.className).\(binding.property.name) outside a write transaction: wrap the change in vault.write { … }")
        return !hasDeferredError
    }

    /// Encodes a collection element for storage, adding linked objects and copying embedded ones.
    func encodeElement(_ element: Any, property: Property) -> DatabaseValue {
        if property.type == .object {
            return storedReference(to: element as? ObjectBase)
        }
        guard let value = element as? any PersistableValue else { return .null }
        return value.vaultEncoded
    }

    /// Decodes a stored element into `Element`.
    func decodeElement<Element: PersistableValue>(_ stored: DatabaseValue, as _: Element.Type, property: Property) -> Element? {
        if property.type == .object {
            guard let rowID = stored.int64, let target = property.objectClassName else { return Element.vaultDecode(.null) }
            return (object(className: target, rowID: rowID) as Any) as? Element
        }
        return Element.vaultDecode(stored)
    }
}
