import Foundation

// Codable models, as in RealmSwift: `final class Dog: Object, Codable { @Persisted var name = "" }`
// gets Swift's synthesized `init(from:)` and `encode(to:)`, which decode into and
// encode from unmanaged objects. A managed object cannot be encoded this way (its
// values are in the vault, which a property's storage cannot reach): encoding one
// throws, as Realm's does; encode a copy (`Dog(value: managed)`) or write `encode(to:)`.

extension Persisted: Decodable where Value: Decodable {
    /// Decodes the property's value (a missing optional decodes as `nil`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(storage: .value(try container.decode(Value.self)), options: PropertyOptions())
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes an unmanaged object's value; throws for a managed object.
    public func encode(to encoder: any Encoder) throws {
        guard discoveryTag != SchemaDiscovery.managedTag else {
            throw EncodingError.invalidValue(Value.self, EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "Only unmanaged objects can be encoded by synthesized Codable: encode a copy (Model(value: object)) or define encode(to:) on the model class"))
        }
        var container = encoder.singleValueContainer()
        switch storage {
        case .value(let value): try container.encode(value)
        case .typeDefault: try container.encode(Value._vaultDefaultValue())
        }
    }
}

/// A property wrapper whose wrapped value can be `nil`: a missing key decodes
/// as `nil` instead of failing (Realm's `OptionalCodingWrapper`).
public protocol OptionalCodingWrapper {
    /// The optional type the wrapper holds.
    associatedtype WrappedType: ExpressibleByNilLiteral
    /// A wrapper holding `wrappedValue`.
    init(wrappedValue: WrappedType)
}

extension Persisted: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {}

extension KeyedDecodingContainer {
    /// Decodes an optional `@Persisted` property, `nil` when the key is missing.
    public func decode<T: Decodable & OptionalCodingWrapper>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? T(wrappedValue: nil)
    }
}

extension VaultProperty: Decodable where Value: Decodable {
    /// Decodes the value into an unmanaged wrapper.
    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(try container.decode(Value.self))
    }
}

extension VaultProperty: Encodable where Value: Encodable {
    /// Encodes ``value`` (read from the vault when the object is managed).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension VaultProperty: Equatable where Value: Equatable {
    /// Whether both hold equal values.
    public static func == (lhs: VaultProperty, rhs: VaultProperty) -> Bool { lhs.value == rhs.value }
}

extension VaultProperty: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {
    /// A wrapper holding `wrappedValue` (a missing key decodes as `nil`).
    public convenience init(wrappedValue: Value) { self.init(wrappedValue) }
}
