import Foundation
import VaultCore

// MARK: - Old values stay old
//
// Realm's migration block reads old objects from a read-only copy of the file,
// so nothing the block does to the new objects changes what an old object
// gives. Here old and new objects share storage wherever the schema did not
// change, and the copies are made on demand, inside the migration's
// transaction, only for what the block writes:
//
//   - a rebuilt class (its definition changed) keeps its old rows in
//     `_vk_old_<Class>` from the start (SchemaChange), and a collection whose
//     element type changed keeps its entries in `_vk_old_<side table>`;
//   - a class the migration did not rebuild keeps one table for old and new
//     objects until the block first updates or deletes one of its rows; then
//     its rows are copied to `_vk_old_<Class>` (indexed by row id) and old
//     objects read the copy. Before that, enumeration skips the rows `create`
//     made, since they are not old objects;
//   - a collection kept under its name and element type shares its side table
//     until the block first changes it; then its entries are copied to
//     `_vk_old_<side table>` (indexed by owner).
//
// Every copy is dropped before the migration commits (`dropKeptOldEntries`).
// The cost is one copy of each table the block writes, paid once.

extension Migration {
    /// Where an old object's collection is read: the copy of its entries a
    /// rebuild kept when the element type changed (the live table was emptied),
    /// else its side table.
    func oldSideTable(_ property: StoredProperty, className: String) -> String {
        let copy = SchemaChange.oldTableName(property.unquotedSideTable(of: className))
        return keptOldEntries.contains(copy) ? quoteIdentifier(copy) : property.sideTable(of: className)
    }

    /// Copies the entries of side table `table` (unquoted) of class `className`
    /// before the block first changes it, when the old schema reads the same
    /// table (a collection kept under its name and element type): from then on
    /// old objects read the copy, so the block sees the entries as they were
    /// however it changes the new ones (Realm keeps the old values apart). The
    /// copy (`SchemaChange.keepOldEntries`) is made inside the migration's transaction,
    /// only for tables the block writes; ``dropKeptOldEntries()`` removes it.
    func preserveOldEntries(of table: String, className: String) throws {
        let copy = SchemaChange.oldTableName(table)
        guard !keptOldEntries.contains(copy), oldSideTables.contains(table) else { return }
        try SchemaChange.keepOldEntries(of: table, on: database)
        keptOldEntries.insert(copy)
    }

    /// Drops every copy of old entries and rows (a rebuild's and the block's), once the block has run.
    func dropKeptOldEntries() throws {
        let copies = keptOldEntries.sorted() + keptOldClassTables.sorted().map(SchemaChange.oldTableName)
        for copy in copies { try database.execute("DROP TABLE IF EXISTS \(quoteIdentifier(copy))") }
        keptOldEntries = []
        keptOldClassTables = []
    }

    /// The copies of old entries there are now, by name (tests look).
    var keptOldEntryTables: [String] { keptOldEntries.sorted() }

    /// The table holding a class's objects as they were, with its column names by stored property name, and
    /// whether it is also the new objects' table (a class the migration did not rebuild).
    func oldTable(_ className: String) -> (table: String, columns: [String: StoredProperty], sharedWithNew: Bool)? {
        guard let definition = plan.stored[className] else { return nil }
        let shared = sharesTable(className)
        return (quoteIdentifier(shared ? className : SchemaChange.oldTableName(className)), StoredProperty.parse(definition), shared)
    }

    /// Whether the class's old and new objects are in one table: the file had it and the migration did not rebuild it.
    func sharesTable(_ className: String) -> Bool {
        plan.stored[className] != nil && !plan.toRebuild.contains { $0.schema.className == className } && !keptOldClassTables.contains(className)
    }

    /// Copies the rows of a class the migration did not rebuild to `_vk_old_<Class>`
    /// before the block first changes or deletes one of them: from then on old
    /// objects (enumerated, or reached through a link) read the copy.
    func preserveOldRows(of className: String) throws {
        guard sharesTable(className) else { return }
        try SchemaChange.keepOldRows(of: className, on: database)
        keptOldClassTables.insert(className)
    }
}
