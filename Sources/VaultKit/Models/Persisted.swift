import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Declares a stored property of a model class.
///
/// ```swift
/// final class Person: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId    // a new ObjectId per object
///     @Persisted var name = ""                          // default ""
///     @Persisted(indexed: true) var email = ""
///     @Persisted var age: Int?                          // default nil
/// }
/// ```
///
/// The wrapper's storage is only used while the object is unmanaged; once the
/// object is managed, reads and writes go to the vault.
@propertyWrapper
public struct Persisted<Value: PersistableValue> {
    /// What the wrapper holds while its object is unmanaged.
    @usableFromInline
    enum Storage {
        /// A value given at the declaration or set since.
        case value(Value)
        /// Declared without a value: the type's default is produced on first use
        /// (so a property declared `var _id: ObjectId` gets a fresh id per object).
        case typeDefault
    }

    /// Set only while VaultKit constructs a class's schema prototype: a
    /// per-discovery random tag XOR the property's construction order.
    @usableFromInline var discoveryTag: UInt64
    @usableFromInline var storage: Storage

    // Inlinable, with the accessors below, so that they specialise in the app's
    // module: no generic-metadata lookup per object construction or property access.
    //
    // The options (`primaryKey:`, `indexed:`, `originProperty:`) are not kept
    // in the wrapper: only schema discovery reads them, from the prototype it
    // constructs, so they are handed to it then, under the property's tag.
    // Every object's wrappers are then a tag and a value: a smaller object to
    // make, and nothing but the value to destroy when it goes.
    @inlinable
    init(storage: Storage, options: PropertyOptions) {
        self.storage = storage
        let tag = SchemaDiscovery.nextTag()
        self.discoveryTag = tag
        if tag != 0 { SchemaDiscovery.recordOptions(options, tag: tag) }
    }

    /// A property whose initial value is its type's default (`""`, `0`, `nil`, a new ObjectId…).
    @inlinable
    public init() { self.init(storage: .typeDefault, options: PropertyOptions()) }

    /// A property with an initial value: `@Persisted var name = "Ada"`.
    @inlinable
    public init(wrappedValue: Value) { self.init(storage: .value(wrappedValue), options: PropertyOptions()) }

    /// A primary key (or not): `@Persisted(primaryKey: true) var _id: ObjectId`.
    @inlinable
    public init(primaryKey: Bool) { self.init(storage: .typeDefault, options: PropertyOptions(primaryKey: primaryKey)) }

    /// A primary key with an initial value.
    @inlinable
    public init(wrappedValue: Value, primaryKey: Bool) { self.init(storage: .value(wrappedValue), options: PropertyOptions(primaryKey: primaryKey)) }

    /// An indexed property (faster equality and range queries).
    @inlinable
    public init(indexed: Bool) { self.init(storage: .typeDefault, options: PropertyOptions(indexed: indexed)) }

    /// An indexed property with an initial value.
    @inlinable
    public init(wrappedValue: Value, indexed: Bool) { self.init(storage: .value(wrappedValue), options: PropertyOptions(indexed: indexed)) }

    /// The inverse of a link: `@Persisted(originProperty: "friends") var friendOf: LinkingObjects<Person>`
    /// lists every `Person` whose `friends` holds this object.
    @inlinable
    public init(originProperty: String) { self.init(storage: .typeDefault, options: PropertyOptions(originProperty: originProperty)) }

    @available(*, unavailable, message: "@Persisted is only available on properties of Object and EmbeddedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable") }
        // swiftlint:disable:next unused_setter_value
        set { preconditionFailure("unreachable") }
    }

    /// Reads and writes through the enclosing object: its vault row when
    /// managed, this wrapper's storage otherwise.
    @inlinable
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        // Always inlined into the model's accessors, where the key paths are
        // literals the optimiser turns into direct field accesses.
        @inline(__always) get {
            // `wrappedKeyPath` is deliberately unused: any use that is not a
            // projection makes Swift build that key path object on every read.
            if let reference = object.managerReference {
                // Borrowed, not retained: the object owns its manager and outlives this read.
                return reference._withUnsafeGuaranteedRef { manager in
                    let index = manager.schema.propertyIndex(of: storageKeyPath, in: EnclosingSelf.self)
                    if manager.tracksObservation { manager.trackAccess(object, index: index) }
                    return manager.read(Value.self, at: index)
                }
            }
            let tag = object[keyPath: storageKeyPath].discoveryTag
            if tag != 0 {
                // A schema prototype: report which property was read (typed queries), change nothing.
                SchemaDiscovery.recordPrototypeAccess(tag)
                return SchemaDiscovery.prototypeValue(Value.self)
            }
            switch object[keyPath: storageKeyPath].storage {
            case .value(let value):
                return value
            case .typeDefault:
                let value = Value._vaultDefaultValue()
                object[keyPath: storageKeyPath].storage = .value(value)
                return value
            }
        }
        @inline(__always) set {
            if let manager = object.manager {
                let index = manager.schema.propertyIndex(of: storageKeyPath, in: EnclosingSelf.self)
                manager.write(newValue, at: index)
            } else {
                object[keyPath: storageKeyPath].storage = .value(newValue)
            }
        }
    }
}

/// The options given in `@Persisted(…)`.
@usableFromInline
struct PropertyOptions: Sendable, Equatable {
    @usableFromInline var primaryKey = false
    @usableFromInline var indexed = false
    @usableFromInline var originProperty: String?

    @inlinable
    init(primaryKey: Bool = false, indexed: Bool = false, originProperty: String? = nil) {
        self.primaryKey = primaryKey
        self.indexed = indexed
        self.originProperty = originProperty
    }
}

/// The type-erased view of a `Persisted` that schema discovery reads through Mirror
/// and through the property's memory offset (its options it recorded at construction).
protocol AnyPersisted {
    var discoveryTag: UInt64 { get }
    static var valueType: any PersistableValue.Type { get }
}

extension Persisted: AnyPersisted {
    static var valueType: any PersistableValue.Type { Value.self }
}
