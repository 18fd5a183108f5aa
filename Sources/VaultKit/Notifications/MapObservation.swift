import Foundation
import VaultCore

/// A change to an observed ``Map`` — Realm's `RealmMapChange`: keys, not indices.
public enum VaultMapChange<Collection: VaultKeyedCollection> {
    /// The first delivery: the map as it is.
    case initial(Collection)
    /// Keys removed, added, and whose value was written (replaced, or the object it holds written).
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// The observation failed and has ended.
    case error(Swift.Error)
}

/// A collection whose elements are reached by key (``Map``).
public protocol VaultKeyedCollection {
    /// The key type.
    associatedtype Key: MapKey
}

extension Map: VaultKeyedCollection {}

/// Observes a map by key: what each key held (its entry row, and the object row
/// for maps of objects) at the last delivery.
final class MapObservation<Key: MapKey, Value: PersistableValue>: Observation {
    private let map: Map<Key, Value>
    private let binding: CollectionBinding
    private let block: (VaultMapChange<Map<Key, Value>>) -> Void
    private let targetClassName: String?
    private let filter: PropertyFilter?
    private var delivered: [String: (entry: Int64, target: Int64?)]?

    init(map: Map<Key, Value>, binding: CollectionBinding, keyPaths: [String]?, block: @escaping (VaultMapChange<Map<Key, Value>>) -> Void) {
        self.map = map
        self.binding = binding
        self.block = block
        let targetSchema = binding.property.objectClassName.flatMap { binding.vault.schema(named: $0) }
        targetClassName = targetSchema?.className
        filter = targetSchema.map { PropertyFilter(keyPaths: keyPaths, schema: $0) }
    }

    private func currentEntries() -> [String: (entry: Int64, target: Int64?)] {
        var entries: [String: (entry: Int64, target: Int64?)] = [:]
        for entry in binding.vault.collectionEntries(binding) {
            guard let key = entry.key else { continue }
            entries[key] = (entry.entryID, targetClassName == nil ? nil : entry.value.int64)
        }
        return entries
    }

    override func deliver(in vault: Vault, changes: TransactionChanges?) {
        let sequence = vault.commitSequence
        guard let old = delivered else {
            delivered = currentEntries()
            deliveredSequence = sequence
            block(.initial(map))
            return
        }
        guard sequence != deliveredSequence else { return }
        let new = currentEntries()
        delivered = new
        deliveredSequence = sequence
        let table = binding.owner.unquotedCollectionTableName(for: binding.property)
        let rewritten = changes?.tables[table]?.written ?? [:]
        let targetWritten = filter.map { $0.test(targetClassName.flatMap { changes?.tables[$0] }) }
        var deletions: [String] = [], insertions: [String] = [], modifications: [String] = []
        for (key, before) in old {
            guard let after = new[key] else { deletions.append(key); continue }
            // INSERT OR REPLACE gives a replaced value a new entry row.
            if after.entry != before.entry || rewritten[after.entry] != nil
                || (after.target.map { target in targetWritten?(target) ?? false } ?? false) {
                modifications.append(key)
            }
        }
        for key in new.keys where old[key] == nil { insertions.append(key) }
        guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
        let keys = { (strings: [String]) in strings.sorted().compactMap(Key.init(mapKeyString:)) }
        block(.update(map, deletions: keys(deletions), insertions: keys(insertions), modifications: keys(modifications)))
    }

    override func rebaseline(in vault: Vault) {
        guard delivered != nil else { return }
        delivered = currentEntries()
        deliveredSequence = vault.commitSequence
    }
}

extension Map {
    /// Observes the map by key (Realm's `observe(keyPaths:_:)` on `Map`):
    /// `.initial`, then the keys removed, added and modified — a key set again
    /// (even to the same value) or, for maps of objects, whose object was written.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (VaultMapChange<Map<Key, Value>>) -> Void) -> NotificationToken {
        if let nested = detached as? NestedMixedCollection {
            // A dictionary in a mixed value: compared with its last delivered contents.
            return nested.observe { [self] change in
                switch change {
                case .initial: block(.initial(self))
                case .dictionary(let deletions, let insertions, let modifications):
                    block(.update(self, deletions: deletions.compactMap(Key.init(mapKeyString:)), insertions: insertions.compactMap(Key.init(mapKeyString:)),
                                  modifications: modifications.compactMap(Key.init(mapKeyString:))))
                case .list: break
                }
            }
        }
        guard let binding else { preconditionFailure("Only a managed Map can be observed: add its owner to a vault first") }
        return binding.vault.register(MapObservation(map: self, binding: binding, keyPaths: keyPaths, block: block))
    }
}
