import Foundation

// The names RealmSwift gives the protocols that generic code constrains to
// (`func firstTwo<T: RealmCollectionValue>(_ list: List<T>)`, `extension
// Results where Element: RealmFetchable`, `func show<S: RealmSectionedResult>`),
// under VaultKit's names. `vault port` rewrites the Realm names to these.

/// The element types a `List`, `MutableSet` or `Map` can hold — Realm's
/// `RealmCollectionValue`, for generic code written against it.
public typealias VaultCollectionValue = PersistableValue

/// The types a vault's `objects(_:)` gives ``Results`` of — Realm's
/// `RealmFetchable`. Projections have their own results (``ProjectedResults``).
public typealias VaultFetchable = Object

/// What every collection of a vault offers — Realm's `RealmCollectionBase`,
/// the base of `RealmCollection`; in VaultKit one protocol, ``VaultCollection``.
public typealias VaultCollectionBase = VaultCollection

/// Sectioned results and one of their sections, for code written for either —
/// Realm's `RealmSectionedResult`: ``SectionedResults`` (whose elements are
/// ``ResultsSection``s) and ``ResultsSection`` (whose elements are objects).
///
/// ```swift
/// func summary<S: VaultSectionedResult>(_ sectioned: S) -> String {
///     sectioned.isFrozen ? "\(sectioned.count) (frozen)" : "\(sectioned.count)"
/// }
/// ```
public protocol VaultSectionedResult: RandomAccessCollection, Equatable {
    /// The vault the objects are in (Realm's `realm`).
    var vault: Vault? { get }
    /// Whether the collection the sections are drawn from is gone (its owner was deleted).
    var isInvalidated: Bool { get }
    /// Whether it belongs to a frozen vault.
    var isFrozen: Bool { get }
    /// A frozen copy at the current version, readable from any thread.
    func freeze() -> Self
    /// The live counterpart on the calling thread, at the latest version; `nil` if its source is gone.
    func thaw() -> Self?
}

extension SectionedResults: VaultSectionedResult {}
extension ResultsSection: VaultSectionedResult {}
