import Foundation
import VaultCore

/// How a property is stored: its column type and, for links, its target.
public enum PropertyType: String, Sendable, Equatable, Codable {
    case bool, int, float, double, string, data, date, uuid, decimal, objectId
    /// A to-one link to another object (always optional).
    case object
    /// A mixed value (``AnyVaultValue``): any of the others, tagged (see MixedValue.swift).
    case mixed

    /// The SQLite column affinity.
    var columnAffinity: String {
        switch self {
        case .bool, .int, .object: "INTEGER"
        case .float, .double, .date: "REAL"
        case .string, .decimal: "TEXT"
        case .data, .uuid, .objectId: "BLOB"
        // Declared BLOB: SQLite then keeps every value as bound (no affinity conversion).
        case .mixed: "BLOB"
        }
    }
}

/// A type a `@Persisted` property can hold: Bool, Int and Int8…Int64, Float,
/// Double, String, Data, Date, UUID, Decimal, ObjectId, a ``PersistableEnum``,
/// an `Object` subclass (as an optional to-one link), and the optional of each.
///
/// You do not conform your own types to it, except through ``PersistableEnum``.
/// Its requirements are underscored: they are the storage layer's witnesses
/// (how a value becomes a column), not API for apps, and stay out of
/// autocompletion on every `String` and `Int` and out of the documentation.
/// They are public only because a public protocol's requirements are: the
/// generic code of `List<Element>`, `@Persisted` and the like calls them.
public protocol PersistableValue {
    /// The stored type.
    @_documentation(visibility: internal)
    static var _vaultPropertyType: PropertyType { get }
    /// Whether `nil` is a value of this type.
    @_documentation(visibility: internal)
    static var _vaultIsOptional: Bool { get }
    /// The value of a property declared without an initial value (Realm's: the
    /// type's `init()` — "now" for a `Date`, a new id for a `UUID` or an `ObjectId`),
    /// made when an unmanaged object first reads or stores it.
    @_documentation(visibility: internal)
    static func _vaultDefaultValue() -> Self
    /// The value a column added by a migration holds in the objects stored before it
    /// (Realm's zero of the type: 1970-01-01 for a `Date`, all zero bytes for a `UUID`
    /// or an `ObjectId`); the same for every object.
    @_documentation(visibility: internal)
    static var _vaultStorageZero: Self { get }
    /// The column value of `_vaultStorageZero`: for a custom type, its persisted
    /// type's zero, so that no value of the custom type is made (a failable one
    /// may have none for it).
    @_documentation(visibility: internal)
    static var _vaultStorageZeroEncoded: DatabaseValue { get }
    /// The value for a stored column value, or `nil` if it cannot be one.
    @_documentation(visibility: internal)
    static func _vaultDecode(_ value: DatabaseValue) -> Self?
    /// The column value that stores `self`.
    @_documentation(visibility: internal)
    var _vaultEncoded: DatabaseValue { get }
    /// The linked class, for links.
    @_documentation(visibility: internal)
    static var _vaultLinkTarget: ObjectBase.Type? { get }
}

extension PersistableValue {
    public static var _vaultStorageZero: Self { _vaultDefaultValue() }
    public static var _vaultStorageZeroEncoded: DatabaseValue { _vaultStorageZero._vaultEncoded }
    public static var _vaultIsOptional: Bool { false }
    public static var _vaultLinkTarget: ObjectBase.Type? { nil }
}

/// The collection kinds a property can be.
public enum CollectionKind: String, Sendable, Codable {
    case list, set, map
}

// MARK: - Scalars

extension Bool: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { .bool }
    public static func _vaultDefaultValue() -> Bool { false }
    @inlinable public static func _vaultDecode(_ value: DatabaseValue) -> Bool? { value.int64.map { $0 != 0 } }
    @inlinable public var _vaultEncoded: DatabaseValue { .integer(self ? 1 : 0) }
}

/// Integers of every width store as SQLite integers.
public protocol PersistableInteger: PersistableValue, FixedWidthInteger {}

extension PersistableInteger {
    @inlinable public static var _vaultPropertyType: PropertyType { .int }
    public static func _vaultDefaultValue() -> Self { 0 }
    @inlinable public static func _vaultDecode(_ value: DatabaseValue) -> Self? { value.int64.flatMap { Self(exactly: $0) } }
    @inlinable public var _vaultEncoded: DatabaseValue { .integer(Int64(self)) }
}

extension Int: PersistableInteger {}
extension Int8: PersistableInteger {}
extension Int16: PersistableInteger {}
extension Int32: PersistableInteger {}
extension Int64: PersistableInteger {}

extension Float: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { .float }
    public static func _vaultDefaultValue() -> Float { 0 }
    @inlinable public static func _vaultDecode(_ value: DatabaseValue) -> Float? { Double._vaultDecode(value).map { Float($0) } }
    @inlinable public var _vaultEncoded: DatabaseValue { Double(self)._vaultEncoded }
}

extension Double: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { .double }
    public static func _vaultDefaultValue() -> Double { 0 }
    @inlinable public static func _vaultDecode(_ value: DatabaseValue) -> Double? {
        if case .text(let text) = value { return decodeNaN(text) }
        return value.double
    }
    // SQLite stores a NaN REAL as NULL: NaN is text, which a REAL column keeps as
    // text — "NaN" for the usual quiet NaN, "NaN:<hex bit pattern>" for any other
    // (a sign or payload), so that every NaN reads back with its bits.
    @inlinable public var _vaultEncoded: DatabaseValue {
        guard isNaN else { return .real(self) }
        if bitPattern == Double.nan.bitPattern { return .text(Double.storedNaN) }
        return .text(Double.storedNaN + ":" + String(bitPattern, radix: 16))
    }
    /// How a NaN float or double is stored.
    @usableFromInline static let storedNaN = "NaN"

    /// The NaN a stored text stands for, or nil. A `#<n>` suffix (a set's second and later
    /// NaN: sets keep every NaN, as Realm's and Swift's do, since NaN equals nothing) is ignored.
    @usableFromInline static func decodeNaN(_ stored: String) -> Double? {
        guard stored.hasPrefix(storedNaN) else { return nil }
        let text = stored.split(separator: "#", maxSplits: 1).first.map(String.init) ?? stored
        if text == storedNaN { return .nan }
        guard text.hasPrefix(storedNaN + ":"), let bits = UInt64(text.dropFirst(storedNaN.count + 1), radix: 16) else { return nil }
        let value = Double(bitPattern: bits)
        return value.isNaN ? value : nil
    }
}

extension String: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { .string }
    public static func _vaultDefaultValue() -> String { "" }
    @inlinable public static func _vaultDecode(_ value: DatabaseValue) -> String? { value.string }
    @inlinable public var _vaultEncoded: DatabaseValue { .text(self) }
}

extension Data: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { .data }
    public static func _vaultDefaultValue() -> Data { Data() }
    @inlinable public static func _vaultDecode(_ value: DatabaseValue) -> Data? { value.data }
    @inlinable public var _vaultEncoded: DatabaseValue { .blob(self) }
}

extension Date: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { .date }
    public static func _vaultDefaultValue() -> Date { Date() }
    public static var _vaultStorageZero: Date { Date(timeIntervalSince1970: 0) }
    // timeIntervalSinceReferenceDate is Date's own storage: the Double round-trips exactly.
    @inlinable public static func _vaultDecode(_ value: DatabaseValue) -> Date? { value.double.map { Date(timeIntervalSinceReferenceDate: $0) } }
    @inlinable public var _vaultEncoded: DatabaseValue { .real(timeIntervalSinceReferenceDate) }
}

extension UUID: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { .uuid }
    public static func _vaultDefaultValue() -> UUID { UUID() }
    public static var _vaultStorageZero: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    public static func _vaultDecode(_ value: DatabaseValue) -> UUID? {
        guard let data = value.data, data.count == 16 else { return nil }
        let b = [UInt8](data)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
    public var _vaultEncoded: DatabaseValue { .blob(withUnsafeBytes(of: uuid) { Data($0) }) }
}

extension Decimal: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { .decimal }
    public static func _vaultDefaultValue() -> Decimal { 0 }
    // The canonical string round-trips every Decimal exactly.
    public static func _vaultDecode(_ value: DatabaseValue) -> Decimal? { value.string.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) } }
    public var _vaultEncoded: DatabaseValue { .text(NSDecimalNumber(decimal: self).description(withLocale: Locale(identifier: "en_US_POSIX"))) }
}

extension ObjectId: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { .objectId }
    public static func _vaultDefaultValue() -> ObjectId { .generate() }
    public static var _vaultStorageZero: ObjectId { ObjectId(bytes: [UInt8](repeating: 0, count: 12)) ?? .generate() }
    public static func _vaultDecode(_ value: DatabaseValue) -> ObjectId? { value.data.flatMap { ObjectId(bytes: [UInt8]($0)) } }
    public var _vaultEncoded: DatabaseValue { .blob(Data(bytes)) }
}

// MARK: - Optionals

extension Optional: PersistableValue where Wrapped: PersistableValue {
    @inlinable public static var _vaultPropertyType: PropertyType { Wrapped._vaultPropertyType }
    @inlinable public static var _vaultIsOptional: Bool { true }
    public static var _vaultLinkTarget: ObjectBase.Type? { Wrapped._vaultLinkTarget }
    public static func _vaultDefaultValue() -> Wrapped? { nil }
    @inlinable public static func _vaultDecode(_ value: DatabaseValue) -> Wrapped?? {
        if value.isNull { return .some(nil) }
        guard let decoded = Wrapped._vaultDecode(value) else {
            // A stored value a failable custom type does not accept reads as nil (Realm's rule).
            return Wrapped.self is any FailableCustomPersistable.Type ? .some(nil) : nil
        }
        return .some(decoded)
    }
    @inlinable public var _vaultEncoded: DatabaseValue { self?._vaultEncoded ?? .null }
}

// MARK: - Enums

/// An enum stored by its raw value (String or an integer), as in Realm.
///
/// ```swift
/// enum Status: String, PersistableEnum { case active, archived }
/// @Persisted var status = Status.active
/// @Persisted var previous: Status?
/// ```
/// A property declared without an initial value starts at the first case.
/// Cases compare by raw value (Realm's rule), so enums sort (a collection's
/// `sorted(ascending:)` and `distinct()`) and have a `min()`/`max()` as their
/// stored values do.
public protocol PersistableEnum: MinMaxType, SortableType, RawRepresentable, CaseIterable where RawValue: PersistableValue & Comparable {}

extension PersistableEnum {
    @inlinable public static var _vaultPropertyType: PropertyType { RawValue._vaultPropertyType }
    public static func _vaultDefaultValue() -> Self {
        guard let first = allCases.first else { preconditionFailure("PersistableEnum \(Self.self) has no cases") }
        return first
    }
    @inlinable public static func _vaultDecode(_ value: DatabaseValue) -> Self? { RawValue._vaultDecode(value).flatMap { Self(rawValue: $0) } }
    @inlinable public var _vaultEncoded: DatabaseValue { rawValue._vaultEncoded }

    /// The first case (what a property declared without a value starts at).
    public init() { self = Self._vaultDefaultValue() }

    /// Whether `lhs`'s raw value is smaller than `rhs`'s.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
