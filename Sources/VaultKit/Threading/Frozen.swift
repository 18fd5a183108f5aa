import Foundation

/// A frozen object or collection, as a `Sendable` value: pass it to any
/// thread, task or actor, and read it there — all at once if you like.
///
/// Swift cannot see that a frozen object is immutable (it is the same class
/// as a live one), so `freeze()` alone does not make it `Sendable`. Wrap it:
///
/// ```swift
/// let people = Frozen(vault.objects(Person.self).sorted(byKeyPath: "name"))
/// Task.detached {
///     for person in people.value { print(person.name) }   // the version frozen, forever
/// }
/// ```
///
/// Reading goes through ``value``, or straight through the wrapper for
/// properties (`frozenPerson.name`, by dynamic member lookup).
@dynamicMemberLookup
public struct Frozen<Value: ThreadConfined>: @unchecked Sendable {
    // @unchecked: a frozen vault's objects and collections never change, and
    // their reads are serialised by the frozen vault (see Threading/Freezing).

    /// The frozen object or collection.
    public let value: Value

    /// Freezes `value` (a frozen value is kept as it is).
    public init(_ value: Value) {
        self.value = value.isFrozen ? value : value.freeze()
    }

    /// A property of the frozen value.
    public subscript<Property>(dynamicMember keyPath: KeyPath<Value, Property>) -> Property {
        value[keyPath: keyPath]
    }

    /// The live counterpart on the calling thread, at the latest version (`nil` if deleted since).
    public func thaw() -> Value? { value.thaw() }
}
