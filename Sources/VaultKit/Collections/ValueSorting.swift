import Foundation
import VaultCore

// Realm's `sorted(ascending:)` and `distinct()` on collections of values:
// `List<Int>`, `MutableSet<String>`, `Map<String, Date?>` and the like.
//
// The order is Realm's mixed order, the one `Results` sorts a mixed property
// by (MixedComparison): nil first, then numbers by value across their types,
// strings by their UTF-8 bytes, data by bytes, dates by time. Equal elements
// keep their collection order. `distinct()` keeps the first of each value.
//
// Realm returns a live `Results` of the values. VaultKit's `Results` holds
// objects, so these return the values themselves, in order, as an array: a
// snapshot of the collection when called. `Array(list.sorted(ascending: true))`,
// iteration, `first`, `count` and indexing read the same as with Realm.

/// Element types whose collections sort and distinct by value (Realm's
/// `SortableType`): the integers, `Float`, `Double`, `String`, `Data`, `Date`,
/// ``Decimal128``, `Decimal`, ``AnyVaultValue``, ``PersistableEnum`` types (by raw
/// value), and optionals of them.
public protocol SortableType: PersistableValue {}

extension Int: SortableType {}
extension Int8: SortableType {}
extension Int16: SortableType {}
extension Int32: SortableType {}
extension Int64: SortableType {}
extension Float: SortableType {}
extension Double: SortableType {}
extension String: SortableType {}
extension Data: SortableType {}
extension Date: SortableType {}
extension Decimal: SortableType {}
extension Decimal128: SortableType {}
extension AnyVaultValue: SortableType {}
extension Optional: SortableType where Wrapped: SortableType {}

enum ValueSorting {
    /// `value` as a mixed value, for Realm's mixed order (nil: `.none`, first).
    static func sortKey<T: SortableType>(_ value: T) -> MixedValue {
        if let mixed = value as? AnyVaultValue { return (try? mixed.detachedMixedValue()) ?? .none }
        let stored = value._vaultEncoded
        switch stored {
        case .null: return .none
        case .integer(let integer): return .int(integer)
        case .real(let real):
            switch T._vaultPropertyType {
            case .date: return .date(real)
            case .float: return .float(Float(real))
            default: return .double(real)
            }
        case .text(let text):
            if T._vaultPropertyType == .decimal, let decimal = Decimal128._vaultDecode(stored) { return .decimal(decimal) }
            return .string(text)
        case .blob(let data): return .data(data)
        }
    }

    /// The elements in Realm's order (equal ones in collection order).
    static func sorted<S: Sequence>(_ elements: S, ascending: Bool) -> [S.Element] where S.Element: SortableType {
        let keyed = elements.enumerated().map { (offset: $0.offset, element: $0.element, key: sortKey($0.element)) }
        let wanted: ComparisonResult = ascending ? .orderedAscending : .orderedDescending
        return keyed.sorted { left, right in
            let order = left.key.sortOrder(right.key)
            return order == .orderedSame ? left.offset < right.offset : order == wanted
        }.map(\.element)
    }

    /// The first element of each value, in collection order.
    static func distinct<S: Sequence>(_ elements: S) -> [S.Element] where S.Element: SortableType {
        // By stored form: equal values of one type store alike (a decimal canonically).
        var seen: Set<DatabaseValue> = []
        return elements.filter { seen.insert($0._vaultEncoded).inserted }
    }
}

extension List where Element: SortableType {
    /// The elements sorted by value (nil first when ascending) — Realm's `sorted(ascending:)`,
    /// as an array of the values (Realm's is a live `Results`).
    public func sorted(ascending: Bool = true) -> [Element] { ValueSorting.sorted(self, ascending: ascending) }
    /// The first element of each distinct value, in list order — Realm's `distinct()`, as an array.
    public func distinct() -> [Element] { ValueSorting.distinct(self) }
}

extension MutableSet where Element: SortableType {
    /// The elements sorted by value (nil first when ascending) — Realm's `sorted(ascending:)`, as an array.
    public func sorted(ascending: Bool = true) -> [Element] { ValueSorting.sorted(self, ascending: ascending) }
    /// The set's elements (each value once), in set order — Realm's `distinct()`, as an array.
    public func distinct() -> [Element] { ValueSorting.distinct(self) }
}

extension Map where Value: SortableType {
    /// The values sorted (nil first when ascending) — Realm's `sorted(ascending:)` on a map, as an array.
    public func sorted(ascending: Bool = true) -> [Value] { ValueSorting.sorted(values, ascending: ascending) }
    /// The first of each distinct value, in key order — Realm's `distinct()` on a map, as an array.
    public func distinct() -> [Value] { ValueSorting.distinct(values) }
}
