import Foundation
import VaultCore

// Foundation's `#Predicate` accepted by `filter`: its expression tree is
// walked (each supported expression type conforms to `PredicateTranslatable`)
// and rebuilt as the same ``QueryPredicate`` the string form produces.
//
// Supported: ==, !=, <, <=, >, >=, &&, ||, !, nil, String `contains`,
// `starts(with:)`, collection `contains(value)`, `contains { … }` (ANY),
// `property ?? value` compared with a value,
// `allSatisfy { … }` (ALL), `(a...b).contains(x)` (BETWEEN),
// `[values].contains(x)` (IN), optional chaining through links (`$0.pet?.age`),
// `.count` and `.isEmpty` of collections. Anything else throws a `QueryError`
// naming the expression.

/// What an expression of a `#Predicate` becomes.
enum TranslatedExpression {
    case predicate(QueryPredicate)
    case keyPath(QueryKeyPath)
    case value(Any?)
    /// `keyPath ?? default`.
    case coalesced(QueryKeyPath, default: Any?)
}

/// The state of one translation: which `#Predicate` variables stand for what.
struct PredicateTranslation {
    enum Binding {
        /// A key path (the queried object is the empty path; `?.` binds its link's path).
        case path(QueryKeyPath)
    }
    var bindings: [PredicateExpressions.VariableID: Binding] = [:]
    var variableCounter = 0

    mutating func newVariable() -> String {
        variableCounter += 1
        return "vk_p\(variableCounter)"
    }
}

/// An expression type VaultKit can translate.
protocol PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression
}

private func translate(_ expression: Any, _ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
    guard let translatable = expression as? any PredicateTranslatable else {
        throw QueryError("#Predicate expression \(describeExpressionType(expression)) has no query equivalent")
    }
    return try translatable.translate(&context)
}

/// The expression's type without module prefixes, for messages.
private func describeExpressionType(_ expression: Any) -> String {
    String(reflecting: type(of: expression)).replacingOccurrences(of: "FoundationEssentials.", with: "").replacingOccurrences(of: "Foundation.", with: "")
}

private func predicate(_ expression: Any, _ context: inout PredicateTranslation) throws(QueryError) -> QueryPredicate {
    switch try translate(expression, &context) {
    case .predicate(let predicate): return predicate
    case .keyPath(let path): return .comparison(Comparison(lhs: .keyPath(path), op: .equal, rhs: .value(.bool(true), offset: nil)))
    case .value(let value):
        guard let bool = value as? Bool else { throw QueryError("#Predicate: a value is used as a condition") }
        return .constant(bool)
    case .coalesced(let path, let fallback):
        // `$0.flag ?? false`.
        guard let fallback = fallback as? Bool else { throw QueryError("#Predicate: a value is used as a condition") }
        let isTrue = QueryPredicate.comparison(Comparison(lhs: .keyPath(path), op: .equal, rhs: .value(.bool(true), offset: nil)))
        let isNil = QueryPredicate.comparison(Comparison(lhs: .keyPath(path), op: .equal, rhs: .value(.null, offset: nil)))
        return fallback ? .or(isTrue, isNil) : isTrue
    }
}

private func operand(_ translated: TranslatedExpression) throws(QueryError) -> QueryOperand {
    switch translated {
    case .keyPath(let path): return .keyPath(path)
    case .value(let value):
        if let array = value as? [Any?] {
            var items: [QueryOperand] = []
            for element in array { items.append(try operand(.value(element))) }
            return .list(items, offset: nil)
        }
        guard let converted = QueryValue.from(argument: value) else {
            throw QueryError("#Predicate: a value of type \(type(of: value as Any)) cannot be used in a query")
        }
        return .value(converted, offset: nil)
    case .predicate: throw QueryError("#Predicate: a condition is compared as a value")
    case .coalesced: throw QueryError("#Predicate: ?? is supported only when compared with a value")
    }
}

private func comparison(_ lhs: Any, _ op: ComparisonOperator, _ rhs: Any, _ context: inout PredicateTranslation,
                        options: ComparisonOptions = [], quantifier: Quantifier? = nil) throws(QueryError) -> TranslatedExpression {
    var leftTranslated = try translate(lhs, &context)
    var rightTranslated = try translate(rhs, &context)
    var op = op
    if case .coalesced = rightTranslated {
        swap(&leftTranslated, &rightTranslated)
        let mirrored: [ComparisonOperator: ComparisonOperator] = [.less: .greater, .lessOrEqual: .greaterOrEqual, .greater: .less, .greaterOrEqual: .lessOrEqual]
        op = mirrored[op] ?? op
    }
    if case .coalesced(let path, let fallback) = leftTranslated, case .value(let value) = rightTranslated {
        // `(x ?? d) op v`: x op v where x is not nil, and the constant `d op v` where it is.
        let whenPresent = QueryPredicate.comparison(Comparison(lhs: .keyPath(path), op: op, rhs: try operand(.value(value)), options: options))
        guard try constantComparison(fallback, op, value) else { return .predicate(whenPresent) }
        let isNil = QueryPredicate.comparison(Comparison(lhs: .keyPath(path), op: .equal, rhs: .value(.null, offset: nil)))
        return .predicate(.or(whenPresent, isNil))
    }
    let left = try operand(leftTranslated)
    let right = try operand(rightTranslated)
    return .predicate(.comparison(Comparison(lhs: left, op: op, rhs: right, options: options, quantifier: quantifier)))
}

/// `a op b` for two constants (the default of a `??` and the compared value).
private func constantComparison(_ a: Any?, _ op: ComparisonOperator, _ b: Any?) throws(QueryError) -> Bool {
    guard let left = QueryValue.from(argument: a), let right = QueryValue.from(argument: b) else {
        throw QueryError("#Predicate: ?? with a value that cannot be used in a query")
    }
    func order<C: Comparable>(_ x: C, _ y: C) -> Bool? {
        switch op {
        case .equal: x == y
        case .notEqual: x != y
        case .less: x < y
        case .lessOrEqual: x <= y
        case .greater: x > y
        case .greaterOrEqual: x >= y
        default: nil
        }
    }
    let result: Bool?
    switch (left, right) {
    case (.int(let x), .int(let y)): result = order(x, y)
    case (.int(let x), .double(let y)): result = order(Double(x), y)
    case (.double(let x), .int(let y)): result = order(x, Double(y))
    case (.double(let x), .double(let y)): result = order(x, y)
    case (.string(let x), .string(let y)): result = order(x, y)
    case (.date(let x), .date(let y)): result = order(x, y)
    case (.decimal(let x), .decimal(let y)): result = order(x, y)
    case (.bool(let x), .bool(let y)): result = op == .equal ? x == y : (op == .notEqual ? x != y : nil)
    default: result = op == .equal ? left == right : (op == .notEqual ? left != right : nil)
    }
    guard let result else { throw QueryError("#Predicate: ?? is supported with ==, !=, <, <=, > and >=") }
    return result
}

extension PredicateExpressions.NilCoalesce: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        guard case .keyPath(let path) = try VaultKit.translate(lhs, &context), case .value(let fallback) = try VaultKit.translate(rhs, &context) else {
            throw QueryError("#Predicate: ?? is supported as `property ?? value`")
        }
        return .coalesced(path, default: fallback)
    }
}

// MARK: - Leaves

extension PredicateExpressions.Variable: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        guard case .path(let path)? = context.bindings[key] else { throw QueryError("#Predicate: a variable is used outside its closure") }
        return .keyPath(path)
    }
}

extension PredicateExpressions.Value: PredicateTranslatable {
    func translate(_: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression { .value(value) }
}

extension PredicateExpressions.NilLiteral: PredicateTranslatable {
    func translate(_: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression { .value(nil) }
}

extension PredicateExpressions.KeyPath: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        guard case .keyPath(var path) = try VaultKit.translate(root, &context) else {
            throw QueryError("#Predicate: a key path must start from the queried object")
        }
        if let objectType = Root.Output.self as? ObjectBase.Type {
            guard let index = (try? ObjectSchema.schema(for: objectType))?.propertyIndex(forKeyPath: keyPath),
                  let schema = try? ObjectSchema.schema(for: objectType) else {
                throw QueryError("#Predicate: a key path of \(objectType) is not a @Persisted property")
            }
            path.steps.append(.property(schema.properties[index].name))
            return .keyPath(path)
        }
        // Members of collections, strings and enums (key paths print no names on Linux: compare them).
        let member = keyPath as AnyKeyPath
        if let countable = Root.Output.self as? any PredicateCountable.Type {
            if member == countable.countKeyPath {
                path.steps.append(.count)
                return .keyPath(path)
            }
            if member == countable.isEmptyKeyPath {
                path.steps.append(.count)
                return .predicate(.comparison(Comparison(lhs: .keyPath(path), op: .equal, rhs: .value(.int(0), offset: nil))))
            }
        }
        if let enumType = Root.Output.self as? any PersistableEnum.Type, isRawValue(enumType, Output.self) {
            // Enums are stored (and compared) by raw value.
            return .keyPath(path)
        }
        throw QueryError("#Predicate: a key path on \(Root.Output.self) has no query equivalent (use @Persisted properties, count, isEmpty and rawValue)")
    }
}

/// Whether a key path on an enum reads its raw value (the only member an enum
/// property stores; generic and concrete `rawValue` key paths do not compare equal).
private func isRawValue<E: PersistableEnum>(_: E.Type, _ output: Any.Type) -> Bool { output == E.RawValue.self }

/// Types whose `count` and `isEmpty` a `#Predicate` may read.
protocol PredicateCountable {
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension List: PredicateCountable {
    static var countKeyPath: AnyKeyPath { \List<Element>.count }
    static var isEmptyKeyPath: AnyKeyPath { \List<Element>.isEmpty }
}

extension MutableSet: PredicateCountable {
    static var countKeyPath: AnyKeyPath { \MutableSet<Element>.count }
    static var isEmptyKeyPath: AnyKeyPath { \MutableSet<Element>.isEmpty }
}

extension LinkingObjects: PredicateCountable {
    static var countKeyPath: AnyKeyPath { \LinkingObjects<Element>.count }
    static var isEmptyKeyPath: AnyKeyPath { \LinkingObjects<Element>.isEmpty }
}

extension Map: PredicateCountable {
    static var countKeyPath: AnyKeyPath { \Map<Key, Value>.count }
    static var isEmptyKeyPath: AnyKeyPath { \Map<Key, Value>.isEmpty }
}

extension String: PredicateCountable {
    static var countKeyPath: AnyKeyPath { \String.count }
    static var isEmptyKeyPath: AnyKeyPath { \String.isEmpty }
}

extension Data: PredicateCountable {
    static var countKeyPath: AnyKeyPath { \Data.count }
    static var isEmptyKeyPath: AnyKeyPath { \Data.isEmpty }
}

// MARK: - Logic

extension PredicateExpressions.Conjunction: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        .predicate(.and(try predicate(lhs, &context), try predicate(rhs, &context)))
    }
}

extension PredicateExpressions.Disjunction: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        .predicate(.or(try predicate(lhs, &context), try predicate(rhs, &context)))
    }
}

extension PredicateExpressions.Negation: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        .predicate(.not(try predicate(wrapped, &context)))
    }
}

// MARK: - Comparisons

extension PredicateExpressions.Equal: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        try comparison(lhs, .equal, rhs, &context)
    }
}

extension PredicateExpressions.NotEqual: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        try comparison(lhs, .notEqual, rhs, &context)
    }
}

extension PredicateExpressions.Comparison: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        let mapped: ComparisonOperator
        switch op {
        case .lessThan: mapped = .less
        case .lessThanOrEqual: mapped = .lessOrEqual
        case .greaterThan: mapped = .greater
        case .greaterThanOrEqual: mapped = .greaterOrEqual
        @unknown default: throw QueryError("#Predicate: an unknown comparison operator")
        }
        return try comparison(lhs, mapped, rhs, &context)
    }
}

extension PredicateExpressions.CollectionContainsCollection: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        try comparison(base, .contains, other, &context)
    }
}

extension PredicateExpressions.SequenceStartsWith: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        try comparison(base, .beginsWith, prefix, &context)
    }
}

extension PredicateExpressions.SequenceContains: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        let collection = try VaultKit.translate(sequence, &context)
        if case .value = collection {
            // `[a, b].contains($0.x)`: IN.
            return try comparison(element, .in, sequence, &context)
        }
        return try comparison(sequence, .equal, element, &context, quantifier: .any)
    }
}

extension PredicateExpressions.RangeExpressionContains: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        guard let bounds = range as? any PredicateRangeBounds else {
            throw QueryError("#Predicate: only literal ranges (a...b, a..<b) can be tested with contains")
        }
        let lower = try operand(VaultKit.translate(bounds.lowerExpression, &context))
        let upper = try operand(VaultKit.translate(bounds.upperExpression, &context))
        let value = try operand(VaultKit.translate(element, &context))
        if bounds.isClosed {
            return .predicate(.comparison(Comparison(lhs: value, op: .between, rhs: .list([lower, upper], offset: nil))))
        }
        return .predicate(.and(.comparison(Comparison(lhs: value, op: .greaterOrEqual, rhs: lower)),
                               .comparison(Comparison(lhs: value, op: .less, rhs: upper))))
    }
}

/// The bounds of `a...b` and `a..<b` inside a `#Predicate`.
protocol PredicateRangeBounds {
    var lowerExpression: Any { get }
    var upperExpression: Any { get }
    var isClosed: Bool { get }
}

extension PredicateExpressions.ClosedRange: PredicateRangeBounds {
    var lowerExpression: Any { lower }
    var upperExpression: Any { upper }
    var isClosed: Bool { true }
}

extension PredicateExpressions.Range: PredicateRangeBounds {
    var lowerExpression: Any { lower }
    var upperExpression: Any { upper }
    var isClosed: Bool { false }
}

// MARK: - Closures over collections and optionals

/// `collection.contains { test }` and `collection.allSatisfy { test }`: a SUBQUERY over the collection.
private func subquery(_ sequence: Any, _ variable: PredicateExpressions.VariableID, _ test: Any, all: Bool,
                      _ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
    guard case .keyPath(let collection) = try translate(sequence, &context) else {
        throw QueryError("#Predicate: contains(where:) and allSatisfy need a collection property")
    }
    let name = context.newVariable()
    context.bindings[variable] = .path(QueryKeyPath(variable: name, steps: [], offset: nil))
    var inner = try predicate(test, &context)
    context.bindings[variable] = nil
    if all { inner = .not(inner) }
    let count = QueryOperand.subqueryCount(collection: collection, variable: name, predicate: inner, offset: nil)
    return .predicate(.comparison(Comparison(lhs: count, op: all ? .equal : .greater, rhs: .value(.int(0), offset: nil))))
}

extension PredicateExpressions.SequenceContainsWhere: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        try subquery(sequence, variable.key, test, all: false, &context)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        try subquery(sequence, variable.key, test, all: true, &context)
    }
}

extension PredicateExpressions.OptionalFlatMap: PredicateTranslatable {
    func translate(_ context: inout PredicateTranslation) throws(QueryError) -> TranslatedExpression {
        // `$0.pet?.age`: the closure's variable is the link's key path (a nil link gives nil).
        guard case .keyPath(let link) = try VaultKit.translate(wrapped, &context) else {
            throw QueryError("#Predicate: ?. must follow a link property")
        }
        context.bindings[variable.key] = .path(link)
        defer { context.bindings[variable.key] = nil }
        return try VaultKit.translate(transform, &context)
    }
}

// MARK: - Entry point

extension Results {
    /// The objects matching a Foundation `#Predicate`, translated to the same
    /// query as the string form (see the supported expressions in
    /// PredicateTranslation.swift).
    ///
    /// ```swift
    /// let adults = people.filter(#Predicate<Person> { $0.age >= 18 && $0.name.starts(with: "A") })
    /// ```
    /// - Throws: ``QueryError`` for an expression the query language cannot express.
    public func filter(_ predicate: Predicate<Element>) throws(QueryError) -> Results<Element> {
        var context = PredicateTranslation()
        context.bindings[predicate.variable.key] = .path(QueryKeyPath(variable: nil, steps: [], offset: nil))
        let translated = try VaultKit.predicate(predicate.expression, &context)
        return try filter(predicate: translated)
    }
}

// Concrete members (not a protocol extension), so they win over Foundation's
// `Sequence.filter(_: Predicate)`, which would load every object.
extension List where Element: ObjectBase {
    /// The objects matching a Foundation `#Predicate`, in list order.
    public func filter(_ predicate: Predicate<Element>) throws(QueryError) -> Results<Element> { try results.filter(predicate) }
}

extension MutableSet where Element: Object {
    /// The objects matching a Foundation `#Predicate`.
    public func filter(_ predicate: Predicate<Element>) throws(QueryError) -> Results<Element> { try results.filter(predicate) }
}

extension LinkingObjects {
    /// The objects matching a Foundation `#Predicate`.
    public func filter(_ predicate: Predicate<Element>) throws(QueryError) -> Results<Element> { try results.filter(predicate) }
}
