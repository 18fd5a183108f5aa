import Foundation
import VaultCore

/// Where a ``List``, ``MutableSet`` or ``Map`` keeps its elements when they
/// are neither in memory (an unmanaged collection) nor a side table read
/// through a live vault (a managed one, see `CollectionBinding`):
///
/// - a list or dictionary nested in a managed mixed value (`NestedMixedCollection`):
///   its elements are part of one stored value, rewritten as a whole;
/// - a collection of a migration's object (`MigrationCollection`): its side
///   table is read and written through the migration's connection, before any
///   vault is open.
///
/// The collection reads every element each time and writes by replacing them
/// all, so a store needs only these four operations. Elements cross the
/// protocol boxed, `nil` as `NSNull`; the collection casts them to its element
/// type (see ``detachedElement(_:as:)``).
protocol DetachedElements: AnyObject {
    /// The vault, when there is one (a migration runs before its vault opens).
    var vault: Vault? { get }
    /// A list's or set's elements, in order.
    func detachedElements() -> [Any]
    /// A map's entries, sorted by key.
    func detachedEntries() -> [(key: String, value: Any)]
    /// Replaces a list's or set's elements (inside the owner's write).
    func replaceDetachedElements(_ elements: [Any])
    /// Replaces a map's entries (inside the owner's write).
    func replaceDetachedEntries(_ entries: [(key: String, value: Any)])
    /// Refuses a change: the owner's write fails with `reason`.
    func refuse(_ reason: String)
}

/// A boxed element of a detached store as `Element`: a stored value
/// (`DatabaseValue`) decoded as `Element`, `NSNull` as an optional's `nil`,
/// anything else cast.
func detachedElement<Element: PersistableValue>(_ value: Any, as _: Element.Type) -> Element? {
    if let stored = value as? DatabaseValue { return Element._vaultDecode(stored) }
    if value is NSNull { return Element._vaultIsOptional ? Element._vaultDecode(.null) : nil }
    return convertedValue(value, to: Element.self)
}

/// An element handed to a detached store: an optional's `nil` as `NSNull`, anything else unwrapped.
func detachedBox<Element>(_ element: Element) -> Any {
    if let optional = element as? any _VaultOptionalValue {
        func unwrap<T: _VaultOptionalValue>(_ value: T) -> Any { value._vaultWrapped.map { $0 as Any } ?? NSNull() }
        return unwrap(optional)
    }
    return element
}

extension NestedMixedCollection: DetachedElements {
    var vault: Vault? { owningVault }

    func detachedElements() -> [Any] { listElements() }

    func detachedEntries() -> [(key: String, value: Any)] { dictionaryEntries().map { ($0.key, $0.value) } }

    func replaceDetachedElements(_ elements: [Any]) {
        replaceList(with: elements.map { $0 as? AnyVaultValue ?? AnyVaultValue(boxed: $0) ?? .none })
    }

    func replaceDetachedEntries(_ entries: [(key: String, value: Any)]) {
        replaceDictionary(with: entries.map { ($0.key, $0.value as? AnyVaultValue ?? AnyVaultValue(boxed: $0.value) ?? .none) })
    }

    func refuse(_ reason: String) {
        owningVault.deferError(VaultObjectError.invalidValue(className: "AnyVaultValue", property: "", reason: reason))
    }
}
