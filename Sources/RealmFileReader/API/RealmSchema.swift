/// The value type of a persisted property, in Realm's vocabulary
/// (the Object Store's `PropertyType` without its flags).
public enum RealmPropertyType: String, Sendable, Hashable, CaseIterable {
    /// A 64-bit signed integer (`Int`, column type 0).
    case int
    /// A Boolean (column type 1).
    case bool
    /// A 32-bit IEEE float (column type 9).
    case float
    /// A 64-bit IEEE double (column type 10).
    case double
    /// A UTF-8 string (column type 2).
    case string
    /// Bytes (`Data`, column type 4).
    case data
    /// A timestamp: seconds and nanoseconds since 1970 (`Date`, column type 8).
    case date
    /// An IEEE 754-2008 decimal128 in binary integer decimal form (column type 11).
    case decimal
    /// A 12-byte MongoDB ObjectId (column type 15).
    case objectId
    /// A 16-byte UUID (column type 17).
    case uuid
    /// `AnyRealmValue`: any of the other kinds, or a link, or a nested list or dictionary (column type 6).
    case mixed
    /// A link to an object of another class (column type 12, or 13 for link lists before format 24,
    /// or 16 for a typed link).
    case object
}

/// The kind of collection a property holds, if any.
public enum RealmCollectionKind: String, Sendable, Hashable, CaseIterable {
    /// An ordered list (`List<T>`).
    case list
    /// A set (`MutableSet<T>`), in Realm's stored order.
    case set
    /// A map from string keys to values (`Map<String, T>`), in Realm's stored key order.
    case dictionary
}

/// One persisted property (column) of a class, as the file describes it.
public struct RealmPropertySchema: Sendable, Hashable {
    /// The persisted (column) name.
    public let name: String
    /// The value type (the element type for a collection).
    public let type: RealmPropertyType
    /// Whether the value (each element, for a collection) may be null.
    public let isOptional: Bool
    /// The collection kind, or nil for a single value.
    public let collection: RealmCollectionKind?
    /// For links: the target class (its table name without `class_`).
    public let objectType: String?
    /// Whether this is the class's primary key.
    public let isPrimaryKey: Bool
    /// Whether the column has a (general, not full-text) search index.
    public let isIndexed: Bool

    /// Creates a property description.
    public init(
        name: String, type: RealmPropertyType, isOptional: Bool, collection: RealmCollectionKind?,
        objectType: String?, isPrimaryKey: Bool, isIndexed: Bool
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.collection = collection
        self.objectType = objectType
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
    }
}

/// One class (a table named `class_<Name>`) of the file.
public struct RealmClassSchema: Sendable, Hashable {
    /// The class name: the table name without its `class_` prefix.
    public let name: String
    /// Whether objects of this class are embedded in their owners.
    public let isEmbedded: Bool
    /// Whether the class is asymmetric (sync's write-only tables; normally empty on disk).
    public let isAsymmetric: Bool
    /// The name of the primary-key property, if the class has one.
    public let primaryKey: String?
    /// The persisted properties in the file's column order (hidden backlink columns excluded).
    public let properties: [RealmPropertySchema]

    /// Creates a class description.
    public init(
        name: String, isEmbedded: Bool, isAsymmetric: Bool, primaryKey: String?,
        properties: [RealmPropertySchema]
    ) {
        self.name = name
        self.isEmbedded = isEmbedded
        self.isAsymmetric = isAsymmetric
        self.primaryKey = primaryKey
        self.properties = properties
    }

    /// The position of the property named `name` in `properties`, if any.
    public func propertyIndex(named name: String) -> Int? {
        properties.firstIndex { $0.name == name }
    }
}
