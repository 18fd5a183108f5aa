import Foundation
import VaultCore

// MARK: - observe(…, on: queue) for every collection
//
// Results and objects have their own queue observation (QueueObservation.swift).
// Lists, sets, maps, backlinks, type-erased collections, sectioned results and
// projections go the same way through their thread-safe handover: the thing
// is found again in a vault confined to `queue` and observed there. The file's
// coordinator counts an observer from the call on, so no commit made after
// the call goes uncaptured while the queue catches up.

/// Carries a value that is only touched on the queue it is sent to.
///
/// `@unchecked Sendable` is safe because the value (a key function, a block)
/// is created on the caller's thread and afterwards used only inside blocks
/// run on one serial queue.
struct QueueBound<Value>: @unchecked Sendable {
    let value: Value
}

extension ThreadConfined where Self: SendableMetatype {
    /// Finds this collection again in a vault confined to `queue` and calls
    /// `register` there; the returned token cancels the registration whether it
    /// happened yet or not. `failed` runs on `queue` if the vault cannot open.
    func observeOnQueue(_ queue: DispatchQueue, from vault: Vault,
                        failed: @escaping @Sendable (Swift.Error) -> Void,
                        register: @escaping @Sendable (Self) -> NotificationToken?) -> NotificationToken {
        let handover = _threadHandover()
        let deferred = DeferredObservation()
        let coordinator = vault.session.coordinator
        coordinator.observerAdded()   // writers capture from now on
        queue.async {
            defer { coordinator.observerRemoved() }
            guard !deferred.isCancelled else { return }
            do {
                let confined = try Vault(configuration: handover.configuration, queue: queue)
                guard let resolved = Self._resolve(handover, in: confined), let token = register(resolved) else { return }
                deferred.attach(token)
            } catch {
                failed(error)
            }
        }
        return deferred.makeToken()
    }
}

/// The queue observation shared by the collections whose changes are ``VaultCollectionChange``.
func observeCollection<C: VaultCollection & SendableMetatype>(_ collection: C, keyPaths: [String]?, on queue: DispatchQueue,
                                                   _ block: @escaping @Sendable (VaultCollectionChange<C>) -> Void) -> NotificationToken {
    guard let vault = collection.vault else { preconditionFailure("Only a managed \(C.self) can be observed: add its owner to a vault first") }
    return collection.observeOnQueue(queue, from: vault, failed: { block(.error($0)) }) { resolved in
        resolved.observe(keyPaths: keyPaths, block)
    }
}

extension List {
    /// Observes the list with delivery on a serial `queue` (Realm's signature);
    /// with `queue` nil, as `observe(keyPaths:_:)`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        return observeCollection(self, keyPaths: keyPaths, on: queue, block)
    }
}

extension MutableSet {
    /// Observes the set with delivery on a serial `queue` (Realm's signature);
    /// with `queue` nil, as `observe(keyPaths:_:)`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        return observeCollection(self, keyPaths: keyPaths, on: queue, block)
    }
}

extension LinkingObjects {
    /// Observes the linking objects with delivery on a serial `queue` (Realm's
    /// signature); with `queue` nil, as `observe(keyPaths:_:)`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        return observeCollection(self, keyPaths: keyPaths, on: queue, block)
    }
}

extension AnyVaultCollection {
    /// Observes the wrapped collection with delivery on a serial `queue`
    /// (Realm's signature); with `queue` nil, as `observe(keyPaths:_:)`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<AnyVaultCollection<Element>>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        return observeCollection(self, keyPaths: keyPaths, on: queue, block)
    }
}

extension Map where Key: SendableMetatype, Value: SendableMetatype {
    /// Observes the map with delivery on a serial `queue` (Realm's signature);
    /// with `queue` nil, as ``observe(keyPaths:_:)``.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultMapChange<Map<Key, Value>>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        guard let vault else { preconditionFailure("Only a managed Map can be observed: add its owner to a vault first") }
        return observeOnQueue(queue, from: vault, failed: { block(.error($0)) }) { resolved in
            resolved.observe(keyPaths: keyPaths, block)
        }
    }
}

extension SectionedResults where Key: SendableMetatype, Element: SendableMetatype {
    /// Observes the sections with delivery on a serial `queue` (Realm's
    /// signature): the results are observed there and sectioned there by the
    /// same key function, which must therefore only read the object it is
    /// given. With `queue` nil, as ``observe(keyPaths:_:)-([String]?,_)``.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (SectionedResultsChange<SectionedResults<Key, Element>>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        guard let vault = results.vault else { preconditionFailure("Only managed results can be observed") }
        let keyFunction = QueueBound(value: self.keyFunction)
        return results.observeOnQueue(queue, from: vault, failed: { SectionedResults<Key, Element>.observationEnded($0) }) { resolved in
            SectionedResults(results: resolved, key: keyFunction.value).observe(keyPaths: keyPaths, block)
        }
    }
}

extension ProjectionRepresentable where Self: SendableMetatype, Root: ObservableVaultObject & SendableMetatype {
    /// Observes the projection with delivery on a serial `queue` (Realm's
    /// signature): its root object is found again there and projected by the
    /// same projection class, which the change carries. With `queue` nil, as
    /// ``ProjectionRepresentable/observe(keyPaths:_:)-([String]?,_)``.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        guard let vault = rootObject.vault else { preconditionFailure("Only a projection of a managed object can be observed") }
        let projectionType = QueueBound(value: type(of: self))
        return rootObject.observeOnQueue(queue, from: vault, failed: { block(.error($0)) }) { root in
            projectionType.value.init(projecting: root).observe(keyPaths: keyPaths, block)
        }
    }

    /// Observes the projection on `queue` for changes of the projected properties `keyPaths` names.
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: Self.projectedNames(of: keyPaths), on: queue, block)
    }
}
