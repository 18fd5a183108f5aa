import Foundation
import VaultCore

/// Realm's `.modified` update policy for what an existing object holds: its
/// embedded objects and its collections are updated where they are, not
/// replaced (Realm Core's "diff" create policy; `.all` replaces them).
///
/// - An embedded object keeps its row: it takes the new object's values (only
///   the properties that differ are written), so accessors to it stay valid and
///   read the new values, and its observers keep observing. The new object
///   becomes another accessor to that row.
/// - A list is updated position by position: an embedded element in place, any
///   other element only where it differs; elements beyond the old count are
///   appended, and surplus ones removed from the end.
/// - A map's given keys are added or updated (an embedded value in place) and
///   its other keys kept; a set's given values are added and its others kept.
/// - A collection in which nothing differs is not written, so it reports no change.
extension Vault {
    /// Updates the embedded object stored in row `rowID` to `object`'s values; returns the stored link.
    func updateEmbeddedInPlace(_ object: ObjectBase, rowID: Int64) throws -> DatabaseValue {
        if let manager = object.manager {
            // The stored object itself (an accessor to the same row): nothing to copy.
            if manager.rowID == rowID, manager.vault.path == path, !manager.isDeleted { return .integer(rowID) }
            return storedReference(to: object)
        }
        var source = object
        // Inside `create`, the caller's own unmanaged object stays unmanaged: its copy is stored.
        if let given = session.write.nestedWrite?.given, !given.madeHere(object) { source = given.copy(ofUnmanaged: object) }
        let schema = try registeredSchema(for: type(of: source))
        return .integer(try insertRow(source, schema: schema, policy: .modified,
                                      onlyProperties: session.write.nestedWrite?.given?.properties(of: source), existingRowID: rowID))
    }

    /// Writes `entries` into an existing object's collection under `.modified` (see above).
    func mergeCollection(_ binding: CollectionBinding, entries: [(key: String?, value: Any)]) throws {
        let property = binding.property
        let owner = DatabaseValue.integer(binding.ownerRowID)
        let old = collectionEntries(binding)
        var writes: [(sql: String, arguments: [DatabaseValue])] = []
        func encoded(_ element: Any) -> DatabaseValue { encodeElement(element, property: property, owner: binding.owner) }
        func embeddedRow(_ stored: DatabaseValue?, _ element: Any) -> (row: Int64, object: ObjectBase)? {
            guard property.isEmbeddedLink, let row = stored?.int64, let object = element as? ObjectBase else { return nil }
            return (row, object)
        }
        switch property.collectionKind {
        case .list:
            for (position, entry) in entries.enumerated() {
                guard position < old.count else {
                    writes.append((binding.appendToListSQL, [owner, encoded(entry.value)]))
                    continue
                }
                if let embedded = embeddedRow(old[position].value, entry.value) {
                    _ = try updateEmbeddedInPlace(embedded.object, rowID: embedded.row)
                    continue
                }
                let value = encoded(entry.value)
                if value != old[position].value { writes.append((binding.updateEntryValueSQL, [value, .integer(old[position].entryID)])) }
            }
            for surplus in old.dropFirst(entries.count).reversed() { writes.append((binding.deleteEntrySQL, [.integer(surplus.entryID)])) }
        case .map:
            var current: [String: DatabaseValue] = [:]
            for entry in old { if let key = entry.key { current[key] = entry.value } }
            for case let (key?, element) in entries {
                if let embedded = embeddedRow(current[key], element) {
                    _ = try updateEmbeddedInPlace(embedded.object, rowID: embedded.row)
                    continue
                }
                let value = encoded(element)
                if current[key] != value { writes.append((binding.insertEntrySQL, [owner, .text(key), value])) }
            }
        default:
            var present = Set(old.map(\.value))
            for entry in entries {
                let value = encoded(entry.value)
                if present.insert(value).inserted { writes.append((binding.insertEntrySQL, [owner, value])) }
            }
        }
        guard !writes.isEmpty else { return }
        recordCollectionWrite(binding)
        try withDatabase { db in
            for write in writes { try db.cachedStatement(write.sql).execute(write.arguments) }
        }
        bumpContentVersion()
    }
}
