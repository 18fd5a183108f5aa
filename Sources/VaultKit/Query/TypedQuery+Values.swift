import Foundation

// Realm's typed-query operators on enums, on two string properties and on
// binary data:
//
//   $0.status.rawValue == 1            an enum by its raw value
//   $0.tags.rawValue.contains("x")     a collection or map of enums by raw values
//   $0.name.contains($0.nickname)      string operators taking another property
//   $0.payload.starts(with: header)    CONTAINS / BEGINSWITH / ENDSWITH on Data
//
// An enum is stored as its raw value, so `rawValue` changes only the type the
// compiler checks against; the key path is the same.

extension Query {
    /// The same query, checked against another type.
    func retyped<V>() -> Query<V> {
        switch node {
        case .path(let path): Query<V>(.path(path))
        case .subquery(let operand): Query<V>(.subquery(operand))
        case .predicate(let predicate): Query<V>(.predicate(predicate))
        case .failure(let error): Query<V>(.failure(error))
        }
    }
}

extension Query where T: PersistableEnum {
    /// The enum's raw value (Realm's `rawValue` on an enum query).
    public var rawValue: Query<T.RawValue> { retyped() }
}

extension Query where T: _VaultOptionalValue, T.Wrapped: PersistableEnum {
    /// The optional enum's raw value (nil for nil).
    public var rawValue: Query<T.Wrapped.RawValue?> { retyped() }
}

extension Query where T: _QueryCollection, T.QueryCollectionElement: PersistableEnum {
    /// The elements' raw values.
    public var rawValue: Query<List<T.QueryCollectionElement.RawValue>> { retyped() }
}

extension Query where T: _QueryCollection, T.QueryCollectionElement: _VaultOptionalValue, T.QueryCollectionElement.Wrapped: PersistableEnum {
    /// The elements' raw values (nil for nil).
    public var rawValue: Query<List<T.QueryCollectionElement.Wrapped.RawValue?>> { retyped() }
}

extension Query where T: _QueryMap, T.QueryMapValue: PersistableEnum {
    /// The values' raw values.
    public var rawValue: Query<Map<String, T.QueryMapValue.RawValue>> { retyped() }
}

extension Query where T: _QueryMap, T.QueryMapValue: _VaultOptionalValue, T.QueryMapValue.Wrapped: PersistableEnum {
    /// The values' raw values (nil for nil).
    public var rawValue: Query<Map<String, T.QueryMapValue.Wrapped.RawValue?>> { retyped() }
}

extension Query where T: _QueryString {
    /// The string contains another string property's value.
    public func contains<U: _QueryString>(_ other: Query<U>, options: StringOptions = []) -> Query<Bool> { compare(.contains, other, options: options.comparisonOptions) }
    /// The string starts with another string property's value.
    public func starts<U: _QueryString>(with other: Query<U>, options: StringOptions = []) -> Query<Bool> { compare(.beginsWith, other, options: options.comparisonOptions) }
    /// The string ends with another string property's value.
    public func ends<U: _QueryString>(with other: Query<U>, options: StringOptions = []) -> Query<Bool> { compare(.endsWith, other, options: options.comparisonOptions) }
    /// The string matches the pattern another string property holds (`?` one character, `*` any run).
    public func like<U: _QueryString>(_ other: Query<U>, caseInsensitive: Bool = false) -> Query<Bool> { compare(.like, other, options: caseInsensitive ? .caseInsensitive : []) }
    /// The strings are equal under `options`.
    public func equals<U: _QueryString>(_ other: Query<U>, options: StringOptions = []) -> Query<Bool> { compare(.equal, other, options: options.comparisonOptions) }
    /// The strings differ under `options`.
    public func notEquals<U: _QueryString>(_ other: Query<U>, options: StringOptions = []) -> Query<Bool> { compare(.notEqual, other, options: options.comparisonOptions) }
}

/// Data and optional Data: the types typed binary operators apply to.
/// Public only because public extensions of ``Query`` are constrained by it.
@_documentation(visibility: internal)
public protocol _QueryData {}
extension Data: _QueryData {}
extension Optional: _QueryData where Wrapped == Data {}

extension Query where T: _QueryData {
    /// The bytes contain `value`'s bytes.
    public func contains(_ value: Data) -> Query<Bool> { compare(.contains, value) }
    /// The bytes start with `value`'s bytes.
    public func starts(with value: Data) -> Query<Bool> { compare(.beginsWith, value) }
    /// The bytes end with `value`'s bytes.
    public func ends(with value: Data) -> Query<Bool> { compare(.endsWith, value) }
    /// The bytes contain another data property's bytes.
    public func contains<U: _QueryData>(_ other: Query<U>) -> Query<Bool> { compare(.contains, other) }
    /// The bytes start with another data property's bytes.
    public func starts<U: _QueryData>(with other: Query<U>) -> Query<Bool> { compare(.beginsWith, other) }
    /// The bytes end with another data property's bytes.
    public func ends<U: _QueryData>(with other: Query<U>) -> Query<Bool> { compare(.endsWith, other) }
}
