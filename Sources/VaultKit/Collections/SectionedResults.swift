import Foundation
import VaultCore

// MARK: - Sectioned results
//
// Realm's `SectionedResults` (10.29): a sorted `Results` grouped into
// sections by a key computed from each object — the first letter of a name,
// a day — for grouped lists (UITableView sections, SwiftUI `Section`s).
// Sections come in the order of the underlying sort, so the key must follow
// it (sort by the name to section by its first letter).
//
// The sections are computed from the results at the vault's current version
// (one pass over the objects, keeping row positions only) and computed again
// when the version moves. Observation runs on the underlying results: each
// update recomputes the sections and reports the change by index path —
// deletions and modifications at their old paths, insertions at their new
// ones — and by whole sections inserted and deleted, Realm's shape.

/// A sorted `Results` grouped into sections by a key (Realm's `SectionedResults`).
///
/// ```swift
/// let byLetter = vault.objects(Person.self).sectioned(by: \.firstLetter)   // sorted by firstLetter
/// for section in byLetter { print(section.key, section.map(\.name)) }
/// let person = byLetter[IndexPath(indexes: [1, 0])]        // section 1, item 0
/// ```
public struct SectionedResults<Key: Hashable, Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// The sorted objects the sections are made of.
    public let results: Results<Element>
    let keyFunction: (Element) -> Key
    private let cache = SectionCache<Key>()

    init(results: Results<Element>, key: @escaping (Element) -> Key) {
        self.results = results
        self.keyFunction = key
    }

    /// The sections at the vault's current version.
    var layout: SectionLayout<Key> {
        results.owner.exclusiveIfFrozen {
            let version = results.reader.version
            if let layout = cache.layout, cache.version == version { return layout }
            let layout = SectionLayout(keys: results.map(keyFunction))
            cache.layout = layout
            cache.version = version
            return layout
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { layout.sections.count }
    /// The section at `position`.
    public subscript(position: Int) -> ResultsSection<Key, Element> {
        ResultsSection(key: layout.sections[position].key, sections: self)
    }
    /// The object at `indexPath` (`item` within `section`).
    public subscript(indexPath: IndexPath) -> Element { self[indexPath.sectionIndex][indexPath.itemIndex] }
    /// Every section's key, in order.
    public var allKeys: [Key] { layout.sections.map(\.key) }
    public var description: String { "SectionedResults<\(Element.self)>(\(count) sections)" }

    /// Whether the results read a frozen vault.
    public var isFrozen: Bool { results.isFrozen }
    /// The vault the sections read (Realm's `realm`).
    public var vault: Vault? { results.vault }
    /// Whether the collection the results are based on is gone (Realm's).
    public var isInvalidated: Bool { results.isInvalidated }
    /// The same sections over a frozen copy of the vault.
    public func freeze() -> SectionedResults<Key, Element> { SectionedResults(results: results.freeze(), key: keyFunction) }
    /// The same sections, live, on the calling thread's vault.
    public func thaw() -> SectionedResults<Key, Element>? { results.thaw().map { SectionedResults(results: $0, key: keyFunction) } }

    /// Observes the sections: `.initial`, then each change by index path and whole sections.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (SectionedResultsChange<SectionedResults<Key, Element>>) -> Void) -> NotificationToken {
        observeLayouts(keyPaths: keyPaths) { change in
            switch change {
            case .initial(let current): block(.initial(current))
            case .update(let current, let diff, _, _):
                guard !diff.isEmpty else { return }
                block(.update(current, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications,
                              sectionsToInsert: diff.sectionsToInsert, sectionsToDelete: diff.sectionsToDelete))
            case .error(let error): SectionedResults.observationEnded(error)
            }
        }
    }

    /// An observation of sections that failed (the vault could not be read on the
    /// observing queue): Realm's `SectionedResultsChange` has no error case, so the
    /// failure is logged and the observation delivers nothing more.
    static func observationEnded(_ error: any Error) {
        VaultLog.log(.error, "An observation of sectioned results of \(Element.self) ended: \(error)")
    }

    /// What one delivery of the underlying results means for the sections.
    enum LayoutChange {
        case initial(SectionedResults<Key, Element>)
        /// The sections now, their change, and the layouts before and after.
        case update(SectionedResults<Key, Element>, SectionDiff<Key>, old: SectionLayout<Key>, new: SectionLayout<Key>)
        case error(Swift.Error)
    }

    /// Observes the underlying results and turns each delivery into a change of sections.
    func observeLayouts(keyPaths: [String]?, _ block: @escaping (LayoutChange) -> Void) -> NotificationToken {
        var previous = SectionLayout<Key>(keys: [])
        var previousIDs: [Int64] = []
        let keyFunction = self.keyFunction
        return results.observe(keyPaths: keyPaths) { change in
            switch change {
            case .initial(let results):
                let current = SectionedResults(results: results, key: keyFunction)
                previous = current.layout
                previousIDs = results.rowIDs()
                block(.initial(current))
            case .update(let results, let deletions, let insertions, let modifications):
                let current = SectionedResults(results: results, key: keyFunction)
                let layout = current.layout, ids = results.rowIDs()
                let diff = SectionDiff(old: previous, oldIDs: previousIDs, new: layout, newIDs: ids,
                                       deleted: deletions, inserted: insertions, modified: modifications)
                let old = previous
                previous = layout
                previousIDs = ids
                block(.update(current, diff, old: old, new: layout))
            case .error(let error):
                block(.error(error))
            }
        }
    }
}

extension SectionedResults: Equatable {
    /// Whether the two are the same sectioned results (or copies of them), as Realm's
    /// `==` compares: sectioning a collection again gives results that are not equal.
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool { lhs.results == rhs.results }
}

extension ResultsSection: Equatable {
    /// Whether the two are the same section (its key) of the same sectioned results.
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool { lhs.sections == rhs.sections && lhs.key == rhs.key }
}

/// A change of ``SectionedResults`` (Realm's `SectionedResultsChange`).
public enum SectionedResultsChange<Collection> {
    /// The first delivery.
    case initial(Collection)
    /// Objects deleted and modified (old index paths), inserted (new index paths);
    /// whole sections inserted (new indices) and deleted (old indices).
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
}

extension Results {
    /// These results sorted by `keyPath` and grouped by its value. The key path may
    /// name a computed property, as in Realm (`var firstLetter: String { String(name.prefix(1)) }`):
    /// the results are sorted by the `@Persisted` property its getter reads (`name`),
    /// and grouped by the computed value.
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(byKeyPath: sortName(of: keyPath), ascending: ascending)) { $0[keyPath: keyPath] }
    }

    /// The property (or path) a section key path sorts by: the one it reads.
    private func sortName(of keyPath: AnyKeyPath) -> String {
        guard let name = schema.keyPathName(keyPath) else {
            preconditionFailure("sectioned(by:) needs a key path that reads a @Persisted property of \(schema.className)")
        }
        return name
    }

    /// These results sorted by `sortDescriptors` and grouped by `sectionKey`
    /// of each object (the key must follow the sort: sections are runs of equal keys).
    public func sectioned<Key: Hashable>(sortDescriptors: [SortDescriptor], _ sectionKey: @escaping (Element) -> Key) -> SectionedResults<Key, Element> {
        SectionedResults(results: sortDescriptors.isEmpty ? self : sorted(by: sortDescriptors), key: sectionKey)
    }

    /// These results sorted by `keyPath` and grouped by `sectionKey` of each object.
    public func sectioned<Key: Hashable, Value>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true,
                                               _ sectionKey: @escaping (Element) -> Key) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(byKeyPath: sortName(of: keyPath), ascending: ascending), key: sectionKey)
    }
}

/// Sections as runs of equal keys over positions of the sorted results.
struct SectionLayout<Key: Hashable> {
    struct Section {
        let key: Key
        let range: Range<Int>
    }
    let sections: [Section]
    /// Each key's section index.
    let indexByKey: [Key: Int]

    init(keys: [Key]) {
        var sections: [Section] = []
        var start = 0
        for position in keys.indices where position + 1 == keys.count || keys[position + 1] != keys[position] {
            sections.append(Section(key: keys[position], range: start..<(position + 1)))
            start = position + 1
        }
        self.sections = sections
        indexByKey = Dictionary(sections.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The positions of the section with `key` (empty when there is none).
    func range(of key: Key) -> Range<Int> { indexByKey[key].map { sections[$0].range } ?? 0..<0 }

    /// The index path of each flat position.
    func indexPaths() -> [IndexPath] {
        sections.enumerated().flatMap { section, entry in
            entry.range.indices.map { IndexPath(sectionIndex: section, itemIndex: $0 - entry.range.lowerBound) }
        }
    }
}

/// The section layout cached for one version.
final class SectionCache<Key: Hashable> {
    var version: UInt64 = 0
    var layout: SectionLayout<Key>?
}

/// Index-path changes between two layouts, from the flat change of the underlying results.
struct SectionDiff<Key: Hashable> {
    var deletions: [IndexPath] = [], insertions: [IndexPath] = [], modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet(), sectionsToDelete = IndexSet()
    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
    }

    /// `deleted`, `modified`: old positions; `inserted`: new positions (the results' own change).
    init(old: SectionLayout<Key>, oldIDs: [Int64], new: SectionLayout<Key>, newIDs: [Int64],
         deleted: [Int], inserted: [Int], modified: [Int]) {
        let oldKeys = old.sections.map(\.key), newKeys = new.sections.map(\.key)
        sectionsToDelete = IndexSet(oldKeys.indices.filter { !newKeys.contains(oldKeys[$0]) })
        sectionsToInsert = IndexSet(newKeys.indices.filter { !oldKeys.contains(newKeys[$0]) })
        let oldPaths = old.indexPaths(), newPaths = new.indexPaths()
        var newPosition: [Int64: Int] = [:]
        for (position, id) in newIDs.enumerated() { newPosition[id] = position }
        var deletedPositions = Set(deleted), insertedPositions = Set(inserted)
        var modifiedPositions: [Int] = []
        for position in modified where oldIDs.indices.contains(position) && oldPaths.indices.contains(position) {
            // A written object whose key changed left its section: a deletion and an insertion.
            guard let now = newPosition[oldIDs[position]], newPaths.indices.contains(now) else { continue }
            if oldKeys[oldPaths[position].sectionIndex] == newKeys[newPaths[now].sectionIndex] {
                modifiedPositions.append(position)
            } else {
                deletedPositions.insert(position)
                insertedPositions.insert(now)
            }
        }
        // Objects of whole sections inserted or deleted are covered by those sections.
        deletions = deletedPositions.compactMap { oldPaths.indices.contains($0) ? oldPaths[$0] : nil }
            .filter { !sectionsToDelete.contains($0.sectionIndex) }.sorted()
        insertions = insertedPositions.compactMap { newPaths.indices.contains($0) ? newPaths[$0] : nil }
            .filter { !sectionsToInsert.contains($0.sectionIndex) }.sorted()
        modifications = modifiedPositions.map { oldPaths[$0] }.filter { !sectionsToDelete.contains($0.sectionIndex) }.sorted()
    }
}

extension IndexPath {
    /// A section/item path, without UIKit's or AppKit's initialiser (absent on Linux).
    init(sectionIndex section: Int, itemIndex item: Int) { self.init(indexes: [section, item]) }
    /// The section of a section/item path.
    var sectionIndex: Int { self[0] }
    /// The item of a section/item path.
    var itemIndex: Int { self[1] }
}
