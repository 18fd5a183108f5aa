import Foundation
import VaultCore

/// One stored property of a model class.
public struct Property: Sendable, Equatable, CustomStringConvertible {
    /// The Swift name, used by the API and by queries.
    public let name: String
    /// The column name (``ObjectBase/propertiesMapping()`` may change it).
    public let storedName: String
    /// The stored type.
    public let type: PropertyType
    /// Whether `nil` is allowed.
    public let isOptional: Bool
    /// Whether this is the primary key.
    public let isPrimaryKey: Bool
    /// Whether an index is kept on it (primary keys always are).
    public let isIndexed: Bool
    /// The class a link points to (for collections: their elements' class).
    public let objectClassName: String?
    /// List, set or map; `nil` for single values and backlinks.
    public let collectionKind: CollectionKind?
    /// For `LinkingObjects`: the property of ``objectClassName`` that links here.
    public let originProperty: String?
    /// Whether the target class is embedded.
    public let isEmbeddedLink: Bool

    /// Whether the property is a column of the class's table (not a collection or backlink).
    var isColumn: Bool { collectionKind == nil && originProperty == nil }

    /// A required integer primary key is the table's row id itself (`_vk_id`):
    /// one B-tree instead of a table plus a unique index.
    var isRowIDKey: Bool { isPrimaryKey && type == .int && !isOptional && collectionKind == nil }

    /// The property's column in SQL, quoted (`"_vk_id"` for a row-id key).
    var columnSQL: String { isRowIDKey ? "\"_vk_id\"" : quoteIdentifier(storedName) }

    /// A List, MutableSet or LinkingObjects: key paths through it reach many values.
    var isToManyRelation: Bool { collectionKind == .list || collectionKind == .set || originProperty != nil }

    public var description: String {
        var element = "\(objectClassName ?? type.rawValue)\(isOptional ? "?" : "")"
        if let collectionKind { element = "\(collectionKind.rawValue)<\(element)>" }
        if let originProperty { element = "linkingObjects<\(objectClassName ?? "?").\(originProperty)>" }
        var text = "\(name): \(element)"
        if storedName != name { text += " (stored as \(storedName))" }
        if isPrimaryKey { text += " [primary key]" } else if isIndexed { text += " [indexed]" }
        return text
    }
}

/// A model class's schema: its table and properties, discovered once per class.
///
/// ## Topics
/// - ``className``
/// - ``properties``
/// - ``primaryKeyProperty``
///
/// `@unchecked Sendable` is safe: every stored property is set during
/// `init` (the `private(set)` ones by its storage-setup step) and never
/// changes once the schema is published in the process-wide cache.
public final class ObjectSchema: @unchecked Sendable, CustomStringConvertible {
    // Internal state read by the inlined accessors is @usableFromInline.
    /// The class name (the table's name).
    public let className: String
    /// The stored properties, superclass properties first, each in declaration order.
    public let properties: [Property]
    /// Whether instances are embedded in a parent.
    public let isEmbedded: Bool
    let type: ObjectBase.Type
    let accessors: [PropertyAccessor]
    /// The linked class of each link property (nil for other properties).
    let linkTypes: [ObjectBase.Type?]
    @usableFromInline let prototype: ObjectBase
    @usableFromInline let seed: UInt64
    /// Construction order → index in `properties`.
    @usableFromInline let indexByConstruction: [Int]
    private let indexByName: [String: Int]

    /// The primary key, if the class has one.
    public var primaryKeyProperty: Property? { primaryKeyIndex.map { properties[$0] } }
    /// The primary key's index in `properties` (stored: every insert and lookup asks).
    let primaryKeyIndex: Int?

    /// The property named `name` (public name).
    public subscript(name: String) -> Property? { indexByName[name].map { properties[$0] } }
    func index(ofProperty name: String) -> Int? { indexByName[name] }

    static let maximumClassNameBytes = 57
    static let maximumPropertyNameBytes = 63

    private init(type: ObjectBase.Type) throws(VaultObjectError) {
        let className = String(describing: type)
        self.className = className
        self.type = type
        isEmbedded = type is EmbeddedObject.Type
        guard className.utf8.count <= Self.maximumClassNameBytes else {
            throw .invalidModel(className: className, property: nil, reason: "class names are limited to \(Self.maximumClassNameBytes) bytes (this one has \(className.utf8.count))")
        }
        guard !className.hasPrefix("_vaultkit") else {
            throw .invalidModel(className: className, property: nil, reason: "class names starting with _vaultkit are reserved")
        }
        let (prototype, seed, constructed, discovered) = try SchemaDiscovery.discover(type)
        self.prototype = prototype
        self.seed = seed
        let mapping = type.propertiesMapping()
        var properties: [Property] = []
        var accessors: [PropertyAccessor] = []
        var linkTypes: [ObjectBase.Type?] = []
        var indexByConstruction = [Int](repeating: -1, count: constructed)
        var storedNames = Set<String>()
        var legacySlots: [LegacySlot] = []
        for found in discovered {
            let name = found.label.hasPrefix("_") ? String(found.label.dropFirst()) : found.label
            let storedName = mapping[name] ?? name
            let valueType = found.valueType
            guard storedName.utf8.count <= Self.maximumPropertyNameBytes, !storedName.isEmpty else {
                throw .invalidModel(className: className, property: name, reason: "property names are limited to \(Self.maximumPropertyNameBytes) bytes (stored name '\(storedName)' has \(storedName.utf8.count))")
            }
            guard storedName != "_vk_id", storedNames.insert(storedName).inserted else {
                throw .invalidModel(className: className, property: name, reason: "the stored name '\(storedName)' is reserved or used twice")
            }
            let collectionType = valueType as? any PersistableCollection.Type
            if found.isLegacy && (collectionType != nil || valueType._vaultPropertyType == .object) {
                throw .invalidModel(className: className, property: name, reason: "VaultProperty holds single values: declare links and collections with @Persisted")
            }
            let collectionKind = collectionType?.collectionKind
            let isBacklink = collectionType != nil && collectionKind == nil
            var linkTarget: String?
            var isEmbeddedLink = false
            if valueType._vaultPropertyType == .object {
                guard let target = valueType._vaultLinkTarget else {
                    throw .invalidModel(className: className, property: name, reason: "unsupported link type")
                }
                isEmbeddedLink = target is EmbeddedObject.Type
                if type is AsymmetricObject.Type && !isEmbeddedLink {
                    throw .invalidModel(className: className, property: name, reason: "an AsymmetricObject can link only to embedded objects")
                }
                if collectionType == nil && !valueType._vaultIsOptional {
                    throw .invalidModel(className: className, property: name, reason: "to-one links must be optional (declare it as \(String(describing: target))?)")
                }
                if (collectionKind == .list || collectionKind == .set) && valueType._vaultIsOptional {
                    throw .invalidModel(className: className, property: name, reason: "lists and sets of objects cannot hold nil")
                }
                if collectionKind == .set && isEmbeddedLink {
                    throw .invalidModel(className: className, property: name, reason: "embedded objects cannot be in a MutableSet")
                }
                linkTarget = String(describing: target)
            }
            if valueType._vaultPropertyType == .mixed {
                // The element (or property) type must be AnyVaultValue itself: it holds nil as `.none`.
                let element = collectionType?.elementType ?? valueType
                guard element == AnyVaultValue.self else {
                    throw .invalidModel(className: className, property: name, reason: "AnyVaultValue cannot be optional: it holds nil as .none (declare it as AnyVaultValue)")
                }
            }
            if isBacklink && type is AsymmetricObject.Type {
                throw .invalidModel(className: className, property: name, reason: "an AsymmetricObject cannot have LinkingObjects (nothing reads it)")
            }
            if isBacklink && found.options.originProperty == nil {
                throw .invalidModel(className: className, property: name, reason: "LinkingObjects needs @Persisted(originProperty: \"…\")")
            }
            if !isBacklink && found.options.originProperty != nil {
                throw .invalidModel(className: className, property: name, reason: "originProperty applies only to LinkingObjects properties")
            }
            if found.options.primaryKey && collectionType != nil {
                throw .invalidModel(className: className, property: name, reason: "a collection cannot be a primary key")
            }
            if found.options.primaryKey {
                guard !isEmbedded else {
                    throw .invalidModel(className: className, property: name, reason: "embedded objects cannot have a primary key")
                }
                guard [.int, .string, .objectId, .uuid].contains(valueType._vaultPropertyType) else {
                    throw .invalidModel(className: className, property: name, reason: "a primary key must be an Int, String, ObjectId or UUID (or an optional of one)")
                }
                guard !properties.contains(where: \.isPrimaryKey) else {
                    throw .invalidModel(className: className, property: name, reason: "a class can have only one primary key (\(properties.first { $0.isPrimaryKey }?.name ?? "") is one)")
                }
            }
            indexByConstruction[found.constructionIndex] = properties.count
            properties.append(Property(
                name: name, storedName: storedName, type: valueType._vaultPropertyType, isOptional: valueType._vaultIsOptional,
                isPrimaryKey: found.options.primaryKey, isIndexed: found.options.primaryKey || found.options.indexed,
                objectClassName: linkTarget, collectionKind: collectionKind, originProperty: found.options.originProperty,
                isEmbeddedLink: isEmbeddedLink))
            if found.isLegacy {
                legacySlots.append(LegacySlot(index: properties.count - 1, offset: found.offset))
                accessors.append(Self.makeLegacyAccessor(valueType, offset: found.offset))
            } else {
                accessors.append(Self.makeAccessor(valueType, offset: found.offset))
            }
            linkTypes.append(valueType._vaultLinkTarget)
        }
        for name in mapping.keys where !properties.contains(where: { $0.name == name }) {
            throw .invalidModel(className: className, property: name, reason: "propertiesMapping() names a property that is not @Persisted")
        }
        self.properties = properties
        self.accessors = accessors
        self.linkTypes = linkTypes
        self.indexByConstruction = indexByConstruction
        self.indexByName = Dictionary(uniqueKeysWithValues: properties.enumerated().map { ($1.name, $0) })
        self.primaryKeyIndex = properties.firstIndex { $0.isPrimaryKey }
        self.columnIndexes = properties.indices.filter { properties[$0].isColumn }
        self.hasOnlyColumns = columnIndexes.count == properties.count && !properties.isEmpty
        self.isCollection = properties.map { !$0.isColumn }
        self.tableName = quoteIdentifier(className)
        self.insertSQL = computedInsertSQL
        self.deleteSQL = computedDeleteSQL
        self.selectByRowIDSQL = computedSelectByRowIDSQL
        self.selectByPrimaryKeySQL = computedSelectByPrimaryKeySQL
        self.selectAllSQL = computedSelectAllSQL
        self.aliasedColumnList = computedAliasedColumnList
        self.legacySlots = legacySlots
        // A Codable model's managed objects mark their `Persisted` storage, so that
        // synthesized `encode(to:)` refuses them instead of encoding stale values.
        self.managedTagOffsets = type is any Encodable.Type ? discovered.filter { !$0.isLegacy }.map(\.tagOffset) : []
        self.bindsManagedObjects = !legacySlots.isEmpty || !managedTagOffsets.isEmpty
    }

    /// The same class's schema, with objects made as `type` (``DynamicObject``
    /// for the dynamic API): same table, properties and statements' SQL.
    init(copying other: ObjectSchema, materializingAs type: ObjectBase.Type) {
        className = other.className
        properties = other.properties
        isEmbedded = other.isEmbedded
        self.type = type
        accessors = other.accessors
        linkTypes = other.linkTypes
        prototype = other.prototype
        seed = other.seed
        indexByConstruction = other.indexByConstruction
        indexByName = other.indexByName
        primaryKeyIndex = other.primaryKeyIndex
        columnIndexes = other.columnIndexes
        hasOnlyColumns = other.hasOnlyColumns
        isCollection = other.isCollection
        tableName = other.tableName
        insertSQL = other.insertSQL
        deleteSQL = other.deleteSQL
        selectByRowIDSQL = other.selectByRowIDSQL
        selectByPrimaryKeySQL = other.selectByPrimaryKeySQL
        selectAllSQL = other.selectAllSQL
        aliasedColumnList = other.aliasedColumnList
    }

    /// A class the file stores whose Swift type this process does not have (a
    /// runtime class, see RuntimeSchema): read and written through ``DynamicObject``,
    /// with accessors chosen by property type.
    init(runtimeClassName className: String, properties: [Property], isEmbedded: Bool, accessors: [PropertyAccessor]) {
        self.className = className
        self.properties = properties
        self.isEmbedded = isEmbedded
        type = DynamicObject.self
        self.accessors = accessors
        linkTypes = properties.map { $0.objectClassName == nil ? nil : DynamicObject.self }
        prototype = DynamicObject()
        seed = 0
        indexByConstruction = []
        indexByName = Dictionary(properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        primaryKeyIndex = properties.firstIndex { $0.isPrimaryKey }
        columnIndexes = properties.indices.filter { properties[$0].isColumn }
        hasOnlyColumns = columnIndexes.count == properties.count && !properties.isEmpty
        isCollection = properties.map { !$0.isColumn }
        tableName = quoteIdentifier(className)
        insertSQL = computedInsertSQL
        deleteSQL = computedDeleteSQL
        selectByRowIDSQL = computedSelectByRowIDSQL
        selectByPrimaryKeySQL = computedSelectByPrimaryKeySQL
        selectAllSQL = computedSelectAllSQL
        aliasedColumnList = computedAliasedColumnList
    }

    // Set once by the storage-setup step of `init`, then never written (see the
    // class comment): read on every object built and every property read, so
    // without Swift's dynamic exclusivity checks.

    /// The indices of the properties stored as columns, in column order.
    @exclusivity(unchecked) private(set) var columnIndexes: [Int] = []
    /// Every property is a column (no collections or backlinks): per-property values are the column values.
    @exclusivity(unchecked) private(set) var hasOnlyColumns = false
    /// Whether each property is a collection or backlink (read through a binding, not the row).
    @usableFromInline @exclusivity(unchecked) private(set) var isCollection: [Bool] = []

    // The class's statements, built once (they key the connection's statement cache).
    @exclusivity(unchecked) private(set) var tableName = ""
    @exclusivity(unchecked) private(set) var insertSQL = ""
    @exclusivity(unchecked) private(set) var deleteSQL = ""
    @exclusivity(unchecked) private(set) var selectByRowIDSQL = ""
    @exclusivity(unchecked) private(set) var selectByPrimaryKeySQL = ""
    @exclusivity(unchecked) private(set) var selectAllSQL = ""
    @exclusivity(unchecked) private(set) var aliasedColumnList = ""
    /// The class's `let` ``VaultProperty`` wrappers (legacy declarations).
    private(set) var legacySlots: [LegacySlot] = []
    /// Where a Codable model's instances hold each `Persisted`'s discovery tag.
    private(set) var managedTagOffsets: [Int] = []
    /// Whether objects becoming managed need ``bindManagedObject(_:)``: the
    /// class declares a ``VaultProperty``, or is `Encodable`.
    @usableFromInline @exclusivity(unchecked) private(set) var bindsManagedObjects = false

    /// Per-property values from a row of column values (collections and backlinks hold NULL).
    func expand<C: Collection>(_ columns: C) -> [DatabaseValue] where C.Element == DatabaseValue {
        var values = [DatabaseValue](repeating: .null, count: properties.count)
        for (index, value) in zip(columnIndexes, columns) { values[index] = value }
        return values
    }

    private static func makeAccessor<Value: PersistableValue>(_ type: Value.Type, offset: Int) -> PropertyAccessor {
        PropertyAccessor(type, offset: offset)
    }

    /// The property a getter or setter is for, from its storage key path.
    @inlinable
    func propertyIndex<Enclosing: ObjectBase, Value>(of storage: ReferenceWritableKeyPath<Enclosing, Persisted<Value>>, in _: Enclosing.Type) -> Int {
        let tag = unsafeDowncast(prototype, to: Enclosing.self)[keyPath: storage].discoveryTag
        return indexByConstruction[Int(truncatingIfNeeded: tag ^ seed)]
    }

    /// The property a key path to a `@Persisted` property names (typed queries);
    /// nil for anything else, including a computed property that reads one.
    ///
    /// A stored property's key path is writable and reads exactly its own
    /// property; a read-only computed property (`var shouted: String { name.uppercased() }`)
    /// is refused even though its getter reads one. A computed property with a
    /// setter that reads and writes one stored property stands for it.
    func propertyIndex(forKeyPath keyPath: AnyKeyPath) -> Int? {
        guard keyPath is any WritableThroughReference,
              let tag = SchemaDiscovery.recordingAccess({ _ = prototype[keyPath: keyPath] }) else { return nil }
        return propertyIndex(forTag: tag)
    }

    /// The first `@Persisted` property a longer key path reads (`\Person.address?.city`: `address`).
    func firstPropertyRead(by keyPath: AnyKeyPath) -> Int? {
        guard let tag = SchemaDiscovery.recordingAccess({ _ = prototype[keyPath: keyPath] }) else { return nil }
        return propertyIndex(forTag: tag)
    }

    func propertyIndex(forTag tag: UInt64) -> Int? {
        let construction = Int(truncatingIfNeeded: tag ^ seed)
        guard indexByConstruction.indices.contains(construction) else { return nil }
        return indexByConstruction[construction]
    }

    public var description: String {
        "\(className) {\n" + properties.map { "    \($0)" }.joined(separator: "\n") + "\n}"
    }

    // MARK: Cache

    private static let cache = Locked<[ObjectIdentifier: ObjectSchema]>([:])

    /// The schema of `type`, discovered on first use.
    static func schema(for type: ObjectBase.Type) throws(VaultObjectError) -> ObjectSchema {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        // Discovered outside the lock (it builds prototypes); the first to finish wins.
        let schema = try ObjectSchema(type: type)
        return cache.withLock { schemas in
            if let existing = schemas[key] { return existing }
            schemas[key] = schema
            return schema
        }
    }
}

/// Marks key paths that can write through a class reference (a `@Persisted`
/// property's key path is one; a read-only computed property's is not).
protocol WritableThroughReference {}
extension ReferenceWritableKeyPath: WritableThroughReference {}
