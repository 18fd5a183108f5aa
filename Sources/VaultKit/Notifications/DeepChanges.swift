import Foundation
import VaultCore

// MARK: - Changes through links
//
// Realm reports an element of an observed collection as modified when an
// object it links to was written, not only when its own row was: a list of
// posts reloads a row when the post's author is renamed. Without key paths the
// search follows every link (to-one links, lists, sets and maps of objects,
// embedded objects) to a depth of four; with key paths it follows exactly the
// listed paths ("author.name": the `author` link, then writes of `name`), to
// any depth.
//
// The search runs backwards from what the commits wrote, so its cost follows
// the size of the change, not of the collection: the written rows of each
// class are the starting frontier; each step asks SQLite which rows link to the
// frontier (`WHERE link IN (…)` on a class's link column, or the owners in a
// collection's side table); after at most four steps the rows of the observed
// class reached are the elements modified through links. It runs on the
// observer's vault at the delivered version, inside the delivery.
enum DeepChanges {
    /// Realm's depth limit for collections observed without key paths.
    static let maximumDepth = 4

    /// Rows of `root` modified through links by `changes` (own-row writes are not included).
    static func modifiedRows(of root: ObjectSchema, keyPaths: [String]?, changes: TransactionChanges, in vault: Vault) -> Set<Int64> {
        guard !changes.isEmpty else { return [] }
        if let keyPaths {
            var rows = Set<Int64>()
            for path in keyPaths {
                let components = path.split(separator: ".").map(String.init)
                guard components.count > 1 else { continue }
                rows.formUnion(rowsReaching(root, via: components[...], changes: changes, vault: vault))
            }
            return rows
        }
        return rowsReachingAnyWrite(root, changes: changes, vault: vault)
    }

    /// Rows of `schema` whose path `components` leads to a written property.
    private static func rowsReaching(_ schema: ObjectSchema, via components: ArraySlice<String>, changes: TransactionChanges, vault: Vault) -> Set<Int64> {
        guard let name = components.first, let index = schema.index(ofProperty: name) else { return [] }
        let property = schema.properties[index]
        let written = changes.tables[schema.className]?.written ?? [:]
        // The property itself written (a link replaced, a collection changed) counts at every step.
        var rows = Set(written.filter { $0.value.indexes.contains(index) || ($0.value.linkColumns && property.isColumn && property.objectClassName != nil) }.keys)
        guard components.count > 1, let targetName = property.objectClassName, let target = vault.schema(named: targetName) else { return rows }
        let targetRows = rowsReaching(target, via: components.dropFirst(), changes: changes, vault: vault)
        rows.formUnion(owners(in: schema, propertyIndex: index, linkingTo: targetRows, vault: vault))
        return rows
    }

    /// Rows of `root` that reach, within four links, a row any commit of the range wrote or inserted.
    private static func rowsReachingAnyWrite(_ root: ObjectSchema, changes: TransactionChanges, vault: Vault) -> Set<Int64> {
        var frontier: [String: Set<Int64>] = [:]
        for (table, tableChanges) in changes.tables where vault.schema(named: table) != nil {
            let rows = Set(tableChanges.written.keys).union(tableChanges.inserted)
            if !rows.isEmpty { frontier[table] = rows }
        }
        var reached = Set<Int64>()
        var visited = frontier
        for _ in 0..<maximumDepth where !frontier.isEmpty {
            var next: [String: Set<Int64>] = [:]
            for schema in vault.session.schemas.byName.values {   // unsorted: order does not matter here
                for (index, property) in schema.properties.enumerated() where property.originProperty == nil {
                    guard let target = property.objectClassName, let targetRows = frontier[target], !targetRows.isEmpty else { continue }
                    let owners = owners(in: schema, propertyIndex: index, linkingTo: targetRows, vault: vault)
                        .subtracting(visited[schema.className] ?? [])
                    if !owners.isEmpty { next[schema.className, default: []].formUnion(owners) }
                }
            }
            for (table, rows) in next { visited[table, default: []].formUnion(rows) }
            reached.formUnion(next[root.className] ?? [])
            frontier = next
        }
        return reached
    }

    /// Rows of `schema` whose property `index` (a link column or a collection of objects) holds one of `targets`.
    private static func owners(in schema: ObjectSchema, propertyIndex index: Int, linkingTo targets: Set<Int64>, vault: Vault) -> Set<Int64> {
        guard !targets.isEmpty, !vault.isAbsent(schema.className) else { return [] }
        let property = schema.properties[index]
        let select: String
        if property.isColumn {
            select = "SELECT \"_vk_id\" FROM \(schema.tableName) WHERE \(property.columnSQL) IN "
        } else if property.collectionKind != nil {
            select = "SELECT DISTINCT \"_vk_owner\" FROM \(schema.collectionTableName(for: property)) WHERE \"value\" IN "
        } else {
            return []
        }
        var owners = Set<Int64>()
        let all = Array(targets)
        var start = 0
        while start < all.count {
            // Bounded IN lists keep under SQLite's variable limit.
            let chunk = Array(all[start..<min(start + 500, all.count)])
            start += chunk.count
            let sql = select + "(" + chunk.map { _ in "?" }.joined(separator: ", ") + ")"
            let rows = vault.query { db in try db.cachedStatement(sql).fetchAll(chunk.map { DatabaseValue.integer($0) }) }
            for row in rows { if let id = row[0].int64 { owners.insert(id) } }
        }
        return owners
    }
}
