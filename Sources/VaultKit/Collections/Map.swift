import Foundation
import VaultCore

/// A key type of ``Map``: String, as in Realm.
public protocol MapKey: Hashable, Comparable {
    /// The stored key.
    var mapKeyString: String { get }
    /// The key for a stored string.
    init?(mapKeyString: String)
}

extension String: MapKey {
    public var mapKeyString: String { self }
    public init?(mapKeyString: String) { self = mapKeyString }
}

/// A dictionary property: `@Persisted var metadata: Map<String, String>`.
///
/// Keys may not contain `.` or start with `$` (as in Realm); a write with such
/// a key fails its transaction. Setting a key to `nil` removes it.
public final class Map<Key: MapKey, Value: PersistableValue>: Sequence, PersistableCollection, CustomStringConvertible {
    private var storage: [Key: Value] = [:]
    /// Where the entries are (see StoredCollection): a managed map's binding, or a dictionary
    /// kept elsewhere (nested in a managed mixed value, or a migration's).
    var home: ElementHome

    /// An empty, unmanaged map.
    public init() { home = .unmanaged }

    init(home: ElementHome) { self.home = home }

    static var collectionKind: CollectionKind? { .map }
    static var elementType: any PersistableValue.Type { Value.self }

    func didAdopt(_ binding: CollectionBinding) { storage = [:] }
    public static func _vaultDefaultValue() -> Map<Key, Value> { Map() }
    var unmanagedEntries: [(key: String?, value: Any)] { entries.map { ($0.key.mapKeyString, $0.value as Any) } }

    /// The vault managing this map, if any.
    public var vault: Vault? { homeVault }

    /// The entries, sorted by key.
    private var entries: [(key: Key, value: Value)] {
        guard let binding else {
            if let detached {
                return detached.detachedEntries().compactMap { entry in
                    guard let key = Key(mapKeyString: entry.key), let value = detachedElement(entry.value, as: Value.self) else { return nil }
                    return (key, value)
                }
            }
            return storage.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        return binding.vault.collectionEntries(binding).compactMap { entry in
            guard let keyString = entry.key, let key = Key(mapKeyString: keyString),
                  let value = binding.vault.decodeElement(entry.value, as: Value.self, property: binding.property,
                                                          entry: .mapEntry(binding, key: keyString)) else { return nil }
            return (key, value)
        }
    }

    /// Why a key cannot be stored, if it cannot.
    static func invalidKeyReason(_ key: String) -> String? {
        if key.contains(".") { return "map keys must not contain '.' ('\(key)')" }
        if key.hasPrefix("$") { return "map keys must not start with '$' ('\(key)')" }
        return nil
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    /// The keys, sorted.
    public var keys: [Key] { entries.map(\.key) }
    /// The values, in key order.
    public var values: [Value] { entries.map(\.value) }

    /// The value for `key`; assigning `nil` removes the key.
    ///
    /// A managed map looks the key up in its table's index (it does not read the other entries).
    public subscript(key: Key) -> Value? {
        get {
            guard let binding else {
                if detached == nil { return storage[key] }
                return entries.first { $0.key == key }?.value
            }
            let keyString = key.mapKeyString
            guard let stored = binding.vault.mapEntryValue(binding, key: keyString) else { return nil }
            return binding.vault.decodeElement(stored, as: Value.self, property: binding.property,
                                               entry: .mapEntry(binding, key: keyString))
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// Sets the value for `key`.
    public func updateValue(_ value: Value, forKey key: Key) {
        guard let binding else {
            if detached != nil { editDetached { $0[key.mapKeyString] = value } } else { storage[key] = value }
            return
        }
        if let reason = Self.invalidKeyReason(key.mapKeyString) {
            binding.vault.deferError(VaultObjectError.invalidValue(className: binding.owner.className, property: binding.property.name, reason: reason))
            return
        }
        let encoded = binding.vault.encodeElement(value, property: binding.property, owner: binding.owner)
        binding.vault.mutateCollection(binding, binding.insertEntrySQL,
                                       [.integer(binding.ownerRowID), .text(key.mapKeyString), encoded])
    }

    /// Removes `key` (Realm's `removeObject(for:)`).
    public func removeObject(for key: Key) {
        guard let binding else {
            if detached != nil { editDetached { $0[key.mapKeyString] = nil } } else { storage[key] = nil }
            return
        }
        binding.vault.mutateCollection(binding, binding.deleteMapKeySQL,
                                       [.integer(binding.ownerRowID), .text(key.mapKeyString)])
    }

    /// Removes `key` and returns its value.
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        let old = self[key]
        removeObject(for: key)
        return old
    }

    /// Removes every key.
    public func removeAll() {
        guard let binding else {
            if detached != nil { editDetached { $0.removeAll() } } else { storage = [:] }
            return
        }
        binding.vault.mutateCollection(binding, binding.deleteAllEntriesSQL, [.integer(binding.ownerRowID)])
    }

    /// Sets every key of `other` (later values win).
    public func merge<S: Sequence>(_ other: S) where S.Element == (key: Key, value: Value) {
        merge(other, uniquingKeysWith: { _, new in new })
    }

    /// Sets every key of `other`, combining the values of keys present in both with `combine`.
    public func merge<S: Sequence>(_ other: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows where S.Element == (key: Key, value: Value) {
        for (key, value) in other {
            updateValue(try self[key].map { try combine($0, value) } ?? value, forKey: key)
        }
    }

    /// The value for the map key `key` (Realm's key-value coding on maps); `nil` when absent.
    public func value(forKey key: String) -> Any? {
        guard let mapKey = Key(mapKeyString: key), let value = self[mapKey] else { return nil }
        return value
    }

    /// Sets the map key `key` to `value` (a `Value`); `nil` removes the key.
    /// A value of another type is a programmer error, as in Realm.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let mapKey = Key(mapKeyString: key) else { preconditionFailure("'\(key)' is not a key of Map<\(Key.self), \(Value.self)>") }
        guard let value, !(value is NSNull) else {
            removeObject(for: mapKey)
            return
        }
        guard let typed = value as? Value else { preconditionFailure("Cannot set a \(type(of: value)) in Map<\(Key.self), \(Value.self)>") }
        self[mapKey] = typed
    }

    /// Sets every key of a dictionary.
    public func merge(_ other: [Key: Value]) {
        merge(other.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) })
    }

    /// Whether `key` is present.
    public func contains(key: Key) -> Bool { self[key] != nil }

    /// The entries as (key, value) pairs, sorted by key.
    public func asKeyValueSequence() -> [(key: Key, value: Value)] { entries }

    public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> { entries.makeIterator() }

    /// Rewrites a detached dictionary's entries (all at once, in its store).
    private func editDetached(_ change: (inout [String: Value]) -> Void) {
        guard let detached else { return }
        if let reason = invalidDetachedKeyReason(change) {
            detached.refuse(reason)
            return
        }
        var dictionary = Dictionary(uniqueKeysWithValues: entries.map { ($0.key.mapKeyString, $0.value) })
        change(&dictionary)
        detached.replaceDetachedEntries(dictionary.sorted { $0.key < $1.key }.map { ($0.key, detachedBox($0.value)) })
    }

    private func invalidDetachedKeyReason(_ change: (inout [String: Value]) -> Void) -> String? {
        var probe: [String: Value] = [:]
        change(&probe)
        return probe.keys.lazy.compactMap { Map<String, Int>.invalidKeyReason($0) }.first
    }

    func assignUnmanaged(from value: Any) -> Bool {
        guard let dictionary = value as? [String: Any] else { return false }
        var result: [Key: Value] = [:]
        for (keyString, element) in dictionary {
            guard let key = Key(mapKeyString: keyString), let typed = convertedValue(element, to: Value.self) else { return false }
            result[key] = typed
        }
        storage = result
        return true
    }

    public var description: String { "Map<\(Key.self), \(Value.self)>(\(count) entries)" }
}
