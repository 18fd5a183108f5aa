import Foundation
import VaultCore

/// Keeps an observation alive: call ``invalidate()`` (or release the token)
/// to stop receiving changes — Realm's `NotificationToken`.
///
/// Tokens are `Sendable`: invalidate one from any thread. After `invalidate()`
/// returns, the block is not called again.
public final class NotificationToken: Sendable {
    private let cancellation: Locked<(() -> Void)?>

    init(_ cancel: @escaping () -> Void) {
        cancellation = Locked(cancel)
    }

    /// A token that observes nothing (Realm's `NotificationToken()`): a placeholder
    /// where a token is required; ``invalidate()`` returns false.
    public init() {
        cancellation = Locked(nil)
    }

    /// A token for an observation kept by another module of this package (the
    /// sync session's progress and connection observers).
    package convenience init(onInvalidate cancel: @escaping @Sendable () -> Void) {
        self.init(cancel)
    }

    /// Stops the observation. Calling it again does nothing.
    /// - Returns: whether the token was observing (false once invalidated, and for a
    ///   token whose observation never started), as Realm's does.
    @discardableResult
    public func invalidate() -> Bool {
        let cancel = cancellation.withLock { current -> (() -> Void)? in
            defer { current = nil }
            return current
        }
        cancel?()
        return cancel != nil
    }

    deinit { invalidate() }
}

/// A change to an observed collection — Realm's `RealmCollectionChange`.
///
/// Index conventions are UIKit's batch updates (and Realm's): `deletions` and
/// `modifications` are indices in the collection **before** the change,
/// `insertions` indices **after** it; each array is sorted ascending. An
/// element that moved is a deletion and an insertion (moves are never
/// reported); one that moved and changed is only that. Apply them as
///
/// ```swift
/// tableView.performBatchUpdates {
///     tableView.deleteRows(at: deletions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///     tableView.insertRows(at: insertions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
///     tableView.reloadRows(at: modifications.map { IndexPath(row: $0, section: 0) }, with: .automatic)
/// }
/// ```
public enum VaultCollectionChange<Collection> {
    /// The first delivery: the collection as it is.
    case initial(Collection)
    /// What changed since the last delivery (several commits may be merged into one).
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The observation failed and has ended.
    case error(Swift.Error)
}

/// One changed property of an observed object — Realm's `PropertyChange`.
public struct PropertyChange {
    /// The property's (public) name.
    public let name: String
    /// The value at the previous delivery. VaultKit keeps it even for writes
    /// made on the observing thread (Realm gives `nil` there); `nil` for
    /// collection properties, as in Realm.
    public let oldValue: Any?
    /// The value now; `nil` for collection properties, as in Realm.
    public let newValue: Any?
}

/// A change to an observed object — Realm's `ObjectChange`.
public enum ObjectChange<T> {
    /// The observation failed and has ended.
    case error(Swift.Error)
    /// Properties changed: each written property once (a write of the same value counts, as in Realm).
    case change(T, [PropertyChange])
    /// The object was deleted; the observation has ended.
    case deleted
}

/// What a vault-level observer hears — Realm's `Realm.Notification`.
public enum VaultNotification: String, Sendable {
    /// The vault moved to a new version (its own commit, or a refresh that took in others').
    case didChange = "VaultDidChangeNotification"
    /// Another commit is available and `autorefresh` is off: call ``Vault/refresh()``.
    case refreshRequired = "VaultRefreshRequiredNotification"
}
