import Foundation
import VaultCore

/// The SQL of a list, set or map property's side table (see the storage
/// mapping essay): `"_vk_owner"` is the owner's row id; lists add
/// `"_vk_position"`, maps `"key"`; `"value"` is the element (a row id for objects).
extension CollectionBinding {
    /// The entries of the owner's collection in order: (entry row id, map key or NULL, value).
    var selectEntriesSQL: String {
        switch property.collectionKind {
        case .list: "SELECT rowid, NULL, \"value\" FROM \(table) WHERE \"_vk_owner\" = ? ORDER BY \"_vk_position\", rowid"
        case .map: "SELECT rowid, \"key\", \"value\" FROM \(table) WHERE \"_vk_owner\" = ? ORDER BY \"key\""
        default: "SELECT rowid, NULL, \"value\" FROM \(table) WHERE \"_vk_owner\" = ? ORDER BY rowid"
        }
    }

    /// Inserts one entry: (owner, position, value) for lists, (owner, key, value) for maps, (owner, value) for sets.
    var insertEntrySQL: String { owner.collectionInsertSQL(for: property) }

    /// Appends (owner ?1, value ?2) after the list's last position.
    var appendToListSQL: String {
        "INSERT INTO \(table) (\"_vk_owner\", \"_vk_position\", \"value\") VALUES (?1, (SELECT coalesce(max(\"_vk_position\"), -1) + 1 FROM \(table) WHERE \"_vk_owner\" = ?1), ?2)"
    }

    /// Moves a list entry (position, entry row id).
    var moveEntrySQL: String { "UPDATE \(table) SET \"_vk_position\" = ? WHERE rowid = ?" }

    /// Deletes one entry by its row id.
    var deleteEntrySQL: String { "DELETE FROM \(table) WHERE rowid = ?" }

    /// Deletes the set entry (owner, value).
    var deleteSetValueSQL: String { "DELETE FROM \(table) WHERE \"_vk_owner\" = ? AND \"value\" IS ?" }

    /// Deletes the map entry (owner, key).
    var deleteMapKeySQL: String { "DELETE FROM \(table) WHERE \"_vk_owner\" = ? AND \"key\" = ?" }

    /// Deletes every entry of the owner's collection.
    var deleteAllEntriesSQL: String { "DELETE FROM \(table) WHERE \"_vk_owner\" = ?" }
}
