import Foundation
import VaultCore

/// A stored property declared the way models were written before `@Persisted`
/// (Realm's `RealmProperty`): a `let` holding a wrapper whose ``value`` is the
/// property's value.
///
/// ```swift
/// final class Person: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     let age = VaultProperty<Int?>()          // Realm: RealmProperty<Int?>()
///     let height = VaultOptional<Double>()     // Realm: RealmOptional<Double>()
///     let extra = VaultProperty<AnyVaultValue>()
/// }
///
/// person.age.value = 41
/// let people = vault.objects(Person.self).filter("age > 40")
/// ```
///
/// The property is stored, queried, observed, frozen, imported and exported
/// exactly as `@Persisted var age: Int?` is: the two declarations give the
/// same schema, so a model can move from one spelling to the other without a
/// migration (`vault port` does that rewrite). While its object is unmanaged
/// the wrapper holds the value; once the object is managed, ``value`` reads and
/// writes the vault (inside a write transaction, as any managed property).
///
/// Declare it with `let`, initialised where it is declared: VaultKit finds it
/// when it discovers the class's schema. It holds single values (numbers,
/// strings, dates, data, ids, decimals, `AnyVaultValue`, and their optionals):
/// for links and collections declare `@Persisted` properties, as Realm requires.
/// A wrapper belongs to one object: assigning it to another object's property
/// is not possible (it is a `let`).
public final class VaultProperty<Value: PersistableValue> {
    /// The tag schema discovery reads (0 outside discovery), as `Persisted` has.
    let discoveryTag: UInt64
    /// The value while the owning object is unmanaged.
    var unmanagedValue: Value
    /// The managed object's row once the object is managed: held strongly, so
    /// that `object.age.value = 5` works while the object itself is already
    /// released (the row link does not refer back to the wrapper: no cycle).
    var manager: ManagedObject?
    /// The object the wrapper belongs to, for observation tracking; weak, as
    /// the object owns the wrapper.
    weak var owner: ObjectBase?
    /// The property's index in the owner's schema (valid while `owner` is set).
    var index = -1

    /// A property whose initial value is its type's default (`nil` for optionals).
    public init() {
        discoveryTag = SchemaDiscovery.nextTag()
        unmanagedValue = Value._vaultDefaultValue()
    }

    /// A property with an initial value: `let age = VaultOptional<Int>(18)`.
    public init(_ value: Value) {
        discoveryTag = SchemaDiscovery.nextTag()
        unmanagedValue = value
    }

    /// The property's value: the wrapper's own while the object is unmanaged,
    /// the vault's once it is managed (set it inside a write transaction).
    public var value: Value {
        get {
            if let manager {
                if manager.tracksObservation, let owner { manager.trackAccess(owner, index: index) }
                return manager.read(Value.self, at: index)
            }
            return unmanagedValue
        }
        set {
            if let manager {
                manager.write(newValue, at: index)
            } else {
                unmanagedValue = newValue
            }
        }
    }
}

/// An optional stored property in the pre-`@Persisted` style (Realm's
/// deprecated `RealmOptional<T>`): `let age = VaultOptional<Int>()` is a
/// ``VaultProperty`` of `Int?`, whose ``VaultProperty/value`` is an `Int?`.
public typealias VaultOptional<Wrapped: PersistableValue> = VaultProperty<Wrapped?>

extension VaultProperty: CustomStringConvertible {
    /// The value, as `String(describing:)` prints it.
    public var description: String { String(describing: value) }
}

/// The type-erased view of a ``VaultProperty`` that schema discovery and the
/// object layer use.
protocol AnyVaultProperty: AnyObject {
    var discoveryTag: UInt64 { get }
    static var valueType: any PersistableValue.Type { get }
    /// Ties the wrapper to its managed object.
    func bind(to owner: ObjectBase, index: Int)
}

extension VaultProperty: AnyVaultProperty {
    static var valueType: any PersistableValue.Type { Value.self }

    func bind(to owner: ObjectBase, index: Int) {
        self.owner = owner
        self.manager = owner.manager
        self.index = index
    }
}
