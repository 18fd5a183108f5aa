import Foundation
import VaultCore

/// A class that became an `EmbeddedObject`, or stopped being one, in a migration.
///
/// An embedded object belongs to exactly one parent and is deleted with it.
/// The table stays as it is; what changes is around it: the triggers in the
/// parents' tables that delete embedded objects with their parent (or when
/// replaced, or when their list entry goes) are dropped and created again from
/// the new schema. A class becoming embedded must also satisfy the rule, after
/// the migration block had its chance to fix the data: an object linked from
/// more than one place is an error naming the class (give each parent its own
/// copy in the block); an object linked from nowhere is deleted, as Realm does.
enum EmbeddingChange {
    static func apply(_ changed: [ObjectSchema], schemas: [ObjectSchema], on db: Database) throws {
        for target in changed {
            var references: [String] = []
            for parent in schemas {
                for property in parent.properties where property.objectClassName == target.className && property.originProperty == nil {
                    for prefix in ["_vk_delete_", "_vk_replace_", "_vk_delete_entry_"] {
                        try db.execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(prefix + parent.className + "_" + property.storedName))")
                    }
                    if property.collectionKind == nil {
                        references.append("SELECT \(property.columnSQL) AS value FROM \(parent.tableName) WHERE \(property.columnSQL) IS NOT NULL")
                    } else if property.collectionKind != .set {
                        references.append("SELECT \"value\" AS value FROM \(parent.collectionTableName(for: property)) WHERE \"value\" IS NOT NULL")
                    }
                }
                // IF NOT EXISTS throughout: only the dropped triggers come back, as the new schema wants them.
                for statement in parent.creationSQL() { try db.execute(statement) }
            }
            guard target.isEmbedded else { continue }
            guard !references.isEmpty else {
                try db.execute(SystemTables.deleteAllSQL(className: target.className))
                continue
            }
            let union = references.joined(separator: " UNION ALL ")
            if try db.fetchOne("SELECT value FROM (\(union)) GROUP BY value HAVING count(*) > 1 LIMIT 1") != nil {
                throw VaultObjectError.invalidModel(className: target.className, property: nil,
                                                    reason: "some objects are linked from more than one place, and an embedded object has exactly one parent: give each parent its own copy in the migration block")
            }
            try db.execute("DELETE FROM \(target.tableName) WHERE \"_vk_id\" NOT IN (SELECT value FROM (\(union)))")
        }
    }
}
