import Foundation
import VaultCore

// Realm's typed key paths for `observe(keyPaths:)`: `[\.name, \.age]`. Each
// names a `@Persisted` property of the observed class (a path through a link
// is written as a string, `"owner.name"`); anything else stops the program
// with a message, as an invalid key path does in Realm.

extension Results {
    /// Observes these results, counting writes to the properties at `keyPaths` only.
    public func observe(keyPaths: [PartialKeyPath<Element>], _ block: @escaping (VaultCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { Results.name(of: $0) }, block)
    }
}

extension ObservableVaultObject {
    /// Observes this object, counting writes to the properties at `keyPaths` only.
    public func observe(keyPaths: [PartialKeyPath<Self>], _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { Results<Self>.name(of: $0) }, block)
    }
}

extension Results {
    /// Observes these results with delivery on a serial `queue`, counting writes
    /// to the properties at `keyPaths` only (Realm's signature).
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { Results.name(of: $0) }, on: queue, block)
    }
}

extension ObservableVaultObject {
    /// Observes this object with delivery on a serial `queue`, counting writes
    /// to the properties at `keyPaths` only (Realm's signature).
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { Results<Self>.name(of: $0) }, on: queue, block)
    }
}

extension VaultCollection where Element: ObjectBase {
    /// Observes the collection, counting writes to the elements' properties at `keyPaths` only.
    public func observe(keyPaths: [PartialKeyPath<Element>], _ block: @escaping (VaultCollectionChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { Results<Element>.name(of: $0) }, block)
    }
}

// Delivery on a queue is not a VaultCollection requirement: one overload per type.
extension List where Element: ObjectBase {
    /// Observes it with delivery on a serial `queue`, counting writes to the properties at `keyPaths` only.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { Results<Element>.name(of: $0) }, on: queue, block)
    }
}

extension MutableSet where Element: ObjectBase {
    /// Observes it with delivery on a serial `queue`, counting writes to the properties at `keyPaths` only.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { Results<Element>.name(of: $0) }, on: queue, block)
    }
}

extension LinkingObjects {
    /// Observes it with delivery on a serial `queue`, counting writes to the properties at `keyPaths` only.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { Results<Element>.name(of: $0) }, on: queue, block)
    }
}

extension AnyVaultCollection where Element: ObjectBase {
    /// Observes it with delivery on a serial `queue`, counting writes to the properties at `keyPaths` only.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue?,
                        _ block: @escaping @Sendable (VaultCollectionChange<AnyVaultCollection<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { Results<Element>.name(of: $0) }, on: queue, block)
    }
}
