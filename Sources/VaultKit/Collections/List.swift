import Foundation
import VaultCore

/// An ordered collection property: `@Persisted var friends: List<Person>`.
///
/// Elements can be objects (links), embedded objects, or values of any
/// persistable type (optional too). An unmanaged list is a plain array; a
/// managed one reads and writes the vault (writes inside `vault.write`).
///
/// ```swift
/// try vault.write {
///     person.friends.append(grace)
///     person.friends.move(from: 0, to: 1)
/// }
/// ```
public final class List<Element: PersistableValue>: RandomAccessCollection, PersistableCollection, CustomStringConvertible {
    private var storage: [Element] = []
    /// Where the elements are (see StoredCollection): a managed list's binding, or a list
    /// kept elsewhere (nested in a managed mixed value, or a migration's).
    var home: ElementHome
    private var cached: [(entryID: Int64, element: Element)] = []
    private var cachedVersion: UInt64 = 0

    /// An empty, unmanaged list.
    public init() { home = .unmanaged }

    init(home: ElementHome) { self.home = home }

    static var collectionKind: CollectionKind? { .list }
    static var elementType: any PersistableValue.Type { Element.self }

    func didAdopt(_ binding: CollectionBinding) {
        storage = []
        cached = []
        cachedVersion = binding.vault.session.checkedContentVersion &- 1
    }
    public static func _vaultDefaultValue() -> List<Element> { List() }
    var unmanagedEntries: [(key: String?, value: Any)] { elements.map { (nil, $0 as Any) } }

    /// The vault managing this list, if any.
    public var vault: Vault? { homeVault }

    private var managedEntries: [(entryID: Int64, element: Element)] {
        guard let binding else { return [] }
        return binding.vault.exclusiveIfFrozen { cachedEntries(binding) }
    }

    private func cachedEntries(_ binding: CollectionBinding) -> [(entryID: Int64, element: Element)] {
        if cachedVersion != binding.vault.session.checkedContentVersion {
            cached = binding.vault.collectionEntries(binding).compactMap { entry in
                binding.vault.decodeElement(entry.value, as: Element.self, property: binding.property,
                                            entry: .listEntry(binding, entryID: entry.entryID)).map { (entry.entryID, $0) }
            }
            cachedVersion = binding.vault.session.checkedContentVersion
        }
        return cached
    }

    private var elements: [Element] {
        if let detached { return detached.detachedElements().compactMap { detachedElement($0, as: Element.self) } }
        return binding == nil ? storage : managedEntries.map(\.element)
    }

    /// Applies an edit to the list's entries: in memory when unmanaged, as a
    /// positional rewrite of the kept rows when managed.
    private func edit(_ change: (inout [(entryID: Int64?, element: Element)]) -> Void) {
        guard let binding else {
            var entries: [(entryID: Int64?, element: Element)] = elements.map { (nil, $0) }
            change(&entries)
            if let detached {
                detached.replaceDetachedElements(entries.map { detachedBox($0.element) })
            } else {
                storage = entries.map(\.element)
            }
            return
        }
        let old = managedEntries
        var entries: [(entryID: Int64?, element: Element)] = old.map { ($0.entryID, $0.element) }
        change(&entries)
        binding.vault.rewriteList(binding, old: old.map(\.entryID), entries: entries.map { ($0.entryID, $0.element as Any) })
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }
    public var count: Int { elements.count }
    /// Iterates over the elements as they were when iteration started (one read),
    /// as Realm's fast enumeration does: appending or deleting inside a `for` loop
    /// neither loops forever nor skips elements.
    public func makeIterator() -> IndexingIterator<[Element]> { elements.makeIterator() }

    /// The element at `index`; setting it replaces the element.
    public subscript(index: Int) -> Element {
        get { elements[index] }
        set { replace(index: index, object: newValue) }
    }

    /// Appends an element.
    public func append(_ element: Element) {
        guard let binding else {
            if detached != nil { edit { $0.append((nil, element)) } } else { storage.append(element) }
            return
        }
        let encoded = binding.vault.encodeElement(element, property: binding.property, owner: binding.owner)
        binding.vault.mutateCollection(binding, binding.appendToListSQL, [.integer(binding.ownerRowID), encoded])
    }

    /// Appends every element of a sequence (Realm's `append(objectsIn:)`).
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in elements { append(element) }
    }

    /// Appends every element of a sequence.
    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        append(objectsIn: elements)
    }

    /// Inserts an element at `index`.
    public func insert(_ element: Element, at index: Int) {
        edit { entries in
            precondition(index >= 0 && index <= entries.count, "List index \(index) out of bounds (count \(entries.count))")
            entries.insert((nil, element), at: index)
        }
    }

    /// Removes the element at `index`.
    public func remove(at index: Int) {
        edit { entries in
            precondition(entries.indices.contains(index), "List index \(index) out of bounds (count \(entries.count))")
            entries.remove(at: index)
        }
    }

    /// Removes the first `number` elements (one by default); the list must hold that many.
    public func removeFirst(_ number: Int = 1) {
        precondition(number >= 0 && number <= count, "Cannot remove \(number) elements from a List of \(count)")
        removeSubrange(0..<number)
    }

    /// Removes the last `number` elements (one by default); the list must hold that many.
    public func removeLast(_ number: Int = 1) {
        precondition(number >= 0 && number <= count, "Cannot remove \(number) elements from a List of \(count)")
        removeSubrange((count - number)..<count)
    }

    /// Removes every element.
    public func removeAll() { edit { $0.removeAll() } }

    /// Moves the element at `from` to `to`.
    public func move(from: Int, to: Int) {
        edit { entries in
            precondition(entries.indices.contains(from) && entries.indices.contains(to), "List move(from: \(from), to: \(to)) out of bounds (count \(entries.count))")
            let entry = entries.remove(at: from)
            entries.insert(entry, at: to)
        }
    }

    /// Puts the elements in the order `order` gives (positions of the current elements).
    func reorder(_ order: ([(entryID: Int64?, element: Element)]) -> [Int]) {
        edit { entries in
            let positions = order(entries)
            precondition(positions.sorted() == Array(entries.indices), "a reordering must use every position once")
            entries = positions.map { entries[$0] }
        }
    }

    /// Swaps two elements.
    public func swapAt(_ first: Int, _ second: Int) {
        edit { $0.swapAt(first, second) }
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) {
        edit { entries in
            precondition(entries.indices.contains(index), "List index \(index) out of bounds (count \(entries.count))")
            entries[index] = (nil, object)
        }
    }

    /// Replaces the elements in `subrange` with `newElements` (Realm's and
    /// `RangeReplaceableCollection`'s `replaceSubrange`).
    public func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        edit { entries in
            precondition(subrange.lowerBound >= 0 && subrange.upperBound <= entries.count, "List range \(subrange) out of bounds (count \(entries.count))")
            entries.replaceSubrange(subrange, with: newElements.map { element -> (entryID: Int64?, element: Element) in (nil, element) })
        }
    }

    /// Replaces the elements in any range expression (`0...2`, `3...`) with `newElements`.
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C) where C.Element == Element, R.Bound == Int {
        replaceSubrange(subrange.relative(to: 0..<count), with: newElements)
    }

    /// Removes the elements in `bounds`.
    public func removeSubrange(_ bounds: Range<Int>) {
        replaceSubrange(bounds, with: EmptyCollection())
    }

    /// Removes the elements in any range expression (`0...2`, `3...`).
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        removeSubrange(bounds.relative(to: 0..<count))
    }

    /// Inserts the elements of `newElements` at `index`.
    public func insert<C: Collection>(contentsOf newElements: C, at index: Int) where C.Element == Element {
        replaceSubrange(index..<index, with: newElements)
    }

    /// Removes the elements at `offsets` (SwiftUI's `onDelete` hands these).
    public func remove(atOffsets offsets: IndexSet) {
        edit { entries in
            precondition(offsets.allSatisfy { entries.indices.contains($0) }, "List offsets out of bounds (count \(entries.count))")
            for offset in offsets.reversed() { entries.remove(at: offset) }
        }
    }

    /// Moves the elements at `source` to before the element that was at
    /// `destination` (SwiftUI's `onMove` semantics, as `Array.move(fromOffsets:toOffset:)`).
    public func move(fromOffsets source: IndexSet, toOffset destination: Int) {
        edit { entries in
            precondition(source.allSatisfy { entries.indices.contains($0) } && destination >= 0 && destination <= entries.count,
                         "List move(fromOffsets:toOffset: \(destination)) out of bounds (count \(entries.count))")
            let moving = source.map { entries[$0] }
            let before = source.filter { $0 < destination }.count
            for offset in source.reversed() { entries.remove(at: offset) }
            entries.insert(contentsOf: moving, at: destination - before)
        }
    }

    func assignUnmanaged(from value: Any) -> Bool {
        guard let array = value as? [Any] else { return false }
        let elements = array.compactMap { convertedValue($0, to: Element.self) }
        guard elements.count == array.count else { return false }
        storage = elements
        return true
    }

    public var description: String { "List<\(Element.self)>(\(count) elements)" }
}

extension List where Element: Object {
    /// The position of an object (same stored object), if present.
    public func index(of object: Element) -> Int? { elements.firstIndex { $0.isSameObject(as: object) } }
}

extension List where Element: Equatable {
    /// The position of a value, if present.
    public func index(of value: Element) -> Int? { elements.firstIndex(of: value) }
}
