import Foundation
import VaultCore

/// A type of your own stored as one of the persistable types (Realm's
/// `CustomPersistable`): a `URL` as its string, a measurement as a `Double`,
/// a wrapper as what it wraps. Use it in `@Persisted` properties, lists, sets
/// and maps, and query it by its persisted value.
///
/// ```swift
/// extension URL: CustomPersistable {
///     public typealias PersistedType = String
///     public init(persistedValue: String) { self = URL(string: persistedValue) ?? URL(fileURLWithPath: "/") }
///     public var persistableValue: String { absoluteString }
/// }
/// @Persisted var homepage: URL?
/// vault.objects(Site.self).filter("homepage == %@", url)     // compared as its string
/// ```
///
/// When the conversion from the stored value can fail, conform to
/// ``FailableCustomPersistable`` instead.
///
/// Like Realm's, a custom type is `Hashable` (values go in sets and maps, and
/// compare): it hashes as its persisted value, and a struct whose stored
/// properties are `Equatable` gets `==` without writing it.
public protocol CustomPersistable: PersistableValue, Hashable {
    /// The persistable type the value is stored as.
    associatedtype PersistedType: PersistableValue & Hashable
    /// The value from its stored form.
    init(persistedValue: PersistedType)
    /// The stored form of the value.
    var persistableValue: PersistedType { get }
}

/// A type stored as a persistable type whose conversion back may fail
/// (Realm's `FailableCustomPersistable`): a stored value that does not convert
/// reads as `nil` for an optional property, and is a read error (the program
/// stops with the class, property and type named, as for a damaged value) for
/// a required one.
public protocol FailableCustomPersistable: PersistableValue, Hashable {
    /// The persistable type the value is stored as.
    associatedtype PersistedType: PersistableValue & Hashable
    /// The value from its stored form, or nil when it does not convert.
    init?(persistedValue: PersistedType)
    /// The stored form of the value.
    var persistableValue: PersistedType { get }
}

extension CustomPersistable {
    public static var _vaultPropertyType: PropertyType { PersistedType._vaultPropertyType }
    public static func _vaultDefaultValue() -> Self { Self(persistedValue: PersistedType._vaultDefaultValue()) }
    public static var _vaultStorageZeroEncoded: DatabaseValue { PersistedType._vaultStorageZeroEncoded }
    public static func _vaultDecode(_ value: DatabaseValue) -> Self? { PersistedType._vaultDecode(value).map(Self.init(persistedValue:)) }
    public var _vaultEncoded: DatabaseValue { persistableValue._vaultEncoded }
    /// Hashes the persisted value (Realm's rule).
    public func hash(into hasher: inout Hasher) { persistableValue.hash(into: &hasher) }
}

extension FailableCustomPersistable {
    public static var _vaultPropertyType: PropertyType { PersistedType._vaultPropertyType }
    public static func _vaultDefaultValue() -> Self {
        guard let value = Self(persistedValue: PersistedType._vaultDefaultValue()) else {
            preconditionFailure("\(Self.self) has no value for \(PersistedType.self)'s default: give the property an initial value, or make it optional")
        }
        return value
    }
    public static var _vaultStorageZeroEncoded: DatabaseValue { PersistedType._vaultStorageZeroEncoded }
    public static func _vaultDecode(_ value: DatabaseValue) -> Self? { PersistedType._vaultDecode(value).flatMap(Self.init(persistedValue:)) }
    public var _vaultEncoded: DatabaseValue { persistableValue._vaultEncoded }
    /// Hashes the persisted value (Realm's rule).
    public func hash(into hasher: inout Hasher) { persistableValue.hash(into: &hasher) }
}

/// A query argument stored as another type: compared as its stored form.
protocol PersistedQueryArgument {
    var persistedArgument: Any { get }
}

extension CustomPersistable {
    var persistedArgument: Any { persistableValue }
}

extension FailableCustomPersistable {
    var persistedArgument: Any { persistableValue }
}
