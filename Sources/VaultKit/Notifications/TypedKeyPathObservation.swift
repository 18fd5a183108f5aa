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
