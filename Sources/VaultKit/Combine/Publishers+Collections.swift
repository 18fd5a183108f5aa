import Foundation
import OpenCombineShim
import VaultCore

// The publishers of collections, sectioned results, maps and projected
// results, made from their observations (see ObservationSubscription.swift).

extension VaultCollectionChange {
    /// What a value publisher emits for this change.
    var emission: VaultEmission<Collection> {
        switch self {
        case .initial(let collection), .update(let collection, _, _, _): return .value(collection)
        case .error(let error): return .failed(error)
        }
    }
}

extension VaultMapChange {
    var emission: VaultEmission<Collection> {
        switch self {
        case .initial(let map), .update(let map, _, _, _): return .value(map)
        case .error(let error): return .failed(error)
        }
    }
}

extension SectionedResultsChange {
    var emission: VaultEmission<Collection> {
        switch self {
        case .initial(let sections), .update(let sections, _, _, _, _, _): return .value(sections)
        }
    }
}

extension VaultCollection where Self: SendableMetatype {
    /// Observes the collection, on `queue` when given.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?, _ block: @escaping @Sendable (VaultCollectionChange<Self>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        return observeCollection(self, keyPaths: keyPaths, on: queue, block)
    }

    /// Emits the collection at its first delivery and after each change
    /// (Realm's `collectionPublisher`): `vault.objects(Task.self).collectionPublisher.sink { tasks in … }`.
    public var collectionPublisher: VaultPublishers.Value<Self> { collectionPublisher(keyPaths: nil) }

    /// Realm's deprecated name of ``collectionPublisher``: without it, `results.publisher`
    /// would be Combine's `Sequence.publisher`, which sends the elements once and finishes.
    @available(*, deprecated, renamed: "collectionPublisher")
    public var publisher: VaultPublishers.Value<Self> { collectionPublisher(keyPaths: nil) }

    /// Emits the collection at its first delivery and after each change that
    /// touches `keyPaths` (insertions and deletions always count).
    public func collectionPublisher(keyPaths: [String]?) -> VaultPublishers.Value<Self> {
        VaultPublishers.Value(configuration: vault?.configuration) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0.emission) }
        }
    }

    /// Emits every change of the collection, with Realm's indices (Realm's `changesetPublisher`).
    public var changesetPublisher: VaultPublishers.CollectionChangeset<Self> { changesetPublisher(keyPaths: nil) }

    /// Emits every change of the collection that touches `keyPaths`.
    public func changesetPublisher(keyPaths: [String]?) -> VaultPublishers.CollectionChangeset<Self> {
        VaultPublishers.Changeset(handover: .collection()) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0) }
        }
    }

    /// Emits after each change of the collection (Realm's `objectWillChange`;
    /// despite the name, after the change), including its first delivery.
    public var objectWillChange: VaultPublishers.WillChange<Self> {
        VaultPublishers.WillChange(observingIf: vault != nil && !isFrozen) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}

extension Results: VaultSubscribable {}
extension List: VaultSubscribable, ObservableObject {
    /// Emits after each change of the collection, including its first delivery (Realm's `objectWillChange`).
    public var objectWillChange: VaultPublishers.WillChange<List<Element>> {
        VaultPublishers.WillChange(observingIf: vault != nil && !isFrozen) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}
extension MutableSet: VaultSubscribable, ObservableObject {
    /// Emits after each change of the collection, including its first delivery (Realm's `objectWillChange`).
    public var objectWillChange: VaultPublishers.WillChange<MutableSet<Element>> {
        VaultPublishers.WillChange(observingIf: vault != nil && !isFrozen) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}
extension LinkingObjects: VaultSubscribable, ObservableObject {
    /// Emits after each change of the collection, including its first delivery (Realm's `objectWillChange`).
    public var objectWillChange: VaultPublishers.WillChange<LinkingObjects<Element>> {
        VaultPublishers.WillChange(observingIf: vault != nil && !isFrozen) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}
extension AnyVaultCollection: VaultSubscribable {}

extension Map: VaultSubscribable {}

extension Map: ObservableObject {
    /// Emits after each change of the map, including its first delivery (Realm's `objectWillChange`).
    public var objectWillChange: VaultPublishers.WillChange<Map<Key, Value>> {
        VaultPublishers.WillChange(observingIf: vault != nil && !isFrozen) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}

extension Map where Key: SendableMetatype, Value: SendableMetatype {
    /// Emits the map at its first delivery and after each change (Realm's `collectionPublisher`).
    public var collectionPublisher: VaultPublishers.Value<Map<Key, Value>> { collectionPublisher(keyPaths: nil) }

    /// Realm's deprecated name of ``collectionPublisher``.
    @available(*, deprecated, renamed: "collectionPublisher")
    public var publisher: VaultPublishers.Value<Map<Key, Value>> { collectionPublisher(keyPaths: nil) }

    /// Emits the map at its first delivery and after each change that touches `keyPaths`.
    public func collectionPublisher(keyPaths: [String]?) -> VaultPublishers.Value<Map<Key, Value>> {
        VaultPublishers.Value(configuration: vault?.configuration) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0.emission) }
        }
    }

    /// Emits every change of the map, by key (Realm's `changesetPublisher`).
    public var changesetPublisher: VaultPublishers.MapChangeset<Map<Key, Value>> { changesetPublisher(keyPaths: nil) }

    /// Emits every change of the map that touches `keyPaths`.
    public func changesetPublisher(keyPaths: [String]?) -> VaultPublishers.MapChangeset<Map<Key, Value>> {
        VaultPublishers.Changeset(handover: .map()) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0) }
        }
    }
}

extension SectionedResults: VaultSubscribable {}

extension SectionedResults where Key: SendableMetatype, Element: SendableMetatype {
    /// Emits the sections at their first delivery and after each change (Realm's `collectionPublisher`).
    public var collectionPublisher: VaultPublishers.Value<SectionedResults<Key, Element>> { collectionPublisher(keyPaths: nil) }

    /// Emits the sections at their first delivery and after each change that touches `keyPaths`.
    public func collectionPublisher(keyPaths: [String]?) -> VaultPublishers.Value<SectionedResults<Key, Element>> {
        VaultPublishers.Value(configuration: results.vault?.configuration) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0.emission) }
        }
    }

    /// Emits every change of the sections (Realm's `changesetPublisher`).
    public var changesetPublisher: VaultPublishers.SectionedResultsChangeset<SectionedResults<Key, Element>> { changesetPublisher(keyPaths: nil) }

    /// Emits every change of the sections that touches `keyPaths`.
    public func changesetPublisher(keyPaths: [String]?) -> VaultPublishers.SectionedResultsChangeset<SectionedResults<Key, Element>> {
        VaultPublishers.Changeset(handover: .sectioned()) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0) }
        }
    }

    /// Emits after each change of the sections, including their first delivery.
    public var objectWillChange: VaultPublishers.WillChange<SectionedResults<Key, Element>> {
        VaultPublishers.WillChange(observingIf: results.vault != nil && !isFrozen) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}

extension ProjectedResults: VaultSubscribable {}

extension ProjectedResults where Element: SendableMetatype {
    /// Observes the projections, on `queue` when given: the root results are observed there.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping @Sendable (VaultCollectionChange<ProjectedResults<Element>>) -> Void) -> NotificationToken {
        rootResults.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let results): block(.initial(ProjectedResults(results)))
            case .update(let results, let deletions, let insertions, let modifications):
                block(.update(ProjectedResults(results), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }

    /// Emits the projections at their first delivery and after each change (Realm's `collectionPublisher`).
    public var collectionPublisher: VaultPublishers.Value<ProjectedResults<Element>> { collectionPublisher(keyPaths: nil) }

    /// Emits the projections at their first delivery and after each change that touches `keyPaths` (root properties).
    public func collectionPublisher(keyPaths: [String]?) -> VaultPublishers.Value<ProjectedResults<Element>> {
        VaultPublishers.Value(configuration: vault?.configuration) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0.emission) }
        }
    }

    /// Emits every change of the projections (Realm's `changesetPublisher`).
    public var changesetPublisher: VaultPublishers.CollectionChangeset<ProjectedResults<Element>> { changesetPublisher(keyPaths: nil) }

    /// Emits every change of the projections that touches `keyPaths` (root properties).
    public func changesetPublisher(keyPaths: [String]?) -> VaultPublishers.CollectionChangeset<ProjectedResults<Element>> {
        VaultPublishers.Changeset(handover: nil) { queue, emit in
            let emit = QueueBound(value: emit)
            return self.observe(keyPaths: keyPaths, on: queue) { emit.value($0) }
        }
    }

    /// Emits after each change of the projections, including their first delivery.
    public var objectWillChange: VaultPublishers.WillChange<ProjectedResults<Element>> {
        VaultPublishers.WillChange(observingIf: vault != nil && !isFrozen) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}

/// Emits the collection at its first delivery and after each change (Realm's `valuePublisher(_:keyPaths:)`).
public func valuePublisher<T: VaultCollection & SendableMetatype>(_ collection: T, keyPaths: [String]? = nil) -> VaultPublishers.Value<T> {
    collection.collectionPublisher(keyPaths: keyPaths)
}

/// Emits every change of the collection (Realm's `changesetPublisher(_:keyPaths:)`).
public func changesetPublisher<T: VaultCollection & SendableMetatype>(_ collection: T, keyPaths: [String]? = nil) -> VaultPublishers.CollectionChangeset<T> {
    collection.changesetPublisher(keyPaths: keyPaths)
}
