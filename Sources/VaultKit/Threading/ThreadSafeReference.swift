import Foundation
import VaultCore

// MARK: - Thread-safe references
//
// A live object or collection cannot cross to another thread or actor (its
// vault is confined, see Confinement). A `ThreadSafeReference` is what
// crosses instead: a `Sendable` description of the thing — an object's class
// and row, a `Results`' query (class, filters, sort, distinct, and the
// collection it is based on), a collection's owner row and property — with
// the version it was made at. `vault.resolve(_:)` finds the thing again in
// the vault of the receiving domain.
//
// Unlike Realm's, a reference pins nothing: it holds no read transaction, so
// an unresolved reference cannot make the file grow, and it may be resolved
// any number of times. Resolving advances the receiving vault first if it
// reads a version older than the one the reference was made at (so an object
// committed just before the reference was made is found), and gives `nil`
// for an object — or a collection's owner — deleted meanwhile.

/// What a ``ThreadSafeReference`` carries: enough to find an object or
/// collection again in another vault of the same file. VaultKit's own; you
/// never make one. Public only because ``ThreadConfined``'s requirements name it.
@_documentation(visibility: internal)
public struct _ThreadHandover: @unchecked Sendable {
    // @unchecked: the fields are value data (names, row ids, query trees) and
    // immutable schemas; no vault, connection or live object is held.
    enum Kind {
        case object(className: String, type: ObjectBase.Type, rowID: Int64)
        case results(schema: ObjectSchema, definition: ResultsDefinition, base: ResultsBase)
        case collection(BaseHandover)
    }

    /// What a `Results` is based on, detached from its vault.
    enum ResultsBase {
        case table
        case collection(BaseHandover)
        case linkingObjects(BaseHandover)
    }

    /// A collection's owner, detached from its vault.
    struct BaseHandover {
        let owner: ObjectSchema
        let ownerRowID: Int64
        let propertyIndex: Int

        init(_ binding: CollectionBinding) {
            owner = binding.owner
            ownerRowID = binding.ownerRowID
            propertyIndex = binding.propertyIndex
        }

        /// The binding in `vault`, or nil when the owner is gone (and `requiringOwner`).
        func binding(in vault: Vault, requiringOwner: Bool = true) -> CollectionBinding? {
            let schema = vault.schema(for: owner.type)
            if requiringOwner, vault.object(className: schema.className, rowID: ownerRowID) == nil { return nil }
            return CollectionBinding(vault: vault, owner: schema, ownerRowID: ownerRowID, propertyIndex: propertyIndex)
        }
    }

    let kind: Kind
    /// The version the reference was made at.
    let sequence: UInt64
    let configuration: Vault.Configuration
    /// For a type-erased collection: finds the wrapped collection and wraps it again.
    var erasedResolve: ((Vault) -> Any?)?

    init(kind: Kind, sequence: UInt64, configuration: Vault.Configuration) {
        self.kind = kind
        self.sequence = sequence
        self.configuration = configuration
    }

    static func object(className: String, type: ObjectBase.Type, rowID: Int64, sequence: UInt64, configuration: Vault.Configuration) -> _ThreadHandover {
        _ThreadHandover(kind: .object(className: className, type: type, rowID: rowID), sequence: sequence, configuration: configuration)
    }
}

typealias ThreadHandover = _ThreadHandover

/// Objects and collections that belong to one thread or actor and can be
/// frozen, thawed and handed to another through a ``ThreadSafeReference``
/// (Realm's `ThreadConfined`): objects, ``Results``, ``List``,
/// ``MutableSet``, ``Map`` and ``LinkingObjects``.
public protocol ThreadConfined {
    /// Whether the object or collection was deleted (for a collection: its owner).
    var isInvalidated: Bool { get }
    /// Whether it belongs to a frozen vault.
    var isFrozen: Bool { get }
    /// A frozen copy at the current version, readable from anywhere (see ``Vault/freeze()``).
    func freeze() -> Self
    /// The live counterpart on the calling thread, at the latest version; `nil` if deleted.
    func thaw() -> Self?
    /// VaultKit's own: what a reference to this carries.
    @_documentation(visibility: internal)
    func _threadHandover() -> _ThreadHandover
    /// VaultKit's own: the thing `handover` describes, read through `vault`.
    @_documentation(visibility: internal)
    static func _resolve(_ handover: _ThreadHandover, in vault: Vault) -> Self?
}

/// A `Sendable` way to hand a managed object or collection to another thread
/// or actor: make it where the object lives, pass it, and resolve it with
/// ``Vault/resolve(_:)`` in the receiving vault.
///
/// ```swift
/// let reference = ThreadSafeReference(to: person)
/// Task.detached {
///     let vault = try Vault(configuration: configuration)
///     guard let person = vault.resolve(reference) else { return }   // nil: deleted meanwhile
///     try vault.write { person.status = .archived }
/// }
/// ```
///
/// A reference holds no version open (the file can be checkpointed while it
/// waits), and may be resolved more than once.
public struct ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    let handover: _ThreadHandover

    /// A reference to a managed object or collection. Unmanaged objects need
    /// none: pass them (or their values) directly.
    public init(to threadConfined: Confined) {
        handover = threadConfined._threadHandover()
    }

    /// The configuration of the vault the reference was made in.
    public var configuration: Vault.Configuration { handover.configuration }
}

extension Vault {
    /// The object or collection `reference` names, read through this vault;
    /// `nil` when it (or a collection's owner) was deleted since. Advances the
    /// vault first when it reads an older version than the reference was made at.
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        session.verifyConfinement("a Vault")
        precondition(!isFrozen, "Cannot resolve a ThreadSafeReference in a frozen vault (\(path)): resolve it in a live vault, then freeze() the result")
        precondition(Vault.sameFile(reference.configuration, configuration),
                     "Cannot resolve a ThreadSafeReference in the vault at \(path): it was made in another vault")
        if commitSequence < reference.handover.sequence && !isInWriteTransaction { refresh() }
        return Confined._resolve(reference.handover, in: self)
    }

    /// The version a reference made now refers to: the current one, or — inside a
    /// write transaction — the one its commit makes, so that a receiving vault at
    /// the current version advances and finds the objects the write created.
    var handoverSequence: UInt64 { commitSequence + (isInWriteTransaction ? 1 : 0) }

    /// Whether two configurations name the same vault file (or in-memory identifier).
    static func sameFile(_ a: Configuration, _ b: Configuration) -> Bool {
        guard let location = VaultSession.location(of: a) else { return false }
        return location == VaultSession.location(of: b)
    }
}

/// A property wrapper that keeps a managed object or collection as a
/// ``ThreadSafeReference``, so that the property can be read on any thread
/// (Realm's `@ThreadSafe`): each read resolves it in a vault of the reading
/// thread at its current version (`nil` once deleted).
///
/// ```swift
/// @ThreadSafe var person: Person?
/// ```
///
/// Reads open (or share) a vault confined to the reading thread; in code
/// isolated to an actor, resolve a ``ThreadSafeReference`` in the actor's vault instead.
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined>: @unchecked Sendable {
    // @unchecked: `reference` is a Sendable value guarded by `lock`.
    private let lock = NSLock()
    private var reference: ThreadSafeReference<T>?

    /// Keeps a reference to `wrappedValue` (`nil` keeps nothing).
    public init(wrappedValue: T?) {
        reference = wrappedValue.map { ThreadSafeReference(to: $0) }
    }

    /// The object or collection, resolved on the calling thread; setting it keeps a new reference.
    ///
    /// As Realm's, each read keeps a new reference made at the version it resolved at
    /// (so a later read on another thread sees at least what this one saw), and one
    /// that resolves to `nil` (deleted) is dropped.
    public var wrappedValue: T? {
        get {
            lock.withLock {
                guard let reference else { return nil }
                let vault: Vault
                do {
                    vault = try Vault(configuration: reference.configuration, isolation: nil)
                } catch {
                    VaultLog.log(.error, "@ThreadSafe could not open its vault on this thread: \(error)")
                    return nil
                }
                guard let value = vault.resolve(reference) else {
                    self.reference = nil
                    return nil
                }
                self.reference = ThreadSafeReference(to: value)
                return value
            }
        }
        set {
            let newReference = newValue.map { ThreadSafeReference(to: $0) }
            lock.withLock { reference = newReference }
        }
    }
}
