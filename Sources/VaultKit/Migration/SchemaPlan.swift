import Foundation
import VaultCore

/// One stored property, parsed from a class's stored definition (see
/// `ObjectSchema.storedDefinition`): `<stored name> <element> optional|required <kind>`
/// (spelled as ``StoredDefinitionLine`` says when a field holds a space).
struct StoredProperty: Equatable {
    let storedName: String
    /// `int`, `string`, …, a class name for a link, or `list<…>`, `set<…>`, `map<…>`.
    let element: String
    let isOptional: Bool
    /// `plain`, `indexed`, `primary` or `primary-rowid`.
    let kind: String

    var isCollection: Bool { element.hasSuffix(">") }
    /// `list`, `set` or `map` for a collection.
    var collectionKindName: String? { isCollection ? String(element.prefix { $0 != "<" }) : nil }
    /// The column that holds it (`_vk_id` for an Int primary key), quoted.
    var columnSQL: String { kind == "primary-rowid" ? "\"_vk_id\"" : quoteIdentifier(storedName) }
    /// A collection's side table in class `className`, quoted.
    func sideTable(of className: String) -> String { quoteIdentifier(unquotedSideTable(of: className)) }
    /// A collection's side table in class `className`.
    func unquotedSideTable(of className: String) -> String {
        CollectionTableName.make(kind: collectionKindName ?? "x", className: className, storedName: storedName)
    }
    /// The value type of a column property (`nil` for a link or a collection).
    var valueType: PropertyType? { isCollection ? nil : PropertyType(rawValue: element) }
    /// The linked class of a to-one link.
    var linkedClass: String? { isCollection || PropertyType(rawValue: element) != nil ? nil : element }

    /// The property as ``Property`` (named by its stored name: the file keeps no other).
    var property: Property {
        let collection = collectionKindName.flatMap(CollectionKind.init(rawValue:))
        let inner = collection == nil ? element : String(element.drop { $0 != "<" }.dropFirst().dropLast())
        let type = PropertyType(rawValue: inner) ?? .object
        return Property(name: storedName, storedName: storedName, type: type, isOptional: isOptional,
                        isPrimaryKey: kind.hasPrefix("primary"), isIndexed: kind != "plain",
                        objectClassName: type == .object ? inner : nil, collectionKind: collection, originProperty: nil,
                        isEmbeddedLink: false)
    }

    static func parse(_ definition: String) -> [String: StoredProperty] {
        var result: [String: StoredProperty] = [:]
        for line in definition.split(separator: "\n") {
            let parts = StoredDefinitionLine.decode(line)
            guard parts.count == 4 else { continue }
            result[parts[0]] = StoredProperty(storedName: parts[0], element: parts[1], isOptional: parts[2] == "optional", kind: parts[3])
        }
        return result
    }
}

/// What registering classes against the stored schema takes: tables to
/// create, tables whose definition changed, and whether the changes are
/// automatic or need a migration (a higher `schemaVersion`).
///
/// Automatic, as the product promises (Realm asks for a version bump for
/// these too, so every Realm app satisfies it): new classes, new optional
/// properties, new lists, sets and maps, and index changes. Everything else —
/// a removed property, a changed type, optional to required or back, a
/// primary key added or removed, Object to EmbeddedObject — needs the version
/// raised; the rebuild then applies it and the migration block fills it in.
struct SchemaPlan {
    /// The stored definitions by class name.
    let stored: [String: String]
    /// Whether each stored class is embedded, as the file recorded it.
    let storedEmbedded: [String: Bool]
    let storedVersion: UInt64?
    let codeVersion: UInt64
    var toCreate: [ObjectSchema] = []
    /// Classes whose stored definition differs, with that definition.
    var toRebuild: [(schema: ObjectSchema, stored: String)] = []
    /// Classes whose Swift type name is not recorded yet (see Vault+Schema).
    var missingTypeNames: [ObjectSchema] = []
    /// Classes that changed between Object and EmbeddedObject (see EmbeddingChange).
    var embeddingChanged: [ObjectSchema] = []
    var differences: [String] = []
    var requiresMigration = false

    static func storedSchemaVersion(on db: Database) throws -> UInt64? {
        guard try db.fetchOne(SystemTables.metadataTableExistsSQL) != nil else { return nil }
        return try db.fetchOne(SystemTables.selectSchemaVersionSQL)?[0].int64.map { UInt64(bitPattern: $0) }
    }

    init(_ list: [ObjectSchema], on db: Database, codeVersion: UInt64) throws {
        var stored: [String: String] = [:]
        var typeNames: [String: String] = [:]
        var embedded: [String: Bool] = [:]
        if try db.fetchOne(SystemTables.schemaTableExistsSQL) != nil {
            for row in try db.fetchAll(SystemTables.selectDefinitionsSQL) {
                if let name = row[0].string, let definition = row[1].string { stored[name] = definition }
            }
            for row in try db.fetchAll(SystemTables.selectSwiftTypesSQL) {
                if let key = row[0].string, let value = row[1].string { typeNames[String(key.dropFirst(SystemTables.swiftTypeKeyPrefix.count))] = value }
            }
            for row in try db.fetchAll(SystemTables.selectEmbeddedFlagsSQL) {
                if let key = row[0].string, let value = row[1].int64 { embedded[String(key.dropFirst(SystemTables.embeddedKeyPrefix.count))] = value != 0 }
            }
        }
        self.stored = stored
        self.storedEmbedded = embedded
        self.storedVersion = try Self.storedSchemaVersion(on: db)
        self.codeVersion = codeVersion
        for schema in list {
            guard let existing = stored[schema.className] else {
                toCreate.append(schema)
                continue
            }
            // Recorded once: another program (an app extension, another module) may name the type differently.
            if typeNames[schema.className] == nil || embedded[schema.className] == nil { missingTypeNames.append(schema) }
            if let wasEmbedded = embedded[schema.className], wasEmbedded != schema.isEmbedded {
                embeddingChanged.append(schema)
                differences.append("\(schema.className) changed from \(wasEmbedded ? "EmbeddedObject" : "Object") to \(schema.isEmbedded ? "EmbeddedObject" : "Object")")
                requiresMigration = true
            }
            let definition = schema.storedDefinition
            guard existing != definition else { continue }
            toRebuild.append((schema, existing))
            differences += ObjectSchema.differences(className: schema.className, stored: existing, code: definition)
            if !Self.isAutomatic(from: StoredProperty.parse(existing), to: StoredProperty.parse(definition)) { requiresMigration = true }
        }
    }

    /// Whether a class's change needs no migration: only additions of optional
    /// or collection properties, and index changes.
    private static func isAutomatic(from old: [String: StoredProperty], to new: [String: StoredProperty]) -> Bool {
        for (name, before) in old {
            guard let after = new[name], after.element == before.element, after.isOptional == before.isOptional else { return false }
            let keys: Set<String> = ["primary", "primary-rowid"]
            if keys.contains(before.kind) != keys.contains(after.kind) { return false }
        }
        return new.values.allSatisfy { property in old[property.storedName] != nil || property.isOptional || property.isCollection }
    }

    /// Nothing to create, rebuild or record.
    var isEmpty: Bool { toCreate.isEmpty && toRebuild.isEmpty && missingTypeNames.isEmpty && embeddingChanged.isEmpty }

    /// The file holds classes and an older schema version: the migration block runs.
    var versionIncreased: Bool {
        guard let storedVersion, !stored.isEmpty else { return false }
        return storedVersion < codeVersion
    }

    func migrationRequiredError(path: String) -> VaultObjectError {
        .migrationRequired(path: path, storedVersion: storedVersion ?? 0, codeVersion: codeVersion, differences: differences)
    }

    /// Throws when the code's version is lower than the file's: an older app after a newer one migrated.
    func checkNotDowngrade(path: String) throws {
        if let storedVersion, codeVersion < storedVersion {
            throw VaultObjectError.migrationRequired(path: path, storedVersion: storedVersion, codeVersion: codeVersion,
                                                     differences: ["the schema version \(codeVersion) is lower than the stored version \(storedVersion): an older app cannot open a vault a newer one migrated"])
        }
    }

    /// Throws "migration required" on a downgrade, or when the changes need a migration and the version was not raised.
    /// With `deletingIfNeeded` (`deleteVaultIfMigrationNeeded`) a change that needs a migration throws
    /// even when the version was raised, so the caller deletes the file instead of migrating (Realm's rule:
    /// the migration block is not called).
    func checkAllowed(path: String, deletingIfNeeded: Bool = false) throws {
        try checkNotDowngrade(path: path)
        if requiresMigration && (!versionIncreased || deletingIfNeeded) { throw migrationRequiredError(path: path) }
    }
}
