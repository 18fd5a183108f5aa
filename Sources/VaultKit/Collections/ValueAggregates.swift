import Foundation
import VaultCore

/// Element types whose collections can be summed and averaged (Realm's
/// `AddableType`): the integers, `Float`, `Double`, `Decimal`, ``Decimal128``,
/// ``AnyVaultValue`` (its numbers) and their optionals (nil is skipped).
public protocol AddableType: PersistableValue {
    /// The value as a Decimal; nil for nil (and for a mixed value that is not a number).
    @_documentation(visibility: internal)
    var _vaultDecimalValue: Decimal? { get }
    /// A sum of values of this type, as this type.
    @_documentation(visibility: internal)
    static func _vaultSum(_ sum: Decimal, ofEmptyUnmanaged isEmptyUnmanaged: Bool) -> Self
}

extension AddableType where Self: BinaryInteger {
    public var _vaultDecimalValue: Decimal? { Decimal(Int64(truncatingIfNeeded: self)) }
    public static func _vaultSum(_ sum: Decimal, ofEmptyUnmanaged _: Bool) -> Self { Self(truncatingIfNeeded: NSDecimalNumber(decimal: sum).int64Value) }
}

extension Int: AddableType {}
extension Int8: AddableType {}
extension Int16: AddableType {}
extension Int32: AddableType {}
extension Int64: AddableType {}

extension Double: AddableType {
    public var _vaultDecimalValue: Decimal? { isFinite ? Decimal(self) : nil }
    public static func _vaultSum(_ sum: Decimal, ofEmptyUnmanaged _: Bool) -> Double { NSDecimalNumber(decimal: sum).doubleValue }
}

extension Float: AddableType {
    public var _vaultDecimalValue: Decimal? { isFinite ? Decimal(Double(self)) : nil }
    public static func _vaultSum(_ sum: Decimal, ofEmptyUnmanaged _: Bool) -> Float { Float(NSDecimalNumber(decimal: sum).doubleValue) }
}

extension Decimal: AddableType {
    public var _vaultDecimalValue: Decimal? { isNaN ? nil : self }
    public static func _vaultSum(_ sum: Decimal, ofEmptyUnmanaged _: Bool) -> Decimal { sum }
}

extension Decimal128: AddableType {
    public var _vaultDecimalValue: Decimal? { decimalValue.isNaN ? nil : decimalValue }
    public static func _vaultSum(_ sum: Decimal, ofEmptyUnmanaged _: Bool) -> Decimal128 { Decimal128(sum) }
}

extension AnyVaultValue: AddableType {
    public var _vaultDecimalValue: Decimal? {
        switch self {
        case .int(let v): Decimal(v)
        case .float(let v): v.isFinite ? Decimal(Double(v)) : nil
        case .double(let v): v.isFinite ? Decimal(v) : nil
        case .decimal128(let v): v.decimalValue.isNaN ? nil : v.decimalValue
        default: nil
        }
    }
    /// A Decimal128, as realm-core sums mixed values; `.int(0)` for an empty unmanaged collection, as Realm gives.
    public static func _vaultSum(_ sum: Decimal, ofEmptyUnmanaged isEmptyUnmanaged: Bool) -> AnyVaultValue {
        isEmptyUnmanaged ? .int(0) : .decimal128(Decimal128(sum))
    }
}

extension Optional: AddableType where Wrapped: AddableType {
    public var _vaultDecimalValue: Decimal? { self?._vaultDecimalValue }
    public static func _vaultSum(_ sum: Decimal, ofEmptyUnmanaged isEmptyUnmanaged: Bool) -> Wrapped? {
        Wrapped._vaultSum(sum, ofEmptyUnmanaged: isEmptyUnmanaged)
    }
}

/// The sum and average of value collections (Realm's `sum()` and `average()`).
enum ValueAggregates {
    static func sum<S: Sequence>(_ values: S, isManaged: Bool) -> S.Element where S.Element: AddableType {
        let decimals = values.compactMap(\._vaultDecimalValue)
        return S.Element._vaultSum(decimals.reduce(0, +), ofEmptyUnmanaged: !isManaged && decimals.isEmpty)
    }

    static func average<S: Sequence, T>(_ values: S) -> T? where S.Element: AddableType {
        let decimals = values.compactMap(\._vaultDecimalValue)
        guard !decimals.isEmpty else { return nil }
        let mean = decimals.reduce(0, +) / Decimal(decimals.count)
        let double = NSDecimalNumber(decimal: mean).doubleValue
        switch T.self {
        case is Double.Type, is Double?.Type: return double as? T
        case is Float.Type, is Float?.Type: return Float(double) as? T
        case is Decimal128.Type, is Decimal128?.Type: return Decimal128(mean) as? T
        case is Decimal.Type, is Decimal?.Type: return mean as? T
        case is AnyVaultValue.Type: return AnyVaultValue.decimal128(Decimal128(mean)) as? T
        case is Int.Type, is Int?.Type: return Int(exactly: double.rounded()) as? T
        case is Int64.Type, is Int64?.Type: return Int64(exactly: double.rounded()) as? T
        case is Int32.Type, is Int32?.Type: return Int32(exactly: double.rounded()) as? T
        case is Int16.Type, is Int16?.Type: return Int16(exactly: double.rounded()) as? T
        case is Int8.Type, is Int8?.Type: return Int8(exactly: double.rounded()) as? T
        default: return nil
        }
    }

    /// Realm's mixed order (type rank, then value); nil values are skipped.
    static func extreme<S: Sequence>(_ values: S, preferring order: ComparisonResult) -> AnyVaultValue? where S.Element == AnyVaultValue {
        var best: (value: AnyVaultValue, stored: MixedValue)?
        for value in values {
            guard let stored = try? value.detachedMixedValue() else { continue }
            if case .none = stored { continue }
            if let current = best, stored.sortOrder(current.stored) != order { continue }
            best = (value, stored)
        }
        return best?.value
    }
}

extension List where Element: AddableType {
    /// The sum of the elements (nil ones skipped).
    public func sum() -> Element { ValueAggregates.sum(self, isManaged: vault != nil) }
    /// The average of the elements, as `T` (`Double`, `Decimal128`, …); nil when there are none.
    public func average<T>() -> T? { ValueAggregates.average(self) }
}

extension MutableSet where Element: AddableType {
    /// The sum of the elements (nil ones skipped).
    public func sum() -> Element { ValueAggregates.sum(self, isManaged: vault != nil) }
    /// The average of the elements, as `T`; nil when there are none.
    public func average<T>() -> T? { ValueAggregates.average(self) }
}

extension Map where Value: AddableType {
    /// The sum of the values (nil ones skipped).
    public func sum() -> Value { ValueAggregates.sum(values, isManaged: vault != nil) }
    /// The average of the values, as `T`; nil when there are none.
    public func average<T>() -> T? { ValueAggregates.average(values) }
}

extension Sequence where Element == AnyVaultValue {
    /// The smallest value in Realm's mixed order (nil values skipped; numbers by value across their types).
    public func min() -> AnyVaultValue? { ValueAggregates.extreme(self, preferring: .orderedAscending) }
    /// The largest value in Realm's mixed order.
    public func max() -> AnyVaultValue? { ValueAggregates.extreme(self, preferring: .orderedDescending) }
}
