import Foundation
import VaultCore

/// What a managed collection is bound to: its owner's row and the property.
struct CollectionBinding {
    let vault: Vault
    let owner: ObjectSchema
    let ownerRowID: Int64
    let propertyIndex: Int
    var property: Property { owner.properties[propertyIndex] }
    var table: String { owner.collectionTableName(for: property) }
}

/// List, MutableSet, Map and LinkingObjects: properties stored outside the owner's row.
protocol PersistableCollection: PersistableValue {
    /// The collection kind; `nil` for LinkingObjects (computed, not stored).
    static var collectionKind: CollectionKind? { get }
    /// The element (for maps: the value) type.
    static var elementType: any PersistableValue.Type { get }
    /// A live instance bound to a managed owner.
    static func makeManaged(_ binding: CollectionBinding) -> Self
    /// The entries of an unmanaged instance: (map key or nil, element).
    var unmanagedEntries: [(key: String?, value: Any)] { get }
    /// The managed property this instance reads, if it is managed.
    var binding: CollectionBinding? { get }
    /// Fills an unmanaged instance from an array (maps: a dictionary); false if an element does not fit.
    func assignUnmanaged(from value: Any) -> Bool
    /// Makes this unmanaged instance the live collection of `binding` (its owner was just
    /// added, as Realm makes the instances an object holds managed); false if it is bound already.
    func adopt(_ binding: CollectionBinding) -> Bool
}

extension PersistableCollection {
    /// Decodes a stored scalar element (links are resolved by the vault).
    static func decodeElementBoxed(_ stored: DatabaseValue) -> Any? {
        func decode<E: PersistableValue>(_ type: E.Type) -> Any? { E._vaultDecode(stored) }
        return decode(elementType)
    }
}

extension PersistableCollection {
    public static var _vaultPropertyType: PropertyType { elementType._vaultPropertyType }
    public static var _vaultIsOptional: Bool { elementType._vaultIsOptional }
    public static var _vaultLinkTarget: ObjectBase.Type? { elementType._vaultLinkTarget }
    public static func _vaultDecode(_ value: DatabaseValue) -> Self? { nil }
    public var _vaultEncoded: DatabaseValue { .null }
}
