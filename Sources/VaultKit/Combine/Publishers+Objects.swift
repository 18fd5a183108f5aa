import Foundation
import OpenCombineShim
import VaultCore

// The publishers of objects, projections and the vault itself.

extension ObjectChange {
    /// What a value publisher emits for this change.
    var emission: VaultEmission<T> {
        switch self {
        case .change(let object, _): return .value(object)
        case .deleted: return .deleted
        case .error(let error): return .failed(error)
        }
    }
}

extension ObjectChange {
    /// Whether the change is `.deleted` (the last an object observation delivers).
    static func isDeletion(_ change: ObjectChange) -> Bool {
        if case .deleted = change { return true }
        return false
    }
}

extension ObservableVaultObject where Self: SendableMetatype {
    /// Observes the object, on `queue` when given, with a block that is called on the observing queue only.
    func observeEmitting(keyPaths: [String]?, on queue: DispatchQueue?, _ emit: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, emit) }
        let emit = QueueBound(value: emit)
        return observe(keyPaths: keyPaths, on: queue) { emit.value($0) }
    }
}

extension Object: VaultSubscribable, ObservableObject {
    /// Emits after each change of the object (Realm's `objectWillChange`;
    /// despite the name, after the change). No value at subscription.
    public var objectWillChange: VaultPublishers.WillChange<Object> {
        VaultPublishers.WillChange(observingIf: manager != nil && !isFrozen && !isInvalidated) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}

extension EmbeddedObject: VaultSubscribable, ObservableObject {
    /// Emits after each change of the embedded object (Realm's `objectWillChange`).
    public var objectWillChange: VaultPublishers.WillChange<EmbeddedObject> {
        VaultPublishers.WillChange(observingIf: manager != nil && !isFrozen && !isInvalidated) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}

/// Emits the object each time it changes, and finishes when it is deleted
/// (Realm's `valuePublisher(_:keyPaths:)`). No value at subscription, as in Realm.
public func valuePublisher<T: ObservableVaultObject & SendableMetatype>(_ object: T, keyPaths: [String]? = nil) -> VaultPublishers.Value<T> {
    precondition(object.vault != nil, "Only managed objects can be published")
    return VaultPublishers.Value(configuration: object.vault?.configuration) { queue, emit in
        object.observeEmitting(keyPaths: keyPaths, on: queue) { emit($0.emission) }
    }
}

/// Emits each change of the object — the changed properties with old and new
/// values — and finishes when it is deleted, without emitting `.deleted`
/// (Realm's `changesetPublisher(_:keyPaths:)`).
public func changesetPublisher<T: ObservableVaultObject & SendableMetatype>(_ object: T, keyPaths: [String]? = nil) -> VaultPublishers.ObjectChangeset<T> {
    precondition(object.vault != nil, "Only managed objects can be published")
    return VaultPublishers.Changeset(handover: .object(), ends: ObjectChange.isDeletion) { queue, emit in
        object.observeEmitting(keyPaths: keyPaths, on: queue, emit)
    }
}

extension Projection: VaultSubscribable {}

extension Projection: ObservableObject where Root: ObservableVaultObject {
    /// Emits after each change of the projected properties (Realm's `objectWillChange`).
    public var objectWillChange: VaultPublishers.WillChange<Projection<Root>> {
        VaultPublishers.WillChange(observingIf: rootObject.manager != nil && !isFrozen && !isInvalidated) { changed in self.observe(keyPaths: nil) { _ in changed() } }
    }
}

/// Emits the projection each time a projected property changes, and finishes
/// when its object is deleted (Realm's `valuePublisher(_:keyPaths:)` for projections).
public func valuePublisher<P: ProjectionObservable & SendableMetatype>(_ projection: P, keyPaths: [String]? = nil) -> VaultPublishers.Value<P>
where P.Root: ObservableVaultObject & SendableMetatype {
    precondition(projection.rootObject.vault != nil, "Only projections of managed objects can be published")
    return VaultPublishers.Value(configuration: projection.rootObject.vault?.configuration) { queue, emit in
        let emit = QueueBound(value: emit)
        return projection.observe(keyPaths: keyPaths, on: queue) { emit.value($0.emission) }
    }
}

/// Emits each change of the projection's properties, and finishes when its root
/// object is deleted (Realm's `changesetPublisher(_:keyPaths:)` for projections).
public func changesetPublisher<P: ProjectionObservable & SendableMetatype>(_ projection: P, keyPaths: [String]? = nil) -> VaultPublishers.ObjectChangeset<P>
where P.Root: ObservableVaultObject & SendableMetatype {
    precondition(projection.rootObject.vault != nil, "Only projections of managed objects can be published")
    return VaultPublishers.Changeset(handover: nil, ends: ObjectChange.isDeletion) { queue, emit in
        let emit = QueueBound(value: emit)
        return projection.observe(keyPaths: keyPaths, on: queue) { emit.value($0) }
    }
}

extension Vault {
    /// Emits after each change of the vault: its own commits and refreshes
    /// that take in others' (Realm's `Realm.objectWillChange`; despite the name, after).
    public var objectWillChange: VaultPublishers.WillChange<Vault> {
        VaultPublishers.WillChange(observingIf: !isFrozen) { changed in self.observe { _, _ in changed() } }
    }
}
