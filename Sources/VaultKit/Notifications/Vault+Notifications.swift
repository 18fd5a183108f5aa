import Foundation
import VaultCore

// MARK: - Delivery
//
// Observations belong to the session (the vault on one thread) they were
// registered on, and are delivered on that thread, never inside a write
// transaction, at the version the vault reads at that moment — so the indices
// a block receives always match what it reads (Realm's handover guarantee,
// kept by construction rather than by handing a version across threads).
// Delivery happens:
//   - at `refresh()`, which first advances the vault to the latest commit;
//   - on the main thread, by itself: after every commit (this process's, on any
//     thread) a vault opened on the main thread with observers schedules a
//     refresh (autorefresh) or a `.refreshRequired` notification on the main
//     queue, so an app whose main thread runs a run loop or `dispatchMain()`
//     never calls `refresh()`. No run loop is required anywhere else: a vault
//     on another thread delivers at its next `refresh()`.
// `.initial` comes with the first delivery after registration, as in Realm
// (asynchronously, possibly with later commits already folded in). A
// commit's changes for the committing vault's own observers are delivered at
// the same points, not synchronously inside `commitWrite()`; vault-level
// observers (`Vault.observe`) hear `.didChange` right after the commit.
extension Vault {
    /// Registers an observation of this vault's session; the token removes it.
    func register(_ observation: Observation) -> NotificationToken {
        refuseFrozenObservation()
        let session = self.session
        if session.observing.observations.isEmpty { startObserving() }
        session.observing.observations.append(observation)
        session.coordinator.observerAdded()
        // Fix the version the observation starts from.
        fixReadVersion()
        observation.deliveredSequence = commitSequence
        // The first delivery (`.initial`) comes at the next delivery point.
        scheduleDelivery()
        let coordinator = session.coordinator
        let token = NotificationToken {
            // Removed from the list at the session's next delivery (the token may
            // be invalidated from another thread, so this touches only the
            // observation's locked `isActive` and the Sendable coordinator).
            observation.isActive = false
            coordinator.observerRemoved()
        }
        observation.token = token
        return token
    }

    private func startObserving() {
        let session = self.session
        guard let scheduler = session.scheduler else { return }
        let box = QueuedSession(session)
        session.coordinator.setWaker(for: ObjectIdentifier(session)) {
            _ = scheduler.schedule { box.wake() }
        }
    }

    /// Asks for a delivery soon: on the session's queue (the main queue for
    /// main-thread vaults, or the queue it is confined to), else at the next refresh().
    func scheduleDelivery() {
        guard !session.observing.deliveryScheduled else { return }
        let box = QueuedSession(session)
        session.observing.deliveryScheduled = session.scheduler?.schedule { box.deliver() } ?? false
    }

    /// Delivers every pending change to this session's observations.
    func deliverNotifications() {
        let session = self.session
        let observing = session.observing
        observing.deliveryScheduled = false
        guard !isInWriteTransaction, !observing.isDelivering else { return }
        observing.isDelivering = true
        defer { observing.isDelivering = false }
        observing.observations.removeAll { !$0.isActive }
        guard !observing.observations.isEmpty else { return }
        // Fix the version the blocks will read.
        fixReadVersion()
        let current = commitSequence
        for observation in observing.observations where observation.isActive && !(observation is VaultObservation) {
            let changes = session.coordinator.changes(after: observation.deliveredSequence, through: current)
                ?? loggedChanges(after: observation.deliveredSequence, through: current)
            observation.deliver(in: self, changes: changes)
        }
    }

    /// The changes of commits this process did not capture (another process's),
    /// read from the change log at the vault's version and kept by the
    /// coordinator for the session's other observations; `nil` when the log lacks one.
    private func loggedChanges(after old: UInt64, through new: UInt64) -> TransactionChanges? {
        guard session.coordinator.isFile,
              let entries = try? withDatabase({ db in try ChangeLog.entries(after: old, through: new, on: db, schemas: schema(named:)) })
        else { return nil }
        var merged = TransactionChanges()
        for (sequence, changes) in entries {
            session.coordinator.record(changes, sequence: sequence)
            merged.merge(changes)
        }
        return merged
    }

    /// Tells the vault-level observers.
    func notifyVaultObservers(_ notification: VaultNotification) {
        for case let observation as VaultObservation in session.observing.observations where observation.isActive {
            // A commit made by `write(withoutNotifying:)` for this observation's token is not told (Realm's rule).
            if case .didChange = notification, let token = observation.token, session.observing.silencedTokens.contains(ObjectIdentifier(token)) { continue }
            observation.notify(notification, self)
        }
    }

    /// A boxed property value for `PropertyChange`: linked objects as objects.
    func boxedValue(_ value: DatabaseValue, property index: Int, of schema: ObjectSchema) -> Any? {
        let property = schema.properties[index]
        if property.type == .object {
            guard let rowID = value.int64, let target = property.objectClassName else { return nil }
            return object(className: target, rowID: rowID)
        }
        return schema.accessors[index].decodeBoxed(value)
    }

    // MARK: - Public API

    /// Calls `block` whenever the vault moves to a new version: after each
    /// commit through it, and at ``refresh()`` when another commit was taken
    /// in (`.didChange`); with ``autorefresh`` off, `.refreshRequired` when a
    /// commit elsewhere is waiting (main-thread vaults). Realm's `observe(_:)`.
    public func observe(_ block: @escaping (VaultNotification, Vault) -> Void) -> NotificationToken {
        register(VaultObservation(block: block))
    }

    /// Runs a write transaction whose commit the observations of `tokens`
    /// (registered on this thread; vault observations included) do not hear about: their next change is
    /// computed from the state after it. Realm's `write(withoutNotifying:_:)`;
    /// as in Realm, a token with changes still undelivered from earlier commits
    /// hears them, this commit's included.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken], _ block: () throws -> Result) throws -> Result {
        let before = commitSequence
        session.observing.silencedTokens = Set(tokens.map(ObjectIdentifier.init))
        defer { session.observing.silencedTokens = [] }
        let result = try write(block)
        skipNotifications(of: tokens, committedAfter: before)
        return result
    }

    /// Commits the open write transaction (see ``commitWrite()``) without
    /// notifying the observations of `tokens` of it, as
    /// ``write(withoutNotifying:_:)`` does. Realm's `commitWrite(withoutNotifying:)`.
    @available(*, noasync, message: "a write transaction holds the writer connection on this thread; use write(withoutNotifying:_:) instead")
    public func commitWrite(withoutNotifying tokens: [NotificationToken]) throws {
        let before = commitSequence
        session.observing.silencedTokens = Set(tokens.map(ObjectIdentifier.init))
        defer { session.observing.silencedTokens = [] }
        try commitWrite()
        skipNotifications(of: tokens, committedAfter: before)
    }

    /// Rebaselines the up-to-date observations of `tokens` past the commit that followed `before`.
    private func skipNotifications(of tokens: [NotificationToken], committedAfter before: UInt64) {
        guard !tokens.isEmpty else { return }
        let skipped = Set(tokens.map(ObjectIdentifier.init))
        for observation in session.observing.observations where observation.isActive && observation.deliveredSequence == before {
            guard let token = observation.token, skipped.contains(ObjectIdentifier(token)) else { continue }
            observation.rebaseline(in: self)
        }
    }
}

/// Carries a session into a block on the queue it is confined to.
///
/// `@unchecked Sendable` is safe because the session is dereferenced only
/// inside blocks run on that queue (the main queue for a main-thread session),
/// which is the session's own confinement.
private final class QueuedSession: @unchecked Sendable {
    private weak var session: VaultSession?

    init(_ session: VaultSession) { self.session = session }

    /// A commit happened somewhere: advance (autorefresh) or say a refresh is required.
    func wake() {
        guard let session else { return }
        let vault = Vault(sharing: session)
        if session.version.autorefresh {
            vault.refresh()
        } else {
            vault.notifyVaultObservers(.refreshRequired)
        }
    }

    func deliver() {
        guard let session else { return }
        Vault(sharing: session).deliverNotifications()
    }
}

// MARK: - Observing collections and objects

extension Results {
    /// Calls `block` with `.initial` at the first delivery, then with the
    /// changes of each later version (Realm's index conventions; see
    /// ``VaultCollectionChange``). `keyPaths` limits which property writes
    /// count as modifications (insertions and deletions always do).
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (VaultCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        let filter = PropertyFilter(keyPaths: keyPaths, schema: schema)
        let className = schema.className
        let dependencies = QueryDependencies(definition: definition, schema: schema)
        let observation = CollectionObservation(collection: self, currentIDs: { self.rowIDs() },
                                                modificationTest: { changes in self.modificationTest(changes, filter: filter, keyPaths: keyPaths) },
                                                idsUnchanged: { changes in dependencies.idsUnchanged(by: changes, className: className, linkColumns: filter.linkColumns) },
                                                block: block)
        return owner.register(observation)
    }
}

extension Results {
    /// Whether an element was written, directly or through its links (see DeepChanges).
    func modificationTest(_ changes: TransactionChanges, filter: PropertyFilter, keyPaths: [String]?) -> ModifiedElements {
        let rows = filter.passingRows(changes.tables[schema.className])
            .union(DeepChanges.modifiedRows(of: schema, keyPaths: keyPaths, changes: changes, in: owner))
        return ModifiedElements(candidates: rows) { rows.contains($0) }
    }
}

extension LinkingObjects {
    /// Observes the objects linking here, as ``Results/observe(keyPaths:_:)-([String]?,_)`` does.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (VaultCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        guard binding != nil else { preconditionFailure("Only the LinkingObjects of a managed object can be observed") }
        let results = self.results
        let filter = PropertyFilter(keyPaths: keyPaths, schema: results.schema)
        let observation = CollectionObservation(collection: self, currentIDs: { results.rowIDs() },
                                                modificationTest: { changes in results.modificationTest(changes, filter: filter, keyPaths: keyPaths) }, block: block)
        return results.owner.register(observation)
    }
}

extension CollectionBinding {
    /// An observation of a List or MutableSet through its entries: an entry is
    /// modified when it was rewritten, or when the object it holds was written.
    func observation<C>(_ collection: C, keyPaths: [String]?, block: @escaping (VaultCollectionChange<C>) -> Void) -> CollectionObservation<C> {
        let vault = self.vault
        let table = owner.unquotedCollectionTableName(for: property)
        let targetSchema = property.objectClassName.flatMap { vault.schema(named: $0) }
        let filter = targetSchema.map { PropertyFilter(keyPaths: keyPaths, schema: $0) }
        let targets = EntryTargets()
        return CollectionObservation(collection: collection, currentIDs: {
            let entries = vault.collectionEntries(self)
            targets.byEntry = Dictionary(entries.compactMap { entry in entry.value.int64.map { (entry.entryID, $0) } }, uniquingKeysWith: { first, _ in first })
            return entries.map(\.entryID)
        }, modificationTest: { changes in
            let rewritten = changes.tables[table]?.written ?? [:]
            let targetWritten = filter.map { $0.test(targetSchema.flatMap { changes.tables[$0.className] }) }
            let deep = targetSchema.map { DeepChanges.modifiedRows(of: $0, keyPaths: keyPaths, changes: changes, in: vault) } ?? []
            return ModifiedElements(candidates: nil) { entryID in
                if rewritten[entryID] != nil { return true }
                guard let targetWritten, let target = targets.byEntry[entryID] else { return false }
                return targetWritten(target) || deep.contains(target)
            }
        }, block: block)
    }
}

/// The object row each entry of an observed list or set held at the last look.
final class EntryTargets {
    var byEntry: [Int64: Int64] = [:]
}

extension List {
    /// Observes the list: insertions, deletions and moves by position (a
    /// move is a deletion and an insertion), and modifications of entries and
    /// of the objects they hold. Realm's `observe(keyPaths:_:)`.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (VaultCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        if let nested = detached as? NestedMixedCollection {
            // A list in a mixed value: compared with its last delivered contents.
            return nested.observe { [self] change in
                switch change {
                case .initial: block(.initial(self))
                case .list(let deletions, let insertions, let modifications):
                    block(.update(self, deletions: deletions, insertions: insertions, modifications: modifications))
                case .dictionary: break
                }
            }
        }
        guard let binding else { preconditionFailure("Only a managed List can be observed: add its owner to a vault first") }
        return binding.vault.register(binding.observation(self, keyPaths: keyPaths, block: block))
    }
}

extension MutableSet {
    /// Observes the set, as `List.observe(keyPaths:_:)` does.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (VaultCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        guard let binding else { preconditionFailure("Only a managed MutableSet can be observed: add its owner to a vault first") }
        return binding.vault.register(binding.observation(self, keyPaths: keyPaths, block: block))
    }
}

/// The objects that can be observed one by one (every `Object` and `EmbeddedObject`).
public protocol ObservableVaultObject: ObjectBase {}

extension ObjectBase: ObservableVaultObject {}

extension ObservableVaultObject {
    /// Calls `block` when properties of this managed object are written (each
    /// written property once, even when written with the same value, with its
    /// old and new values), or once with `.deleted`. There is no initial
    /// call, as in Realm. `keyPaths` limits the properties that count.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, baseline: nil, block)
    }

    /// Observes from `baseline` (an earlier version of this object, seen on
    /// another thread) when it is older than the vault's version.
    func observe(keyPaths: [String]?, baseline: ObjectObservationBaseline?, _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        guard let manager else { preconditionFailure("Only a managed \(type(of: self)) can be observed: add it to a vault first") }
        let observation = ObjectObservation(object: self, manager: manager, keyPaths: keyPaths, block: block)
        let token = manager.vault.register(observation)
        observation.start(in: manager.vault, baseline: baseline)
        return token
    }
}
