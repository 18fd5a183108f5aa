import Foundation

/// Where a ``List``, ``MutableSet`` or ``Map`` keeps its elements.
///
/// The life of such a collection is one of three, fixed at creation except for
/// one step: an unmanaged collection becomes managed, once, when the object that
/// holds it is added to a vault (``StoredCollection/adopt(_:)``), as Realm makes
/// the collections of an added object managed.
enum ElementHome {
    /// In the collection itself: a plain array, set or dictionary.
    case unmanaged
    /// In a managed object's side table, read and written through its vault.
    case managed(CollectionBinding)
    /// Elsewhere: nested in a managed mixed value, or a migration's object (see DetachedElements).
    case detached(DetachedElements)
}

/// What List, MutableSet and Map share: how each is made (unmanaged, managed or
/// detached), the binding and detached store read from its ``ElementHome``, and
/// the one-time adoption of an unmanaged collection by a vault. Each type keeps
/// its own unmanaged storage and caches, and drops them when it is adopted.
protocol StoredCollection: BoundCollection, PersistableCollection {
    /// Where the elements are (changed only by ``adopt(_:)``).
    var home: ElementHome { get set }
    init(home: ElementHome)
    /// The collection was adopted by `binding`: drop the unmanaged elements and any cache.
    func didAdopt(_ binding: CollectionBinding)
}

extension StoredCollection {
    init(binding: CollectionBinding) { self.init(home: .managed(binding)) }

    init(detached: DetachedElements) { self.init(home: .detached(detached)) }

    static func makeManaged(_ binding: CollectionBinding) -> Self { Self(home: .managed(binding)) }

    /// The managed property this collection reads, when it is managed.
    var binding: CollectionBinding? {
        if case .managed(let binding) = home { return binding }
        return nil
    }

    /// The store of a detached collection.
    var detached: DetachedElements? {
        if case .detached(let store) = home { return store }
        return nil
    }

    /// The vault of a managed or detached collection.
    var homeVault: Vault? {
        switch home {
        case .unmanaged: nil
        case .managed(let binding): binding.vault
        case .detached(let store): store.vault
        }
    }

    /// Makes this unmanaged collection the live collection of `binding`; false if it is not unmanaged.
    func adopt(_ binding: CollectionBinding) -> Bool {
        guard case .unmanaged = home else { return false }
        home = .managed(binding)
        didAdopt(binding)
        return true
    }
}
