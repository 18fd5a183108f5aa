import Foundation
import VaultCore

/// Where a live nested list or dictionary of a mixed value lives: the stored
/// value it is part of (a property's column, or an entry of a mixed list or
/// map) and the path from that value down to it.
///
/// A nested collection has no rows of its own (see MixedValue.swift): reading
/// it decodes the stored value and follows the path; changing it rewrites the
/// stored value in one statement, inside the caller's write, with the same
/// change capture as any other write to that property or entry.
final class NestedMixedCollection {
    enum Root {
        /// A mixed property of a managed object.
        case property(ManagedObject, index: Int)
        /// An element of a managed `List<AnyVaultValue>`, by its entry row.
        case listEntry(CollectionBinding, entryID: Int64)
        /// A value of a managed `Map<String, AnyVaultValue>`, by its key.
        case mapEntry(CollectionBinding, key: String)
    }

    let owningVault: Vault
    let root: Root
    let path: [MixedSQLFunctions.PathStep]

    init(vault: Vault, root: Root, path: [MixedSQLFunctions.PathStep]) {
        self.owningVault = vault
        self.root = root
        self.path = path
    }

    private var ownerDescription: String {
        switch root {
        case .property(let manager, let index): "\(manager.schema.className).\(manager.schema.properties[index].name)"
        case .listEntry(let binding, _), .mapEntry(let binding, _): "\(binding.owner.className).\(binding.property.name)"
        }
    }

    // MARK: Reading

    /// The stored value at the root, current.
    private func rootValue() -> MixedValue {
        let stored: DatabaseValue
        switch root {
        case .property(let manager, let index):
            stored = manager.currentValue(at: index)
        case .listEntry(let binding, let entryID):
            stored = owningVault.query { db in try db.cachedStatement(binding.selectEntryValueSQL).fetchAll([.integer(entryID)]).first?[0] } ?? .null
        case .mapEntry(let binding, let key):
            stored = owningVault.mapEntryValue(binding, key: key) ?? .null
        }
        return (try? MixedCodec.decode(stored)) ?? .none
    }

    /// The collection itself; `.none` once it was replaced or removed.
    func current() -> MixedValue {
        owningVault.exclusiveIfFrozen { MixedSQLFunctions.follow(rootValue(), path[...]).first ?? .none }
    }

    /// The list's elements, live.
    func listElements() -> [AnyVaultValue] {
        guard case .list(let elements) = current() else { return [] }
        return elements.enumerated().map { owningVault.liveMixed($1, root: root, path: path + [.index($0)]) }
    }

    /// The dictionary's entries sorted by key, live.
    func dictionaryEntries() -> [(key: String, value: AnyVaultValue)] {
        guard case .dictionary(let entries) = current() else { return [] }
        return entries.map { ($0.key, owningVault.liveMixed($0.value, root: root, path: path + [.key($0.key)])) }
    }

    // MARK: Writing

    /// Replaces the list's elements (inside a write).
    func replaceList(with elements: [AnyVaultValue]) {
        store { depth in .list(try elements.map { try owningVault.storedMixed($0, depth: depth + 1) }) }
    }

    /// Replaces the dictionary's entries (inside a write).
    func replaceDictionary(with entries: [(key: String, value: AnyVaultValue)]) {
        store { depth in .dictionary(try entries.map { ($0.key, try owningVault.storedMixed($0.value, depth: depth + 1)) }) }
    }

    private func store(_ makeValue: (Int) throws -> MixedValue) {
        precondition(!owningVault.session.isFrozen, "Cannot modify a nested collection of the frozen \(ownerDescription): frozen objects never change")
        precondition(owningVault.isInWriteTransaction, "Cannot modify a nested collection of \(ownerDescription) outside a write transaction: wrap the change in owningVault.write { … }")
        do {
            let replacement = try makeValue(path.count)
            guard let updated = rootValue().replacing(at: path[...], with: replacement) else {
                throw VaultObjectError.invalidValue(className: ownerDescription, property: "", reason: "the nested collection was replaced or removed; read it again from its owner")
            }
            let encoded = MixedCodec.encode(updated)
            switch root {
            case .property(let manager, let index):
                manager.write(encoded: encoded, at: index)
            case .listEntry(let binding, let entryID):
                owningVault.mutateCollection(binding, binding.updateEntryValueSQL, [encoded, .integer(entryID)])
            case .mapEntry(let binding, let key):
                owningVault.mutateCollection(binding, binding.insertEntrySQL, [.integer(binding.ownerRowID), .text(key), encoded])
            }
        } catch {
            owningVault.deferError(owningVault.mixedError(error, ownerDescription))
        }
    }
}

extension MixedValue {
    /// The value with the collection at `path` replaced, or nil when the path leads nowhere.
    func replacing(at path: ArraySlice<MixedSQLFunctions.PathStep>, with replacement: MixedValue) -> MixedValue? {
        guard let step = path.first else { return replacement }
        switch (step, self) {
        case (.index(let index), .list(var elements)) where elements.indices.contains(index):
            guard let inner = elements[index].replacing(at: path.dropFirst(), with: replacement) else { return nil }
            elements[index] = inner
            return .list(elements)
        case (.key(let key), .dictionary(var entries)):
            guard let position = entries.firstIndex(where: { $0.key == key }),
                  let inner = entries[position].value.replacing(at: path.dropFirst(), with: replacement) else { return nil }
            entries[position].value = inner
            return .dictionary(entries)
        default:
            return nil
        }
    }
}

extension CollectionBinding {
    /// One list entry's value, by entry row id.
    var selectEntryValueSQL: String { "SELECT \"value\" FROM \(table) WHERE rowid = ?" }
    /// One map entry's value, by (owner, key).
    var selectMapValueSQL: String { "SELECT \"value\" FROM \(table) WHERE \"_vk_owner\" = ? AND \"key\" = ?" }
    /// Sets one entry's value (value, entry row id).
    var updateEntryValueSQL: String { "UPDATE \(table) SET \"value\" = ? WHERE rowid = ?" }
}
