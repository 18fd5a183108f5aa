import Foundation
import VaultCore

// MARK: - Frozen vaults
//
// A frozen vault is a version that never moves: `vault.freeze()` (or
// `object.freeze()`, `results.freeze()`, …) makes a vault that reads the
// version its live vault reads at that moment, forever, from any thread or
// actor at once. Realm's users freeze to hand data to the UI while a
// background import commits, and to keep a SwiftUI list's snapshot stable
// while rows are deleted under it.
//
// On SQLite a version is a read transaction, so a frozen vault is a session
// that shares its live vault's snapshot (the reader connection inside its
// read transaction, see SharedSnapshot) and never lets it go: when the live
// vault advances, it drops its reference, and the snapshot stays open until
// the last frozen vault, object or collection made at that version is gone.
// Freezing inside a write transaction freezes the version the write started
// from: a snapshot opened while this connection holds the write lock sees
// the last commit, which is that version.
//
// Concurrency. SQLite connections and VaultKit's caches (a `Results`' ids,
// a list's entries) are not thread-safe. A frozen session therefore
// serialises every read (its connection and the caches of its objects and
// collections) behind one recursive lock: reads from many threads are safe
// and see the same values; they take turns on the one connection. Values
// already read (an object's scalar properties, loaded with its row) are
// immutable and read without the lock.
//
// The price is Realm's: a pinned version keeps the WAL from being
// checkpointed past it, so the file grows while frozen data lives. Each
// frozen version is counted with the live snapshots
// (`maximumNumberOfActiveVersions`), and freezing more versions than the
// limit (or than the reader pool holds) stops the program with a message
// naming the limit — release frozen data you no longer need.
//
// In-memory vaults have no snapshots (they run in rollback-journal mode):
// freezing one copies its database, at that moment, into a private
// in-memory database that the frozen vault reads.

extension Vault {
    /// A frozen copy of this vault: it reads the current version forever, may
    /// be read from any thread or actor at once, and refuses writes and
    /// observation. Objects and collections read through it are frozen too.
    ///
    /// Inside a write transaction, the version frozen is the one the write
    /// started from. Frozen data pins its version (the file cannot shrink
    /// past it) until the last frozen object or collection of it is released.
    public func freeze() -> Vault {
        if isFrozen { return self }
        return Vault(sharing: frozenSession())
    }

    /// A live vault for this vault's file, on the calling thread (or vault
    /// queue), at the latest version — for a live vault, `self`.
    public func thaw() -> Vault {
        guard isFrozen else { return self }
        do {
            return try Vault(configuration: configuration, isolation: nil)
        } catch {
            preconditionFailure("Cannot thaw the frozen vault at \(path): opening it again failed: \(error)")
        }
    }

    /// The frozen session at the version this vault reads (one per version, shared while alive).
    func frozenSession() -> VaultSession {
        session.verifyConfinement("a Vault")
        do {
            let snapshot = try snapshotToFreeze()
            let sequence = snapshot?.sequence ?? commitSequence
            // One frozen vault per version: a commit sequence names one version.
            if let cached = session.frozenSessions[sequence]?.session { return cached }
            if let limit = configuration.maximumNumberOfActiveVersions {
                let count = session.coordinator.activeVersionCount(latest: sequence)
                precondition(count <= Int(clamping: limit), VaultObjectError.tooManyActiveVersions(count: count, limit: limit).description)
            }
            let frozen = VaultSession(freezing: session, snapshot: snapshot?.share())
            frozen.version.commitSequence = sequence
            if !session.readsFromSnapshots { try frozen.adoptMemoryCopy(of: session.database) }
            session.frozenSessions = session.frozenSessions.filter { $0.value.session != nil }
            session.frozenSessions[sequence] = WeakSessionReference(frozen)
            return frozen
        } catch {
            preconditionFailure("Cannot freeze the vault at \(path): \(error)")
        }
    }

    /// The snapshot a frozen vault made now shares; `nil` for in-memory vaults.
    private func snapshotToFreeze() throws -> SharedSnapshot? {
        guard session.readsFromSnapshots else { return nil }
        guard isInWriteTransaction else { return try currentSnapshot() }
        // While this connection holds the write lock, a new snapshot sees the last commit: the write's start.
        let opened = try session.database.makeSnapshot()
        let sequence = try opened.read { db in try storedCommitSequence(on: db) }
        return SharedSnapshot(opened, pin: VersionPin(sequence, in: session.coordinator))
    }

    /// Runs a frozen vault's read on its pinned connection, one reader at a time.
    func withFrozenDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        session.frozenLock.lock()
        defer { session.frozenLock.unlock() }
        if let snapshot = session.version.snapshot { return try snapshot.read(body) }
        return try session.database.withConnection(body)
    }

    /// Runs `body` alone among this frozen vault's readers (it fills caches
    /// shared by every thread); for a live vault, just runs it.
    @inline(__always)
    func exclusiveIfFrozen<T>(_ body: () throws -> T) rethrows -> T {
        guard session.isFrozen else { return try body() }
        session.frozenLock.lock()
        defer { session.frozenLock.unlock() }
        return try body()
    }

    /// Stops the program when an observation is registered on a frozen vault (Realm's exception).
    func refuseFrozenObservation() {
        precondition(!session.isFrozen, "Frozen vaults do not change and do not have change notifications (\(path)): observe the live vault, or thaw() first")
    }
}

/// A session held weakly (the per-thread cache, frozen vaults per version).
final class WeakSessionReference {
    weak var session: VaultSession?
    init(_ session: VaultSession) { self.session = session }
}

extension VaultSession {
    /// For a frozen in-memory vault: reads a private copy of the database, made now.
    func adoptMemoryCopy(of source: VaultDatabase) throws {
        replaceDatabase(try source.makeMemoryCopy())
    }
}

// MARK: - Freezing objects and collections

extension ObjectBase {
    /// Whether this object belongs to a frozen vault (unmanaged objects are not frozen).
    public var isFrozen: Bool { manager?.vault.isFrozen ?? false }

    /// A frozen copy of this managed object: its values at the vault's current
    /// version, readable from any thread at once, never changing. A frozen
    /// object is returned as is. Freezing an unmanaged object, or one created
    /// or deleted in the open write transaction, stops the program (Realm's exceptions).
    public func freeze() -> Self {
        guard let manager else { preconditionFailure("Cannot freeze an unmanaged \(type(of: self)) object: add it to a vault first") }
        if manager.vault.isFrozen { return self }
        precondition(!isInvalidated, "Cannot freeze the \(manager.schema.className) object: it was deleted")
        let frozen = manager.vault.freeze()
        guard let copy = frozen.object(className: manager.schema.className, rowID: manager.rowID) as? Self else {
            preconditionFailure("Cannot freeze a \(manager.schema.className) object in the same write transaction as it was created in")
        }
        return copy
    }

    /// The live object this frozen one is, in a vault on the calling thread at
    /// the latest version (`nil` when it was deleted since); a live object is
    /// returned as is. In code isolated to an actor, use ``thaw(in:)`` with
    /// the actor's vault.
    public func thaw() -> Self? {
        guard let manager, manager.vault.isFrozen else { return self }
        return thaw(in: manager.vault.thaw())
    }

    /// The live object this frozen one is, read through `vault` (a live vault
    /// of the same file), advanced first if it reads an older version than the frozen one.
    public func thaw(in vault: Vault) -> Self? {
        guard let manager else { return self }
        precondition(!vault.isFrozen, "thaw(in:) needs a live vault; \(vault.path) is frozen")
        vault.session.verifyConfinement("a Vault")
        if vault.commitSequence < manager.vault.commitSequence && !vault.isInWriteTransaction { vault.refresh() }
        return Self._resolve(_threadHandover(), in: vault)
    }
}

extension Results {
    /// Whether the results read a frozen vault.
    public var isFrozen: Bool { owner.isFrozen }

    /// These results over a frozen copy of the vault: the same query, fixed
    /// at the current version, readable from any thread at once.
    public func freeze() -> Results<Element> {
        if owner.isFrozen { return self }
        guard let frozen = Results._resolve(_threadHandover(), in: owner.freeze()) else {
            preconditionFailure("Cannot freeze the results of \(schema.className): their owner was created in the open write transaction")
        }
        return frozen
    }

    /// Live results of the same query on the calling thread's vault, at the latest version.
    public func thaw() -> Results<Element>? {
        guard owner.isFrozen else { return self }
        return Results._resolve(_threadHandover(), in: owner.thaw())
    }
}
