import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

/// One model class as sync sees it: its primary key, the fields that sync,
/// and how their stored values become ``SyncValue``s and back.
///
/// A field is a stored property of the class, or of an embedded object it
/// holds through a to-one property, named by its path (`address.city`). An
/// embedded object itself is a *marker* field at its property's path:
/// `.bool(true)` while the owner holds one, `.null` when it does not. Each
/// path is a property of the merge state, so an embedded object merges
/// property by property, as Realm's sync merges it. Lists and maps of
/// embedded objects are fields whose elements travel whole (EmbeddedElements.swift).
struct SyncedClass {
    let schema: ObjectSchema
    let primaryKey: Property
    /// Every field, an embedded object's marker before its fields.
    let fields: [SyncField]
    let fieldsByPath: [String: SyncField]

    var className: String { schema.className }
    var isAsymmetric: Bool { schema.isAsymmetric }

    /// Every top-level class `vault` has registered now, as sync sees it. With
    /// `objectTypes` unset a vault learns classes as the app first uses them,
    /// so sync asks each time it records or merges rather than once.
    static func all(in vault: Vault) throws(SyncError) -> [String: SyncedClass] {
        var classes: [String: SyncedClass] = [:]
        for schema in vault.schema.objectSchema where !schema.isEmbedded {
            classes[schema.className] = try SyncedClass(schema, schemaNamed: { vault.storedSchema(named: $0) })
        }
        return classes
    }

    /// The class as sync sees it, or why it cannot sync. `schemaNamed` finds embedded classes.
    init(_ schema: ObjectSchema, schemaNamed: (String) -> ObjectSchema?) throws(SyncError) {
        guard let primaryKey = schema.primaryKeyProperty else {
            throw .unsupportedModel("\(schema.className) has no primary key; synced classes need one, as in Realm (for example @Persisted(primaryKey: true) var _id: ObjectId)")
        }
        var fields: [SyncField] = []
        try Self.collect(schema, prefix: "", chain: [], into: &fields, schemaNamed: schemaNamed)
        self.schema = schema
        self.primaryKey = primaryKey
        self.fields = fields
        self.fieldsByPath = Dictionary(uniqueKeysWithValues: fields.map { ($0.path, $0) })
    }

    private static func collect(_ schema: ObjectSchema, prefix: String, chain: [SyncField], into fields: inout [SyncField],
                                schemaNamed: (String) -> ObjectSchema?) throws(SyncError) {
        guard chain.count <= 8 else { throw .unsupportedModel("\(schema.className) nests embedded objects more than 8 deep") }
        for property in schema.properties where property.originProperty == nil && !property.isPrimaryKey {
            let path = prefix + property.name
            guard property.isEmbeddedLink else {
                fields.append(SyncField(path: path, property: property, owner: chain.last, isEmbeddedMarker: false))
                continue
            }
            guard let targetName = property.objectClassName, let target = schemaNamed(targetName) else {
                throw .unsupportedModel("\(path) of \(schema.className) holds embedded objects of a class this vault does not have")
            }
            if property.collectionKind != nil {
                // A list or map of embedded objects: each element travels whole (EmbeddedElements.swift).
                let elements = try EmbeddedElementCoding(target, owner: "\(schema.className).\(path)")
                fields.append(SyncField(path: path, property: property, owner: chain.last, isEmbeddedMarker: false, embeddedElements: elements))
                continue
            }
            let marker = SyncField(path: path, property: property, owner: chain.last, isEmbeddedMarker: true)
            fields.append(marker)
            try collect(target, prefix: path + ".", chain: chain + [marker], into: &fields, schemaNamed: schemaNamed)
        }
    }

    /// Every field's stored value for the object at `rowID` (fields of an
    /// absent embedded object left out; a marker as 1 or null), the row of
    /// each embedded object present, by its marker's path, and the object's primary key.
    func read(_ vault: Vault, rowID: Int64) throws
        -> (values: [String: StoredPropertyValue], owners: [String: (className: String, rowID: Int64)], primaryKey: SyncValue?)? {
        guard let top = try vault.storedRow(className: className, rowID: rowID) else { return nil }
        var primaryKey: SyncValue?
        if case .column(let stored)? = top[self.primaryKey.name] { primaryKey = primaryKeyValue(stored) }
        var rows: [String: [String: StoredPropertyValue]] = ["": top]
        var owners: [String: (className: String, rowID: Int64)] = ["": (className, rowID)]
        var values: [String: StoredPropertyValue] = [:]
        for field in fields {
            guard let row = rows[field.ownerPath], let value = row[field.property.name] else { continue }
            guard field.isEmbeddedMarker else {
                values[field.path] = value
                continue
            }
            if case .column(.integer(let embedded)) = value, let target = field.property.objectClassName,
               let embeddedRow = try vault.storedRow(className: target, rowID: embedded) {
                rows[field.path] = embeddedRow
                owners[field.path] = (target, embedded)
                values[field.path] = .column(.integer(1))
            } else {
                values[field.path] = .column(.null)
            }
        }
        return (values, owners, primaryKey)
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

/// A synced field: a property of the object, or of an embedded object it holds.
struct SyncField {
    /// Its name in change sets and merge states (`title`, `address`, `address.city`).
    let path: String
    /// The stored property (for a marker: the owner's property that holds the embedded object).
    let property: Property
    /// The marker of the embedded object whose row holds the property (nil: the object's own row).
    let ownerPath: String
    /// Whether the field says whether an embedded object is there.
    let isEmbeddedMarker: Bool

    /// For a list or map of embedded objects: how its elements travel.
    let embeddedElements: EmbeddedElementCoding?

    init(path: String, property: Property, owner: SyncField?, isEmbeddedMarker: Bool, embeddedElements: EmbeddedElementCoding? = nil) {
        self.path = path
        self.property = property
        self.ownerPath = owner?.path ?? ""
        self.isEmbeddedMarker = isEmbeddedMarker
        self.embeddedElements = embeddedElements
    }

    /// The paths of the markers leading to this field, outermost first.
    var markerPaths: [String] {
        var paths: [String] = []
        var rest = ownerPath
        while !rest.isEmpty {
            paths.insert(rest, at: 0)
            rest = rest.split(separator: ".").dropLast().joined(separator: ".")
        }
        return paths
    }
}
