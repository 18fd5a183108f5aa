import Foundation
import OpenCombineShim

// Realm's publishers on one section of sectioned results: its value after
// each change of its own objects, its changes, and `objectWillChange`. A
// change delivered on another scheduler carries the results across and finds
// the section again there by its key.

extension ResultsSection: VaultSubscribable {}

extension ResultsSection where Key: SendableMetatype, Element: SendableMetatype {
    /// Emits the section at its first delivery and after each change of its objects (Realm's `collectionPublisher`).
    public var collectionPublisher: VaultPublishers.Value<ResultsSection<Key, Element>> { collectionPublisher(keyPaths: nil) }

    /// Emits the section at its first delivery and after each change of its objects that touches `keyPaths`.
    public func collectionPublisher(keyPaths: [String]?) -> VaultPublishers.Value<ResultsSection<Key, Element>> {
        VaultPublishers.Value(configuration: results.vault?.configuration) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0.emission) }
        }
    }

    /// Emits every change of the section (Realm's `changesetPublisher`).
    public var changesetPublisher: VaultPublishers.SectionedResultsChangeset<ResultsSection<Key, Element>> { changesetPublisher(keyPaths: nil) }

    /// Emits every change of the section that touches `keyPaths`.
    public func changesetPublisher(keyPaths: [String]?) -> VaultPublishers.SectionedResultsChangeset<ResultsSection<Key, Element>> {
        VaultPublishers.Changeset(handover: .section()) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0) }
        }
    }

    /// Emits after each change of the section, including its first delivery.
    public var objectWillChange: VaultPublishers.WillChange<ResultsSection<Key, Element>> {
        VaultPublishers.WillChange(observingIf: results.vault != nil && !isFrozen) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}

extension ChangeHandover {
    /// For one section's changes: the results cross, and the section is found again by its key.
    static func section<Key, Element>() -> ChangeHandover where Change == SectionedResultsChange<ResultsSection<Key, Element>> {
        ChangeHandover { change in
            switch change {
            case .initial(let section):
                let key = section.key, function = section.sections.keyFunction
                return .of(section.results) { .initial(ResultsSection(key: key, sections: SectionedResults(results: $0, key: function))) }
            case .update(let section, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                let key = section.key, function = section.sections.keyFunction
                return .of(section.results) {
                    .update(ResultsSection(key: key, sections: SectionedResults(results: $0, key: function)), deletions: deletions,
                            insertions: insertions, modifications: modifications, sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
                }
            }
        }
    }
}
