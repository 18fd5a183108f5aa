import Foundation
import VaultCore

/// A typed query: the same language as the string form, checked by the
/// compiler, built with key paths.
///
/// ```swift
/// let adults = vault.objects(Person.self).where {
///     $0.age >= 18 && $0.name.contains("ada", options: .caseInsensitive)
/// }
/// let dogOwners = vault.objects(Person.self).where { $0.pets.species == "dog" }   // ANY
/// let busy = vault.objects(Person.self).where { $0.friends.count > 10 }
/// ```
///
/// Each member names a `@Persisted` property; through a `List`, `MutableSet`
/// or `LinkingObjects` a comparison means "any element". `where` builds the
/// same query tree as ``Results/filter(_:_:)``, so both forms give the same
/// results.
@dynamicMemberLookup
public struct Query<T> {
    enum Node {
        /// A key path (its `collectionPrefix` says where the last collection it passes through ends).
        case path(QueryKeyPath)
        /// A `SUBQUERY(…).@count` operand.
        case subquery(QueryOperand)
        case predicate(QueryPredicate)
        case failure(QueryError)
    }
    let node: Node

    init(_ node: Node) { self.node = node }

    /// The root query (the objects themselves).
    static var root: Query<T> { Query(.path(QueryKeyPath(variable: nil, steps: [], offset: nil))) }

    private func appending<V>(_ step: KeyPathStep, isCollection: Bool = false) -> Query<V> {
        switch node {
        case .path(var path):
            path.steps.append(step)
            if isCollection { path.collectionPrefix = path.steps.count }
            return Query<V>(.path(path))
        case .failure(let error): return Query<V>(.failure(error))
        case .predicate, .subquery: return Query<V>(.failure(QueryError("a member cannot follow a condition")))
        }
    }

    /// The property `keyPath` reads on `Root`.
    static func property<Root: ObjectBase>(_ keyPath: AnyKeyPath, of _: Root.Type) -> Result<Property, QueryError> {
        let schema: ObjectSchema
        do {
            schema = try ObjectSchema.schema(for: Root.self)
        } catch {
            return .failure(QueryError(error.description))
        }
        guard let index = schema.propertyIndex(forKeyPath: keyPath) else {
            return .failure(QueryError("a key path of \(schema.className) used in a typed query is not a @Persisted property"))
        }
        return .success(schema.properties[index])
    }

    private func member<Root: ObjectBase, V>(_ keyPath: KeyPath<Root, V>, of _: Root.Type) -> Query<V> {
        switch Self.property(keyPath, of: Root.self) {
        case .failure(let error): return Query<V>(.failure(error))
        case .success(let property): return appending(.property(property.name), isCollection: property.isToManyRelation)
        }
    }

    /// A property of the object.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        member(keyPath, of: T.self)
    }

    /// A property of an optional linked or embedded object (nil links give nil).
    public subscript<W: ObjectBase, V>(dynamicMember keyPath: KeyPath<W, V>) -> Query<V> where T == W? {
        member(keyPath, of: W.self)
    }

    // MARK: Building comparisons

    func predicate() throws(QueryError) -> QueryPredicate {
        switch node {
        case .predicate(let predicate): return predicate
        case .path(let path): return .comparison(Comparison(lhs: .keyPath(path), op: .equal, rhs: .value(.bool(true), offset: nil)))
        case .subquery: throw QueryError("a count is not a condition: compare it, as in (…).count > 0")
        case .failure(let error): throw error
        }
    }

    func compare(_ op: ComparisonOperator, _ value: Any?, options: ComparisonOptions = [], quantifier: Quantifier? = nil) -> Query<Bool> {
        let lhs: QueryOperand
        switch node {
        case .path(let path): lhs = .keyPath(path)
        case .subquery(let operand): lhs = operand
        case .failure(let error): return Query<Bool>(.failure(error))
        case .predicate: return Query<Bool>(.failure(QueryError("a condition cannot be compared with a value")))
        }
        do {
            let rhs: QueryOperand
            if let values = value as? [Any?] {
                var items: [QueryOperand] = []
                for element in values {
                    guard let converted = QueryValue.from(argument: element) else {
                        return Query<Bool>(.failure(QueryError("a value of type \(type(of: element as Any)) cannot be used in a query")))
                    }
                    items.append(.value(converted, offset: nil))
                }
                rhs = .list(items, offset: nil)
            } else {
                guard let converted = QueryValue.from(argument: value) else {
                    return Query<Bool>(.failure(QueryError("a value of type \(type(of: value as Any)) cannot be used in a query")))
                }
                rhs = .value(converted, offset: nil)
            }
            return Query<Bool>(.predicate(.comparison(Comparison(lhs: lhs, op: op, rhs: rhs, options: options, quantifier: quantifier))))
        }
    }

    func compare<U>(_ op: ComparisonOperator, _ other: Query<U>, options: ComparisonOptions = []) -> Query<Bool> {
        switch (node, other.node) {
        case (.path(let left), .path(let right)):
            return Query<Bool>(.predicate(.comparison(Comparison(lhs: .keyPath(left), op: op, rhs: .keyPath(right), options: options))))
        case (.failure(let error), _), (_, .failure(let error)): return Query<Bool>(.failure(error))
        default: return Query<Bool>(.failure(QueryError("only key paths can be compared with each other")))
        }
    }

    /// Equal (nil-safe: `nil == nil` is true).
    public static func == (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.equal, rhs) }
    /// Not equal.
    public static func != (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.notEqual, rhs) }
    /// Less than.
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.less, rhs) }
    /// Less than or equal.
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessOrEqual, rhs) }
    /// Greater than.
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greater, rhs) }
    /// Greater than or equal.
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterOrEqual, rhs) }

    /// Two properties compared (the types are checked when the query compiles).
    public static func == <U>(lhs: Query<T>, rhs: Query<U>) -> Query<Bool> { lhs.compare(.equal, rhs) }
    /// Two properties differ.
    public static func != <U>(lhs: Query<T>, rhs: Query<U>) -> Query<Bool> { lhs.compare(.notEqual, rhs) }
    /// One property is less than another.
    public static func < <U>(lhs: Query<T>, rhs: Query<U>) -> Query<Bool> { lhs.compare(.less, rhs) }
    /// One property is less than or equal to another.
    public static func <= <U>(lhs: Query<T>, rhs: Query<U>) -> Query<Bool> { lhs.compare(.lessOrEqual, rhs) }
    /// One property is greater than another.
    public static func > <U>(lhs: Query<T>, rhs: Query<U>) -> Query<Bool> { lhs.compare(.greater, rhs) }
    /// One property is greater than or equal to another.
    public static func >= <U>(lhs: Query<T>, rhs: Query<U>) -> Query<Bool> { lhs.compare(.greaterOrEqual, rhs) }

    /// Whether the value is one of `values` (`IN`).
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        compare(.in, values.map { $0 as Any? })
    }

    // MARK: Aggregates of a key path through a collection (`$0.pets.age.max`)

    private func aggregate<V>(_ step: KeyPathStep) -> Query<V> {
        guard case .path(var path) = node else {
            if case .failure(let error) = node { return Query<V>(.failure(error)) }
            return Query<V>(.failure(QueryError("\(step.text) applies to key paths")))
        }
        guard let prefix = path.collectionPrefix, prefix <= path.steps.count else {
            return Query<V>(.failure(QueryError("\(step.text) applies to a key path through a List, MutableSet or LinkingObjects")))
        }
        // `pets.age` + @max → `pets.@max.age`; `scores` + @max → `scores.@max`.
        path.steps.insert(step, at: prefix)
        path.collectionPrefix = nil
        return Query<V>(.path(path))
    }

    /// The smallest value through a collection: `$0.pets.age.min`.
    public var min: Query<T> { aggregate(.min) }
    /// The largest value through a collection.
    public var max: Query<T> { aggregate(.max) }
    /// The sum through a collection.
    public var sum: Query<T> { aggregate(.sum) }
    /// The average through a collection.
    public var avg: Query<T> { aggregate(.avg) }
}

// MARK: - Logic

extension Query where T == Bool {
    /// Both conditions hold (`AND`).
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { combine(lhs, rhs) { .and($0, $1) } }
    /// Either condition holds (`OR`).
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { combine(lhs, rhs) { .or($0, $1) } }
    /// The condition does not hold (`NOT`; an unknown counts as false).
    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        do {
            return Query(.predicate(.not(try query.predicate())))
        } catch {
            return Query(.failure(error))
        }
    }

    private static func combine(_ lhs: Query<Bool>, _ rhs: Query<Bool>, _ make: (QueryPredicate, QueryPredicate) -> QueryPredicate) -> Query<Bool> {
        do {
            return Query(.predicate(make(try lhs.predicate(), try rhs.predicate())))
        } catch {
            return Query(.failure(error))
        }
    }

    /// The number of elements of a collection matching a condition written on
    /// its members: `($0.pets.age > 5 && $0.pets.species == "cat").count > 0`
    /// is `SUBQUERY(pets, $x, $x.age > 5 AND $x.species == 'cat').@count > 0`.
    public var count: Query<Int> {
        let predicate: QueryPredicate
        do {
            predicate = try self.predicate()
        } catch {
            return Query<Int>(.failure(error))
        }
        guard let prefix = Self.collectionPrefix(in: predicate) else {
            return Query<Int>(.failure(QueryError("count of a condition needs the condition's key paths to go through one List, MutableSet or LinkingObjects")))
        }
        let variable = "vk_element"
        let collection = QueryKeyPath(variable: nil, steps: prefix, offset: nil)
        let inner = Self.rebase(predicate, prefix: prefix, variable: variable)
        return Query<Int>(.subquery(.subqueryCount(collection: collection, variable: variable, predicate: inner, offset: nil)))
    }

    /// The collection part of the first key path in `predicate` that goes through a collection.
    private static func collectionPrefix(in predicate: QueryPredicate) -> [KeyPathStep]? {
        switch predicate {
        case .and(let a, let b), .or(let a, let b): return collectionPrefix(in: a) ?? collectionPrefix(in: b)
        case .not(let inner): return collectionPrefix(in: inner)
        case .constant: return nil
        case .comparison(let comparison):
            for operand in [comparison.lhs, comparison.rhs] {
                if case .keyPath(let path) = operand, path.variable == nil, let length = path.collectionPrefix {
                    return Array(path.steps.prefix(length))
                }
            }
            return nil
        }
    }

    /// Rewrites key paths starting with `prefix` to start from `$variable`.
    private static func rebase(_ predicate: QueryPredicate, prefix: [KeyPathStep], variable: String) -> QueryPredicate {
        switch predicate {
        case .and(let a, let b): return .and(rebase(a, prefix: prefix, variable: variable), rebase(b, prefix: prefix, variable: variable))
        case .or(let a, let b): return .or(rebase(a, prefix: prefix, variable: variable), rebase(b, prefix: prefix, variable: variable))
        case .not(let inner): return .not(rebase(inner, prefix: prefix, variable: variable))
        case .constant: return predicate
        case .comparison(var comparison):
            func move(_ operand: QueryOperand) -> QueryOperand {
                guard case .keyPath(var path) = operand, path.variable == nil, path.steps.starts(with: prefix) else { return operand }
                path.steps.removeFirst(prefix.count)
                path.variable = variable
                return .keyPath(path)
            }
            comparison.lhs = move(comparison.lhs)
            comparison.rhs = move(comparison.rhs)
            return .comparison(comparison)
        }
    }
}

