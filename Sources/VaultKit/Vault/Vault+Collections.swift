import Foundation
import VaultCore

/// Reading and writing the entries of managed lists, sets and maps (their
/// side tables; the SQL is in Storage/CollectionTables).
extension Vault {
    /// The stored entries of a managed collection, in order, with their entry row ids.
    func collectionEntries(_ binding: CollectionBinding) -> [(entryID: Int64, key: String?, value: DatabaseValue)] {
        query { db in
            try db.cachedStatement(binding.selectEntriesSQL).fetchAll([.integer(binding.ownerRowID)]).map { ($0[0].int64 ?? 0, $0[1].string, $0[2]) }
        }
    }

    /// The stored value of one key of a managed map; nil when the map has no such key.
    func mapEntryValue(_ binding: CollectionBinding, key: String) -> DatabaseValue? {
        query { db in
            try db.cachedStatement(binding.selectMapValueSQL).fetchAll([.integer(binding.ownerRowID), .text(key)]).first.map { $0[0] }
        }
    }

    /// Rewrites a managed list to `entries`, keeping the rows of kept entries
    /// (so embedded elements are moved, never deleted and re-created), deleting
    /// removed ones and inserting new ones.
    func rewriteList(_ binding: CollectionBinding, old: [Int64], entries: [(entryID: Int64?, element: Any)]) {
        guard requireCollectionWrite(binding) else { return }
        recordCollectionWrite(binding)
        // Encode first: encoding may add linked objects, which takes the connection itself.
        let encoded: [(entryID: Int64?, value: DatabaseValue)] = entries.map { entry in
            (entry.entryID, entry.entryID == nil ? encodeElement(entry.element, property: binding.property, owner: binding.owner) : .null)
        }
        do {
            try writeListEntries(binding, old: old, entries: encoded)
        } catch {
            deferError(error)
        }
    }

    /// The statements of a list rewrite: entries not kept deleted, kept ones
    /// moved to their new positions, new ones (no entry id) inserted.
    func writeListEntries(_ binding: CollectionBinding, old: [Int64], entries: [(entryID: Int64?, value: DatabaseValue)]) throws {
        try withDatabase { db in
            let kept = Set(entries.compactMap(\.entryID))
            let delete = try db.cachedStatement(binding.deleteEntrySQL)
            for id in old where !kept.contains(id) { try delete.execute([.integer(id)]) }
            let move = try db.cachedStatement(binding.moveEntrySQL)
            let insert = try db.cachedStatement(binding.insertEntrySQL)
            let table = binding.owner.unquotedCollectionTableName(for: binding.property)
            for (position, entry) in entries.enumerated() {
                if let id = entry.entryID {
                    session.write.capture?.willMoveEntry(table: table, rowID: id)
                    try move.execute([.integer(Int64(position)), .integer(id)])
                } else {
                    try insert.execute([.integer(binding.ownerRowID), .integer(Int64(position)), entry.value])
                }
            }
        }
        bumpContentVersion()
    }

    /// Replaces every entry of a managed collection (inside a write).
    func replaceCollection(_ binding: CollectionBinding, with entries: [(key: String?, value: DatabaseValue)]) {
        guard requireCollectionWrite(binding) else { return }
        recordCollectionWrite(binding)
        storeCollection(binding, entries: entries, replacing: true)
    }

    /// Writes a collection's entries (replacing what is there) without the write-transaction check.
    func storeCollection(_ binding: CollectionBinding, entries: [(key: String?, value: DatabaseValue)], replacing: Bool) {
        do {
            try withDatabase { db in
                if replacing {
                    try db.cachedStatement(binding.deleteAllEntriesSQL).execute([.integer(binding.ownerRowID)])
                }
                let insert = try db.cachedStatement(binding.insertEntrySQL)
                for (position, entry) in entries.enumerated() {
                    try insert.execute(ObjectSchema.collectionInsertArguments(binding.property.collectionKind, owner: binding.ownerRowID,
                                                                              position: position, key: entry.key, value: entry.value))
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
        recordCollectionWrite(binding)
        do {
            try withDatabase { db in try db.cachedStatement(sql).execute(arguments) }
            bumpContentVersion()
        } catch {
            deferError(error)
        }
    }

    /// Change capture: the owner's collection property was written.
    func recordCollectionWrite(_ binding: CollectionBinding) {
        session.write.capture?.willWrite(className: binding.owner.className, rowID: binding.ownerRowID,
                                   propertyIndexes: CollectionOfOne(binding.propertyIndex), isUpdateStatement: false)
    }

    private func requireCollectionWrite(_ binding: CollectionBinding) -> Bool {
        precondition(isInWriteTransaction, "Cannot modify \(binding.owner.className).\(binding.property.name) outside a write transaction: wrap the change in vault.write { … }")
        return !hasDeferredError
    }

    /// Encodes a collection element for storage, adding linked objects and copying embedded ones.
    func encodeElement(_ element: Any, property: Property, owner: ObjectSchema) -> DatabaseValue {
        if property.type == .object {
            // A DynamicObject stands for a stored object of its class: it can only be linked as itself.
            if let dynamic = element as? DynamicObject, dynamic.manager?.schema.className != property.objectClassName {
                deferError(VaultObjectError.invalidValue(className: owner.className, property: property.name,
                                                         reason: "a DynamicObject of class \(dynamic.className) cannot be an element of a collection of \(property.objectClassName ?? "objects")"))
                return .null
            }
            return storedReference(to: element as? ObjectBase)
        }
        if property.type == .mixed {
            return encodeMixed(element as? AnyVaultValue ?? .none, property: property, schema: owner)
        }
        guard let value = element as? any PersistableValue else { return .null }
        return value._vaultEncoded
    }

    /// Decodes a stored element into `Element`.
    func decodeElement<Element: PersistableValue>(_ stored: DatabaseValue, as _: Element.Type, property: Property,
                                                  entry: NestedMixedCollection.Root? = nil) -> Element? {
        if property.type == .mixed {
            return (liveMixed(stored: stored, root: entry) as Any) as? Element
        }
        if property.type == .object {
            guard let rowID = stored.int64, let target = property.objectClassName else { return Element._vaultDecode(.null) }
            // A collection of DynamicObjects (the dynamic API's) holds them whatever the class.
            if Element._vaultLinkTarget == DynamicObject.self { return (dynamicObject(className: target, rowID: rowID) as Any) as? Element }
            return (object(className: target, rowID: rowID) as Any) as? Element
        }
        return Element._vaultDecode(stored)
    }
}
