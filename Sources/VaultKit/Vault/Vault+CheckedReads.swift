import Foundation
import VaultCore

// MARK: - Reads that throw
//
// Realm's reads cannot throw, and neither can VaultKit's property getters,
// `count` or iteration: when a vault turns out to be damaged (a page that fails
// authentication) in the middle of one, they stop the process rather than return
// different data. An app that wants to find out without dying reads through
// these instead — at launch, before a screen shows a collection, or after a
// `verify()` failed — and gets the same damage as a thrown error.

extension Results {
    /// Every object, read now through a path that throws what a damaged vault
    /// gives (`VaultError.integrity` and the like) instead of stopping the program.
    public func fetch() throws -> [Element] {
        if reader.isAbsent(schema.className) { return [] }
        let ids = try reader.vault.withDatabase { db -> [Int64] in
            var ids: [Int64] = []
            try db.cachedStatement(compiled.idQuery.sql).forEachRow(compiled.idQuery.bindings) { statement in ids.append(statement.int64(at: 0)) }
            return ids
        }
        var objects: [Element] = []
        objects.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<Swift.min(start + 500, ids.count)])
            start += chunk.count
            let placeholders = chunk.map { _ in "?" }.joined(separator: ", ")
            let rows = try reader.vault.withDatabase { db in
                try reader.vault.materializeRows(schema, try db.cachedStatement(schema.selectAllSQL + " WHERE \"_vk_id\" IN (\(placeholders))"),
                                                 chunk.map { DatabaseValue.integer($0) })
            }
            var byID: [Int64: ObjectBase] = [:]
            for object in rows { if let id = object.manager?.rowID { byID[id] = object } }
            objects += chunk.compactMap { byID[$0] as? Element }
        }
        return objects
    }
}

extension ObjectBase {
    /// Reads this managed object's stored values again, throwing what a damaged
    /// vault gives instead of stopping the program (then its getters read the
    /// fresh values). Returns `false` when the object was deleted meanwhile.
    @discardableResult
    public func fetchValues() throws -> Bool {
        guard let manager else { return true }
        switch manager.vault.loadRow(manager.schema, rowID: manager.rowID) {
        case .success(let values?):
            manager.replaceValues(values)
            return true
        case .success(nil):
            manager.markDeleted()
            return false
        case .failure(let error):
            throw error
        }
    }
}
