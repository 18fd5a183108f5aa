import Foundation
import VaultCore

/// Mixed values between their stored form (MixedValue.swift) and the app's
/// ``AnyVaultValue``: links resolved to objects, nested collections made live,
/// objects added when stored, and links removed when their object is deleted.
extension Vault {
    /// The app's value of a stored mixed value at `root`/`path` (nil root: not live).
    func liveMixed(_ mixed: MixedValue, root: NestedMixedCollection.Root?, path: [MixedSQLFunctions.PathStep]) -> AnyVaultValue {
        AnyVaultValue(mixed) { value in
            switch value {
            case .link(let className, let rowID):
                return (object(className: className, rowID: rowID) as? Object).map { .object($0) } ?? AnyVaultValue.none
            case .list:
                guard let root else { return nil }
                return .list(List(detached: NestedMixedCollection(vault: self, root: root, path: path)))
            case .dictionary:
                guard let root else { return nil }
                return .dictionary(Map(detached: NestedMixedCollection(vault: self, root: root, path: path)))
            default:
                return nil
            }
        }
    }

    /// A stored column or element value read as a mixed value.
    func liveMixed(stored: DatabaseValue, root: NestedMixedCollection.Root?) -> AnyVaultValue {
        do {
            return liveMixed(try MixedCodec.decode(stored), root: root, path: [])
        } catch {
            failRead(VaultObjectError.invalidValue(className: "AnyVaultValue", property: "", reason: "a stored mixed value is malformed (the file was altered outside VaultKit)"), "reading")
        }
    }

    /// The storage form of a value: unmanaged objects are added (inside a
    /// write), managed ones must belong to this vault; at most 100 levels.
    func storedMixed(_ value: AnyVaultValue, depth: Int = 0) throws -> MixedValue {
        try value.mixedValue(depth: depth) { object in
            let schema = try registeredSchema(for: type(of: object))
            if let manager = object.manager {
                guard manager.vault === self || manager.vault.path == path else { throw VaultObjectError.wrongVault(className: schema.className) }
                guard !manager.isDeleted else { throw VaultObjectError.invalidatedObject(className: schema.className) }
                return .link(className: schema.className, rowID: manager.rowID)
            }
            guard let rowID = storedReference(to: object).int64 else {
                throw VaultObjectError.invalidValue(className: schema.className, property: "", reason: "the object could not be added")
            }
            return .link(className: schema.className, rowID: rowID)
        }
    }

    /// The column value of a mixed property or collection element (errors defer to the write).
    func encodeMixed(_ value: AnyVaultValue, property: Property, schema: ObjectSchema) -> DatabaseValue {
        do {
            let mixed = try storedMixed(value)
            if property.collectionKind == .set && mixed.isCollection {
                throw VaultObjectError.invalidValue(className: schema.className, property: property.name, reason: "a MutableSet<AnyVaultValue> holds single values and objects, not lists or dictionaries (as in Realm)")
            }
            return MixedCodec.encode(mixed)
        } catch {
            deferError(mixedError(error, "\(schema.className).\(property.name)"))
            return .null
        }
    }

    /// A mixed-value failure as the error the write reports.
    func mixedError(_ error: Swift.Error, _ owner: String) -> Swift.Error {
        switch error {
        case MixedValueError.tooDeep:
            VaultObjectError.invalidValue(className: owner, property: "", reason: "a mixed value nests lists and dictionaries deeper than \(MixedValue.maximumDepth) levels")
        case MixedValueError.unmanagedObject:
            VaultObjectError.invalidValue(className: owner, property: "", reason: "a linked object must be added to the vault first")
        default: error
        }
    }

    /// The object of class `className` at `rowID` as a ``DynamicObject``.
    func dynamicObject(className: String, rowID: Int64) -> DynamicObject? {
        guard let schema = dynamicSchema(named: className) else { return nil }
        guard case .success(let values?) = loadRow(schema, rowID: rowID) else { return nil }
        return materialize(schema, rowID: rowID, values: values) as? DynamicObject
    }

    // MARK: Deleting linked objects

    /// Every stored place a mixed value can be: (class, property, table, column).
    private var mixedHolders: [(schema: ObjectSchema, index: Int, table: String, column: String)] {
        var holders: [(ObjectSchema, Int, String, String)] = []
        for schema in session.schemas.byName.values where !isAbsent(schema.className) {
            for (index, property) in schema.properties.enumerated() where property.type == .mixed && property.originProperty == nil {
                if property.collectionKind == nil {
                    holders.append((schema, index, schema.tableName, property.columnSQL))
                } else {
                    holders.append((schema, index, schema.collectionTableName(for: property), "\"value\""))
                }
            }
        }
        return holders
    }

    /// Replaces every mixed link to a deleted object by nil (a set drops it),
    /// top-level and nested, so no stale row id outlives the object.
    func removeMixedLinks(to schema: ObjectSchema, rowID: Int64) throws {
        let holders = mixedHolders
        guard !holders.isEmpty else { return }
        let link = MixedCodec.encode(.link(className: schema.className, rowID: rowID))
        try withDatabase { db in
            for holder in holders {
                let property = holder.schema.properties[holder.index]
                let isColumn = property.collectionKind == nil
                if let capture = session.write.capture {
                    let owner = isColumn ? "\"_vk_id\"" : "\"_vk_owner\""
                    let rows = try db.cachedStatement("SELECT DISTINCT \(owner) FROM \(holder.table) WHERE \(holder.column) >= x'08' AND \(holder.column) < x'0B' AND vk_mixed_links(\(holder.column), ?)").fetchAll([link])
                    for row in rows {
                        guard let owner = row[0].int64 else { continue }
                        capture.willWrite(className: holder.schema.className, rowID: owner, propertyIndexes: CollectionOfOne(holder.index), isUpdateStatement: isColumn)
                    }
                }
                if property.collectionKind == .set {
                    try db.cachedStatement("DELETE FROM \(holder.table) WHERE \"value\" >= x'08' AND \"value\" < x'0B' AND vk_mixed_links(\"value\", ?1)").execute([link])
                } else {
                    try db.cachedStatement("UPDATE \(holder.table) SET \(holder.column) = vk_mixed_unlink(\(holder.column), ?1) WHERE \(holder.column) >= x'08' AND \(holder.column) < x'0B' AND vk_mixed_links(\(holder.column), ?1)").execute([link])
                }
            }
        }
    }
}
