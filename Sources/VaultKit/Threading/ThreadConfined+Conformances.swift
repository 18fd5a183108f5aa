import Foundation
import VaultCore

// What each thread-confined type hands over, and how it is found again (see ThreadSafeReference).

extension ObjectBase: ThreadConfined {
    public func _threadHandover() -> _ThreadHandover {
        guard let manager else {
            preconditionFailure("Cannot make a thread-safe reference to an unmanaged \(type(of: self)) object: pass it across directly")
        }
        return .object(className: manager.schema.className, type: manager.schema.type, rowID: manager.rowID,
                       sequence: manager.vault.handoverSequence, configuration: manager.vault.configuration)
    }

    public static func _resolve(_ handover: _ThreadHandover, in vault: Vault) -> Self? {
        guard case .object(_, let type, let rowID) = handover.kind else { return nil }
        let schema = vault.schema(for: type)
        return vault.object(className: schema.className, rowID: rowID) as? Self
    }
}

extension Results: ThreadConfined {
    /// Whether the collection these results are based on is gone (its owner was deleted).
    public var isInvalidated: Bool {
        switch definition.base {
        case .table: return false
        case .collection(let binding), .linkingObjects(let binding):
            return binding.vault.object(className: binding.owner.className, rowID: binding.ownerRowID) == nil
        }
    }

    public func _threadHandover() -> _ThreadHandover {
        var detached = definition
        let base: _ThreadHandover.ResultsBase
        switch definition.base {
        case .table: base = .table
        case .collection(let binding): base = .collection(.init(binding))
        case .linkingObjects(let binding): base = .linkingObjects(.init(binding))
        }
        detached.base = .table
        return _ThreadHandover(kind: .results(schema: schema, definition: detached, base: base),
                               sequence: owner.handoverSequence, configuration: owner.configuration)
    }

    public static func _resolve(_ handover: _ThreadHandover, in vault: Vault) -> Results<Element>? {
        do {
            return try rebuild(handover, in: vault, requiringOwner: true)
        } catch {
            preconditionFailure("VaultKit could not rebuild a query in \(vault.path): \(error)")
        }
    }

    /// The query `handover` describes, in `vault`; nil when its collection's
    /// owner is gone and `requiringOwner` (otherwise such results read as empty).
    static func rebuild(_ handover: _ThreadHandover, in vault: Vault, requiringOwner: Bool) throws(QueryError) -> Results<Element>? {
        guard case .results(let schema, var definition, let base) = handover.kind else { return nil }
        switch base {
        case .table: break
        case .collection(let owner):
            guard let binding = owner.binding(in: vault, requiringOwner: requiringOwner) else { return nil }
            definition.base = .collection(binding)
        case .linkingObjects(let owner):
            guard let binding = owner.binding(in: vault, requiringOwner: requiringOwner) else { return nil }
            definition.base = .linkingObjects(binding)
        }
        return try Results(vault: vault, schema: vault.schema(for: schema.type), definition: definition)
    }
}

/// The collection types that hand over their owner row and property.
protocol BoundCollection: AnyObject, ThreadConfined {
    var binding: CollectionBinding? { get }
    init(binding: CollectionBinding)
}

extension BoundCollection {
    /// Whether the collection's owner was deleted.
    public var isInvalidated: Bool {
        guard let binding else { return false }
        return binding.vault.object(className: binding.owner.className, rowID: binding.ownerRowID) == nil
    }

    /// Whether the collection belongs to a frozen vault.
    public var isFrozen: Bool { binding?.vault.isFrozen ?? false }

    /// A frozen copy of this managed collection; an unmanaged one is returned as is.
    public func freeze() -> Self {
        guard let binding else { return self }
        if binding.vault.isFrozen { return self }
        guard let frozen = Self._resolve(_threadHandover(), in: binding.vault.freeze()) else {
            preconditionFailure("Cannot freeze a \(Self.self) whose owner (\(binding.owner.className)) was deleted or created in the open write transaction")
        }
        return frozen
    }

    /// The live collection on the calling thread at the latest version (`nil` if its owner was deleted).
    public func thaw() -> Self? {
        guard let binding, binding.vault.isFrozen else { return self }
        return Self._resolve(_threadHandover(), in: binding.vault.thaw())
    }

    public func _threadHandover() -> _ThreadHandover {
        guard let binding else {
            preconditionFailure("Cannot make a thread-safe reference to an unmanaged \(Self.self): pass its contents across directly")
        }
        return _ThreadHandover(kind: .collection(.init(binding)), sequence: binding.vault.handoverSequence, configuration: binding.vault.configuration)
    }

    public static func _resolve(_ handover: _ThreadHandover, in vault: Vault) -> Self? {
        guard case .collection(let owner) = handover.kind, let binding = owner.binding(in: vault) else { return nil }
        return Self(binding: binding)
    }
}

extension List: StoredCollection {}
extension MutableSet: StoredCollection {}
extension Map: StoredCollection {}
extension LinkingObjects: BoundCollection {}
