import Foundation
import VaultCore

// MARK: - The session's state, by concern
//
// A session's mutable state is kept in a few small types, one per concern:
// the write transaction's lifecycle and what goes with it, the version read,
// the asynchronous writes queued, the registered schemas, the observations.
// Each states what holds between its fields; fields that change together are
// `private(set)` and change through the type's own members.
//
// Exclusivity. The groups that are structs are stored properties of the
// session, so every access to one of their fields is an access to the whole
// group: nothing may touch a group while one of its mutating members runs or
// one of its fields is assigned. So their mutating members call out to
// nothing (no closure, no method of another object), and what they release
// (an error, a schema, a snapshot) has no deinit that reaches the session;
// where a field's old value may hold model objects (`WriteState.nestedWrite`),
// the code clearing it still holds them. The observation state is a
// class instead: releasing observations can release model objects, whose
// deinit leaves the tracking list, so its fields stay accessible one by one.
//
// What every property read or write touches stays a stored property of the
// session itself (see VaultSession): the content version, the query templates,
// the pending updates and inserts, and the write transaction.

/// Where the session's write transaction stands (Realm's `isInWriteTransaction`
/// is "not `.idle`").
///
/// Invariants: the writer of `.open` is borrowed from the session's database
/// and given back exactly when the case leaves `.open`, on `thread`, the
/// thread that borrowed it; `.failedToBegin` holds nothing and comes with the
/// error in ``WriteState/deferredError`` that `commitWrite` throws.
enum WriteTransaction {
    /// No write transaction: reads go through the snapshot (the writer, in memory).
    case idle
    /// `beginWrite` could not open one (the writer busy past its timeout, a
    /// migration elsewhere): the operations up to the end of the transaction are skipped.
    case failedToBegin
    /// Open (`BEGIN IMMEDIATE`) on `writer`, held by `thread` until commit or cancel.
    case open(writer: Database, thread: UInt)

    /// Whether a transaction was begun and not yet committed or cancelled.
    @inline(__always)
    var isStarted: Bool {
        if case .idle = self { return false }
        return true
    }

    /// The writer of an open transaction.
    @inline(__always)
    var writer: Database? {
        if case .open(let writer, _) = self { return writer }
        return nil
    }
}

/// What a write transaction accumulates besides its writer (see ``WriteTransaction``).
///
/// Invariants:
/// - `deferredError` is the *first* error of the current transaction: set once
///   (``recordError(_:)`` keeps the first), cleared when a transaction begins
///   or rolls back;
/// - `registeredClasses` names the classes whose tables the current
///   transaction created; empty outside a transaction (a commit clears it, the
///   classes staying registered; a rollback hands them back to be forgotten);
/// - `serial` only grows (by one per transaction ended); every serial in
///   `rolledBackSerials` is below it;
/// - `rowsInProgress` and `nestedWrite` are empty outside an `add` or `create`
///   (Vault+Writing sets and clears them around the object it stores).
struct WriteState {
    /// The first error of the current write transaction; `commitWrite` throws it.
    private(set) var deferredError: Swift.Error?
    /// The writer's total change count when the transaction began: did the transaction change anything?
    private(set) var changesAtStart = 0
    /// The changes of the open transaction, while someone observes the file or
    /// sync records its commits (see Notifications/ChangeCapture).
    var capture: ChangeCapture?
    /// Classes registered inside the open transaction: forgotten if it rolls back (their tables go with it).
    private(set) var registeredClasses: [String] = []
    /// The current (or next) write transaction's serial; objects inserted by
    /// one that rolled back are invalidated (see ManagedObject.insertedInWrite).
    private(set) var serial = 1
    /// The serials of the transactions that rolled back.
    private(set) var rolledBackSerials: Set<Int> = []
    /// Objects whose rows `add` is inserting, with their row ids (see Vault+Writing: cycles).
    var rowsInProgress: [ObjectIdentifier: Int64?] = [:]
    /// While `add` or `create` stores an object: how the objects it links to are stored (see NestedWrite).
    var nestedWrite: NestedWrite?

    /// A transaction opened on a writer whose total change count was `changes`.
    mutating func begin(changes: Int) {
        deferredError = nil
        changesAtStart = changes
    }

    /// `beginWrite` failed with `error`: `commitWrite` throws it.
    mutating func failToBegin(_ error: Swift.Error) {
        deferredError = error
    }

    /// Records an error of the current transaction, unless an earlier one was.
    @inline(__always)
    mutating func recordError(_ error: Swift.Error) {
        if deferredError == nil { deferredError = error }
    }

    /// Classes whose tables the current transaction created.
    mutating func registered(_ classNames: [String]) {
        registeredClasses.append(contentsOf: classNames)
    }

    /// The transaction committed: the next one has a new serial.
    mutating func commit() {
        serial &+= 1
        registeredClasses = []
    }

    /// The transaction rolled back: its serial is remembered as rolled back,
    /// the next one has a new serial. Returns the classes it registered, whose
    /// tables are gone.
    mutating func rollBack() -> [String] {
        let registered = registeredClasses
        registeredClasses = []
        deferredError = nil
        rolledBackSerials.insert(serial)
        serial &+= 1
        return registered
    }

    /// Takes the transaction's change capture (it ends with the transaction).
    mutating func takeCapture() -> ChangeCapture? {
        let taken = capture
        capture = nil
        return taken
    }
}

/// The version a session reads (see Vault+Versions).
///
/// Invariants: while `snapshot` is set, `commitSequence` is the commit it reads
/// (a live session drops it at every advance point, a frozen one keeps it for
/// life); `hasCommitSequenceRow` once true stays true for the file (only
/// ``VaultSession/reopen(deletingFilesAt:)`` starts over).
struct VersionState {
    /// The commit the session reads: VaultKit's version number, incremented by
    /// every write transaction that changes something.
    var commitSequence: UInt64 = 0
    /// Realm's `autorefresh`: whether deliveries advance the session first.
    var autorefresh = true
    /// The read transaction every read outside a write goes through, opened
    /// lazily; shared with the frozen vaults made at its version.
    var snapshot: SharedSnapshot?
    /// Whether `_vaultkit_metadata` is known to hold the commit sequence.
    var hasCommitSequenceRow = false

    init() {}

    /// A frozen session's: `live`'s version, read through `snapshot` (nil for in-memory vaults).
    init(freezing live: VersionState, snapshot: SharedSnapshot?) {
        commitSequence = live.commitSequence
        hasCommitSequenceRow = live.hasCommitSequenceRow
        self.snapshot = snapshot
    }

    /// Records that the session reads commit `sequence`; whether that moved it.
    @inline(__always)
    mutating func move(to sequence: UInt64) -> Bool {
        guard sequence != commitSequence else { return false }
        commitSequence = sequence
        return true
    }

    /// Forgets the file (it is being deleted and made anew): no snapshot, no commit read yet.
    /// (The snapshot's release closes a reader and unpins its version; neither reaches the session.)
    mutating func forgetFile() {
        snapshot = nil
        commitSequence = 0
        hasCommitSequenceRow = false
    }
}

/// The asynchronous writes of a session (see Threading/Vault+AsyncWrites).
///
/// Invariants: ids are handed out in increasing order (wrapping after
/// `UInt32.max`); `pending` holds the writes asked for and neither run nor cancelled, and
/// `order` lists them in the order asked for (ids cancelled since are dropped
/// when the queue is next read); `runningBlocks` counts the write blocks
/// running now, never below zero.
struct AsyncWriteQueue {
    /// Writes asked for and neither run nor cancelled.
    private(set) var pending: Set<AsyncTransactionId> = []
    /// The order they were asked for.
    private var order: [AsyncTransactionId] = []
    /// Asynchronous write blocks running now (their transaction is open).
    private(set) var runningBlocks = 0
    private var lastId: AsyncTransactionId = 0

    /// A new id (for a queued write, or a commit).
    mutating func nextId() -> AsyncTransactionId {
        lastId &+= 1
        return lastId
    }

    /// Queues write `id` behind those asked for before it.
    mutating func enqueue(_ id: AsyncTransactionId) {
        pending.insert(id)
        order.append(id)
    }

    /// Cancels write `id`; false when it is not pending (run, cancelled, or unknown).
    mutating func cancel(_ id: AsyncTransactionId) -> Bool {
        pending.remove(id) != nil
    }

    /// Whether write `id` is next to run: no write asked for before it is still pending.
    mutating func isNext(_ id: AsyncTransactionId) -> Bool {
        let live = pending
        order.removeAll { !live.contains($0) }
        return order.first == id
    }

    /// Write `id` ran (or failed to open its transaction), or was found cancelled: it leaves the queue.
    mutating func finish(_ id: AsyncTransactionId) {
        pending.remove(id)
        order.removeAll { $0 == id }
    }

    /// Whether writes wait to run or a write block runs (`isPerformingAsynchronousWriteOperations`).
    var isBusy: Bool { !pending.isEmpty || runningBlocks > 0 }

    /// A write block starts; ``blockEnded()`` follows it.
    mutating func blockStarted() { runningBlocks += 1 }

    /// A write block that ``blockStarted()`` ended.
    mutating func blockEnded() {
        assert(runningBlocks > 0, "an asynchronous write block ended that never started")
        runningBlocks -= 1
    }
}

/// The classes a session has registered (see Vault+Schema), and what it knows
/// of the stored schema under them.
///
/// Invariants: `byType` and `byName` hold the same schemas (a class under its
/// Swift type and its name); `absent` names registered classes only (a
/// read-only vault whose file has no table for them); `dynamic` holds copies
/// of schemas (registered or stored) that make ``DynamicObject``s, one per
/// class; `externalChange`, once set, stays set for the file: every write and
/// every move to a new version throws it.
struct SchemaRegistry {
    private(set) var byType: [ObjectIdentifier: ObjectSchema] = [:]
    private(set) var byName: [String: ObjectSchema] = [:]
    /// Copies of schemas that make ``DynamicObject``s (see Vault+Dynamic).
    var dynamic: [String: ObjectSchema] = [:]
    /// SQLite's schema cookie when the registered classes were last found to match the file.
    var cookie: Int64?
    /// Set when another process changed the schema under the registered classes (see ExternalSchemaChange).
    var externalChange: VaultObjectError?
    /// Classes registered in a read-only vault that has no table for them: they read as empty.
    private(set) var absent: Set<String> = []

    init() {}

    /// A frozen session's: `live`'s classes, as registered at the freeze (it never registers more).
    init(freezing live: SchemaRegistry) {
        byType = live.byType
        byName = live.byName
        absent = live.absent
        cookie = live.cookie
    }

    /// Registers the classes of `list`.
    mutating func register(_ list: [ObjectSchema]) {
        for schema in list {
            byType[ObjectIdentifier(schema.type)] = schema
            byName[schema.className] = schema
        }
    }

    /// Registers classes that have no table (a read-only vault): they read as empty.
    mutating func registerAbsent(_ classNames: [String]) {
        absent.formUnion(classNames)
    }

    /// Forgets classes whose tables went with a rolled-back transaction: registered again when next used.
    mutating func forget(_ classNames: [String]) {
        for className in classNames {
            if let schema = byName.removeValue(forKey: className) { byType[ObjectIdentifier(schema.type)] = nil }
        }
    }

    /// Forgets everything registered and known of the file (it is being deleted and made anew).
    mutating func forgetFile() {
        byType = [:]
        byName = [:]
        absent = []
        cookie = nil
        externalChange = nil
    }
}

/// The observations of a session and the state of their delivery (see
/// Notifications/Vault+Notifications).
///
/// A class, not a struct like the other groups: observations released here can
/// release the last reference to an object taking part in Observation, whose
/// deinit takes it off `tracking`'s list while `observations` is being changed.
///
/// Invariants: `observations` is in registration order (inactive ones are
/// dropped at the next delivery); `silencedTokens` is empty outside
/// `write(withoutNotifying:)` and `commitWrite(withoutNotifying:)`; `tracking`
/// and `trackingToken` are set together, once (the token keeps `tracking`
/// registered in `observations`; see `Vault.trackingObservation()`).
/// `deliveryScheduled` and `isDelivering` are independent flags, not one
/// lifecycle: a commit made by an observer's block during a delivery schedules
/// the next one, so all four combinations occur.
final class ObservationState {
    /// The observations registered on the session, in registration order.
    var observations: [Observation] = []
    /// The tokens whose vault observations do not hear the commit being made
    /// (`write(withoutNotifying:)`); empty outside such a write.
    var silencedTokens: Set<ObjectIdentifier> = []
    /// A delivery is queued on the session's scheduler (not scheduled twice).
    var deliveryScheduled = false
    /// A delivery is running (deliveries do not nest: one asked for inside it returns at once).
    var isDelivering = false
    /// The objects taking part in Observation, registered as an observation at first use
    /// (see Observation/ObservationTracking).
    var tracking: TrackingObservation?
    /// The token that keeps `tracking` registered.
    var trackingToken: NotificationToken?
}
