import Foundation

/// The objects of one class in a vault: lazy (nothing runs until read) and live
/// (reading again after a write sees the write).
///
/// ```swift
/// let people = vault.objects(Person.self).sorted(byKeyPath: "firstName")
/// print(people.count)                  // SELECT count(*), no objects made
/// for person in people { … }           // rows fetched in batches
/// let page = people[100..<120]         // random access by index
/// ```
public struct Results<Element: Object>: RandomAccessCollection, CustomStringConvertible {
    let vault: Vault
    let schema: ObjectSchema
    let ordering: [(column: String, ascending: Bool)]
    private let cache = RowIDCache()

    init(vault: Vault, schema: ObjectSchema, ordering: [(column: String, ascending: Bool)] = []) {
        self.vault = vault
        self.schema = schema
        self.ordering = ordering
    }

    private var orderClause: String {
        let terms = ordering.map { "\(quoteIdentifier($0.column)) \($0.ascending ? "ASC" : "DESC")" } + ["\"_vk_id\" ASC"]
        return " ORDER BY " + terms.joined(separator: ", ")
    }

    /// The row ids in order, computed once per vault content version.
    /// Whether the class has no table (a read-only vault written without it).
    private var isAbsent: Bool { vault.absentClasses.contains(schema.className) }

    private func rowIDs() -> [Int64] {
        if isAbsent { return [] }
        if cache.version == vault.contentVersion { return cache.rowIDs }
        let ids = vault.query { db in
            try db.cachedStatement("SELECT \"_vk_id\" FROM \(schema.tableName)\(orderClause)").fetchAll().compactMap { $0[0].int64 }
        }
        cache.version = vault.contentVersion
        cache.rowIDs = ids
        return ids
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { rowIDs().count }

    /// The number of objects, counted in SQL (no object is created).
    public var count: Int {
        if isAbsent { return 0 }
        if cache.version == vault.contentVersion { return cache.rowIDs.count }
        return vault.query { db in
            Int(try db.cachedStatement("SELECT count(*) FROM \(schema.tableName)").fetchAll().first?[0].int64 ?? 0)
        }
    }

    public var isEmpty: Bool { count == 0 }

    /// The object at `position`.
    public subscript(position: Int) -> Element {
        let ids = rowIDs()
        precondition(ids.indices.contains(position), "Index \(position) is out of bounds (count \(ids.count))")
        guard let object = vault.object(className: schema.className, rowID: ids[position]) as? Element else {
            preconditionFailure("The \(schema.className) at index \(position) was deleted meanwhile")
        }
        return object
    }

    /// The first object in order, fetched with LIMIT 1.
    public var first: Element? {
        if isAbsent { return nil }
        return vault.query { db in
            try db.cachedStatement(schema.selectAllSQL + orderClause + " LIMIT 1").fetchAll().first
        }.flatMap(materialize)
    }

    /// The last object in order.
    public var last: Element? {
        let reversed = ordering.map { ($0.column, !$0.ascending) }
        let terms = reversed.map { "\(quoteIdentifier($0.0)) \($0.1 ? "ASC" : "DESC")" } + ["\"_vk_id\" DESC"]
        if isAbsent { return nil }
        return vault.query { db in
            try db.cachedStatement(schema.selectAllSQL + " ORDER BY " + terms.joined(separator: ", ") + " LIMIT 1").fetchAll().first
        }.flatMap(materialize)
    }

    private func materialize(_ row: Row) -> Element? {
        guard let rowID = row[0].int64 else { return nil }
        return vault.materialize(schema, rowID: rowID, columns: row.values.dropFirst()) as? Element
    }

    /// The same objects sorted by a property (public name).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        guard let property = schema[keyPath] else {
            preconditionFailure("\(schema.className) has no property named '\(keyPath)' to sort by")
        }
        return Results(vault: vault, schema: schema, ordering: [(property.storedName, ascending)] + ordering)
    }

    /// The position of `object`, if it is in the results.
    public func index(of object: Element) -> Int? {
        guard let manager = object.manager, manager.schema === schema else { return nil }
        return rowIDs().firstIndex(of: manager.rowID)
    }

    /// Iterates in batches: each batch of rows is read with one query and its
    /// objects start with their values cached.
    public func makeIterator() -> Iterator {
        Iterator(results: self, rowIDs: rowIDs())
    }

    /// Iterates over a snapshot of the row ids taken when iteration starts.
    public struct Iterator: IteratorProtocol {
        let results: Results<Element>
        let rowIDs: [Int64]
        private var position = 0
        private var batch: [Element] = []
        private var batchPosition = 0
        private static var batchSize: Int { 256 }

        init(results: Results<Element>, rowIDs: [Int64]) {
            self.results = results
            self.rowIDs = rowIDs
        }

        public mutating func next() -> Element? {
            if batchPosition == batch.count {
                guard position < rowIDs.count else { return nil }
                let ids = Array(rowIDs[position..<Swift.min(position + Self.batchSize, rowIDs.count)])
                position += ids.count
                let schema = results.schema
                let vault = results.vault
                let objects: [ObjectBase]
                if results.ordering.isEmpty, let low = ids.first, let high = ids.last {
                    // Default order is row-id order: one range scan reads the batch sequentially.
                    objects = vault.query { db in
                        try vault.materializeRows(schema, try schema.statement(.selectRange, on: db), [.integer(low), .integer(high)])
                    }
                } else {
                    let placeholders = ids.map { _ in "?" }.joined(separator: ", ")
                    objects = vault.query { db in
                        try vault.materializeRows(schema, try db.cachedStatement(schema.selectAllSQL + " WHERE \"_vk_id\" IN (\(placeholders))"), ids.map { DatabaseValue.integer($0) })
                    }
                }
                // Keep the snapshot's order and members (rows added meanwhile inside the range are skipped).
                var byID: [Int64: Element] = [:]
                for object in objects {
                    if let element = object as? Element, let id = element.manager?.rowID { byID[id] = element }
                }
                batch = ids.compactMap { byID[$0] }
                batchPosition = 0
                if batch.isEmpty { return next() }
            }
            defer { batchPosition += 1 }
            return batch[batchPosition]
        }
    }

    public var description: String { "Results<\(schema.className)>(\(count) objects)" }
}

/// Row ids of a `Results`, valid for one content version of its vault.
final class RowIDCache {
    var version: UInt64 = 0
    var rowIDs: [Int64] = []
}
