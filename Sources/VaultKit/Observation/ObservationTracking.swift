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
// object read, none for objects never read), remembers the key path of each
// property read, and joins its session's tracking list.
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
// off. When on: the registrar and list entry per object read, a key path
// store and a thread-local check per property read, and change capture on
// every commit in the process. Frozen vaults never change and take no part.

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ObjectBase: Observable {}

/// One managed object's part in Observation: its registrar (the key paths are the class's, kept by the list).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class ObjectTracking {
    let registrar = ObservationRegistrar()
    /// The object, which owns its ManagedObject and so this; it leaves the list in its deinit.
    unowned(unsafe) let subject: ObjectBase
    /// Property indexes (below 64) whose key path the list already knows from this object: one bit test per read.
    var notedProperties: UInt64 = 0

    init(subject: ObjectBase) { self.subject = subject }

    /// Says that the properties at `indexes` changed (each one read so far through some object of the class).
    func announce(_ indexes: some Sequence<Int>, keyPaths: [AnyKeyPath?]) {
        for index in indexes where keyPaths.indices.contains(index) {
            (keyPaths[index] as? any ObjectKeyPathAnnouncing)?.announceChange(of: subject, to: registrar)
        }
    }
}

/// Opens an `AnyKeyPath` of a model class back into its typed form for the registrar.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
protocol ObjectKeyPathAnnouncing {
    func announceChange(of subject: ObjectBase, to registrar: ObservationRegistrar)
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension KeyPath: ObjectKeyPathAnnouncing where Root: ObjectBase {
    func announceChange(of subject: ObjectBase, to registrar: ObservationRegistrar) {
        guard let root = subject as? Root else { return }
        registrar.willSet(root, keyPath: self)
        registrar.didSet(root, keyPath: self)
    }
}

/// The session's list of objects taking part in Observation, delivered like any observation.
///
/// The list is intrusive (each ManagedObject holds its neighbours, see
/// `trackingPrevious`/`trackingNext`): joining and leaving cost two pointer
/// writes, with no hashing or allocation, since every object read joins it.
final class TrackingObservation: Observation {
    private var head: ManagedObject?
    /// The key path each property of a class was read through, by schema (the same for every object of it).
    private(set) var keyPaths: [ObjectIdentifier: [AnyKeyPath?]] = [:]

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

    /// Records the key path of property `index` of `schema`'s class, once.
    func note(_ keyPath: AnyKeyPath, index: Int, of schema: ObjectSchema) {
        let key = ObjectIdentifier(schema)
        if let known = keyPaths[key], known[index] != nil { return }
        keyPaths[key, default: Array(repeating: nil, count: schema.properties.count)][index] = keyPath
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
            guard let tracking = manager.tracking.map({ unsafeDowncast($0, to: ObjectTracking.self) }),
                  let classKeyPaths = keyPaths[ObjectIdentifier(manager.schema)] else { continue }
            guard let changes else {
                // Commits not captured here (a foreign writer, or tracking that began inside
                // a write): what differs from the values the object last read.
                tracking.announce(Self.differences(of: manager, in: vault), keyPaths: classKeyPaths)
                continue
            }
            guard let table = changes.tables[manager.schema.className] else { continue }
            if table.deleted.contains(manager.rowID) {
                tracking.announce(classKeyPaths.indices, keyPaths: classKeyPaths)
            } else if let written = table.written[manager.rowID] {
                var indexes = written.indexes
                if written.linkColumns {
                    indexes.formUnion(manager.schema.properties.indices.filter { manager.schema.properties[$0].objectClassName != nil })
                }
                tracking.announce(indexes, keyPaths: classKeyPaths)
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
            schema.isCollection[index] || !row.indices.contains(index) || !manager.values.indices.contains(index) || row[index] != manager.values[index]
        }
    }
}

extension ManagedObject {
    /// Takes part in Observation from this read on (see the essay above).
    @usableFromInline
    func trackAccess<Subject: ObjectBase, Member>(_ subject: Subject, keyPath: KeyPath<Subject, Member>, index: Int) {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let current: ObjectTracking
        if let tracking {
            current = unsafeDowncast(tracking, to: ObjectTracking.self)
        } else {
            current = ObjectTracking(subject: subject)
            tracking = current
            (vault.session.tracking ?? vault.trackingObservation()).add(self)
        }
        let bit: UInt64 = index < 64 ? 1 << UInt64(index) : 0
        if current.notedProperties & bit == 0 || bit == 0 {
            current.notedProperties |= bit
            (vault.session.tracking ?? vault.trackingObservation()).note(keyPath, index: index, of: schema)
        }
        current.registrar.access(subject, keyPath: keyPath)
    }

    /// Leaves the session's tracking list (the object is going).
    func stopTracking() {
        guard tracking != nil else { return }
        tracking = nil
        vault.session.tracking?.remove(self)
    }
}

extension Vault {
    /// The session's tracking list, registered as an observation at first use.
    func trackingObservation() -> TrackingObservation {
        if let existing = session.tracking { return existing }
        let created = TrackingObservation()
        session.tracking = created
        session.trackingToken = register(created)
        return created
    }
}
