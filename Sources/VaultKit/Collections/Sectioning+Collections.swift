import Foundation

// Realm's sectioning entry points on every collection of objects (List,
// MutableSet, LinkingObjects, AnyVaultCollection), and the forms that take
// sort descriptors, plus the typed `index(matching:)`.

extension Results {
    /// These results sorted by `sortDescriptors` and grouped by the value at
    /// `keyPath` (the first descriptor should sort by it: sections are runs of equal keys).
    public func sectioned<Key: Hashable & PersistableValue>(by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// These results sorted by `sortDescriptors` and grouped by `block` of each
    /// object (the key must follow the sort: sections are runs of equal keys).
    public func sectioned<Key: Hashable>(by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }
}

extension VaultCollection where Element: ObjectBase {
    /// The collection's objects sorted by `keyPath` and grouped by its value
    /// (see ``Results/sectioned(by:ascending:)``).
    public func sectioned<Key: Hashable & PersistableValue>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true) -> SectionedResults<Key, Element> {
        queryResults.sectioned(by: keyPath, ascending: ascending)
    }

    /// The collection's objects sorted by `sortDescriptors` and grouped by the value at `keyPath`.
    public func sectioned<Key: Hashable & PersistableValue>(by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        queryResults.sectioned(by: keyPath, sortDescriptors: sortDescriptors)
    }

    /// The collection's objects sorted by `sortDescriptors` (in the
    /// collection's order when empty) and grouped by `sectionKey` of each object.
    public func sectioned<Key: Hashable>(sortDescriptors: [SortDescriptor], _ sectionKey: @escaping (Element) -> Key) -> SectionedResults<Key, Element> {
        queryResults.sectioned(sortDescriptors: sortDescriptors, sectionKey)
    }

    /// The collection's objects sorted by `sortDescriptors` and grouped by `block` of each object.
    public func sectioned<Key: Hashable>(by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        queryResults.sectioned(sortDescriptors: sortDescriptors, block)
    }

    /// The position of the first object matching a typed query, if any.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        guard let first = queryResults.where(isIncluded).first else { return nil }
        return index(of: first)
    }
}
