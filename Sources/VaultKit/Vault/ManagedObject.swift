import Foundation
import VaultCore

/// A managed object's link to its row: the vault, the schema, the row id, and
/// the row's values cached for the vault's current content version — in a
/// buffer this object owns, or, for an object made from a table image, still in
/// that image (see ManagedObject+TableImage.swift) until something needs them here.
///
/// Reads never run SQL while the cache is current; any write through the same
/// vault (or a refresh that sees another connection's commit) bumps the
/// vault's content version, and the next read reloads the row once.
///
/// Every property read of every managed object passes through here, so the
/// layout is chosen for that path (see `make bench`): the values sit in one
/// buffer this object owns (no array, whose generic storage class costs a
/// metadata lookup per object built), and the fields a read touches skip
/// Swift's dynamic exclusivity checks. That is safe because a managed object
/// is used only inside its session's confinement (checked on every read), and
/// no access to these fields is held across a call that could reach another.
@usableFromInline
final class ManagedObject {
    let vault: Vault
    @usableFromInline let schema: ObjectSchema
    let rowID: Int64
    /// One value per property (collections and backlinks hold NULL), owned: freed in
    /// `deinit`. Nil exactly while the values are read from `image` instead.
    @usableFromInline @exclusivity(unchecked) var buffer: UnsafeMutablePointer<DatabaseValue>?
    /// The table image whose row `imageRow` holds this object's values, for an object
    /// made from an image and not detached from it since (see ManagedObject+TableImage.swift).
    /// Set and cleared together with `imageReaders`. Not retained: an image on
    /// which objects still read is held by its session's cache (which retires
    /// it, detaching them, before it lets go of it), and the object holds the
    /// vault, so the session and its cache outlive it.
    @exclusivity(unchecked) var imageReference: Unmanaged<TableImage>?
    /// `image`'s readers, one per property, for reads that borrow the columns
    /// rather than retain them: valid while the object is on the image's list (it
    /// leaves before the image frees them, see ``TableImage/retire()``).
    @exclusivity(unchecked) var imageReaders: UnsafeMutablePointer<ImageColumnReader>?
    @exclusivity(unchecked) var imageRow = 0
    /// This object's neighbours in its image's list of the objects reading from
    /// it (not retained: an object leaves the list in its `deinit`).
    @exclusivity(unchecked) var imagePrevious: Unmanaged<ManagedObject>?
    @exclusivity(unchecked) var imageNext: Unmanaged<ManagedObject>?
    @usableFromInline let propertyCount: Int
    /// The content version `storage` was read at.
    @usableFromInline @exclusivity(unchecked) var version: UInt64
    /// The row is gone; the values keep their last contents (never a crash, never garbage).
    @exclusivity(unchecked) private(set) var isDeleted = false
    /// The write transaction (its serial in the session) that inserted this row, 0 for a row read:
    /// when that transaction rolls back, the object is invalidated, as in Realm (its row id may be
    /// given to another object, so it must never read or link that row).
    var insertedInWrite = 0
    /// The row's INSERT waits to go with others (see Vault+PendingInserts): the
    /// session's list of waiting rows names this object's owner, unretained.
    @exclusivity(unchecked) var waitsForInsert = false
    /// Whether the transaction that inserted this row rolled back.
    var insertRolledBack: Bool { insertedInWrite != 0 && vault.session.write.rolledBackSerials.contains(insertedInWrite) }
    /// Whether reads take part in Observation (`Configuration.observationTracking`; never for frozen vaults).
    @usableFromInline let tracksObservation: Bool
    /// The object's `ObjectTracking` once a property was read, and its neighbours
    /// in the session's tracking list (see Observation/ObservationTracking).
    @exclusivity(unchecked) var tracking: AnyObject?
    /// The collection instances handed out, by property index, so that `object.list === object.list`
    /// (and an instance held before the object was added stays the object's); nil until the first.
    /// Not kept for a frozen vault's objects, which any thread may read.
    @exclusivity(unchecked) var collectionInstances: [Int: AnyObject]?
    unowned(unsafe) var trackingPrevious: ManagedObject?
    unowned(unsafe) var trackingNext: ManagedObject?

    /// The one designated initialiser: `storage` holds one initialised value per
    /// property of `schema` (from `allocateRowStorage(for:)`); the object owns and
    /// frees it from here on.
    private init(vault: Vault, schema: ObjectSchema, rowID: Int64, storage: UnsafeMutablePointer<DatabaseValue>?,
                 version: UInt64, tracksObservation: Bool) {
        self.vault = vault
        self.schema = schema
        self.rowID = rowID
        propertyCount = schema.properties.count
        buffer = storage
        self.version = version
        self.tracksObservation = tracksObservation
    }

    /// A row whose values are all NULL, for the caller to fill in (`materializeRows`),
    /// at `version` (the vault's content version, which the caller read once for many rows).
    convenience init(vault: Vault, schema: ObjectSchema, rowID: Int64, version: UInt64, tracksObservation: Bool) {
        self.init(vault: vault, schema: schema, rowID: rowID, storage: Self.allocateRowStorage(for: schema),
                  version: version, tracksObservation: tracksObservation)
    }

    /// A row whose values the caller has already written into `storage` (allocated
    /// with `allocateRowStorage(for:)`), at the vault's current version. A new
    /// object's row is built this way, with no array in between.
    convenience init(vault: Vault, schema: ObjectSchema, rowID: Int64, adopting storage: UnsafeMutablePointer<DatabaseValue>) {
        self.init(vault: vault, schema: schema, rowID: rowID, storage: storage,
                  version: vault.session.checkedContentVersion, tracksObservation: vault.session.tracksObservation)
        insertedInWrite = vault.session.write.serial
    }

    /// An object whose values are row `row` of `image` (at the image's version),
    /// read from there until it detaches (see ManagedObject+TableImage.swift).
    convenience init(vault: Vault, schema: ObjectSchema, image: TableImage, row: Int, rowID: Int64, tracksObservation: Bool) {
        self.init(vault: vault, schema: schema, rowID: rowID, storage: nil, version: image.version, tracksObservation: tracksObservation)
        imageRow = row
        imageReference = Unmanaged.passUnretained(image)
        imageReaders = image.readers
        image.link(self)
    }

    /// The row's values, in this object's own buffer: an object still reading
    /// from a table image copies its row out of it first (see `detachFromImage()`).
    var storage: UnsafeMutablePointer<DatabaseValue> {
        if let buffer { return buffer }
        return detachFromImage()
    }

    /// Storage for one row of `schema`, every value NULL, for `init(vault:schema:rowID:adopting:)`
    /// (whoever allocates it and does not hand it over frees it with `freeRowStorage(_:for:)`).
    ///
    /// The buffer comes from `malloc`, not `allocate(capacity:)`: on Linux the
    /// latter passes the element's alignment to the runtime, which then takes
    /// glibc's slower `posix_memalign` path for every object read, although
    /// `malloc`'s 16-byte alignment already covers `DatabaseValue`'s 8 (see
    /// Benchmarks/README.md, "Row buffers").
    static func allocateRowStorage(for schema: ObjectSchema) -> UnsafeMutablePointer<DatabaseValue> {
        let count = max(schema.properties.count, 1)
        guard let raw = malloc(count * MemoryLayout<DatabaseValue>.stride) else {
            // Out of memory: nothing sensible can continue (as Swift's own allocator does).
            fatalError("VaultKit could not allocate \(count * MemoryLayout<DatabaseValue>.stride) bytes for a row of \(schema.className)")
        }
        let storage = raw.bindMemory(to: DatabaseValue.self, capacity: count)
        storage.initialize(repeating: .null, count: schema.properties.count)
        return storage
    }

    /// Frees storage from `allocateRowStorage(for:)` that no object adopted.
    static func freeRowStorage(_ storage: UnsafeMutablePointer<DatabaseValue>, for schema: ObjectSchema) {
        destroyValues(storage, count: schema.properties.count)
        free(storage)
    }

    /// Deinitialises `count` values one by one: moved out and dropped, which the
    /// compiler destroys with code specialised for `DatabaseValue` (nothing for a
    /// number, one release for a text or blob). `deinitialize(count:)` hands the whole
    /// range to the runtime's generic array destroy, which goes through the type's
    /// value witnesses per element, paid once per object read (see
    /// Benchmarks/README.md, "Row buffers").
    @inline(__always)
    private static func destroyValues(_ storage: UnsafeMutablePointer<DatabaseValue>, count: Int) {
        for index in 0..<count {
            // Numbers and NULLs own nothing: only text and blobs go through the
            // enum's destroy (an outlined call per value).
            switch storage[index] {
            case .null, .integer, .real: continue
            case .text, .blob: _ = (storage + index).move()
            }
        }
    }

    convenience init(vault: Vault, schema: ObjectSchema, rowID: Int64, values: [DatabaseValue]) {
        self.init(vault: vault, schema: schema, rowID: rowID, version: vault.session.checkedContentVersion, tracksObservation: vault.session.tracksObservation)
        // Over the fresh storage's NULLs, which own nothing (see materializeCurrentRow).
        for index in 0..<Swift.min(propertyCount, values.count) { (storage + index).initialize(to: values[index]) }
    }

    deinit {
        if let buffer {
            Self.destroyValues(buffer, count: propertyCount)
            free(buffer)
        }
        imageReference?._withUnsafeGuaranteedRef { $0.unlink(self) }
    }

    private func replaceStorage(with fresh: [DatabaseValue]) {
        // A row always has one value per property; anything else leaves the rest NULL.
        for index in 0..<Swift.min(propertyCount, fresh.count) { storage[index] = fresh[index] }
    }

    func markDeleted() { isDeleted = true }

    /// Takes freshly read values (a throwing read, see Vault+CheckedReads).
    func replaceValues(_ fresh: [DatabaseValue]) {
        replaceStorage(with: fresh)
        version = vault.session.checkedContentVersion
    }

    /// Remembers the instance of collection property `index` (see `collectionInstances`).
    func keepCollection(_ instance: AnyObject, at index: Int) {
        guard !vault.isFrozen else { return }
        if collectionInstances == nil { collectionInstances = [:] }
        collectionInstances?[index] = instance
    }

    /// Checks the confinement and reloads the row if the vault's version moved
    /// since it was read: the check runs on every property read, so the reload
    /// is a function of its own (the check then saves and restores no registers).
    @usableFromInline
    func ensureFresh() {
        // Through `vault.session` each time, not a local: a local would retain the
        // session, whose weak references make every retain take the slow path.
        vault.session.verifyConfinement("a managed \(schema.className) object")
        guard version != vault.session.contentVersion, !isDeleted else { return }
        reloadRow()
    }

    /// Reloads the row at the vault's current version (``ensureFresh()``).
    @inline(never)
    private func reloadRow() {
        if insertRolledBack {
            isDeleted = true
            return
        }
        switch vault.loadRow(schema, rowID: rowID) {
        case .success(let row?): replaceStorage(with: row)
        case .success(nil): isDeleted = true
        case .failure(let error):
            // Inside a write the failure is the write's error (it rolls back): the
            // values kept are those of the transaction's start, never returned after it.
            guard vault.isInWriteTransaction else { vault.failRead(error, "reading \(schema.className)") }
            vault.deferError(error)
            return
        }
        version = vault.session.checkedContentVersion
    }

    /// The stored value of property `index`, current.
    func currentValue(at index: Int) -> DatabaseValue {
        ensureFresh()
        return storage[index]
    }

    @inlinable
    func read<Value: PersistableValue>(_: Value.Type, at index: Int) -> Value {
        // The common case, inlined into the app's getter: a scalar from the cached row.
        if !schema.isCollection[index] && Value._vaultPropertyType != .object && Value._vaultPropertyType != .mixed {
            // An object reading from a table image: one call checks and reads (see `readFromImage`).
            if buffer == nil, let value = readFromImage(Value.self, at: index) { return value }
            ensureFresh()
            if let buffer {
                if let value = Value._vaultDecode(buffer[index]) { return value }
            } else if let value = Value._vaultDecode(imageValue(at: index)) {
                return value
            }
        }
        return readSlowPath(Value.self, at: index)
    }

    @usableFromInline
    func readSlowPath<Value: PersistableValue>(_: Value.Type, at index: Int) -> Value {
        if schema.isCollection[index], let collectionType = Value.self as? any PersistableCollection.Type {
            if let instance = collectionInstances?[index], let collection = instance as? Value { return collection }
            let binding = CollectionBinding(vault: vault, owner: schema, ownerRowID: rowID, propertyIndex: index)
            guard let collection = (collectionType.makeManaged(binding) as Any) as? Value else { return Value._vaultDefaultValue() }
            keepCollection(collection as AnyObject, at: index)
            return collection
        }
        ensureFresh()
        let stored = storage[index]
        if Value._vaultPropertyType == .mixed, Value.self == AnyVaultValue.self {
            // Links resolve to objects, nested collections come back live.
            return (vault.liveMixed(stored: stored, root: .property(self, index: index)) as Any) as? Value ?? Value._vaultDefaultValue()
        }
        if Value._vaultPropertyType == .object {
            guard let rowID = stored.int64, let target = schema.properties[index].objectClassName,
                  let object = vault.object(className: target, rowID: rowID), let value = (object as Any) as? Value else {
                return Value._vaultDefaultValue()
            }
            return value
        }
        guard let value = Value._vaultDecode(stored) else {
            vault.failRead(VaultObjectError.invalidValue(className: schema.className, property: schema.properties[index].name, reason: "the stored value is not a \(Value.self)"), "reading")
        }
        return value
    }

    @usableFromInline
    func write<Value: PersistableValue>(_ newValue: Value, at index: Int) {
        // The property is looked up only where needed: a setter is on the hot path of every update.
        precondition(!vault.session.isFrozen, "Cannot modify the frozen object \(schema.className).\(schema.properties[index].name): frozen objects never change; thaw() it and modify the live object in a write")
        precondition(vault.isInWriteTransaction, "Cannot modify managed object \(schema.className).\(schema.properties[index].name) outside a write transaction: wrap the change in vault.write { … }")
        guard !isDeleted else {
            vault.deferError(VaultObjectError.invalidatedObject(className: schema.className))
            return
        }
        if schema.isCollection[index] {
            let property = schema.properties[index]
            // LinkingObjects cannot be assigned.
            guard let collection = newValue as? any PersistableCollection, property.collectionKind != nil else { return }
            let binding = CollectionBinding(vault: vault, owner: schema, ownerRowID: rowID, propertyIndex: index)
            // The property's own collection assigned back (`person.dogs.reverse()` ends with the setter):
            // it is already in place; rewriting it would delete and re-add every entry.
            if let current = collection.binding, current.isSame(as: binding) { return }
            let entries = collection.unmanagedEntries.map { (key: $0.key, value: vault.encodeElement($0.value, property: property, owner: schema)) }
            vault.replaceCollection(binding, with: entries)
            return
        }
        let encoded: DatabaseValue
        if Value._vaultPropertyType == .object {
            encoded = vault.storedReference(to: (newValue as Any) as? ObjectBase)
        } else if Value._vaultPropertyType == .mixed, let mixed = (newValue as Any) as? AnyVaultValue {
            encoded = vault.encodeMixed(mixed, property: schema.properties[index], schema: schema)
        } else {
            encoded = newValue._vaultEncoded
        }
        write(encoded: encoded, at: index)
    }

    /// Writes a column value to the row (and the cache).
    func write(encoded: DatabaseValue, at index: Int) {
        guard !isDeleted else {
            vault.deferError(VaultObjectError.invalidatedObject(className: schema.className))
            return
        }
        if index == schema.primaryKeyIndex && encoded != storage[index] {
            vault.deferError(VaultObjectError.invalidValue(className: schema.className, property: schema.properties[index].name, reason: "a primary key cannot be changed once the object is stored"))
            return
        }
        ensureFresh()
        vault.updateColumn(schema, rowID: rowID, primaryKey: schema.primaryKeyIndex.map { storage[$0] }, propertyIndex: index, value: encoded)
        storage[index] = encoded
        version = vault.session.checkedContentVersion
    }
}
