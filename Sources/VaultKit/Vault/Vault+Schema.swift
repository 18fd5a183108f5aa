import Foundation
import VaultCore

// MARK: - Registering classes
//
// Which classes a vault stores. With `objectTypes` set, those classes and
// every class they reach. Without it, as in Realm, every model class the app
// uses — found in two ways, because Swift on Linux has no runtime list of a
// class's subclasses (Realm's `objc_copyClassList`):
//
//   - at open, every class the file already stores whose Swift type resolves by
//     its recorded name (the mangled type name, kept in `_vaultkit_metadata`;
//     nested classes resolve, private and local ones do not): so a
//     changed model is met, checked and migrated when `Vault(configuration:)`
//     runs, and a mismatch is an error thrown there;
//   - at first use of a class the vault does not know yet, that class and
//     every class it reaches through links, lists, sets, maps, embedded
//     objects and backlinks, transitively, registered together in one
//     transaction (so no side table ever points at a table that is missing).
//
// Registration compares each class with the stored schema (SchemaPlan):
// unknown classes are created; additive changes (new optional or collection
// properties, index changes) are applied without a version bump; anything
// else needs a higher `schemaVersion` and goes through the migration
// (Migration/). Every change is decided again inside the write transaction
// that makes it, so processes opening a new vault at once serialise on the
// write lock and each finds the others' tables.
extension Vault {
    /// Sets up a freshly opened connection and registers the classes known at open.
    func prepareStorage() throws {
        if !configuration.readOnly {
            // Written only when missing: a write would wait for (and a busy
            // timeout fail on) another connection's open write transaction.
            let ready = try withDatabase { db in
                try db.fetchOne(SystemTables.schemaTableExistsSQL) != nil && db.fetchOne(SystemTables.metadataTableExistsSQL) != nil
                    && db.fetchOne(SystemTables.selectCommitSequenceSQL) != nil && db.fetchOne(ChangeLog.tableExistsSQL) != nil
            }
            if !ready {
                try session.database.write { db in try db.execute(SystemTables.createSQL) }
                releaseSnapshot()
            }
        }
        let roots = try configuration.objectTypes ?? storedSwiftTypes()
        let list = try unregisteredClosure(of: roots)
        try register(list, atOpen: true)
    }

    /// The schemas of every class reachable from `roots` that this vault has not registered yet.
    func unregisteredClosure(of roots: [ObjectBase.Type]) throws -> [ObjectSchema] {
        try ObjectSchema.closure(of: roots, excluding: Set(session.schemas.byType.keys))
    }

    /// The Swift types of the classes the file stores, where their recorded names resolve in this process.
    private func storedSwiftTypes() throws -> [ObjectBase.Type] {
        try withDatabase { db in
            guard try db.fetchOne(SystemTables.metadataTableExistsSQL) != nil else { return [] }
            return try db.fetchAll(SystemTables.selectSwiftTypeNamesSQL).compactMap { row in
                row[0].string.flatMap { _typeByName($0) as? ObjectBase.Type }
            }
        }
    }

    /// Brings the stored schema in line with `list`: creates, alters or
    /// migrates tables as needed (see SchemaPlan), then registers the classes.
    private func register(_ list: [ObjectSchema], atOpen: Bool) throws {
        try validateBacklinks(list)
        let plan = try withDatabase { db in try SchemaPlan(list, on: db, codeVersion: configuration.schemaVersion) }
        try plan.checkNotDowngrade(path: path)
        let wantsMigrationBlock = atOpen && plan.versionIncreased && configuration.migrationBlock != nil
        if plan.isEmpty && !wantsMigrationBlock && (plan.storedVersion == configuration.schemaVersion || configuration.readOnly) {
            finishRegistering(list)
            return
        }
        if configuration.readOnly {
            guard plan.toRebuild.isEmpty else { throw plan.migrationRequiredError(path: path) }
            // Nothing can be created; those classes simply have no objects.
            session.schemas.registerAbsent(plan.toCreate.map(\.className))
            finishRegistering(list)
            return
        }
        try plan.checkAllowed(path: path, deletingIfNeeded: configuration.deleteVaultIfMigrationNeeded)
        try SchemaChange.apply(list, to: self, runMigrationBlock: atOpen)
        // The snapshot predates the new tables: the next read opens one that has them.
        releaseSnapshot()
        finishRegistering(list)
    }

    private func finishRegistering(_ list: [ObjectSchema]) {
        session.schemas.register(list)
    }

    /// Every backlink names a property of its origin class that links back.
    private func validateBacklinks(_ list: [ObjectSchema]) throws {
        for schema in list {
            for property in schema.properties {
                guard let origin = property.originProperty, let originClass = property.objectClassName else { continue }
                let originSchema = list.first { $0.className == originClass } ?? session.schemas.byName[originClass]
                guard let originSchema, let target = originSchema[origin], target.objectClassName == schema.className, target.originProperty == nil else {
                    throw VaultObjectError.invalidModel(className: schema.className, property: property.name,
                                                        reason: "originProperty '\(origin)' is not a property of \(originClass) that links to \(schema.className)")
                }
            }
        }
    }

    /// The schema of `type`, registering it (and every class it reaches) on
    /// first use when `objectTypes` is nil; throws what stops that (a class
    /// outside `objectTypes`, an invalid model, a stored definition that differs
    /// from the code's — "migration required", naming the class and the differences).
    /// Adding objects goes through here, so inside a write the error is the write's.
    func registeredSchema(for type: ObjectBase.Type) throws -> ObjectSchema {
        if let schema = session.schemas.byType[ObjectIdentifier(type)] { return schema }
        precondition(type != DynamicObject.self, "DynamicObject is not a model class: use vault.dynamicObjects(\"ClassName\")")
        guard configuration.objectTypes == nil else { throw VaultObjectError.unknownType(String(describing: type)) }
        // A frozen vault's schema is the live vault's at the freeze (read from any thread, never changed).
        precondition(!session.isFrozen, "\(type) is not in the schema of the frozen vault at \(path): use it in the live vault before freezing, or list it in objectTypes")
        let list = try unregisteredClosure(of: [type])
        try register(list, atOpen: false)
        guard let schema = session.schemas.byType[ObjectIdentifier(type)] else { throw VaultObjectError.unknownType(String(describing: type)) }
        return schema
    }

    /// ``registeredSchema(for:)`` for the non-throwing reads (`objects(_:)`,
    /// `object(ofType:forPrimaryKey:)`): what cannot be registered stops the
    /// program with the class and the reason, as Realm's exception does. Classes
    /// the file stores are registered (and checked, throwing) at open, so this
    /// meets only a class whose Swift type could not be found by name then.
    func schema(for type: ObjectBase.Type) -> ObjectSchema {
        do {
            return try registeredSchema(for: type)
        } catch {
            preconditionFailure("VaultKit cannot use \(type) with the vault at \(path): \(error)")
        }
    }

    /// Whether a class has no table (a read-only vault written without it); hashes nothing in the common case.
    func isAbsent(_ className: String) -> Bool { !session.schemas.absent.isEmpty && session.schemas.absent.contains(className) }

    /// The schema of a class in this vault, by class name.
    func schema(named className: String) -> ObjectSchema? { session.schemas.byName[className] }
}
