import Foundation
import Observation
import VaultCore

// MARK: - Observation (withObservationTracking, SwiftUI's @Observable era)
//
// Managed objects are `Observable`: a SwiftUI view (or any code inside
// `withObservationTracking`) that reads `person.name` is told when a later
// version of the vault changes that property — a commit through this vault,
// another `Vault`, another thread or another process — with no view model
// and no `observe` call. Realm never offered this.
//
// How. Observation tracks by registrar and key path: a getter calls
// `registrar.access(object, keyPath)`, and whoever changes the value calls
// `willSet`/`didSet` on the same registrar. There is no way to ask whether a
// tracking scope is active, so a managed object takes part from its first
// property read: it gets its own registrar then (one small allocation per
// object read, none for objects never read) and joins its session's tracking
// list. The key path it reports for a property is
// `\ObjectBase.[_vaultObservedProperty: index]`, the same for every class
// (see `ObservedProperty`), so a delivery can name any property without
// having seen it read.
//
// The list is one more observation of the session (see Notifications): it
// makes the session an observer of the file, so commits are captured and the
// session is woken and delivers by itself on its actor, queue or main thread
// (elsewhere at `refresh()`), like any `observe`. At each delivery — with the
// vault already at the new version — every listed object whose row the
// commits wrote (a write of the same value counts, as in Realm) or deleted
// has `willSet`/`didSet` called for the properties it was read through. A
// commit whose changes are unknown (a foreign writer) counts as a write to
// every property read.
//
// Cost. A vault pays only when its configuration asks for it
// (`Vault.Configuration.observationTracking`, on by default on Apple
// platforms where SwiftUI uses it, off elsewhere): one branch per read when
// off. When on: the registrar and list entry per object read, the
// registrar's own bookkeeping per property read, and change capture on
// every commit in the process. Frozen vaults never change and take no part.

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ObjectBase: Observable {}

/// One managed object's part in Observation: its registrar.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class ObjectTracking {
    let registrar = ObservationRegistrar()
    /// The object, which owns its ManagedObject and so this; it leaves the list in its deinit.
    unowned(unsafe) let subject: ObjectBase

    init(subject: ObjectBase) { self.subject = subject }

    /// Says that the properties at `indexes` changed.
    func announce(_ indexes: some Sequence<Int>) {
        for index in indexes {
            let keyPath = ObservedProperty.keyPath(index)
            registrar.willSet(subject, keyPath: keyPath)
            registrar.didSet(subject, keyPath: keyPath)
        }
    }
}

/// The key paths Observation knows a managed object's properties by:
/// `\ObjectBase.[_vaultObservedProperty: index]`, one per property index.
///
/// Observation only compares key paths (an access and a later `willSet` must
/// name the same one), so any stable key path per property will do. These
/// need nothing from the getter: a getter that passed its own key path on
/// would make Swift build that key path object (a `swift_getKeyPath` call) on
/// every read of every property, tracked or not (see Benchmarks/README.md,
/// "Observation key paths").
enum ObservedProperty {
    /// Built once for the first 64 indexes; larger ones are built per use.
    nonisolated(unsafe) private static let common: [KeyPath<ObjectBase, Int>] = (0..<64).map { \ObjectBase.[_vaultObservedProperty: $0] }

    static func keyPath(_ index: Int) -> KeyPath<ObjectBase, Int> {
        index < common.count ? common[index] : \ObjectBase.[_vaultObservedProperty: index]
    }
}

extension ObjectBase {
    /// Names property `index` to Observation (see ``ObservedProperty``); its value means nothing.
    subscript(_vaultObservedProperty index: Int) -> Int { index }
}

/// The session's list of objects taking part in Observation, delivered like any observation.
///
/// The list is intrusive (each ManagedObject holds its neighbours, see
/// `trackingPrevious`/`trackingNext`): joining and leaving cost two pointer
/// writes, with no hashing or allocation, since every object read joins it.
final class TrackingObservation: Observation {
    private var head: ManagedObject?
    func add(_ manager: ManagedObject) {
        manager.trackingNext = head
        head?.trackingPrevious = manager
        head = manager
    }

    func remove(_ manager: ManagedObject) {
        if let previous = manager.trackingPrevious { previous.trackingNext = manager.trackingNext } else if head === manager { head = manager.trackingNext }
        manager.trackingNext?.trackingPrevious = manager.trackingPrevious
        manager.trackingPrevious = nil
        manager.trackingNext = nil
    }

    override func deliver(in vault: Vault, changes: TransactionChanges?) {
        let sequence = vault.commitSequence
        guard sequence != deliveredSequence else { return }
        deliveredSequence = sequence
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        // Announcing runs app code that may read (and so add) objects: announce from a copy.
        var managers: [ManagedObject] = []
        var cursor = head
        while let manager = cursor {
            managers.append(manager)
            cursor = manager.trackingNext
        }
        for manager in managers {
            guard let tracking = manager.tracking.map({ unsafeDowncast($0, to: ObjectTracking.self) }) else { continue }
            guard let changes else {
                // Commits not captured here (a foreign writer, or tracking that began inside
                // a write): what differs from the values the object last read.
                tracking.announce(Self.differences(of: manager, in: vault))
                continue
            }
            guard let table = changes.tables[manager.schema.className] else { continue }
            if table.deleted.contains(manager.rowID) {
                tracking.announce(manager.schema.properties.indices)
            } else if let written = table.written[manager.rowID] {
                var indexes = written.indexes
                if written.linkColumns {
                    indexes.formUnion(manager.schema.properties.indices.filter { manager.schema.properties[$0].objectClassName != nil })
                }
                tracking.announce(indexes)
            }
        }
    }

    override func rebaseline(in vault: Vault) {
        deliveredSequence = vault.commitSequence
    }

    /// The properties of `manager`'s row that differ from its cached values
    /// (every property when the row is gone; collections, which are not cached, always).
    private static func differences(of manager: ManagedObject, in vault: Vault) -> [Int] {
        let schema = manager.schema
        guard case .success(let row?) = vault.loadRow(schema, rowID: manager.rowID) else { return Array(schema.properties.indices) }
        return schema.properties.indices.filter { index in
            schema.isCollection[index] || !row.indices.contains(index) || index >= manager.propertyCount || row[index] != manager.storage[index]
        }
    }
}

extension ManagedObject {
    /// Takes part in Observation from this read on (see the essay above).
    @usableFromInline
    func trackAccess(_ subject: ObjectBase, index: Int) {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let current: ObjectTracking
        if let tracking {
            current = unsafeDowncast(tracking, to: ObjectTracking.self)
        } else {
            current = ObjectTracking(subject: subject)
            tracking = current
            (vault.session.observing.tracking ?? vault.trackingObservation()).add(self)
        }
        current.registrar.access(subject, keyPath: ObservedProperty.keyPath(index))
    }

    /// Leaves the session's tracking list (the object is going).
    func stopTracking() {
        guard tracking != nil else { return }
        tracking = nil
        vault.session.observing.tracking?.remove(self)
    }
}

extension Vault {
    /// The session's tracking list, registered as an observation at first use.
    func trackingObservation() -> TrackingObservation {
        if let existing = session.observing.tracking { return existing }
        let created = TrackingObservation()
        session.observing.tracking = created
        session.observing.trackingToken = register(created)
        return created
    }
}
