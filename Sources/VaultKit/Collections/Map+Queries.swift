import Foundation
import VaultCore

/// Queries on a map of objects (`Map<String, Dog?>`), as Realm's `Map` offers
/// them: `where`, `sorted`, the aggregates of a property, and (VaultKit's
/// spelling of Realm's `NSPredicate` filter) `filter` with a query string.
///
/// ```swift
/// let goodDogs = owner.dogsByName.where { $0.age < 5 }.sorted(by: \.name, ascending: true)
/// let oldest = owner.dogsByName.max(of: \.age)
/// ```
///
/// The queries run in the vault over the map's values in key order, skipping
/// keys whose value is nil; they need a managed map, except the key-path
/// aggregates, which an unmanaged map computes in memory (as Realm's do).
/// Unlike Realm's `Results<Dog?>`, the results hold the objects themselves
/// (`Results<Dog>`): write `results[0].name` where Realm code wrote `results[0]?.name`.
extension Map where Value: _VaultOptionalValue, Value.Wrapped: ObjectBase {
    /// The map's non-nil objects, in key order, as live ``Results`` (stops the program for an unmanaged map).
    public var results: Results<Value.Wrapped> {
        guard let binding else { preconditionFailure("Only a managed Map can be queried: add its owner to a vault first") }
        return binding.results(of: Value.Wrapped.self)
    }

    /// The objects matching a query in Realm's query language (see ``Results/filter(_:_:)``).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value.Wrapped> {
        do {
            return try results.filter(predicateFormat, arguments: args)
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The objects matching a query, throwing a ``QueryError`` for a bad query.
    public func filter(_ predicateFormat: String, arguments: [Any?]) throws(QueryError) -> Results<Value.Wrapped> {
        try results.filter(predicateFormat, arguments: arguments)
    }

    /// The objects matching a typed query; the closure's values are optional, as in Realm (`$0.age > 3`).
    public func `where`(_ isIncluded: (Query<Value>) -> Query<Bool>) -> Results<Value.Wrapped> {
        do {
            return try results.filter(predicate: try isIncluded(.root).predicate())
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The objects sorted by a key path.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value.Wrapped> {
        results.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects sorted by several key paths.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value.Wrapped> where S.Element == SortDescriptor {
        results.sorted(by: sortDescriptors)
    }

    /// The objects sorted by a typed key path.
    public func sorted<V>(by keyPath: KeyPath<Value.Wrapped, V>, ascending: Bool) -> Results<Value.Wrapped> {
        results.sorted(by: keyPath, ascending: ascending)
    }

    /// The smallest value of a property, or nil when there is none.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? { results.min(ofProperty: property) }
    /// The largest value of a property, or nil when there is none.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? { results.max(ofProperty: property) }
    /// The sum of a numeric property.
    public func sum<T: PersistableValue>(ofProperty property: String) -> T { results.sum(ofProperty: property) }
    /// The average of a numeric property, or nil when there is none.
    public func average<T: PersistableValue>(ofProperty property: String) -> T? { results.average(ofProperty: property) }

    /// The non-nil objects of an unmanaged map, in key order.
    private var unmanagedObjects: [Value.Wrapped] { values.compactMap(\._vaultWrapped) }

    /// The smallest value at a typed key path, or nil when there is none.
    public func min<V: MinMaxType>(of keyPath: KeyPath<Value.Wrapped, V>) -> V? {
        guard binding != nil else { return MinMax.extreme(unmanagedObjects, { $0[keyPath: keyPath] }, preferring: <) }
        return results.min(of: keyPath)
    }

    /// The largest value at a typed key path, or nil when there is none.
    public func max<V: MinMaxType>(of keyPath: KeyPath<Value.Wrapped, V>) -> V? {
        guard binding != nil else { return MinMax.extreme(unmanagedObjects, { $0[keyPath: keyPath] }, preferring: >) }
        return results.max(of: keyPath)
    }

    /// The sum at a typed key path.
    public func sum<V: AddableType>(of keyPath: KeyPath<Value.Wrapped, V>) -> V {
        guard binding != nil else { return ValueAggregates.sum(unmanagedObjects.map { $0[keyPath: keyPath] }, isManaged: false) }
        return results.sum(of: keyPath)
    }

    /// The average at a typed key path, or nil when there is none.
    public func average<V: AddableType>(of keyPath: KeyPath<Value.Wrapped, V>) -> V? {
        guard binding != nil else { return ValueAggregates.average(unmanagedObjects.map { $0[keyPath: keyPath] }) }
        return results.average(of: keyPath)
    }
}
