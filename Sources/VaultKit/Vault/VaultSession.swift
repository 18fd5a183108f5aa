import Foundation
import VaultCore

/// The state of an open vault on one thread: its connections, the version it
/// reads, its registered schemas and its write transaction.
///
/// Realm hands out one instance per thread and file: `Realm()` called twice on
/// a thread returns the same instance, so everything on that thread reads one
/// version and sees its own writes. `Vault` does the same with handles: every
/// `Vault` opened on a thread for the same file, with a compatible
/// configuration, shares one session. The cache holds sessions weakly: the
/// session closes when the last handle (or managed object, or `Results`)
/// holding it goes.
final class VaultSession {
    let configuration: Vault.Configuration
    private(set) var path: String
    private(set) var database: VaultDatabase
    private let databaseConfiguration: VaultDatabase.Configuration
    /// Where the session may be used (see Threading/Confinement).
    let confinement: Confinement
    /// The thread of a thread-confined session, else 0: the check of every read compares it first.
    let ownerThread: UInt
    /// The session's cache key: the thread that opened it, the serial queue
    /// given to `Vault(configuration:queue:)`, or the actor it was opened on.
    let thread: UInt
    /// The serial queue the session is confined to, if it was opened for one:
    /// deliveries are scheduled there.
    let queue: DispatchQueue?
    /// The actor the session is confined to, if it was opened on one: deliveries hop there.
    let actor: WeakActor?
    /// Set for a frozen session (see Threading/Freezing): it reads one pinned
    /// version, never writes, and serialises its reads behind `frozenLock`.
    let isFrozen: Bool
    /// Whether managed objects read through this session take part in Observation.
    let tracksObservation: Bool
    /// What sync keeps alive while this session is open (see SyncAccess/SyncActivation).
    var syncAttachment: AnyObject?
    /// The frozen sessions made from this one, by version (see Threading/Freezing).
    var frozenSessions: [UInt64: WeakSessionReference] = [:]
    /// Serialises every read of a frozen session (its connection and its caches); recursive, as reads nest.
    let frozenLock = NSRecursiveLock()
    /// File vaults read from snapshots; in-memory vaults (rollback journal) from the writer.
    let readsFromSnapshots: Bool

    // State changed at transaction boundaries, registration and delivery, by
    // concern (see VaultSession+State.swift for each group's invariants).
    /// The first error, capture, serial and registrations of the write transaction.
    var write = WriteState()
    /// The commit read, the snapshot reading it, `autorefresh`.
    var version = VersionState()
    /// The asynchronous writes queued and running.
    var asyncWrites = AsyncWriteQueue()
    /// The registered classes, and what is known of the stored schema under them.
    var schemas = SchemaRegistry()
    /// The observations and their delivery (a class: see ObservationState).
    let observing = ObservationState()

    // State every property read or write touches: stored here, each field its own access.
    /// The write transaction's lifecycle: whether one is open, on which writer and thread.
    /// Read by every setter (`isInWriteTransaction`) and every statement (`withDatabase`).
    var transaction = WriteTransaction.idle
    /// Bumped by every write and when the snapshot moves to another commit: caches key on it.
    /// Read by every property access (within the session's confinement): no dynamic exclusivity check.
    @exclusivity(unchecked) var contentVersion: UInt64 = 1 {
        // Table images hold a class's rows for one version: freed as soon as it passes.
        didSet { if tableImages.count != 0 { tableImages.removeAll() } }
    }
    /// Property writes to the row set last, not yet sent to SQLite (see Vault+PendingUpdates).
    var pendingUpdate: PendingRowUpdate?
    /// Property writes to rows set before it, not yet sent (non-empty only while `pendingUpdate` is set).
    var pendingRows: [PendingRowUpdate] = []
    /// New rows whose INSERT waits to go with others of their class (see Vault+PendingInserts).
    var pendingInserts: PendingInserts?
    /// Rows looked up by primary key at the current content version (see PrimaryKeyCache).
    let primaryKeyCache = PrimaryKeyCache()
    /// Classes' rows in memory at the current content version (see TableImages/TableImage.swift).
    let tableImages = TableImageCache()
    /// Compiled-query templates of this instance (see QueryTemplates).
    /// (Unchecked exclusivity: the session is confined to one thread or actor,
    /// and no access to the cache is held across a call that could reach it again.)
    @exclusivity(unchecked) var queryTemplates = QueryTemplateCache()

    // Notifications (see Notifications/).
    /// Where this file's commits and observers meet in this process.
    let coordinator: ChangeCoordinator
    /// Opened on the main thread: deliveries are scheduled on the main queue.
    let isMainThread: Bool
    /// Where deliveries are scheduled by themselves: the main queue, or the session's queue.
    var deliveryQueue: DispatchQueue? { queue ?? (isMainThread ? DispatchQueue.main : nil) }

    init(configuration: Vault.Configuration, queue: DispatchQueue? = nil, actor: (any Actor)? = nil) throws {
        self.configuration = configuration
        isFrozen = false
        tracksObservation = configuration.observationTracking
        var databaseConfiguration = try configuration.databaseConfiguration()
        // One reader for the session's snapshot, one for each frozen version still
        // alive (see Threading/Freezing), the rest for verify() and writeCopy().
        // Readers open lazily: the limit costs nothing until reached.
        databaseConfiguration.maximumReaderCount = 16
        self.databaseConfiguration = databaseConfiguration
        if case .file = databaseConfiguration.storage { readsFromSnapshots = true } else { readsFromSnapshots = false }
        try Vault.copySeedFileIfNeeded(configuration)
        database = try VaultDatabase(configuration: databaseConfiguration)
        path = database.path
        self.queue = queue
        let onActor = actor.flatMap { $0 is MainActor ? nil : WeakActor($0) }
        self.actor = onActor
        // The main actor is the main queue: a vault opened on the main thread, in main-actor
        // code or in a block of the main queue belongs to the main queue, whichever thread
        // serves it. On Apple platforms that is always the main thread; on Linux, once an
        // async `main` has suspended, it is whichever worker thread libdispatch picks.
        let onMain = queue == nil && onActor == nil
            && (actor is MainActor || Thread.isMainThread || VaultSession.isOnMainQueue)
        if let onActor {
            thread = UInt(bitPattern: onActor.identifier.hashValue)
            confinement = .actor(onActor)
        } else if queue != nil {
            thread = VaultSession.currentConfinement()
            confinement = .queue(thread)
        } else if onMain {
            thread = VaultSession.mainQueueNumber
            confinement = .queue(thread)
        } else {
            thread = currentThreadIdentifier()
            confinement = .thread(thread)
        }
        // The check's fast path: a thread that can run only this domain's code (a plain
        // thread for its own vault; the main thread, which serves only the main queue).
        if case .thread(let owner) = confinement {
            ownerThread = owner
        } else if onMain && Thread.isMainThread {
            ownerThread = currentThreadIdentifier()
        } else {
            ownerThread = 0
        }
        isMainThread = onMain
        coordinator = ChangeCoordinator.shared(for: database.path, isFile: readsFromSnapshots)
    }

    /// A frozen session at the version `live` reads, sharing its snapshot (see Threading/Freezing).
    init(freezing live: VaultSession, snapshot: SharedSnapshot?) {
        configuration = live.configuration
        databaseConfiguration = live.databaseConfiguration
        database = live.database
        path = live.path
        readsFromSnapshots = live.readsFromSnapshots
        queue = nil
        actor = nil
        isFrozen = true
        confinement = .frozen
        tracksObservation = false
        ownerThread = 0
        thread = 0
        isMainThread = false
        coordinator = live.coordinator
        version = VersionState(freezing: live.version, snapshot: snapshot)
        contentVersion = 1
        schemas = SchemaRegistry(freezing: live.schemas)
    }

    /// ``contentVersion``, read by code that must be in the session's domain
    /// (checked, see ``verifyConfinement(_:)``): what caches outside the session
    /// (a managed object's row, a collection's, a statement's objects) key on.
    @inline(__always)
    var checkedContentVersion: UInt64 {
        verifyConfinement("a Vault, or an object or collection read through it,")
        return contentVersion
    }

    /// Stops the program unless the calling code is in the session's domain.
    @inline(__always)
    func verifyConfinement(_ subject: @autoclosure () -> String) {
        // The common case first, without copying the enum (its actor case holds a weak reference).
        if ownerThread != 0 && ownerThread == currentThreadIdentifier() { return }
        verifyConfinementInDomain(subject)
    }

    /// The rest of ``verifyConfinement(_:)``: out of line, so that the check
    /// inlined into every property read stays a load and a compare (inlined,
    /// this part made each reader save and restore registers and a stack frame).
    @inline(never)
    private func verifyConfinementInDomain(_ subject: () -> String) {
        confinement.verify(subject(), path: path)
    }

    /// Sends code to the session's domain, when it has one that code can be
    /// sent to (a queue, the main queue, an actor); nil for a plain thread.
    var scheduler: SessionScheduler? {
        if let actor { return SessionScheduler(queue: nil, actor: actor) }
        return deliveryQueue.map { SessionScheduler(queue: $0, actor: nil) }
    }

    /// Reads `replacement` from now on (a frozen in-memory vault's private copy).
    func replaceDatabase(_ replacement: VaultDatabase) {
        database = replacement
    }

    /// Closes everything, deletes the vault's files and opens a new, empty vault
    /// at the same place (`deleteVaultIfMigrationNeeded`).
    func reopen(deletingFilesAt url: URL) throws {
        version.forgetFile()
        database.close()
        schemas.forgetFile()
        contentVersion &+= 1
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
        database = try VaultDatabase(configuration: databaseConfiguration)
        path = database.path
    }

    deinit {
        coordinator.setWaker(for: ObjectIdentifier(self), nil)
        version.snapshot = nil
        guard !isFrozen else { return }
        // A write transaction left open is rolled back, and the writer given back.
        if let writer = transaction.writer {
            _ = try? writer.execute("ROLLBACK TRANSACTION")
            database.returnWriter(writer)
        }
    }

    // MARK: - The per-thread cache

    /// Marks the serial queues vaults were confined to (`Vault(configuration:queue:)`).
    private static let queueKey = DispatchSpecificKey<UInt>()
    private static let queueNumbers = Locked<UInt>(0)

    /// The confinement of the calling code: the vault queue it runs on, else its thread.
    static func currentConfinement() -> UInt {
        currentQueueNumber() ?? currentThreadIdentifier()
    }

    /// The number of the vault queue the calling code runs on, if any: the main
    /// thread runs the main queue's code, whether or not libdispatch reports it there.
    static func currentQueueNumber() -> UInt? {
        let main = mainQueueNumber   // marks the main queue before it is asked about
        if let number = DispatchQueue.getSpecific(key: queueKey) { return number }
        return Thread.isMainThread ? main : nil
    }

    /// Marks `queue` (once) so that code running on it shares one confinement, whatever thread runs it.
    static func confine(to queue: DispatchQueue) {
        // Under the lock: two first opens on one queue at once must agree on its number.
        queueNumbers.withLock { value in
            guard queue.getSpecific(key: queueKey) == nil else { return }
            value += 1
            // High bit set: never a thread identifier (those are addresses or small numbers).
            queue.setSpecific(key: queueKey, value: value | (1 << (UInt.bitWidth - 1)))
        }
    }

    /// The main queue's number: it is marked the first time a vault asks.
    static let mainQueueNumber: UInt = {
        confine(to: DispatchQueue.main)
        return DispatchQueue.main.getSpecific(key: queueKey) ?? 0
    }()

    /// Whether the calling code runs on the main queue (on Linux, possibly on a worker thread).
    static var isOnMainQueue: Bool {
        let main = mainQueueNumber   // marked first: asked before, the main queue would not know its number
        return DispatchQueue.getSpecific(key: queueKey) == main
    }

    private struct Key: Hashable {
        let thread: UInt
        let location: String
    }

    private static let cache = Locked<[Key: WeakSessionReference]>([:])

    private static func key(_ configuration: Vault.Configuration, thread: UInt) -> Key? {
        location(of: configuration).map { Key(thread: thread, location: $0) }
    }

    /// What names a configuration's vault: its resolved file path, or its in-memory identifier.
    static func location(of configuration: Vault.Configuration) -> String? {
        if let identifier = configuration.inMemoryIdentifier { return "memory:" + identifier }
        return configuration.fileURL?.standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The session this thread has open for the configuration's file, if its
    /// configuration is compatible (otherwise a new session opens and checks everything itself).
    static func cached(for configuration: Vault.Configuration, actor: (any Actor)? = nil) -> VaultSession? {
        let owner = actor.flatMap { $0 is MainActor ? nil : UInt(bitPattern: ObjectIdentifier($0).hashValue) } ?? currentConfinement()
        guard let key = key(configuration, thread: owner) else { return nil }
        guard let session = cache.withLock({ $0[key]?.session }) else { return nil }
        // An actor's address may be reused after it is gone: the session must be that actor's.
        if let actor, !(actor is MainActor), session.actor?.actor !== actor { return nil }
        return session.isCompatible(with: configuration) ? session : nil
    }

    /// Makes `session` the one later opens on this thread share.
    static func remember(_ session: VaultSession) {
        guard !session.isFrozen, let key = key(session.configuration, thread: session.thread) else { return }
        cache.withLock { entries in
            entries = entries.filter { $0.value.session != nil }
            entries[key] = WeakSessionReference(session)
        }
    }

    /// Whether a handle opened with `other` may share this session: the same
    /// key (compared in constant time), read-only flag, schema version and classes.
    private func isCompatible(with other: Vault.Configuration) -> Bool {
        let mine = configuration
        guard mine.readOnly == other.readOnly, mine.schemaVersion == other.schemaVersion,
              mine.observationTracking == other.observationTracking, mine.durability == other.durability,
              mine.inMemoryIdentifier == other.inMemoryIdentifier else { return false }
        switch (mine.objectTypes, other.objectTypes) {
        case (nil, nil): break
        case (let a?, let b?):
            guard Set(a.map(ObjectIdentifier.init)) == Set(b.map(ObjectIdentifier.init)) else { return false }
        default: return false
        }
        if mine.inMemoryIdentifier != nil { return true }
        if let key = mine.masterKey, let otherKey = other.masterKey { return key.isSameKey(as: otherKey) }
        // Keys loaded from a keystore: the same keystore object and identifier.
        guard mine.masterKey == nil, other.masterKey == nil, let store = mine.keyStore, let otherStore = other.keyStore,
              type(of: store) is AnyClass, type(of: otherStore) is AnyClass else { return false }
        return (store as AnyObject) === (otherStore as AnyObject) && mine.keyIdentifier == other.keyIdentifier
    }
}

/// Runs code later in a session's domain: on its serial queue, or isolated to its actor.
struct SessionScheduler: Sendable {
    let queue: DispatchQueue?
    let actor: WeakActor?

    /// Schedules `work`; false when there is nowhere to run it (the actor is gone).
    func schedule(_ work: @escaping @Sendable () -> Void) -> Bool {
        if let actor {
            guard let target = actor.actor else { return false }
            Task { await runIsolated(to: target) { work() } }
            return true
        }
        guard let queue else { return false }
        queue.async(execute: work)
        return true
    }
}
