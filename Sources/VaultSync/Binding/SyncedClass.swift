import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

/// One model class as sync sees it: its primary key, the properties that
/// sync, and how their stored values become ``SyncValue``s and back.
struct SyncedClass {
    let schema: ObjectSchema
    let primaryKey: Property
    /// Every stored property but the primary key (LinkingObjects are computed, not synced).
    let properties: [Property]
    let propertiesByName: [String: Property]

    var className: String { schema.className }
    var isAsymmetric: Bool { schema.isAsymmetric }

    /// The class as sync sees it, or why it cannot sync.
    init(_ schema: ObjectSchema) throws(SyncError) {
        guard let primaryKey = schema.primaryKeyProperty else {
            throw .unsupportedModel("\(schema.className) has no primary key; synced classes need one, as in Realm (for example @Persisted(primaryKey: true) var _id: ObjectId)")
        }
        let properties = schema.properties.filter { $0.originProperty == nil && !$0.isPrimaryKey }
        for property in properties {
            if property.type == .mixed {
                throw .unsupportedModel("\(schema.className).\(property.name) is an AnyVaultValue; mixed values do not sync yet")
            }
            if property.isEmbeddedLink {
                throw .unsupportedModel("\(schema.className).\(property.name) holds embedded objects, which do not sync yet; make \(property.objectClassName ?? "the class") a top-level class with a primary key")
            }
        }
        self.schema = schema
        self.primaryKey = primaryKey
        self.properties = properties
        self.propertiesByName = Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0) })
    }

    /// The sync form of a stored scalar of `type` (links excepted); nil when the stored value is not one.
    static func syncValue(_ stored: DatabaseValue, type: PropertyType) -> SyncValue? {
        if case .null = stored { return .null }
        switch (type, stored) {
        case (.bool, .integer(let value)): return .bool(value != 0)
        case (.int, .integer(let value)): return .int(value)
        case (.float, .real(let value)): return .float(Float(value).bitPattern)
        case (.float, .integer(let value)): return .float(Float(value).bitPattern)
        case (.double, .real(let value)): return .double(value.bitPattern)
        case (.double, .integer(let value)): return .double(Double(value).bitPattern)
        case (.date, .real(let value)): return .date(value.bitPattern)
        case (.date, .integer(let value)): return .date(Double(value).bitPattern)
        case (.string, .text(let value)): return .string(value)
        case (.decimal, .text(let value)): return .decimal(value)
        case (.data, .blob(let value)): return .data([UInt8](value))
        case (.objectId, .blob(let value)) where value.count == 12: return .objectId([UInt8](value))
        case (.uuid, .blob(let value)) where value.count == 16: return .uuid([UInt8](value))
        default: return nil
        }
    }

    /// The stored form of a scalar for a property of `type`; nil when the value does not fit the type.
    static func storedValue(_ value: SyncValue, type: PropertyType, optional: Bool) -> DatabaseValue? {
        switch (type, value) {
        case (_, .null): return optional ? .null : nil
        case (.bool, .bool(let flag)): return .integer(flag ? 1 : 0)
        case (.int, .int(let number)): return .integer(number)
        case (.float, .float(let bits)): return .real(Double(Float(bitPattern: bits)))
        case (.double, .double(let bits)): return .real(Double(bitPattern: bits))
        case (.date, .date(let bits)): return .real(Double(bitPattern: bits))
        case (.string, .string(let text)): return .text(text)
        case (.decimal, .decimal(let text)): return .text(text)
        case (.data, .data(let bytes)): return .blob(Data(bytes))
        case (.objectId, .objectId(let bytes)) where bytes.count == 12: return .blob(Data(bytes))
        case (.uuid, .uuid(let bytes)) where bytes.count == 16: return .blob(Data(bytes))
        default: return nil
        }
    }

    /// The primary key's sync form.
    func primaryKeyValue(_ stored: DatabaseValue) -> SyncValue? {
        Self.syncValue(stored, type: primaryKey.type)
    }

    /// The primary key's stored form (a key that does not fit is a schema mismatch).
    func storedPrimaryKey(_ value: SyncValue) throws(SyncError) -> DatabaseValue {
        guard let stored = Self.storedValue(value, type: primaryKey.type, optional: primaryKey.isOptional) else {
            throw .schemaMismatch("\(className).\(primaryKey.name) is a \(primaryKey.type.rawValue) primary key here, but a change set names an object by \(value.kindName)")
        }
        return stored
    }
}

extension SyncValue {
    /// The kind of value, for error messages (never the value itself).
    var kindName: String {
        switch self {
        case .null: return "nil"
        case .bool: return "a bool"
        case .int: return "an int"
        case .float: return "a float"
        case .double: return "a double"
        case .string: return "a string"
        case .data: return "data"
        case .date: return "a date"
        case .decimal: return "a decimal"
        case .objectId: return "an ObjectId"
        case .uuid: return "a UUID"
        case .link(let reference): return "a link to \(reference.className)"
        }
    }
}
