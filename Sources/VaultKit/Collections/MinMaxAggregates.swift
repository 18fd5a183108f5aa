import Foundation
import VaultCore

// Realm's `min()` and `max()` on collections of values: `List<Int>`,
// `MutableSet<Date>`, `Map<String, Double?>` and the like. Nil elements are
// skipped, and so is NaN (it has no place in the order); an empty collection
// (or one of nils only) gives nil. Mixed values use AnyVaultValue's own
// `min()`/`max()` (Realm's mixed order), in ValueAggregates.swift.

/// Element types whose collections have a smallest and a largest element
/// (Realm's `MinMaxType`): the integers, `Float`, `Double`, `Date`, `Decimal`
/// and ``Decimal128``. Optional elements are covered through `_VaultOptionalValue`.
public protocol MinMaxType: PersistableValue, Comparable {}

extension Int: MinMaxType {}
extension Int8: MinMaxType {}
extension Int16: MinMaxType {}
extension Int32: MinMaxType {}
extension Int64: MinMaxType {}
extension Float: MinMaxType {}
extension Double: MinMaxType {}
extension Date: MinMaxType {}
extension Decimal: MinMaxType {}
extension Decimal128: MinMaxType {}

/// An optional element type, for aggregates over optional elements (Realm's `OptionalProtocol`).
/// Public only because public extensions (`min()`/`max()` of optional elements,
/// typed queries) are constrained by it.
@_documentation(visibility: internal)
public protocol _VaultOptionalValue {
    /// The wrapped type.
    associatedtype Wrapped
    /// The wrapped value, or nil.
    @_documentation(visibility: internal)
    var _vaultWrapped: Wrapped? { get }
}

extension Optional: _VaultOptionalValue {
    public var _vaultWrapped: Wrapped? { self }
}

enum MinMax {
    /// The extreme of `values` by `preferring` (`<` for the minimum), skipping NaN.
    static func extreme<S: Sequence, T: MinMaxType>(_ values: S, _ value: (S.Element) -> T?, preferring: (T, T) -> Bool) -> T? {
        var best: T?
        for element in values {
            guard let candidate = value(element), candidate == candidate else { continue }   // nil and NaN skipped
            if let current = best, !preferring(candidate, current) { continue }
            best = candidate
        }
        return best
    }
}

extension List where Element: MinMaxType {
    /// The smallest element (NaN skipped); nil when the list is empty — Realm's `min()`.
    public func min() -> Element? { MinMax.extreme(self, { $0 }, preferring: <) }
    /// The largest element (NaN skipped); nil when the list is empty — Realm's `max()`.
    public func max() -> Element? { MinMax.extreme(self, { $0 }, preferring: >) }
}

extension List where Element: _VaultOptionalValue, Element.Wrapped: MinMaxType {
    /// The smallest non-nil element; nil when there is none — Realm's `min()`.
    public func min() -> Element.Wrapped? { MinMax.extreme(self, { $0._vaultWrapped }, preferring: <) }
    /// The largest non-nil element; nil when there is none — Realm's `max()`.
    public func max() -> Element.Wrapped? { MinMax.extreme(self, { $0._vaultWrapped }, preferring: >) }
}

extension MutableSet where Element: MinMaxType {
    /// The smallest element (NaN skipped); nil when the set is empty — Realm's `min()`.
    public func min() -> Element? { MinMax.extreme(self, { $0 }, preferring: <) }
    /// The largest element (NaN skipped); nil when the set is empty — Realm's `max()`.
    public func max() -> Element? { MinMax.extreme(self, { $0 }, preferring: >) }
}

extension MutableSet where Element: _VaultOptionalValue, Element.Wrapped: MinMaxType {
    /// The smallest non-nil element; nil when there is none — Realm's `min()`.
    public func min() -> Element.Wrapped? { MinMax.extreme(self, { $0._vaultWrapped }, preferring: <) }
    /// The largest non-nil element; nil when there is none — Realm's `max()`.
    public func max() -> Element.Wrapped? { MinMax.extreme(self, { $0._vaultWrapped }, preferring: >) }
}

extension Map where Value: MinMaxType {
    /// The smallest value (NaN skipped); nil when the map is empty — Realm's `min()`.
    public func min() -> Value? { MinMax.extreme(values, { $0 }, preferring: <) }
    /// The largest value (NaN skipped); nil when the map is empty — Realm's `max()`.
    public func max() -> Value? { MinMax.extreme(values, { $0 }, preferring: >) }
}

extension Map where Value: _VaultOptionalValue, Value.Wrapped: MinMaxType {
    /// The smallest non-nil value; nil when there is none — Realm's `min()`.
    public func min() -> Value.Wrapped? { MinMax.extreme(values, { $0._vaultWrapped }, preferring: <) }
    /// The largest non-nil value; nil when there is none — Realm's `max()`.
    public func max() -> Value.Wrapped? { MinMax.extreme(values, { $0._vaultWrapped }, preferring: >) }
}
