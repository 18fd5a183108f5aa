import Foundation
import VaultCore

/// Any ``VaultCollection`` of `Element` — results, a list, a set or backlinks —
/// behind one type (Realm's `AnyRealmCollection`): for properties and view
/// models that hold "some collection of people" without saying which.
///
/// ```swift
/// let shown = AnyVaultCollection(person.friends)       // or vault.objects(Person.self), …
/// shown.filter("age > 30").count
/// ```
public struct AnyVaultCollection<Element>: VaultCollection {
    private let box: AnyVaultCollectionBox<Element>

    /// Wraps `base`.
    public init<C: VaultCollection>(_ base: C) where C.Element == Element {
        box = ConcreteVaultCollectionBox(base)
    }

    /// The wrapped collection.
    public var base: any VaultCollection { box.baseCollection }

    public var startIndex: Int { 0 }
    public var endIndex: Int { box.count }
    public subscript(position: Int) -> Element { box.element(at: position) }
    public var count: Int { box.count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    public var vault: Vault? { box.vault }
    public var description: String { box.description }
    public var isInvalidated: Bool { box.isInvalidated }
    public var isFrozen: Bool { box.isFrozen }
    public func freeze() -> AnyVaultCollection<Element> { box.freeze() }
    public func thaw() -> AnyVaultCollection<Element>? { box.thaw() }
    public func value(forKey key: String) -> Any? { box.value(forKey: key) }
    public func setValue(_ value: Any?, forKey key: String) { box.setValue(value, forKey: key) }

    /// Observes the wrapped collection; the changes carry this wrapper.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (VaultCollectionChange<AnyVaultCollection<Element>>) -> Void) -> NotificationToken {
        box.observe(keyPaths: keyPaths, block)
    }

    public func _threadHandover() -> _ThreadHandover { box.handover() }

    /// The same wrapped collection (see the wrapped type's equality).
    public static func == (lhs: AnyVaultCollection<Element>, rhs: AnyVaultCollection<Element>) -> Bool {
        lhs.box.isEqual(to: rhs.box.baseCollection)
    }

    public static func _resolve(_ handover: _ThreadHandover, in vault: Vault) -> AnyVaultCollection<Element>? {
        handover.erasedResolve?(vault) as? AnyVaultCollection<Element>
    }
}

extension AnyVaultCollection: ObjectResultsProviding {
    func objectResults() -> Any? { box.objectResults() }
}

/// The erased operations (a class, so that the wrapper stays one reference wide).
class AnyVaultCollectionBox<Element> {
    var baseCollection: any VaultCollection { preconditionFailure("abstract") }
    var count: Int { preconditionFailure("abstract") }
    func element(at position: Int) -> Element { preconditionFailure("abstract") }
    var vault: Vault? { preconditionFailure("abstract") }
    var description: String { preconditionFailure("abstract") }
    var isInvalidated: Bool { preconditionFailure("abstract") }
    var isFrozen: Bool { preconditionFailure("abstract") }
    func freeze() -> AnyVaultCollection<Element> { preconditionFailure("abstract") }
    func thaw() -> AnyVaultCollection<Element>? { preconditionFailure("abstract") }
    func value(forKey key: String) -> Any? { preconditionFailure("abstract") }
    func setValue(_ value: Any?, forKey key: String) { preconditionFailure("abstract") }
    func objectResults() -> Any? { preconditionFailure("abstract") }
    func handover() -> _ThreadHandover { preconditionFailure("abstract") }
    func isEqual(to other: any VaultCollection) -> Bool { preconditionFailure("abstract") }
    func observe(keyPaths: [String]?, _ block: @escaping (VaultCollectionChange<AnyVaultCollection<Element>>) -> Void) -> NotificationToken {
        preconditionFailure("abstract")
    }
}

final class ConcreteVaultCollectionBox<C: VaultCollection>: AnyVaultCollectionBox<C.Element> {
    let base: C
    init(_ base: C) { self.base = base }

    override var baseCollection: any VaultCollection { base }
    override var count: Int { base.count }
    override func element(at position: Int) -> C.Element { base[position] }
    override var vault: Vault? { base.vault }
    override var description: String { base.description }
    override var isInvalidated: Bool { base.isInvalidated }
    override var isFrozen: Bool { base.isFrozen }
    override func freeze() -> AnyVaultCollection<C.Element> { AnyVaultCollection(base.freeze()) }
    override func thaw() -> AnyVaultCollection<C.Element>? {
        guard let thawed = base.thaw() else { return nil }
        return AnyVaultCollection(thawed)
    }
    override func value(forKey key: String) -> Any? { base.value(forKey: key) }
    override func setValue(_ value: Any?, forKey key: String) { base.setValue(value, forKey: key) }
    override func objectResults() -> Any? { (base as? any ObjectResultsProviding)?.objectResults() }
    override func isEqual(to other: any VaultCollection) -> Bool {
        guard let other = other as? C else { return false }
        return base == other
    }

    override func handover() -> _ThreadHandover {
        var handover = base._threadHandover()
        let inner = handover
        handover.erasedResolve = { vault in C._resolve(inner, in: vault).map { AnyVaultCollection($0) } }
        return handover
    }

    override func observe(keyPaths: [String]?, _ block: @escaping (VaultCollectionChange<AnyVaultCollection<C.Element>>) -> Void) -> NotificationToken {
        base.observe(keyPaths: keyPaths) { change in
            switch change {
            case .initial(let collection): block(.initial(AnyVaultCollection(collection)))
            case .update(let collection, let deletions, let insertions, let modifications):
                block(.update(AnyVaultCollection(collection), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }
}
