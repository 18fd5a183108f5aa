import Foundation
import VaultCore

// MARK: - Class projections
//
// Realm's `Projection`: a view of a model class with only the properties a
// screen needs, renamed, or reached through embedded objects and links —
// `@Projected(\Person.address?.city) var homeCity` — and collections mapped
// element by element (`\Person.friends.projectTo.firstName`). A projection
// stores nothing: it holds its root object and reads (and, for writable key
// paths, writes) through it, so it is as live as the object. Queries over
// projections run on the root class: `vault.objects(PersonProjection.self)
// .filter("firstName == %@", …)` uses the root's property names.

/// A view of a model object (Realm's `Projection`): subclass it and declare
/// ``Projected`` properties.
///
/// ```swift
/// final class PersonCard: Projection<Person> {
///     @Projected(\Person.firstName) var name
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>
/// }
/// let cards = vault.objects(PersonCard.self).filter("firstName BEGINSWITH %@", "A")
/// ```
open class Projection<Root: ObjectBase>: ProjectionRepresentable, CustomStringConvertible {
    /// The object projected.
    public let rootObject: Root

    /// A projection of `object` (managed or not).
    public required init(projecting object: Root) {
        rootObject = object
    }

    /// The root object's vault.
    public var vault: Vault? { rootObject.vault }
    /// Whether the root object was deleted.
    public var isInvalidated: Bool { rootObject.isInvalidated }
    /// Whether the root object is frozen.
    public var isFrozen: Bool { rootObject.isFrozen }
    /// This projection of a frozen copy of the root object.
    public func freeze() -> Self { Self(projecting: rootObject.freeze()) }
    /// This projection of the live root object on the calling thread (nil if deleted).
    public func thaw() -> Self? { rootObject.thaw().map { Self(projecting: $0) } }

    open var description: String { "\(type(of: self))(\(rootObject))" }
}

/// What ``ProjectedResults`` needs of a projection class (``Projection`` conforms).
public protocol ProjectionRepresentable: AnyObject {
    /// The projected model class.
    associatedtype Root: ObjectBase
    /// The object projected.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

extension Projection: Equatable {
    /// Projections are equal when they project the same stored object (or the same unmanaged instance).
    public static func == (lhs: Projection<Root>, rhs: Projection<Root>) -> Bool {
        lhs.rootObject === rhs.rootObject || lhs.rootObject.isSameObject(as: rhs.rootObject)
    }
}

extension Projection: Hashable, Identifiable where Root: Object {
    public func hash(into hasher: inout Hasher) { rootObject.hash(into: &hasher) }
    /// The root object's identity.
    public var id: Root { rootObject }
}

/// A property of a ``Projection``, read (and written, for a writable key path)
/// through a key path of the root class: a property, a path through embedded
/// objects and links, or a collection mapped with `projectTo`.
@propertyWrapper
public struct Projected<Root: ObjectBase, Value> {
    let projectedKeyPath: KeyPath<Root, Value>

    /// Projects `projectedKeyPath` of the root object.
    public init(_ projectedKeyPath: KeyPath<Root, Value>) {
        self.projectedKeyPath = projectedKeyPath
    }

    /// Unavailable: projected values are read through the projection.
    @available(*, unavailable, message: "@Projected is only available on Projection subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable") }
        // swiftlint:disable:next unused_setter_value
        set { preconditionFailure("unreachable") }
    }

    /// Reads and writes through the projection's root object.
    public static subscript<Enclosing: Projection<Root>>(
        _enclosingInstance projection: Enclosing,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Enclosing, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Enclosing, Projected<Root, Value>>
    ) -> Value {
        get { projection.rootObject[keyPath: projection[keyPath: storageKeyPath].projectedKeyPath] }
        set {
            guard let writable = projection[keyPath: storageKeyPath].projectedKeyPath as? ReferenceWritableKeyPath<Root, Value> else {
                preconditionFailure("\(Enclosing.self): the key path of this @Projected property cannot be written (a read-only or optional-chained path)")
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }
}
