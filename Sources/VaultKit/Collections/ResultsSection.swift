import Foundation

/// One section of ``SectionedResults``: its key and its objects (Realm's `ResultsSection`).
///
/// Live, as Realm's: it is the section with its key at the vault's current
/// version, so after a change it holds that key's objects then (none once the
/// last one left). Observe it alone to hear only about its own objects:
///
/// ```swift
/// let byLetter = vault.objects(Person.self).sectioned(by: \.firstLetter)
/// let aSection = byLetter[0]
/// token = aSection.observe { change in
///     if case .update(let section, let deletions, let insertions, _, _, _) = change {
///         print(section.key, deletions, insertions)      // index paths of this section only
///     }
/// }
/// ```
public struct ResultsSection<Key: Hashable, Element: ObjectBase>: RandomAccessCollection, Identifiable, CustomStringConvertible {
    /// The key every object of the section has.
    public let key: Key
    /// The sectioned results the section belongs to.
    let sections: SectionedResults<Key, Element>

    init(key: Key, sections: SectionedResults<Key, Element>) {
        self.key = key
        self.sections = sections
    }

    var results: Results<Element> { sections.results }
    /// The section's positions in the sorted results now.
    var range: Range<Int> { sections.layout.range(of: key) }

    /// The section's key, as its identity.
    public var id: Key { key }
    public var startIndex: Int { 0 }
    public var endIndex: Int { range.count }
    /// The object at `position` within the section.
    public subscript(position: Int) -> Element { results[range.lowerBound + position] }
    public var description: String { "ResultsSection(\(key), \(count) objects)" }
    /// The vault the section reads (Realm's `realm`).
    public var vault: Vault? { results.vault }
    /// Whether the section reads a frozen vault.
    public var isFrozen: Bool { results.isFrozen }
    /// Whether the collection the section's results are based on is gone (Realm's).
    public var isInvalidated: Bool { results.isInvalidated }

    /// The same section over a frozen copy of the vault.
    public func freeze() -> ResultsSection<Key, Element> { ResultsSection(key: key, sections: sections.freeze()) }
    /// The same section, live, on the calling thread's vault.
    public func thaw() -> ResultsSection<Key, Element>? { sections.thaw().map { ResultsSection(key: key, sections: $0) } }

    /// Observes this section (Realm's `observe(keyPaths:_:)` on a section):
    /// `.initial`, then each change that touches its objects. Index paths carry
    /// the section's index in the sectioned results (old for deletions and
    /// modifications, new for insertions); when the key's last object leaves,
    /// `sectionsToDelete` holds its old index, and when objects with the key
    /// come back, `sectionsToInsert` holds the new index with their insertions.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (SectionedResultsChange<ResultsSection<Key, Element>>) -> Void) -> NotificationToken {
        let key = self.key
        return sections.observeLayouts(keyPaths: keyPaths) { change in
            switch change {
            case .initial(let current):
                block(.initial(ResultsSection(key: key, sections: current)))
            case .update(let current, let diff, let old, let new):
                let oldIndex = old.indexByKey[key], newIndex = new.indexByKey[key]
                var deletions: [IndexPath] = [], insertions: [IndexPath] = [], modifications: [IndexPath] = []
                var sectionsToInsert = IndexSet(), sectionsToDelete = IndexSet()
                switch (oldIndex, newIndex) {
                case (nil, nil):
                    return
                case (let index?, nil):
                    sectionsToDelete.insert(index)
                case (nil, let index?):
                    sectionsToInsert.insert(index)
                    insertions = new.sections[index].range.indices.map { IndexPath(sectionIndex: index, itemIndex: $0 - new.sections[index].range.lowerBound) }
                case (let before?, let after?):
                    deletions = diff.deletions.filter { $0.sectionIndex == before }
                    modifications = diff.modifications.filter { $0.sectionIndex == before }
                    insertions = diff.insertions.filter { $0.sectionIndex == after }
                    guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
                }
                block(.update(ResultsSection(key: key, sections: current), deletions: deletions, insertions: insertions,
                              modifications: modifications, sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete))
            case .error(let error):
                SectionedResults<Key, Element>.observationEnded(error)
            }
        }
    }

    /// Observes this section for changes of the properties `keyPaths` names.
    public func observe(keyPaths: [PartialKeyPath<Element>], _ block: @escaping (SectionedResultsChange<ResultsSection<Key, Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map(_name(for:)), block)
    }
}

extension ResultsSection where Key: SendableMetatype, Element: SendableMetatype {
    /// Observes this section with delivery on a serial `queue` (Realm's
    /// signature): the section is found again there by its key, in results
    /// sectioned by the same key function. With `queue` nil, as ``observe(keyPaths:_:)-([String]?,_)``.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (SectionedResultsChange<ResultsSection<Key, Element>>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        guard let vault = results.vault else { preconditionFailure("Only managed results can be observed") }
        let bound = QueueBound(value: (key, sections.keyFunction))
        return results.observeOnQueue(queue, from: vault, failed: { SectionedResults<Key, Element>.observationEnded($0) }) { resolved in
            ResultsSection(key: bound.value.0, sections: SectionedResults(results: resolved, key: bound.value.1)).observe(keyPaths: keyPaths, block)
        }
    }

    /// Observes this section on `queue` for changes of the properties `keyPaths` names.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (SectionedResultsChange<ResultsSection<Key, Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map(_name(for:)), on: queue, block)
    }
}

extension SectionedResults {
    /// Observes the sections for changes of the properties `keyPaths` names (Realm's typed form).
    public func observe(keyPaths: [PartialKeyPath<Element>], _ block: @escaping (SectionedResultsChange<SectionedResults<Key, Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map(_name(for:)), block)
    }
}

extension SectionedResults where Key: SendableMetatype, Element: SendableMetatype {
    /// Observes the sections on `queue` for changes of the properties `keyPaths` names.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (SectionedResultsChange<SectionedResults<Key, Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map(_name(for:)), on: queue, block)
    }
}
