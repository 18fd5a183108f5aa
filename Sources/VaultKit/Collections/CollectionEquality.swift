import Foundation
import VaultCore

// Equality, as Realm's collections compare (`==`, and `isEqual(_:)` as Realm's
// NSObject-based collections offer it):
// - managed: the same collection — the same `Results` (one `objects`, `filter`,
//   `sorted`… call and its copies: two calls make two results, as in Realm, even
//   for the same query); a list, set, map or backlinks of the same owner and property;
// - unmanaged: the same contents — a list's elements in order, a set's members
//   in any order, a map's keys with their values — where objects are equal when
//   they are the same object (an unmanaged one is equal only to itself) and
//   values when they are equal values (realm-swift's ListTests, MutableSetTests
//   and MapTests, "unmanaged … comparison").
// A managed collection never equals an unmanaged one.

extension Results: Equatable {
    /// The same results: one call's (`objects`, `filter`, `sorted`…) and its copies, as Realm
    /// compares them; two calls with the same query make two results that are not `==`.
    public static func == (lhs: Results<Element>, rhs: Results<Element>) -> Bool { lhs.isSameResults(as: rhs) }

    /// The same query (class, filters, sort, distinct, base collection) in the same vault instance.
    func hasSameQuery(as other: Results<Element>) -> Bool {
        owner == other.owner && schema === other.schema
            && compiled.idQuery.sql == other.compiled.idQuery.sql && compiled.idQuery.bindings == other.compiled.idQuery.bindings
    }
}

extension CollectionBinding {
    /// The same owner row and property, in the same vault instance.
    func isSame(as other: CollectionBinding) -> Bool {
        vault == other.vault && owner === other.owner && ownerRowID == other.ownerRowID && propertyIndex == other.propertyIndex
    }
}

extension BoundCollection {
    static func sameCollection(_ lhs: Self, _ rhs: Self) -> Bool {
        if lhs === rhs { return true }
        guard let left = lhs.binding, let right = rhs.binding else { return false }
        return left.isSame(as: right)
    }
}

/// Element equality for unmanaged collections: the same object, or equal values.
enum ElementEquality {
    static func equal(_ lhs: Any, _ rhs: Any) -> Bool {
        let leftObject = lhs as? ObjectBase, rightObject = rhs as? ObjectBase
        if leftObject != nil || rightObject != nil {
            guard let leftObject, let rightObject else { return false }
            return leftObject.isSameObject(as: rightObject)
        }
        if let left = lhs as? AnyVaultValue, let right = rhs as? AnyVaultValue { return left == right }
        guard let left = lhs as? any PersistableValue, let right = rhs as? any PersistableValue else { return false }
        return left._vaultEncoded == right._vaultEncoded
    }

    /// The same elements in the same order.
    static func sameSequence(_ lhs: [Any], _ rhs: [Any]) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { equal($0, $1) }
    }

    /// The same members, in any order (a set's members are distinct).
    static func sameMembers(_ lhs: [Any], _ rhs: [Any]) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy { member in rhs.contains { equal(member, $0) } }
    }
}

extension List: Equatable {
    /// The same managed list (owner and property in the same vault instance), or unmanaged lists
    /// with the same elements in the same order.
    public static func == (lhs: List<Element>, rhs: List<Element>) -> Bool {
        if lhs.vault == nil && rhs.vault == nil { return ElementEquality.sameSequence(lhs.map { $0 }, rhs.map { $0 }) }
        return sameCollection(lhs, rhs)
    }

    /// Realm's `isEqual(_:)`: `==` with another list of the same element type; false for anything else.
    public func isEqual(_ object: Any?) -> Bool { (object as? List<Element>).map { self == $0 } ?? false }
}

extension MutableSet: Equatable {
    /// The same managed set, or unmanaged sets with the same members.
    public static func == (lhs: MutableSet<Element>, rhs: MutableSet<Element>) -> Bool {
        if lhs.vault == nil && rhs.vault == nil { return ElementEquality.sameMembers(lhs.map { $0 }, rhs.map { $0 }) }
        return sameCollection(lhs, rhs)
    }

    /// Realm's `isEqual(_:)`: `==` with another set of the same element type; false for anything else.
    public func isEqual(_ object: Any?) -> Bool { (object as? MutableSet<Element>).map { self == $0 } ?? false }
}

extension Map: Equatable {
    /// The same managed map, or unmanaged maps with the same keys holding equal values.
    public static func == (lhs: Map<Key, Value>, rhs: Map<Key, Value>) -> Bool {
        if lhs.vault == nil && rhs.vault == nil {
            let left = lhs.asKeyValueSequence(), right = rhs.asKeyValueSequence()
            return left.map(\.key) == right.map(\.key) && ElementEquality.sameSequence(left.map(\.value), right.map(\.value))
        }
        return sameCollection(lhs, rhs)
    }

    /// Realm's `isEqual(_:)`: `==` with another map of the same types; false for anything else.
    public func isEqual(_ object: Any?) -> Bool { (object as? Map<Key, Value>).map { self == $0 } ?? false }
}

extension LinkingObjects: Equatable {
    /// The same backlinks (owner and property in the same vault instance), or the same unmanaged instance.
    public static func == (lhs: LinkingObjects<Element>, rhs: LinkingObjects<Element>) -> Bool { sameCollection(lhs, rhs) }
}
