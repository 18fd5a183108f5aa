import Foundation

// Realm's typed-query operators on collection and map properties, beyond
// `contains`, `count` and the aggregates (TypedQuery+Members.swift):
//
//   $0.scores == 5                  ANY scores == 5 (also !=, <, <=, >, >=)
//   $0.scores.contains(1...5)       scores.@min >= 1 AND scores.@max <= 5 (every element in range)
//   $0.ratings.contains(3)          ANY ratings.@allValues == 3 (a map's values)
//   $0.ratings.containsAny(in: xs)  ANY ratings.@allValues IN xs
//   $0.ratings.max > 4              ratings.@max > 4
//
// As in Realm, a range holds a collection when every element is in it (an
// empty collection has no minimum, so it is not in any range). The
// element comparisons are disfavoured overloads: `$0.scores.min < 0` stays
// the comparison of the minimum (`Query<Int>`), not of the collection.

extension Query where T: _QueryCollection {
    /// Some element equals `value` (Realm's `$0.scores == 5`, `ANY scores == 5`).
    @_disfavoredOverload
    public static func == (lhs: Query<T>, rhs: T.QueryCollectionElement) -> Query<Bool> { lhs.compare(.equal, rhs, quantifier: .any) }
    /// Some element differs from `value` (`ANY scores != 5`).
    @_disfavoredOverload
    public static func != (lhs: Query<T>, rhs: T.QueryCollectionElement) -> Query<Bool> { lhs.compare(.notEqual, rhs, quantifier: .any) }
}

extension Query where T: _QueryCollection, T.QueryCollectionElement: Comparable {
    /// Some element is less than `value`.
    @_disfavoredOverload
    public static func < (lhs: Query<T>, rhs: T.QueryCollectionElement) -> Query<Bool> { lhs.compare(.less, rhs, quantifier: .any) }
    /// Some element is less than or equal to `value`.
    @_disfavoredOverload
    public static func <= (lhs: Query<T>, rhs: T.QueryCollectionElement) -> Query<Bool> { lhs.compare(.lessOrEqual, rhs, quantifier: .any) }
    /// Some element is greater than `value`.
    @_disfavoredOverload
    public static func > (lhs: Query<T>, rhs: T.QueryCollectionElement) -> Query<Bool> { lhs.compare(.greater, rhs, quantifier: .any) }
    /// Some element is greater than or equal to `value`.
    @_disfavoredOverload
    public static func >= (lhs: Query<T>, rhs: T.QueryCollectionElement) -> Query<Bool> { lhs.compare(.greaterOrEqual, rhs, quantifier: .any) }

    /// Every element is in `range` (and there is one).
    public func contains(_ range: ClosedRange<T.QueryCollectionElement>) -> Query<Bool> { everyElement(from: range.lowerBound, to: range.upperBound, closed: true) }
    /// Every element is in `range` (and there is one).
    public func contains(_ range: Range<T.QueryCollectionElement>) -> Query<Bool> { everyElement(from: range.lowerBound, to: range.upperBound, closed: false) }
}

extension Query where T: _QueryCollection, T.QueryCollectionElement: _VaultOptionalValue, T.QueryCollectionElement.Wrapped: Comparable {
    /// Every element is in `range` (nil elements are not counted; there is a non-nil one).
    public func contains(_ range: ClosedRange<T.QueryCollectionElement.Wrapped>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: true)
    }
    /// Every element is in `range` (nil elements are not counted; there is a non-nil one).
    public func contains(_ range: Range<T.QueryCollectionElement.Wrapped>) -> Query<Bool> {
        everyElement(from: range.lowerBound, to: range.upperBound, closed: false)
    }
}

extension Query where T: _QueryMap {
    /// Some value equals `value` (Realm's map `contains`).
    public func contains(_ value: T.QueryMapValue) -> Query<Bool> {
        let values: Query<T.QueryMapValue> = appendingStep(.allValues)
        return values.compare(.equal, value, quantifier: .any)
    }

    /// Some value is one of `values`.
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T.QueryMapValue {
        let all: Query<T.QueryMapValue> = appendingStep(.allValues)
        return all.compare(.in, values.map { $0 as Any? }, quantifier: .any)
    }

    /// The smallest value (`@min`).
    public var min: Query<T.QueryMapValue> { appendingAggregate(.min) }
    /// The largest value (`@max`).
    public var max: Query<T.QueryMapValue> { appendingAggregate(.max) }
    /// The sum of the values (`@sum`).
    public var sum: Query<T.QueryMapValue> { appendingAggregate(.sum) }
    /// The average of the values (`@avg`).
    public var avg: Query<T.QueryMapValue> { appendingAggregate(.avg) }
}

extension Query where T: _QueryMap, T.QueryMapValue: Comparable {
    /// Every value is in `range` (and there is one).
    public func contains(_ range: ClosedRange<T.QueryMapValue>) -> Query<Bool> { everyElement(from: range.lowerBound, to: range.upperBound, closed: true) }
    /// Every value is in `range` (and there is one).
    public func contains(_ range: Range<T.QueryMapValue>) -> Query<Bool> { everyElement(from: range.lowerBound, to: range.upperBound, closed: false) }
}

extension Query where T: _QueryMap, T.QueryMapValue: _VaultOptionalValue, T.QueryMapValue.Wrapped: Comparable {
    /// Every value is in `range` (nil values are not counted; there is a non-nil one).
    public func contains(_ range: ClosedRange<T.QueryMapValue.Wrapped>) -> Query<Bool> { everyElement(from: range.lowerBound, to: range.upperBound, closed: true) }
    /// Every value is in `range` (nil values are not counted; there is a non-nil one).
    public func contains(_ range: Range<T.QueryMapValue.Wrapped>) -> Query<Bool> { everyElement(from: range.lowerBound, to: range.upperBound, closed: false) }
}

extension Query {
    /// `@min >= lower AND @max <= upper` (`< upper` when not `closed`): every element in the range.
    fileprivate func everyElement(from lower: Any, to upper: Any, closed: Bool) -> Query<Bool> {
        let smallest: Query<Any> = appendingAggregate(.min)
        let largest: Query<Any> = appendingAggregate(.max)
        return smallest.compare(.greaterOrEqual, lower) && largest.compare(closed ? .lessOrEqual : .less, upper)
    }
}

extension Query where T: _VaultOptionalValue, T.Wrapped: Comparable {
    /// The value is in `range` (nil is in none).
    public func contains(_ range: ClosedRange<T.Wrapped>) -> Query<Bool> { compare(.between, [range.lowerBound, range.upperBound] as [Any?]) }
    /// The value is in `range` (nil is in none).
    public func contains(_ range: Range<T.Wrapped>) -> Query<Bool> {
        compare(.greaterOrEqual, range.lowerBound) && compare(.less, range.upperBound)
    }
}
