import Foundation
import VaultCore

/// Options for typed string comparisons (`[c]`, `[d]` in the string form).
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `[c]`: Unicode case folding.
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// `[d]`: diacritics are ignored.
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var comparisonOptions: ComparisonOptions { ComparisonOptions(rawValue: rawValue) }
}

/// String and optional String: the types typed string operators apply to.
/// Public only because public extensions of ``Query`` are constrained by it.
@_documentation(visibility: internal)
public protocol _QueryString {}
extension String: _QueryString {}
extension Optional: _QueryString where Wrapped == String {}

/// List, MutableSet and LinkingObjects in typed queries.
/// Public only because public extensions of ``Query`` are constrained by it.
@_documentation(visibility: internal)
public protocol _QueryCollection {
    associatedtype QueryCollectionElement
}
extension List: _QueryCollection { @_documentation(visibility: internal) public typealias QueryCollectionElement = Element }
extension MutableSet: _QueryCollection { @_documentation(visibility: internal) public typealias QueryCollectionElement = Element }
extension LinkingObjects: _QueryCollection { @_documentation(visibility: internal) public typealias QueryCollectionElement = Element }

/// Map in typed queries.
/// Public only because public extensions of ``Query`` are constrained by it.
@_documentation(visibility: internal)
public protocol _QueryMap {
    associatedtype QueryMapValue
}
extension Map: _QueryMap { @_documentation(visibility: internal) public typealias QueryMapValue = Value }

extension Query where T: _QueryString {
    /// `CONTAINS`.
    public func contains(_ value: String, options: StringOptions = []) -> Query<Bool> { compare(.contains, value, options: options.comparisonOptions) }
    /// `BEGINSWITH`.
    public func starts(with value: String, options: StringOptions = []) -> Query<Bool> { compare(.beginsWith, value, options: options.comparisonOptions) }
    /// `ENDSWITH`.
    public func ends(with value: String, options: StringOptions = []) -> Query<Bool> { compare(.endsWith, value, options: options.comparisonOptions) }
    /// `LIKE`: `*` matches any run of characters, `?` one character.
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> Query<Bool> { compare(.like, pattern, options: caseInsensitive ? .caseInsensitive : []) }
    /// `==` with options.
    public func equals(_ value: String, options: StringOptions = []) -> Query<Bool> { compare(.equal, value, options: options.comparisonOptions) }
    /// `!=` with options.
    public func notEquals(_ value: String, options: StringOptions = []) -> Query<Bool> { compare(.notEqual, value, options: options.comparisonOptions) }
}

extension Query where T: Comparable {
    /// `BETWEEN {lower, upper}`.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> { compare(.between, [range.lowerBound, range.upperBound] as [Any?]) }
    /// `>= lower AND < upper`.
    public func contains(_ range: Range<T>) -> Query<Bool> { (self >= range.lowerBound) && (self < range.upperBound) }
}

extension Query where T: _QueryCollection {
    /// The number of elements (`@count`).
    public var count: Query<Int> { appendingAggregate(.count) }

    /// A property of the elements; comparisons on it mean "any element".
    public subscript<V>(dynamicMember keyPath: KeyPath<T.QueryCollectionElement, V>) -> Query<V> where T.QueryCollectionElement: ObjectBase {
        elementMember(keyPath)
    }

    /// Whether the collection holds `value` (`ANY collection == value`).
    public func contains(_ value: T.QueryCollectionElement) -> Query<Bool> { compare(.equal, value, quantifier: .any) }

    /// Whether the collection holds any of `values`.
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T.QueryCollectionElement {
        compare(.in, values.map { $0 as Any? }, quantifier: .any)
    }

    /// Whether every element is one of `values` (`ALL collection IN values`).
    public func allIn<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T.QueryCollectionElement {
        compare(.in, values.map { $0 as Any? }, quantifier: .all)
    }

    /// The smallest element (value collections).
    public var min: Query<T.QueryCollectionElement> { appendingAggregate(.min) }
    /// The largest element.
    public var max: Query<T.QueryCollectionElement> { appendingAggregate(.max) }
    /// The sum of the elements.
    public var sum: Query<T.QueryCollectionElement> { appendingAggregate(.sum) }
    /// The average of the elements.
    public var avg: Query<T.QueryCollectionElement> { appendingAggregate(.avg) }
}

extension Query where T: _QueryMap {
    /// The value for `key` (nil when absent).
    public subscript(key: String) -> Query<T.QueryMapValue> { appendingStep(.mapKey(key)) }
    /// The map's keys (comparisons mean "any key").
    public var keys: Query<String> { appendingStep(.allKeys) }
    /// The map's values (comparisons mean "any value").
    public var values: Query<T.QueryMapValue> { appendingStep(.allValues) }
    /// The number of entries.
    public var count: Query<Int> { appendingAggregate(.count) }
}

extension Query {
    func appendingStep<V>(_ step: KeyPathStep) -> Query<V> {
        switch node {
        case .path(var path):
            path.steps.append(step)
            return Query<V>(.path(path))
        case .failure(let error): return Query<V>(.failure(error))
        default: return Query<V>(.failure(QueryError("\(step.text) applies to key paths")))
        }
    }

    func appendingAggregate<V>(_ step: KeyPathStep) -> Query<V> {
        let result: Query<V> = appendingStep(step)
        guard case .path(var path) = result.node else { return result }
        path.collectionPrefix = nil
        return Query<V>(.path(path))
    }

    func elementMember<E: ObjectBase, V>(_ keyPath: KeyPath<E, V>) -> Query<V> {
        let property: Property
        switch Self.property(keyPath, of: E.self) {
        case .failure(let error): return Query<V>(.failure(error))
        case .success(let found): property = found
        }
        guard case .path(var path) = node else { return appendingStep(.property(property.name)) }
        // The element's property ends the collection part unless it is a collection itself.
        let prefix = path.steps.count
        path.steps.append(.property(property.name))
        path.collectionPrefix = property.isToManyRelation ? path.steps.count : prefix
        return Query<V>(.path(path))
    }
}

// MARK: - Entry points

extension Results {
    /// The objects matching a typed query: `.where { $0.age > 18 && $0.pets.species == "dog" }`.
    ///
    /// A key path that is not a `@Persisted` property, or a comparison the
    /// language cannot express, stops the program with a message (it is code).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        do {
            return try filter(predicate: try isIncluded(.root).predicate())
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The same objects sorted by a typed key path.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: Self.name(of: keyPath), ascending: ascending)
    }

    /// The first object of each distinct combination of the values at `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map { Self.name(of: $0) })
    }

    /// The smallest value at a typed key path.
    public func min<V: PersistableValue>(of keyPath: KeyPath<Element, V>) -> V? { min(ofProperty: Self.name(of: keyPath)) }
    /// The largest value at a typed key path.
    public func max<V: PersistableValue>(of keyPath: KeyPath<Element, V>) -> V? { max(ofProperty: Self.name(of: keyPath)) }
    /// The sum at a typed key path.
    public func sum<V: PersistableValue>(of keyPath: KeyPath<Element, V>) -> V { sum(ofProperty: Self.name(of: keyPath)) }
    /// The average at a typed key path.
    public func average<V: PersistableValue>(of keyPath: KeyPath<Element, V>) -> V? { average(ofProperty: Self.name(of: keyPath)) }

    static func name(of keyPath: AnyKeyPath) -> String {
        let schema: ObjectSchema
        do {
            schema = try ObjectSchema.schema(for: Element.self)
        } catch {
            preconditionFailure(error.description)
        }
        guard let index = schema.propertyIndex(forKeyPath: keyPath) else {
            preconditionFailure("A key path of \(schema.className) is not a @Persisted property")
        }
        return schema.properties[index].name
    }
}

extension VaultCollection where Element: ObjectBase {
    /// The objects matching a typed query (see ``Results/where(_:)``).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        queryResults.where(isIncluded)
    }

    /// The objects sorted by a typed key path.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        queryResults.sorted(by: keyPath, ascending: ascending)
    }

    /// The first object of each distinct combination of the values at `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        queryResults.distinct(by: keyPaths)
    }

    /// The smallest value at a typed key path.
    public func min<V: PersistableValue>(of keyPath: KeyPath<Element, V>) -> V? { queryResults.min(of: keyPath) }
    /// The largest value at a typed key path.
    public func max<V: PersistableValue>(of keyPath: KeyPath<Element, V>) -> V? { queryResults.max(of: keyPath) }
    /// The sum at a typed key path.
    public func sum<V: PersistableValue>(of keyPath: KeyPath<Element, V>) -> V { queryResults.sum(of: keyPath) }
    /// The average at a typed key path.
    public func average<V: PersistableValue>(of keyPath: KeyPath<Element, V>) -> V? { queryResults.average(of: keyPath) }
}

/// Typed queries on a mixed value (``AnyVaultValue``): subscripts into its
/// nested lists and dictionaries, and the string operators for string values.
extension Query where T == AnyVaultValue {
    /// The element at `index` of a list value (`value[0]`; nil when absent).
    public subscript(index: Int) -> Query<AnyVaultValue> { appendingStep(.index(index)) }
    /// The value for `key` of a dictionary value (`value['key']`; nil when absent).
    public subscript(key: String) -> Query<AnyVaultValue> { appendingStep(.mapKey(key)) }
    /// Every element of a list or dictionary value: comparisons mean "any element" (`value[*]`).
    public var any: Query<AnyVaultValue> { appendingStep(.everyElement) }
    /// The number of elements of a list or dictionary value (`value.@size`).
    public var count: Query<Int> { appendingStep(.count) }

    /// `CONTAINS` (string values only).
    public func contains(_ value: String, options: StringOptions = []) -> Query<Bool> { compare(.contains, value, options: options.comparisonOptions) }
    /// `BEGINSWITH` (string values only).
    public func starts(with value: String, options: StringOptions = []) -> Query<Bool> { compare(.beginsWith, value, options: options.comparisonOptions) }
    /// `ENDSWITH` (string values only).
    public func ends(with value: String, options: StringOptions = []) -> Query<Bool> { compare(.endsWith, value, options: options.comparisonOptions) }
    /// `LIKE` (string values only).
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> Query<Bool> { compare(.like, pattern, options: caseInsensitive ? .caseInsensitive : []) }
}
