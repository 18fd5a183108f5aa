import Foundation
import VaultCore

/// An unordered collection of distinct elements: `@Persisted var tags: MutableSet<String>`.
///
/// Distinct by stored value (objects: by identity in the vault).
public final class MutableSet<Element: PersistableValue>: RandomAccessCollection, PersistableCollection, CustomStringConvertible {
    private var storage: [Element] = []
    /// Where the elements are (see StoredCollection): a managed set's binding, or a migration's set.
    var home: ElementHome

    /// An empty, unmanaged set.
    public init() { home = .unmanaged }

    init(home: ElementHome) { self.home = home }

    static var collectionKind: CollectionKind? { .set }
    static var elementType: any PersistableValue.Type { Element.self }

    func didAdopt(_ binding: CollectionBinding) { storage = [] }
    public static func _vaultDefaultValue() -> MutableSet<Element> { MutableSet() }
    var unmanagedEntries: [(key: String?, value: Any)] { elements.map { (nil, $0 as Any) } }

    /// The vault managing this set, if any.
    public var vault: Vault? { homeVault }

    private var elements: [Element] {
        guard let binding else {
            if let detached { return detached.detachedElements().compactMap { detachedElement($0, as: Element.self) } }
            return storage
        }
        return binding.vault.collectionEntries(binding).compactMap {
            binding.vault.decodeElement($0.value, as: Element.self, property: binding.property)
        }
    }

    /// The identity of an element for distinctness: its stored value, or its object.
    private func identity(_ element: Element) -> AnyHashable {
        // A mixed value linking to an object is that object (an unmanaged one has no stored form yet).
        if let mixed = element as? AnyVaultValue, case .object(let object) = mixed {
            if let manager = object.manager { return AnyHashable("\(manager.schema.className)#\(manager.rowID)") }
            return AnyHashable(ObjectIdentifier(object))
        }
        if let object = element as? ObjectBase {
            if let manager = object.manager { return AnyHashable("\(manager.schema.className)#\(manager.rowID)") }
            if let dynamic = object as? DynamicObject, dynamic.isMigrationObject { return AnyHashable("\(dynamic.className)#\(dynamic.rowID)") }
            return AnyHashable(ObjectIdentifier(object))
        }
        return AnyHashable(element._vaultEncoded)
    }

    public var count: Int { elements.count }
    /// Always 0 (elements by position, in the set's stored order, as Realm's `MutableSet` offers them).
    public var startIndex: Int { 0 }
    /// The number of elements.
    public var endIndex: Int { count }
    /// The element at `position` (reads the set: iterate rather than index in a loop).
    public subscript(position: Int) -> Element { elements[position] }
    public var isEmpty: Bool { elements.isEmpty }
    public func makeIterator() -> IndexingIterator<[Element]> { elements.makeIterator() }

    /// Whether the set holds `element`.
    public func contains(_ element: Element) -> Bool {
        let key = identity(element)
        return elements.contains { identity($0) == key }
    }

    /// Adds `element` if it is not there yet.
    public func insert(_ element: Element) {
        guard let binding else {
            if !contains(element) { editUnbound { $0.append(element) } }
            return
        }
        let encoded = binding.vault.encodeElement(element, property: binding.property, owner: binding.owner)
        binding.vault.mutateCollection(binding, binding.insertEntrySQL, [.integer(binding.ownerRowID), encoded])
    }

    /// Adds every element of a sequence.
    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in elements { insert(element) }
    }

    /// Removes `element` if present.
    public func remove(_ element: Element) {
        guard let binding else {
            let key = identity(element)
            editUnbound { $0.removeAll { identity($0) == key } }
            return
        }
        // An object no vault stores is in no managed set: nothing to remove (and nothing to store, as
        // encoding it would; Realm's rule).
        if let object = element as? ObjectBase, object.manager == nil { return }
        let encoded = binding.vault.encodeElement(element, property: binding.property, owner: binding.owner)
        binding.vault.mutateCollection(binding, binding.deleteSetValueSQL, [.integer(binding.ownerRowID), encoded])
    }

    /// Removes every element.
    public func removeAll() {
        guard let binding else { editUnbound { $0.removeAll() }; return }
        binding.vault.mutateCollection(binding, binding.deleteAllEntriesSQL, [.integer(binding.ownerRowID)])
    }

    /// Adds every element of `other`.
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element { insert(objectsIn: other) }

    /// Keeps only the elements also in `other`.
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        let keep = Set(other.map { identity($0) })
        for element in elements where !keep.contains(identity(element)) { remove(element) }
    }

    /// Removes the elements that are in `other`.
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for element in other { remove(element) }
    }

    /// Whether every element is also in `other`.
    public func isSubset<S: Sequence>(of other: S) -> Bool where S.Element == Element {
        let theirs = Set(other.map { identity($0) })
        return elements.allSatisfy { theirs.contains(identity($0)) }
    }

    /// Whether the sets share an element.
    public func intersects<S: Sequence>(_ other: S) -> Bool where S.Element == Element {
        let theirs = Set(other.map { identity($0) })
        return elements.contains { theirs.contains(identity($0)) }
    }

    /// Changes the elements of an unmanaged set in memory, of a detached one in its store.
    private func editUnbound(_ change: (inout [Element]) -> Void) {
        guard let detached else {
            change(&storage)
            return
        }
        var current = elements
        change(&current)
        detached.replaceDetachedElements(current.map { detachedBox($0) })
    }

    func assignUnmanaged(from value: Any) -> Bool {
        guard let array = value as? [Any] else { return false }
        let elements = array.compactMap { convertedValue($0, to: Element.self) }
        guard elements.count == array.count else { return false }
        storage = []
        for element in elements where !contains(element) { storage.append(element) }
        return true
    }

    public var description: String { "MutableSet<\(Element.self)>(\(count) elements)" }
}
