import Foundation
import VaultCore

/// A value of any persistable type (Realm's `AnyRealmValue`, a "mixed"
/// property): a scalar, a link to an object of any class, or a nested list or
/// dictionary of further values, up to 100 levels deep.
///
/// ```swift
/// final class Setting: Object {
///     @Persisted var value: AnyVaultValue
/// }
/// try vault.write {
///     setting.value = .int(42)
///     setting.value = .fromDictionary(["theme": .string("dark"), "sizes": .fromArray([.int(12), .int(14)])])
///     setting.value.dictionaryValue?["theme"] = .string("light")   // writes through
/// }
/// vault.objects(Setting.self).filter("value['sizes'][0] == 12 AND value.@type == 'dictionary'")
/// ```
///
/// Swift equality is by case: `.int(1) != .double(1)`; lists and dictionaries
/// compare by their contents, objects by identity. Queries follow Realm's
/// rules instead: numbers of every type compare by value, and no other type
/// equals a number (`value == 42` never matches the string "42").
///
/// Reading a managed object's mixed property that holds a list or dictionary
/// gives a live ``List`` or ``Map``: changing it inside a write changes the
/// stored value. A `MutableSet<AnyVaultValue>` holds scalars and links only,
/// and no mixed value holds an embedded object (both as in Realm).
public enum AnyVaultValue: Hashable, CustomStringConvertible {
    /// No value: `nil` in queries.
    case none
    /// An integer.
    case int(Int)
    /// A Bool (never equal to an integer in queries).
    case bool(Bool)
    /// A Float.
    case float(Float)
    /// A Double.
    case double(Double)
    /// A string.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A date.
    case date(Date)
    /// A link to an object of any class (added with its owner when unmanaged).
    case object(Object)
    /// An ObjectId.
    case objectId(ObjectId)
    /// A decimal (compared with the other numbers by value in queries).
    case decimal128(Decimal128)
    /// A UUID.
    case uuid(UUID)
    /// A nested dictionary of mixed values.
    case dictionary(Map<String, AnyVaultValue>)
    /// A nested list of mixed values.
    case list(List<AnyVaultValue>)

    /// `.none`.
    public init() { self = .none }

    /// A dictionary value holding `dictionary`'s entries.
    public static func fromDictionary(_ dictionary: [String: AnyVaultValue]) -> AnyVaultValue {
        let map = Map<String, AnyVaultValue>()
        map.merge(dictionary)
        return .dictionary(map)
    }

    /// A list value holding `array`'s elements.
    public static func fromArray(_ array: [AnyVaultValue]) -> AnyVaultValue {
        let list = List<AnyVaultValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// The integer, if this is `.int`.
    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    /// The Bool, if this is `.bool`.
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    /// The Float, if this is `.float`.
    public var floatValue: Float? { if case .float(let v) = self { v } else { nil } }
    /// The Double, if this is `.double`.
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The string, if this is `.string`.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The bytes, if this is `.data`.
    public var dataValue: Data? { if case .data(let v) = self { v } else { nil } }
    /// The date, if this is `.date`.
    public var dateValue: Date? { if case .date(let v) = self { v } else { nil } }
    /// The ObjectId, if this is `.objectId`.
    public var objectIdValue: ObjectId? { if case .objectId(let v) = self { v } else { nil } }
    /// The decimal, if this is `.decimal128`.
    public var decimal128Value: Decimal128? { if case .decimal128(let v) = self { v } else { nil } }
    /// The UUID, if this is `.uuid`.
    public var uuidValue: UUID? { if case .uuid(let v) = self { v } else { nil } }
    /// The dictionary (live when read from a managed object), if this is `.dictionary`.
    public var dictionaryValue: Map<String, AnyVaultValue>? { if case .dictionary(let v) = self { v } else { nil } }
    /// The list (live when read from a managed object), if this is `.list`.
    public var listValue: List<AnyVaultValue>? { if case .list(let v) = self { v } else { nil } }

    /// The linked object as `type`, if this is `.object` of that type.
    public func object<T: Object>(_ type: T.Type) -> T? {
        if case .object(let object) = self { object as? T } else { nil }
    }

    /// The linked object read by property name, if this is `.object`.
    public var dynamicObject: DynamicObject? {
        guard case .object(let object) = self else { return nil }
        if let dynamic = object as? DynamicObject { return dynamic }
        guard let manager = object.manager else { return nil }
        return manager.vault.dynamicObject(className: manager.schema.className, rowID: manager.rowID)
    }

    // MARK: Equality

    /// Equal cases with equal values; lists and dictionaries by contents, objects by identity.
    public static func == (lhs: AnyVaultValue, rhs: AnyVaultValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.int(let a), .int(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.object(let a), .object(let b)): a === b || a.isSameObject(as: b)
        case (.objectId(let a), .objectId(let b)): a == b
        case (.decimal128(let a), .decimal128(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.list(let a), .list(let b)): a === b || Array(a) == Array(b)
        case (.dictionary(let a), .dictionary(let b)):
            a === b || (a.keys == b.keys && a.values == b.values)
        default: false
        }
    }

    /// Hashes the case and value (a collection by its size).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .object(let v):
            if let manager = v.manager { hasher.combine(manager.schema.className); hasher.combine(manager.rowID) } else { hasher.combine(ObjectIdentifier(v)) }
        case .objectId(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .list(let v): hasher.combine(13); hasher.combine(v.count)
        case .dictionary(let v): hasher.combine(12); hasher.combine(v.count)
        }
    }

    /// The case and value, as in `int(42)` or `list(int(1), string("a"))`.
    public var description: String {
        switch self {
        case .none: "none"
        case .int(let v): "int(\(v))"
        case .bool(let v): "bool(\(v))"
        case .float(let v): "float(\(v))"
        case .double(let v): "double(\(v))"
        case .string(let v): "string(\(v.debugDescription))"
        case .data(let v): "data(\(v.count) bytes)"
        case .date(let v): "date(\(v))"
        case .object(let v): "object(\(type(of: v)))"
        case .objectId(let v): "objectId(\(v))"
        case .decimal128(let v): "decimal128(\(v))"
        case .uuid(let v): "uuid(\(v))"
        case .list(let v): "list(\(Array(v).map(\.description).joined(separator: ", ")))"
        case .dictionary(let v): "dictionary(\(v.asKeyValueSequence().map { "\($0.key): \($0.value)" }.joined(separator: ", ")))"
        }
    }
}

// MARK: - Storage

extension AnyVaultValue: PersistableValue {
    public static var _vaultPropertyType: PropertyType { .mixed }
    /// A mixed property holds nil as `.none`: its column allows NULL.
    public static var _vaultIsOptional: Bool { true }
    public static func _vaultDefaultValue() -> AnyVaultValue { .none }

    /// The value of a stored column, without a vault: links cannot be resolved
    /// here (they read as nil); nested collections come back unmanaged. Managed
    /// objects read through ``Vault`` instead (see Vault+Mixed).
    public static func _vaultDecode(_ value: DatabaseValue) -> AnyVaultValue? {
        guard let mixed = try? MixedCodec.decode(value) else { return nil }
        return AnyVaultValue(detached: mixed)
    }

    /// The stored form without a vault: a managed object's link is kept, an
    /// unmanaged object's is not (it must be added, which only a vault does).
    public var _vaultEncoded: DatabaseValue {
        (try? MixedCodec.encode(detachedMixedValue())) ?? .null
    }

    /// The value with links resolved to nothing and collections unmanaged.
    init?(detached mixed: MixedValue) {
        switch mixed {
        case .link: return nil
        default: self = AnyVaultValue(mixed) { _ in nil }
        }
    }

    /// Converts a stored value; `resolve` turns links (and, for live values, nested collections) into Swift values.
    init(_ mixed: MixedValue, resolve: (MixedValue) -> AnyVaultValue?) {
        if let resolved = resolve(mixed) { self = resolved; return }
        switch mixed {
        case .none, .link: self = .none
        case .int(let v): self = .int(Int(truncatingIfNeeded: v))
        case .bool(let v): self = .bool(v)
        case .float(let v): self = .float(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .data(let v): self = .data(v)
        case .date(let v): self = .date(Date(timeIntervalSinceReferenceDate: v))
        case .objectId(let bytes): self = ObjectId(bytes: bytes).map { .objectId($0) } ?? .none
        case .decimal(let v): self = .decimal128(v)
        case .uuid(let v): self = .uuid(v)
        case .list(let elements):
            let list = List<AnyVaultValue>()
            list.append(objectsIn: elements.map { AnyVaultValue($0, resolve: resolve) })
            self = .list(list)
        case .dictionary(let entries):
            let map = Map<String, AnyVaultValue>()
            for (key, value) in entries { map[key] = AnyVaultValue(value, resolve: resolve) }
            self = .dictionary(map)
        }
    }

    /// The storage form, with `link` giving each object's stored link (it may
    /// add the object); throws for values a mixed cannot hold.
    func mixedValue(depth: Int = 0, link: (Object) throws -> MixedValue) throws -> MixedValue {
        switch self {
        case .none: return .none
        case .int(let v): return .int(Int64(v))
        case .bool(let v): return .bool(v)
        case .float(let v): return .float(v)
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .data(let v): return .data(v)
        case .date(let v): return .date(v.timeIntervalSinceReferenceDate)
        case .object(let object): return try link(object)
        case .objectId(let v): return .objectId(v.bytes)
        case .decimal128(let v): return .decimal(v)
        case .uuid(let v): return .uuid(v)
        case .list(let list):
            guard depth < MixedValue.maximumDepth else { throw MixedValueError.tooDeep }
            return .list(try Array(list).map { try $0.mixedValue(depth: depth + 1, link: link) })
        case .dictionary(let map):
            guard depth < MixedValue.maximumDepth else { throw MixedValueError.tooDeep }
            return .dictionary(try map.asKeyValueSequence().map { ($0.key, try $0.value.mixedValue(depth: depth + 1, link: link)) })
        }
    }

    /// A value given as a plain Swift value (`create(_:value:)`, key-value
    /// coding): `5` is `.int(5)`, an array a list, a dictionary a dictionary,
    /// `nil` or `NSNull` `.none`; nil for a type a mixed value cannot hold.
    init?(boxed value: Any?) {
        guard let value else { self = .none; return }
        switch value {
        case let mixed as AnyVaultValue: self = mixed
        case is NSNull: self = .none
        case let v as Int: self = .int(v)
        case let v as Bool: self = .bool(v)
        case let v as Double: self = .double(v)
        case let v as Float: self = .float(v)
        case let v as String: self = .string(v)
        case let v as Data: self = .data(v)
        case let v as Date: self = .date(v)
        case let v as Object: self = .object(v)
        case let v as ObjectId: self = .objectId(v)
        case let v as Decimal128: self = .decimal128(v)
        case let v as Decimal: self = .decimal128(Decimal128(v))
        case let v as UUID: self = .uuid(v)
        // The payloads key-value coding gives for nested collections (`object["any"]`), set back.
        case let v as List<AnyVaultValue>: self = .list(v)
        case let v as Map<String, AnyVaultValue>: self = .dictionary(v)
        case let v as any BinaryInteger:
            guard let int = Int(exactly: v) else { return nil }
            self = .int(int)
        case let v as [Any?]:
            var elements: [AnyVaultValue] = []
            for element in v {
                guard let converted = AnyVaultValue(boxed: element) else { return nil }
                elements.append(converted)
            }
            self = .fromArray(elements)
        case let v as [String: Any?]:
            var entries: [String: AnyVaultValue] = [:]
            for (key, element) in v {
                guard let converted = AnyVaultValue(boxed: element) else { return nil }
                entries[key] = converted
            }
            self = .fromDictionary(entries)
        default:
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return nil }
            self.init(boxed: mirror.children.first?.value)
        }
    }

    /// The value as key-value coding gives it, as Realm's `object["any"]` does: the
    /// payload itself (`"hello"`, `42`, the linked object, the nested `List` or
    /// `Map`), and `nil` for ``none``.
    var keyValuePayload: Any? {
        switch self {
        case .none: nil
        case .int(let v): v
        case .bool(let v): v
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .object(let v): v
        case .objectId(let v): v
        case .decimal128(let v): v
        case .uuid(let v): v
        case .dictionary(let v): v
        case .list(let v): v
        }
    }

    /// Whether the value links to an object, at any depth.
    var containsObject: Bool {
        switch self {
        case .object: true
        case .list(let list): list.contains { $0.containsObject }
        case .dictionary(let map): map.values.contains { $0.containsObject }
        default: false
        }
    }

    func detachedMixedValue() throws -> MixedValue {
        try mixedValue { object in
            guard let manager = object.manager else { throw MixedValueError.unmanagedObject }
            return .link(className: manager.schema.className, rowID: manager.rowID)
        }
    }
}

/// Why a value cannot be stored in a mixed property.
enum MixedValueError: Swift.Error {
    case tooDeep
    case unmanagedObject
}
