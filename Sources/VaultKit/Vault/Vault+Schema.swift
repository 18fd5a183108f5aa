import Foundation
import VaultCore

/// Registering model classes: creating their tables, or checking the stored
/// schema against the code and reporting "migration required".
extension Vault {
    /// Sets up a freshly opened connection and registers `objectTypes`.
    func prepareStorage() throws {
        if !configuration.readOnly {
            // Written only when missing: a write would wait for (and a busy
            // timeout fail on) another connection's open write transaction.
            let ready = try withDatabase { db in
                try db.fetchOne(SystemTables.schemaTableExistsSQL) != nil && db.fetchOne(SystemTables.metadataTableExistsSQL) != nil
                    && db.fetchOne(SystemTables.selectCommitSequenceSQL) != nil && db.fetchOne(ChangeLog.tableExistsSQL) != nil
            }
            if !ready {
                try database.write { db in try db.execute(SystemTables.createSQL) }
                releaseSnapshot()
            }
        }
        guard let types = configuration.objectTypes else { return }
        var all: [ObjectSchema] = []
        var pending = types
        var seen = Set<ObjectIdentifier>()
        while let type = pending.popLast() {
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let schema = try ObjectSchema.schema(for: type)
            all.append(schema)
            pending += schema.properties.compactMap { $0.objectClassName }.compactMap { name in
                types.first { String(describing: $0) == name } ?? linkTarget(of: schema, named: name)
            }
        }
        try register(all, authoritative: true)
    }

    private func linkTarget(of schema: ObjectSchema, named name: String) -> ObjectBase.Type? {
        guard let index = schema.properties.firstIndex(where: { $0.objectClassName == name }) else { return nil }
        return schema.linkTypes[index]
    }

    /// Creates missing tables and checks existing ones against the code.
    private func register(_ list: [ObjectSchema], authoritative: Bool) throws {
        for schema in list {
            for property in schema.properties {
                guard let origin = property.originProperty, let originClass = property.objectClassName else { continue }
                let originSchema = list.first { $0.className == originClass } ?? schemasByName[originClass]
                guard let originSchema, let target = originSchema[origin], target.objectClassName == schema.className, target.originProperty == nil else {
                    throw VaultObjectError.invalidModel(className: schema.className, property: property.name,
                                                        reason: "originProperty '\(origin)' is not a property of \(originClass) that links to \(schema.className)")
                }
            }
        }
        let stored = try storedDefinitions()
        var differences: [String] = []
        var toCreate: [ObjectSchema] = []
        for schema in list {
            let definition = schema.storedDefinition
            if let existing = stored[schema.className] {
                if existing != definition {
                    differences += ObjectSchema.differences(className: schema.className, stored: existing, code: definition)
                }
            } else {
                toCreate.append(schema)
            }
        }
        let storedVersion = try storedSchemaVersion()
        if authoritative && !stored.isEmpty {
            let names = Set(list.map(\.className))
            differences += stored.keys.filter { !names.contains($0) }.sorted().map { "class \($0) was removed" }
            if !toCreate.isEmpty { differences += toCreate.map { "class \($0.className) was added" } }
        }
        if let storedVersion, configuration.schemaVersion < storedVersion {
            throw VaultObjectError.migrationRequired(path: path, storedVersion: storedVersion, codeVersion: configuration.schemaVersion,
                                                     differences: ["the schema version \(configuration.schemaVersion) is lower than the stored version \(storedVersion)"])
        }
        if !differences.isEmpty {
            throw VaultObjectError.migrationRequired(path: path, storedVersion: storedVersion ?? 0, codeVersion: configuration.schemaVersion, differences: differences)
        }
        if !toCreate.isEmpty && !configuration.readOnly {
            try database.write { db in
                for schema in toCreate {
                    for statement in schema.creationSQL() { try db.execute(statement) }
                    try db.execute(SystemTables.insertDefinitionSQL, arguments: [.text(schema.className), .text(schema.storedDefinition)])
                }
                try db.execute(SystemTables.storeSchemaVersionSQL, arguments: [.integer(Int64(configuration.schemaVersion))])
            }
            // The snapshot predates the new tables: the next read opens one that has them.
            releaseSnapshot()
        } else if !toCreate.isEmpty {
            // Read-only: nothing can be created; those classes simply have no objects.
            absentClasses.formUnion(toCreate.map(\.className))
        } else if !configuration.readOnly, storedVersion != configuration.schemaVersion {
            try database.write { db in
                try db.execute(SystemTables.storeSchemaVersionSQL, arguments: [.integer(Int64(configuration.schemaVersion))])
            }
        }
        for schema in list {
            schemas[ObjectIdentifier(schema.type)] = schema
            schemasByName[schema.className] = schema
        }
    }

    private func storedDefinitions() throws -> [String: String] {
        try withDatabase { db in
            guard try db.fetchOne(SystemTables.schemaTableExistsSQL) != nil else { return [:] }
            var result: [String: String] = [:]
            for row in try db.fetchAll(SystemTables.selectDefinitionsSQL) {
                if let name = row[0].string, let definition = row[1].string { result[name] = definition }
            }
            return result
        }
    }

    private func storedSchemaVersion() throws -> UInt64? {
        try withDatabase { db in
            guard try db.fetchOne(SystemTables.metadataTableExistsSQL) != nil else { return nil }
            return try db.fetchOne(SystemTables.selectSchemaVersionSQL)?[0].int64.map { UInt64($0) }
        }
    }

    /// The schema of `type`, registering it on first use when `objectTypes` is nil.
    func schema(for type: ObjectBase.Type) -> ObjectSchema {
        if let schema = schemas[ObjectIdentifier(type)] { return schema }
        do {
            let schema = try ObjectSchema.schema(for: type)
            guard configuration.objectTypes == nil else { throw VaultObjectError.unknownType(schema.className) }
            var list = [schema]
            for (index, property) in schema.properties.enumerated() where property.objectClassName != nil {
                if let target = schema.linkTypes[index], schemas[ObjectIdentifier(target)] == nil, target != type {
                    list.append(try ObjectSchema.schema(for: target))
                }
            }
            try register(list, authoritative: false)
            return schema
        } catch {
            preconditionFailure("VaultKit cannot use \(type) with the vault at \(path): \(error)")
        }
    }

    /// Whether a class has no table (a read-only vault written without it); hashes nothing in the common case.
    func isAbsent(_ className: String) -> Bool { !absentClasses.isEmpty && absentClasses.contains(className) }

    /// The schema of a class in this vault, by class name.
    func schema(named className: String) -> ObjectSchema? { schemasByName[className] }
}
