import Foundation
import VaultCore

// MARK: - observe(…, on: queue)
//
// Realm's `observe(keyPaths:on:_:)` delivers on a serial queue, handing the
// block a collection (or object) that belongs to that queue. VaultKit does
// the same with a queue-confined vault (`Vault(configuration:queue:)`): the
// observation is re-created there — the same class, filters and sort (or the
// same object by row) — and delivered there by itself, like any observation
// of a queue-confined vault. The block is `@Sendable`: it runs on `queue`.
//
// The observation must hear every commit made after `observe(on:)` returns,
// although it is registered on the queue a moment later. Two things make
// sure of it: the file's coordinator counts an observer from the call on (so
// writers capture their changes — see ChangeCoordinator.isCapturing — before
// the queue's observation exists), and an object observation starts from the
// version and values the caller saw, so a commit that lands between the call
// and the registration is delivered as a change, not folded into the start.
// (A collection's `.initial` may fold such a commit in, as Realm's does.)

/// A token for an observation that starts on another queue: invalidating it
/// before the observation exists cancels it; after, it ends it.
final class DeferredObservation: Sendable {
    private let state = Locked<(cancelled: Bool, token: NotificationToken?)>((false, nil))

    /// Keeps `token`, unless this was cancelled first (then ends it at once).
    func attach(_ token: NotificationToken) {
        let cancelled = state.withLock { state -> Bool in
            if !state.cancelled { state.token = token }
            return state.cancelled
        }
        if cancelled { token.invalidate() }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        let token = state.withLock { state -> NotificationToken? in
            state.cancelled = true
            defer { state.token = nil }
            return state.token
        }
        token?.invalidate()
    }

    /// The token handed to the caller.
    func makeToken() -> NotificationToken {
        NotificationToken { self.cancel() }
    }
}

extension Results {
    /// Observes these results with delivery on a serial `queue` (Realm's
    /// signature): the block runs there with results that belong to `queue`
    /// (a vault confined to it). With `queue` nil, as ``observe(keyPaths:_:)-([String]?,_)``.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        let handover = _threadHandover()   // Sendable value data (see ThreadSafeReference)
        let deferred = DeferredObservation()
        let coordinator = owner.session.coordinator
        coordinator.observerAdded()   // writers capture from now on (see above)
        queue.async {
            defer { coordinator.observerRemoved() }
            guard !deferred.isCancelled else { return }
            do {
                let vault = try Vault(configuration: handover.configuration, queue: queue)
                guard let results = try Results.rebuild(handover, in: vault, requiringOwner: false) else { return }
                deferred.attach(results.observe(keyPaths: keyPaths, block))
            } catch {
                block(.error(error))
            }
        }
        return deferred.makeToken()
    }
}

extension ObservableVaultObject {
    /// Observes this object with delivery on a serial `queue` (Realm's
    /// signature): the block runs there with the object as read by a vault
    /// confined to `queue`. With `queue` nil, as ``observe(keyPaths:_:)-([String]?,_)``.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void) -> NotificationToken {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        guard let manager else { preconditionFailure("Only a managed \(type(of: self)) can be observed: add it to a vault first") }
        let handover = _threadHandover()   // Sendable value data (see ThreadSafeReference)
        let deferred = DeferredObservation()
        let coordinator = manager.vault.session.coordinator
        coordinator.observerAdded()   // writers capture from now on (see above)
        // The version and values the caller sees: the first delivery is measured from them.
        let baseline: ObjectObservationBaseline?
        if case .success(let values?) = manager.vault.loadRow(manager.schema, rowID: manager.rowID) {
            baseline = ObjectObservationBaseline(sequence: manager.vault.commitSequence, values: values)
        } else {
            baseline = nil
        }
        queue.async {
            defer { coordinator.observerRemoved() }
            guard !deferred.isCancelled else { return }
            do {
                let vault = try Vault(configuration: handover.configuration, queue: queue)
                // Registers the class there too when objectTypes is nil.
                guard let object = Self._resolve(handover, in: vault) else { return block(.deleted) }
                deferred.attach(object.observe(keyPaths: keyPaths, baseline: baseline, block))
            } catch {
                block(.error(error))
            }
        }
        return deferred.makeToken()
    }
}
