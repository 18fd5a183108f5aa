import Foundation
import RealmFileReader
@_spi(Interchange) import VaultKit

// MARK: - What an import and a dry run both check
//
// `Vault.importRealm` and `Vault.inspectRealm` run the same checks in the same
// order, so that a dry run that passes means an import that passes (short of a
// full disk or a vault-side limit): the names a vault must store
// (`RealmImporter.init`), the file's schema (`SchemaChecks`, before any object
// is read), and every object as the reader delivers it (`ObjectChecks`, on the
// reading thread, before the object is handed to the writer), then the links
// (`RowIDPlan`, `ValueConversion`). Each check refuses what a file Realm wrote
// cannot hold — so a damaged file is refused instead of imported as something
// else — and in particular what the vault would otherwise refuse late, with an
// SQLite constraint that names no object: a repeated primary key, set element or
// dictionary key, a null in a required column, a link to nothing. Every error
// names the class, the object (by its key in the file) and the property; none
// shows a value.

/// Checks of the file's schema, before any object is read.
enum SchemaChecks {
    /// The property types a Realm primary key can have (object-store `object_schema.cpp`,
    /// `ObjectSchema::validate`): int, string, ObjectId and UUID, optional or not.
    static let primaryKeyTypes: Set<RealmPropertyType> = [.int, .string, .objectId, .uuid]

    /// Refuses a schema Realm does not write: a primary key of another type or on a
    /// collection, an embedded class with a primary key, a link whose target is not a class
    /// of the file (a link column of another table, or a typed-link column), a set of
    /// embedded objects.
    static func check(_ classes: [RealmClassSchema]) throws(RealmImportError) {
        let byName = Dictionary(classes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for cls in classes {
            if let key = cls.primaryKey {
                guard !cls.isEmbedded else {
                    throw .invalidSchema(cls.name, key, "an embedded class has a primary key, which Realm does not allow")
                }
                guard let property = cls.properties.first(where: { $0.name == key }), property.collection == nil,
                      primaryKeyTypes.contains(property.type) else {
                    throw .invalidSchema(cls.name, key, "a primary key must be one int, string, ObjectId or UUID")
                }
            }
            for property in cls.properties where property.type == .object {
                guard let target = property.objectType, let targetClass = byName[target] else {
                    throw .invalidSchema(cls.name, property.name, "a link whose target is not a class of the file")
                }
                if targetClass.isEmbedded && property.collection == .set {
                    throw .invalidSchema(cls.name, property.name, "a set of embedded objects, which Realm does not allow")
                }
            }
        }
    }
}

/// Checks of each object read, with what they remember across objects: the primary keys
/// seen per class, and the embedded objects that have an owner. One instance serves one
/// pass over the file, on one thread.
final class ObjectChecks {
    private let file: RealmFile
    private let classes: [String: RealmClassSchema]
    /// Per class with a primary key: each key seen, and the object that has it.
    private var primaryKeys: [String: KeyTable] = [:]
    /// Per embedded class: the keys of the embedded objects reached from an owner.
    private var owned: [String: OwnedKeys] = [:]

    private final class KeyTable {
        var objects: [ValueKey: Int64] = [:]
    }

    private final class OwnedKeys {
        var keys: Set<Int64> = []
    }

    init(file: RealmFile) {
        self.file = file
        classes = Dictionary(file.classes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Checks the top-level object `object` of class `cls`, and the embedded objects it owns.
    func check(_ object: RealmObject, of cls: RealmClassSchema) throws(RealmImportError) {
        if let name = cls.primaryKey, let index = cls.propertyIndex(named: name), index < object.values.count {
            try checkPrimaryKey(object.values[index], of: object, cls: cls, property: cls.properties[index])
        }
        try checkValues(of: object, cls: cls)
    }

    /// After the last object: every embedded object has been reached from one owner. (Realm
    /// deletes an embedded object with its owner; one that no object owns cannot be in a file
    /// Realm wrote, and an import would drop it without a word.)
    func finish() throws(RealmImportError) {
        for cls in file.classes where cls.isEmbedded {
            let objects: Int
            do {
                objects = try file.objectCount(ofClass: cls.name)
            } catch {
                throw .realmFile(error)
            }
            let reached = owned[cls.name]?.keys.count ?? 0
            if reached < objects {
                throw .invalidObject(className: cls.name, object: "\(objects - reached) of its \(objects) objects", property: "(owner)",
                                     reason: "embedded objects that no object owns")
            }
        }
    }

    // MARK: Checks

    private func checkPrimaryKey(_ value: RealmValue, of object: RealmObject, cls: RealmClassSchema,
                                 property: RealmPropertySchema) throws(RealmImportError) {
        if case .null = value, !property.isOptional {
            throw .invalid(cls.name, key: object.key, property.name, "the required primary key is null")
        }
        // Primary keys are ints, strings, ObjectIds and UUIDs (SchemaChecks): always a key.
        guard let key = ValueKey(value) else { return }
        let table: KeyTable
        if let existing = primaryKeys[cls.name] {
            table = existing
        } else {
            table = KeyTable()
            primaryKeys[cls.name] = table
        }
        if let first = table.objects.updateValue(object.key, forKey: key) {
            throw .invalid(cls.name, key: object.key, property.name,
                           "its primary key is also that of the object with key \(first), and a primary key is unique")
        }
    }

    /// The properties of `object` (of class `cls`, top-level or embedded).
    private func checkValues(of object: RealmObject, cls: RealmClassSchema) throws(RealmImportError) {
        for (index, property) in cls.properties.enumerated() where index < object.values.count {
            let value = object.values[index]
            func refuse(_ reason: String) -> RealmImportError { .invalid(cls.name, key: object.key, property.name, reason) }
            guard property.collection != nil else {
                switch value {
                case .null:
                    if !property.isOptional && property.type != .object && property.type != .mixed {
                        throw refuse("a required property holds null")
                    }
                case let .embedded(inner):
                    try own(inner, property: property, owner: object, cls: cls)
                default:
                    if property.type == .mixed { try checkMixed(value, refuse) } else { try checkDecimal(value, refuse) }
                }
                continue
            }
            let elements: [RealmValue]
            switch value {
            case let .list(items), let .set(items):
                elements = items
            case let .dictionary(entries):
                var keys = Set<[UInt8]>()
                for entry in entries where !keys.insert(Array(entry.key.utf8)).inserted {
                    throw refuse("a dictionary holds one key twice")
                }
                elements = entries.map(\.value)
            default:
                elements = []
            }
            var seen = Set<ValueKey>()
            for element in elements {
                switch element {
                case .null:
                    if !property.isOptional && property.type != .mixed {
                        throw refuse("a collection of required values holds null")
                    }
                case let .embedded(inner):
                    try own(inner, property: property, owner: object, cls: cls)
                    continue
                default:
                    if property.type == .mixed { try checkMixed(element, refuse) } else { try checkDecimal(element, refuse) }
                }
                guard property.collection == .set else { continue }
                switch element {
                case .list, .set, .dictionary:
                    throw refuse("a set holds a collection, which Realm's sets cannot")
                default:
                    break
                }
                // NaN equals nothing (a set may hold several): it has no key.
                if let key = ValueKey(element), !seen.insert(key).inserted {
                    throw refuse("a set holds one element twice (or two a vault cannot tell apart)")
                }
            }
        }
    }

    /// Records that `owner` owns the embedded object `inner` and checks `inner` in turn.
    private func own(_ inner: RealmObject, property: RealmPropertySchema, owner: RealmObject,
                     cls: RealmClassSchema) throws(RealmImportError) {
        guard property.type != .mixed else {
            throw .invalid(cls.name, key: owner.key, property.name, "a mixed value holds an embedded object, which Realm does not allow")
        }
        guard let target = property.objectType, let embedded = classes[target] else {
            throw .invalid(cls.name, key: owner.key, property.name, "an embedded object of a class the file does not have")
        }
        let keys: OwnedKeys
        if let existing = owned[target] {
            keys = existing
        } else {
            keys = OwnedKeys()
            owned[target] = keys
        }
        guard keys.keys.insert(inner.key).inserted else {
            throw .invalid(cls.name, key: owner.key, property.name,
                           "the embedded \(target) object with key \(inner.key) has another owner too")
        }
        try checkValues(of: inner, cls: embedded)
    }

    /// A decimal the vault can hold exactly: the writer's own test (`Decimal128.interchangeText`:
    /// at most 34 significant digits, within VaultKit's `Decimal128`; not an infinity).
    private func checkDecimal(_ value: RealmValue, _ refuse: (String) -> RealmImportError) throws(RealmImportError) {
        guard case let .decimal(decimal) = value else { return }
        if Decimal128.interchangeText(decimal.description) == nil {
            throw refuse("a decimal a vault cannot hold exactly (infinite, or out of its range)")
        }
    }

    /// A mixed value, nested collections included: what the vault's mixed encoding holds.
    private func checkMixed(_ value: RealmValue, _ refuse: (String) -> RealmImportError) throws(RealmImportError) {
        switch value {
        case .embedded:
            throw refuse("a mixed value holds an embedded object, which Realm does not allow")
        case .decimal:
            try checkDecimal(value, refuse)
        case let .list(items), let .set(items):
            for item in items { try checkMixed(item, refuse) }
        case let .dictionary(entries):
            var keys = Set<[UInt8]>()
            for entry in entries {
                guard keys.insert(Array(entry.key.utf8)).inserted else { throw refuse("a dictionary holds one key twice") }
                try checkMixed(entry.value, refuse)
            }
        default:
            break
        }
    }
}

/// A value as the vault would store it, for finding repeats: two values have one key
/// exactly when SQLite would hold them as one in a unique column (and Realm as one in a
/// set or a primary key). Strings compare by their bytes, as both do (not by Swift's
/// canonical equivalence); numbers by value (1 and 1.0 are one in SQLite, and in Realm's
/// sets of mixed values; −0 and +0 too); dates by the Double a vault stores.
enum ValueKey: Hashable {
    case null
    case int(Int64)
    case number(UInt64)
    case bool(Bool)
    case text([UInt8])
    case data([UInt8])
    case date(UInt64)
    case decimal(String)
    case objectId([UInt8])
    case uuid([UInt8])
    case link(String, Int64)

    /// The key of `value`; nil for a NaN (equal to nothing) and for collections and objects.
    init?(_ value: RealmValue) {
        switch value {
        case .null: self = .null
        case let .int(number): self = .int(number)
        case let .bool(flag): self = .bool(flag)
        case let .float(number):
            guard let key = Self.number(Double(number)) else { return nil }
            self = key
        case let .double(number):
            guard let key = Self.number(number) else { return nil }
            self = key
        case let .string(text): self = .text(Array(text.utf8))
        case let .data(bytes): self = .data(bytes)
        case let .date(seconds, nanoseconds):
            let stored = VaultTimestamp(seconds: seconds, nanoseconds: nanoseconds).storedValue
            self = .date(stored == 0 ? 0 : stored.bitPattern)
        case let .decimal(decimal):
            let text = decimal.description
            self = .decimal(Decimal128.interchangeText(text) ?? text)
        case let .objectId(bytes): self = .objectId(bytes)
        case let .uuid(bytes): self = .uuid(bytes)
        case let .link(link): self = .link(link.className, link.objectKey)
        case .embedded, .list, .set, .dictionary: return nil
        }
    }

    /// A number's key: an integral value as the integer it equals, others by bit pattern.
    private static func number(_ value: Double) -> ValueKey? {
        if value.isNaN { return nil }
        if let integer = Int64(exactly: value) { return .int(integer) }
        return .number(value.bitPattern)
    }
}
