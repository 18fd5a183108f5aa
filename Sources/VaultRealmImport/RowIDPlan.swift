import Foundation
import RealmFileReader
@_spi(Interchange) import VaultKit

/// Which row id each imported object gets, so that links can be written before
/// their targets: the object's key plus one, except in classes whose primary key
/// is a required integer, where the vault's row id *is* the primary key — there
/// a table from key to primary key is read first, for the classes that links
/// (or mixed values) can reach. It holds two integers per object of those
/// classes only; every other class costs nothing.
struct RowIDPlan: Sendable {
    private var keyToPrimaryKey: [String: [Int64: Int64]] = [:]
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
    }

    /// The row id of the top-level object `object` of `className`.
    func rowID(of object: RealmObject, className: String) throws(RealmImportError) -> Int64 {
        if let index = primaryKeyIndex[className] {
            guard case .int(let value) = object.values[index] else {
                throw .unsupportedValue(className: className, property: "(primary key)", reason: "the object has no integer primary key")
            }
            return value
        }
        return try Self.keyRowID(object.key, className: className)
    }

    /// The row id a link to object `key` of `className` points at.
    func rowID(ofLinkTo key: Int64, className: String) throws(RealmImportError) -> Int64 {
        if primaryKeyIndex[className] != nil {
            guard let value = keyToPrimaryKey[className]?[key] else {
                throw .realmFile(.corrupt("a link points at object key \(key) of \(className), which the file does not hold"))
            }
            return value
        }
        return try Self.keyRowID(key, className: className)
    }

    private static func keyRowID(_ key: Int64, className: String) throws(RealmImportError) -> Int64 {
        guard key >= 0, key < Int64.max else {
            throw .realmFile(.corrupt("object key \(key) of \(className) is not a valid key"))
        }
        return key + 1
    }
}
