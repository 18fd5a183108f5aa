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
        let ids = try reader.checkedRowIDs(compiled.idQuery)
        return try reader.checkedObjects(schema, rowIDs: ids).compactMap { $0 as? Element }
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
