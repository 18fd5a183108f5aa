import Foundation
import RealmFileReader
@_spi(Interchange) import VaultKit

/// Which row id each imported object gets, so that links can be written before
/// their targets: the object's key plus one, except in classes whose primary key
/// is a required integer, where the vault's row id *is* the primary key — there
/// a table from key to primary key is read first, for the classes that links
/// (or mixed values) can reach. It holds two integers per object of those
/// classes, and the key of every object of the other classes links can reach,
/// so that a link to an object the file does not hold is refused where it is
/// read — by a dry run as by an import — rather than by the vault's final
/// foreign-key check, which names no object. Classes no link reaches cost nothing.
struct RowIDPlan: Sendable {
    private var keyToPrimaryKey: [String: [Int64: Int64]] = [:]
    /// The keys of the objects of classes links can reach (those without an integer row-id key).
    private var existingKeys: [String: Set<Int64>] = [:]
    private let primaryKeyIndex: [String: Int]

    init(mappings: [ClassMapping], file: RealmFile) throws {
        var keyed: [String: Int] = [:]
        for mapping in mappings where !mapping.file.isEmbedded {
            if let key = mapping.target.primaryKeyProperty, key.type == .int, !key.isOptional,
               let fileIndex = mapping.file.primaryKey.flatMap(mapping.file.propertyIndex(named:)) {
                keyed[mapping.file.name] = fileIndex
            }
        }
        primaryKeyIndex = keyed
        let anyMixed = mappings.contains { $0.file.properties.contains { $0.type == .mixed } }
        let linked = Set(mappings.flatMap { $0.file.properties.compactMap(\.objectType) })
        for (className, index) in keyed where anyMixed || linked.contains(className) {
            var table: [Int64: Int64] = [:]
            try file.forEachObject(ofClass: className) { object in
                if case .int(let value) = object.values[index] { table[object.key] = value }
            }
            keyToPrimaryKey[className] = table
        }
        for mapping in mappings where !mapping.file.isEmbedded && keyed[mapping.file.name] == nil {
            let className = mapping.file.name
            guard anyMixed || linked.contains(className) else { continue }
            var keys = Set<Int64>()
            try file.forEachObjectKey(ofClass: className) { key in _ = keys.insert(key) }
            existingKeys[className] = keys
        }
    }

    /// The row id of the top-level object `object` of `className`.
    func rowID(of object: RealmObject, className: String) throws(RealmImportError) -> Int64 {
        if let index = primaryKeyIndex[className] {
            guard index < object.values.count, case .int(let value) = object.values[index] else {
                throw .invalid(className, key: object.key, "(primary key)", "the object has no integer primary key")
            }
            return value
        }
        guard let rowID = Self.keyRowID(object.key) else {
            throw .invalid(className, key: object.key, "(object)", "its key is not a valid object key")
        }
        return rowID
    }

    /// The row id a link to object `key` of `className` points at; nil if the file holds no
    /// such object (or its key is not one a vault can address).
    func rowID(ofLinkTo key: Int64, className: String) -> Int64? {
        if primaryKeyIndex[className] != nil {
            return keyToPrimaryKey[className]?[key]
        }
        if let keys = existingKeys[className], !keys.contains(key) { return nil }
        return Self.keyRowID(key)
    }

    private static func keyRowID(_ key: Int64) -> Int64? {
        guard key >= 0, key < Int64.max else { return nil }
        return key + 1
    }
}
