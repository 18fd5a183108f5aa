import Foundation
import VaultCore

/// Where an instance of a class holds one of its `let` ``VaultProperty``
/// wrappers, and which property it is.
struct LegacySlot: Sendable {
    /// The property's index in ``ObjectSchema/properties``.
    let index: Int
    /// The byte offset of the reference inside every instance of the class.
    let offset: Int
}

extension ObjectSchema {
    /// Called when `object` (an instance of this schema's class) becomes
    /// managed: ties each ``VaultProperty`` to the object, so that its `value`
    /// reads and writes the vault, and marks a Codable model's `Persisted`
    /// storage as managed (see `Persisted.encode(to:)`).
    @usableFromInline
    func bindManagedObject(_ object: ObjectBase) {
        // Only an instance of the class itself has its properties at these offsets.
        guard Swift.type(of: object) == type else { return }
        withExtendedLifetime(object) {
            let base = Unmanaged.passUnretained(object).toOpaque()
            for offset in managedTagOffsets {
                base.storeBytes(of: SchemaDiscovery.managedTag, toByteOffset: offset, as: UInt64.self)
            }
            for slot in legacySlots {
                let reference = base.load(fromByteOffset: slot.offset, as: UnsafeRawPointer?.self)
                guard let reference,
                      let property = Unmanaged<AnyObject>.fromOpaque(reference).takeUnretainedValue() as? any AnyVaultProperty else { continue }
                property.bind(to: object, index: slot.index)
            }
        }
    }

    static func makeLegacyAccessor<Value: PersistableValue>(_ type: Value.Type, offset: Int) -> PropertyAccessor {
        PropertyAccessor(legacy: type, offset: offset)
    }
}

extension PropertyAccessor {
    /// The accessor of a `let` ``VaultProperty`` held at `offset`: the same
    /// encodings as a `@Persisted` property of type `Value`, reading and
    /// writing the wrapper's unmanaged value.
    init<Value: PersistableValue>(legacy _: Value.Type, offset: Int) {
        func wrapper(_ object: ObjectBase) -> VaultProperty<Value>? {
            withExtendedLifetime(object) {
                let base = Unmanaged.passUnretained(object).toOpaque()
                guard let reference = base.load(fromByteOffset: offset, as: UnsafeRawPointer?.self) else { return nil }
                return Unmanaged<AnyObject>.fromOpaque(reference).takeUnretainedValue() as? VaultProperty<Value>
            }
        }
        let isMixed = Value._vaultPropertyType == .mixed
        readUnmanaged = { object in
            let value = wrapper(object)?.unmanagedValue ?? Value._vaultDefaultValue()
            if isMixed, let mixed = (value as Any) as? AnyVaultValue { return .mixed(mixed) }
            return .column(value._vaultEncoded)
        }
        assignUnmanaged = { object, newValue in
            guard let property = wrapper(object) else { return false }
            if newValue == nil || newValue is NSNull {
                guard Value._vaultIsOptional, let empty = Value._vaultDecode(.null) else { return false }
                property.unmanagedValue = empty
                return true
            }
            // Converted as @Persisted values are: a number of another width (`["score": 5]` for a
            // `VaultOptional<Double>`), a stored form, any value a mixed property holds.
            guard let newValue, let value = newValue as? Value ?? convertedValue(newValue, to: Value.self) else { return false }
            property.unmanagedValue = value
            return true
        }
        decodeBoxed = { stored in Value._vaultDecode(stored) }
        defaultEncoded = Value._vaultIsOptional ? .null : Value._vaultStorageZeroEncoded
        decodeElement = { _ in nil }
        makeLiveCollection = nil
        adoptCollection = nil
        encodeBoxed = { value in
            if value == nil || value is NSNull { return Value._vaultIsOptional ? .null : nil }
            return (value as? Value)?._vaultEncoded
        }
    }
}
