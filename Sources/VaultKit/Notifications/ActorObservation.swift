import Foundation

// MARK: - Observing on an actor
//
// Realm's `observe(keyPaths:on: actor)`: the block runs isolated to `actor`,
// with the collection or object as read by a vault confined to that actor.
// The observed value is handed over as a ThreadSafeReference, resolved in
// `Vault(configuration:actor:)` on the actor, and observed there; an
// actor-confined vault delivers its notifications on the actor's executor,
// where the block is then called with the actor as its isolated argument.
// A value deleted before the actor resolves it gives a token that delivers
// nothing, as in Realm.

extension VaultCollection where Self: ThreadConfined & SendableMetatype {
    /// Calls `block` on `actor`, isolated to it, with the collection as read
    /// by a vault confined to the actor: `.initial` first, then `.update`
    /// after each commit that changes it (Realm's `observe(keyPaths:on:_:)`).
    /// Only a managed collection can be observed.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, VaultCollectionChange<Self>) -> Void) async -> NotificationToken {
        await observeResolved(self, on: actor, isolation: _isolation) { actor, collection in
            collection.observe(keyPaths: keyPaths) { change in actor.callIsolated(block, change) }
        }
    }
}

extension VaultCollection where Self: ThreadConfined & SendableMetatype, Element: ObjectBase {
    /// As ``observe(keyPaths:on:_isolation:_:)``, naming the properties by typed key paths.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, VaultCollectionChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { Results<Element>.name(of: $0) }, on: actor, block)
    }
}

extension Map where Key: SendableMetatype, Value: SendableMetatype {
    /// Calls `block` on `actor`, isolated to it, with the map as read by a
    /// vault confined to the actor (Realm's `observe(keyPaths:on:_:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, VaultMapChange<Map<Key, Value>>) -> Void) async -> NotificationToken {
        await observeResolved(self, on: actor, isolation: _isolation) { actor, map in
            map.observe(keyPaths: keyPaths) { change in actor.callIsolated(block, change) }
        }
    }
}

extension ObservableVaultObject where Self: SendableMetatype {
    /// Calls `block` on `actor`, isolated to it, with this object as read by
    /// a vault confined to the actor, after each commit that writes it or
    /// deletes it (Realm's `observe(keyPaths:on:_:)`). Only a managed object
    /// can be observed.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await observeResolved(self, on: actor, isolation: _isolation) { actor, object in
            object.observe(keyPaths: keyPaths) { change in actor.callIsolated(block, change) }
        }
    }

    /// As ``observe(keyPaths:on:_isolation:_:)``, naming the properties by typed key paths.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { Results<Self>.name(of: $0) }, on: actor, block)
    }
}

/// Hands `value` to `actor` and runs `register` there with the value read by
/// a vault confined to the actor.
func observeResolved<A: Actor, Value: ThreadConfined & SendableMetatype>(_ value: Value, on actor: A, isolation: isolated (any Actor)?,
                                                                          _ register: @Sendable @escaping (isolated A, Value) -> NotificationToken) async -> NotificationToken {
    let reference = ThreadSafeReference(to: value)
    return await runIsolated(on: actor) { actor in
        guard let vault = try? await Vault(configuration: reference.configuration, actor: actor),
              let resolved = vault.resolve(reference) else { return NotificationToken {} }
        return register(actor, resolved)
    }
}

private func runIsolated<A: Actor>(on actor: isolated A, _ body: @Sendable (isolated A) async -> NotificationToken) async -> NotificationToken {
    await body(actor)
}

extension Actor {
    /// Calls `operation` with this actor as its isolated argument, from code
    /// running on the actor's executor (where an actor-confined vault delivers
    /// its notifications).
    func callIsolated<Argument>(_ operation: @Sendable (isolated Self, Argument) -> Void, _ argument: sending Argument) {
        if #available(macOS 14, iOS 17, *) {
            // Checks that the caller runs on the actor's executor.
            assumeIsolated { isolated in operation(isolated, argument) }
        } else {
            // Older Apple systems have no assumeIsolated; the vault checked its confinement.
            withoutActuallyEscaping(operation) { escapable in
                unsafeBitCast(escapable, to: ((Self, Argument) -> Void).self)(self, argument)
            }
        }
    }
}
