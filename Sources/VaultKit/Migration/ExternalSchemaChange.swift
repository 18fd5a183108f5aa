import Foundation
import VaultCore

// MARK: - Schema changes made elsewhere
//
// Another process (or another vault of this process, on another thread) may
// migrate the file while this vault has it open. Reading on would then mean
// reading rebuilt tables through this vault's models: columns gone, types
// changed — wrong values, or errors mid-iteration. So every time a vault
// moves to a new version it checks SQLite's schema cookie (`PRAGMA
// schema_version`, read from the file header the read transaction already
// holds); when it changed, it compares the stored definitions of the classes
// it registered with its own:
//
//   - additive changes (new classes, another program's new tables) are fine:
//     the vault carries on;
//   - a changed or deleted class is "migration required": `refresh()` leaves the
//     vault at the version it reads (whose data its models describe), every
//     write throws the error, and a read that has to move to a new version (after
//     `invalidate()`) stops with it — as Realm stops on "unsupported schema changes
//     made by another process". Opening a new `Vault` with the new models is the way on.
extension Vault {
    /// The migration-required error when the schema under this vault's classes
    /// changed since it last looked (the vault then keeps it); nil otherwise.
    func externalSchemaChange(on db: Database) throws -> VaultObjectError? {
        guard let cookie = try db.fetchOne("PRAGMA schema_version")?[0].int64 else { return nil }
        if cookie == session.schemas.cookie { return nil }
        guard !session.schemas.byName.isEmpty, try db.fetchOne(SystemTables.schemaTableExistsSQL) != nil else {
            session.schemas.cookie = cookie
            return nil
        }
        var stored: [String: String] = [:]
        for row in try db.fetchAll(SystemTables.selectDefinitionsSQL) {
            if let name = row[0].string, let definition = row[1].string { stored[name] = definition }
        }
        var differences: [String] = []
        for (className, schema) in session.schemas.byName.sorted(by: { $0.key < $1.key }) where !isAbsent(className) {
            guard let definition = stored[className] else {
                differences.append("class \(className) was deleted by another process")
                continue
            }
            if definition != schema.storedDefinition {
                differences += ObjectSchema.differences(className: className, stored: definition, code: schema.storedDefinition)
            }
        }
        guard !differences.isEmpty else {
            session.schemas.cookie = cookie
            return nil
        }
        let storedVersion = (try SchemaPlan.storedSchemaVersion(on: db)) ?? 0
        let change = VaultObjectError.migrationRequired(path: path, storedVersion: storedVersion, codeVersion: configuration.schemaVersion,
                                                        differences: ["another process changed the schema while this vault was open"] + differences)
        session.schemas.externalChange = change
        return change
    }
}
