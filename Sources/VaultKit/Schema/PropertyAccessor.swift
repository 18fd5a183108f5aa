import Foundation
import VaultCore

/// How VaultKit reads and writes one property of any instance of a class.
///
/// `@unchecked Sendable` is safe: its closures capture only key paths and
/// metatypes fixed at schema discovery, and hold no mutable state.
struct PropertyAccessor: @unchecked Sendable {
    /// The value held by an unmanaged object: a column value, or a link target.
    enum UnmanagedValue {
        case column(DatabaseValue)
        case link(ObjectBase?)
        case collection([(key: String?, value: Any)])
        /// A mixed value: stored by the vault, which may have to add the objects it links to.
        case mixed(AnyVaultValue)
    }
    let readUnmanaged: (ObjectBase) -> UnmanagedValue
    /// Sets an unmanaged object's property from a value of any type (for `init(value:)`); false if the type does not fit.
    let assignUnmanaged: (ObjectBase, Any?) -> Bool
    /// Decodes a stored column value into the property's type, boxed.
    let decodeBoxed: (DatabaseValue) -> Any?
    /// Decodes a stored collection element into the element type, boxed.
    let decodeElement: (DatabaseValue) -> Any?
    /// The column value of the type's zero value (`0`, `""`, …): what a
    /// required property added by a migration holds until the migration sets it.
    let defaultEncoded: DatabaseValue
    /// Encodes a value of the property's type (boxed) into a column value; nil if it does not fit.
    let encodeBoxed: (Any?) -> DatabaseValue?
    /// For a collection property: the live, typed collection of a managed owner (`List<T>`, …).
    let makeLiveCollection: ((CollectionBinding) -> Any)?
    /// For a collection property: makes the instance an unmanaged object holds the live
    /// collection of `binding` (the object was just added); the instance, or nil if it has none.
    let adoptCollection: ((ObjectBase, CollectionBinding) -> AnyObject?)?
    /// For a link or mixed property: drops what the object held while unmanaged (it
    /// was just added, and reads go to the vault from now on), so that objects
    /// added with links to each other do not keep each other, and their vault, alive.
    private(set) var releaseUnmanaged: ((ObjectBase) -> Void)? = nil

    // Pre-specialised for the common value types: the generic entry point
    // dispatches to these, whose closures run without generic metadata lookups.
    @_specialize(where Value == Int)
    @_specialize(where Value == String)
    @_specialize(where Value == Double)
    @_specialize(where Value == Bool)
    @_specialize(where Value == Date)
    @_specialize(where Value == Float)
    @_specialize(where Value == Data)
    @_specialize(where Value == ObjectId)
    @_specialize(where Value == UUID)
    @_specialize(where Value == Decimal)
    @_specialize(where Value == Int64)
    @_specialize(where Value == Int32)
    @_specialize(where Value == Int16)
    @_specialize(where Value == Int8)
    @_specialize(where Value == Int?)
    @_specialize(where Value == String?)
    @_specialize(where Value == Double?)
    @_specialize(where Value == Bool?)
    @_specialize(where Value == Date?)
    @_specialize(where Value == Float?)
    @_specialize(where Value == Data?)
    @_specialize(where Value == ObjectId?)
    @_specialize(where Value == UUID?)
    @_specialize(where Value == Decimal?)
    @_specialize(where Value == Int64?)
    init<Value: PersistableValue>(_ type: Value.Type, offset: Int) {
        func pointer(_ object: ObjectBase) -> UnsafeMutablePointer<Persisted<Value>> {
            (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: Persisted<Value>.self)
        }
        // Decided once per property, not per read.
        let isCollection = Value.self is any PersistableCollection.Type
        let isLink = Value._vaultPropertyType == .object
        let isMixed = Value._vaultPropertyType == .mixed && !isCollection
        readUnmanaged = { object in
            let storage = pointer(object)
            let value: Value
            switch storage.pointee.storage {
            case .value(let current): value = current
            case .typeDefault:
                value = Value._vaultDefaultValue()
                storage.pointee.storage = .value(value)
            }
            if isCollection, let collection = value as? any PersistableCollection {
                return .collection(collection.unmanagedEntries)
            }
            if isLink {
                return .link((value as Any) as? ObjectBase)
            }
            if isMixed, let mixed = (value as Any) as? AnyVaultValue {
                return .mixed(mixed)
            }
            return .column(value._vaultEncoded)
        }
        assignUnmanaged = { object, newValue in
            if Value.self is any PersistableCollection.Type, let collection = Value._vaultDefaultValue() as? any PersistableCollection {
                // Collections take arrays (maps: dictionaries) of elements; nil or NSNull is an empty one (Realm's rule).
                let isEmpty = newValue == nil || newValue is NSNull
                guard isEmpty || collection.assignUnmanaged(from: newValue as Any), let value = collection as? Value else { return false }
                pointer(object).pointee.storage = .value(value)
                return true
            }
            if newValue == nil || newValue is NSNull {
                guard Value._vaultIsOptional, let empty = Value._vaultDecode(.null) else { return false }
                pointer(object).pointee.storage = .value(empty)
                return true
            }
            guard let newValue, let value = newValue as? Value ?? convertedValue(newValue, to: Value.self) else { return false }
            pointer(object).pointee.storage = .value(value)
            return true
        }
        decodeBoxed = { stored in Value._vaultDecode(stored) }
        // Only columns have one (a collection's or link's default is not a column value).
        defaultEncoded = Value._vaultIsOptional || isCollection || isLink ? .null : Value._vaultStorageZeroEncoded
        if let collectionType = Value.self as? any PersistableCollection.Type {
            decodeElement = { stored in collectionType.decodeElementBoxed(stored) }
            makeLiveCollection = { binding in collectionType.makeManaged(binding) }
            adoptCollection = { object, binding in
                // Only an instance the object holds (one it was given or one read from it), never a type default.
                guard case .value(let current) = pointer(object).pointee.storage,
                      let collection = current as? any PersistableCollection, collection.adopt(binding) else { return nil }
                return collection as AnyObject
            }
        } else {
            decodeElement = { _ in nil }
            makeLiveCollection = nil
            adoptCollection = nil
        }
        encodeBoxed = { value in
            if value == nil || value is NSNull { return Value._vaultIsOptional ? .null : nil }
            return (value as? Value)?._vaultEncoded
        }
        if isLink || isMixed {
            releaseUnmanaged = { object in pointer(object).pointee.storage = .typeDefault }
        }
    }
}
