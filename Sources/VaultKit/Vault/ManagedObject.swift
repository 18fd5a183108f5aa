import Foundation
import VaultCore

/// A managed object's link to its row: the vault, the schema, the row id, and
/// the row's values cached for the vault's current content version.
///
/// Reads never run SQL while the cache is current; any write through the same
/// vault (or a refresh that sees another connection's commit) bumps the
/// vault's content version, and the next read reloads the row once.
@usableFromInline
final class ManagedObject {
    let vault: Vault
    @usableFromInline let schema: ObjectSchema
    let rowID: Int64
    @usableFromInline private(set) var values: [DatabaseValue]
    @usableFromInline var version: UInt64
    /// The row is gone; `values` keep their last contents (never a crash, never garbage).
    private(set) var isDeleted = false
    /// Whether reads take part in Observation (`Configuration.observationTracking`; never for frozen vaults).
    @usableFromInline let tracksObservation: Bool
    /// The object's `ObjectTracking` once a property was read, and its neighbours
    /// in the session's tracking list (see Observation/ObservationTracking).
    var tracking: AnyObject?
    unowned(unsafe) var trackingPrevious: ManagedObject?
    unowned(unsafe) var trackingNext: ManagedObject?

    init(vault: Vault, schema: ObjectSchema, rowID: Int64, values: [DatabaseValue]) {
        self.vault = vault
        self.schema = schema
        self.rowID = rowID
        self.values = values
        self.version = vault.contentVersion
        self.tracksObservation = vault.session.tracksObservation
    }

    func markDeleted() { isDeleted = true }

    /// Takes freshly read values (a throwing read, see Vault+CheckedReads).
    func replaceValues(_ fresh: [DatabaseValue]) {
        values = fresh
        version = vault.contentVersion
    }

    @usableFromInline
    func ensureFresh() {
        // Through `vault.session` each time, not a local: a local would retain the
        // session, whose weak references make every retain take the slow path.
        vault.session.verifyConfinement("a managed \(schema.className) object")
        guard version != vault.session.contentVersion, !isDeleted else { return }
        switch vault.loadRow(schema, rowID: rowID) {
        case .success(let row?): values = row
        case .success(nil): isDeleted = true
        case .failure(let error):
            // Inside a write the failure is the write's error (it rolls back): the
            // values kept are those of the transaction's start, never returned after it.
            guard vault.isInWriteTransaction else { vault.failRead(error, "reading \(schema.className)") }
            vault.deferError(error)
            return
        }
        version = vault.contentVersion
    }

    /// The stored value of property `index`, current.
    func currentValue(at index: Int) -> DatabaseValue {
        ensureFresh()
        return values[index]
    }

    @inlinable
    func read<Value: PersistableValue>(_: Value.Type, at index: Int) -> Value {
        // The common case, inlined into the app's getter: a scalar from the cached row.
        if !schema.isCollection[index] && Value._vaultPropertyType != .object && Value._vaultPropertyType != .mixed {
            ensureFresh()
            if let value = Value._vaultDecode(values[index]) { return value }
        }
        return readSlowPath(Value.self, at: index)
    }

    @usableFromInline
    func readSlowPath<Value: PersistableValue>(_: Value.Type, at index: Int) -> Value {
        if schema.isCollection[index], let collectionType = Value.self as? any PersistableCollection.Type {
            let binding = CollectionBinding(vault: vault, owner: schema, ownerRowID: rowID, propertyIndex: index)
            guard let collection = (collectionType.makeManaged(binding) as Any) as? Value else { return Value._vaultDefaultValue() }
            return collection
        }
        ensureFresh()
        let stored = values[index]
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
        let property = schema.properties[index]
        precondition(!vault.session.isFrozen, "Cannot modify the frozen object \(schema.className).\(property.name): frozen objects never change; thaw() it and modify the live object in a write")
        precondition(vault.isInWriteTransaction, "Cannot modify managed object \(schema.className).\(property.name) outside a write transaction: wrap the change in vault.write { … }")
        guard !isDeleted else {
            vault.deferError(VaultObjectError.invalidatedObject(className: schema.className))
            return
        }
        if let collection = newValue as? any PersistableCollection {
            guard property.collectionKind != nil else { return }   // LinkingObjects cannot be assigned
            let binding = CollectionBinding(vault: vault, owner: schema, ownerRowID: rowID, propertyIndex: index)
            let entries = collection.unmanagedEntries.map { (key: $0.key, value: vault.encodeElement($0.value, property: property, owner: schema)) }
            vault.replaceCollection(binding, with: entries)
            return
        }
        let encoded: DatabaseValue
        if Value._vaultPropertyType == .object {
            encoded = vault.storedReference(to: (newValue as Any) as? ObjectBase)
        } else if let mixed = (newValue as Any) as? AnyVaultValue {
            encoded = vault.encodeMixed(mixed, property: property, schema: schema)
        } else {
            encoded = newValue._vaultEncoded
        }
        write(encoded: encoded, at: index)
    }

    /// Writes a column value to the row (and the cache).
    func write(encoded: DatabaseValue, at index: Int) {
        let property = schema.properties[index]
        guard !isDeleted else {
            vault.deferError(VaultObjectError.invalidatedObject(className: schema.className))
            return
        }
        if property.isPrimaryKey && encoded != values[index] {
            vault.deferError(VaultObjectError.invalidValue(className: schema.className, property: property.name, reason: "a primary key cannot be changed once the object is stored"))
            return
        }
        ensureFresh()
        vault.updateColumn(schema, rowID: rowID, property: property, value: encoded)
        values[index] = encoded
        version = vault.contentVersion
    }
}
