import Foundation
import VaultCore

// MARK: - Swift concurrency
//
// Actor-isolated vaults. `Vault.open()` (or `Vault(configuration:)` called
// from an actor-isolated method, or `Vault(configuration:actor:)`) confines
// the vault to the caller's actor: it is valid across `await`s on that
// actor, whichever thread runs it next, and its notifications are delivered
// on the actor by themselves. `Vault.open()` first opens the file off the
// actor, so a migration or a compaction on launch does not run on (and
// block) the actor — on the main actor, the UI.
//
// Asynchronous writes. `try await vault.asyncWrite { … }` waits for the
// write lock without blocking a thread: it tries `BEGIN IMMEDIATE` without
// SQLite's busy handler (which would sleep on the thread) and, while another
// connection or process holds the lock, suspends with a short backoff (1 ms,
// doubling to 16 ms) and tries again, up to the busy timeout. Once the lock
// is taken, the block and the commit run at once, synchronously, on the
// vault's actor: nothing else on the actor can interleave between them.
// Other tasks, on this actor and elsewhere, keep running while a write waits;
// the cooperative pool's few threads are never parked on a lock.
//
// `writeAsync(_:onComplete:)` and `beginAsyncWrite`/`commitAsyncWrite` are
// Realm's callback forms: the block runs later in the vault's domain (its
// queue, the main queue, or its actor) once the lock is free, and no run
// loop is needed. A vault confined to a plain thread has no way to be called
// back later, so there they run at once, as `write {}` does.

extension Vault {
    /// Opens the vault confined to the calling actor (Realm's `Realm.open()`):
    /// valid across suspension points on that actor, with notifications
    /// delivered there. The first open of the file (with any migration or
    /// compaction it needs) runs off the actor.
    public static func open(configuration: Configuration = .defaultConfiguration,
                            isolation: isolated (any Actor)? = #isolation) async throws -> Vault {
        // Without an actor the vault would belong to whichever thread ran the end of
        // this function, and the caller may resume on another after the await.
        precondition(isolation != nil, "Vault.open() confines the vault to the calling actor: call it from actor-isolated or @MainActor code (in non-isolated code, use Vault(configuration:) and no await before its last use)")
        if VaultSession.cached(for: configuration, actor: isolation) == nil, configuration.inMemoryIdentifier == nil {
            try await prepareOffActor(configuration)
        }
        return try Vault(configuration: configuration, isolation: isolation)
    }

    /// Opens the vault confined to `actor` (Realm's `Realm(configuration:actor:)`);
    /// call it from code isolated to `actor`.
    public convenience init(configuration: Configuration = .defaultConfiguration, actor: isolated any Actor) async throws {
        if VaultSession.cached(for: configuration, actor: actor) == nil, configuration.inMemoryIdentifier == nil {
            try await Vault.prepareOffActor(configuration)
        }
        try self.init(configuration: configuration, isolation: actor)
    }

    /// Opens the vault on a background queue (running migrations and
    /// compaction there), then calls `callback` on `callbackQueue` with a vault
    /// confined to it — to the main thread when it is the main queue (Realm's `asyncOpen`).
    ///
    /// A vault that syncs is handed out once its session has downloaded
    /// everything the server held when the open began, as Realm's `asyncOpen`
    /// does: a first launch on a new device shows the user's data, not an empty
    /// vault. The wait goes on through disconnections (as Realm's, by default);
    /// a session stopped by a final error (VaultSync's `SyncSessionError`) fails
    /// the open with that error. ``AsyncOpenTask/cancel()`` skips the callback.
    @discardableResult
    public static func asyncOpen(configuration: Configuration = .defaultConfiguration, callbackQueue: DispatchQueue = .main,
                                 callback: @escaping @Sendable (Swift.Result<Vault, Swift.Error>) -> Void) -> AsyncOpenTask {
        let task = AsyncOpenTask()
        @Sendable func deliver(_ failure: Swift.Error?, keepingAlive session: (any Sendable)?) {
            callbackQueue.async {
                defer { withExtendedLifetime(session) {} }
                guard !task.isCancelled else { return }
                if let failure { return callback(.failure(failure)) }
                callback(Swift.Result {
                    if callbackQueue === DispatchQueue.main && Thread.isMainThread {
                        return try Vault(configuration: configuration, isolation: nil)
                    }
                    return try Vault(configuration: configuration, queue: callbackQueue)
                })
            }
        }
        DispatchQueue.global(qos: .userInitiated).async {
            do {
                if configuration.inMemoryIdentifier == nil {
                    let vault = try Vault(configuration: configuration, isolation: nil)
                    if VaultSyncActivation.waitForDownload(vault, completion: { error, session in deliver(error, keepingAlive: session) }) { return }
                }
                deliver(nil, keepingAlive: nil)
            } catch {
                deliver(error, keepingAlive: nil)
            }
        }
        return task
    }

    /// Opens (and closes) the file once on a background thread: creation, migration, compaction.
    private static func prepareOffActor(_ configuration: Configuration) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Swift.Error>) in
            DispatchQueue.global(qos: .userInitiated).async {
                do {
                    _ = try Vault(configuration: configuration, isolation: nil)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Runs `block` in a write transaction and commits it, waiting for the
    /// write lock by suspending rather than blocking a thread. Rolls back and
    /// rethrows if `block` throws or an operation inside it failed.
    ///
    /// For vaults confined to an actor (``open(configuration:isolation:)``) or
    /// to the main actor; call it from there.
    @discardableResult
    public func asyncWrite<Result>(_ block: () throws -> Result,
                                   isolation: isolated (any Actor)? = #isolation) async throws -> Result {
        try await acquireWriteLockSuspending(isolation: isolation)
        return try runningAsyncWriteBlock { try runInOpenTransaction(block) }
    }

    /// Runs `block` in the write transaction just opened, then commits (or rolls back and rethrows).
    /// A block that ended the transaction itself (`cancelWrite()` or `commitWrite()`, as Realm
    /// allows inside `write`) leaves nothing to commit.
    func runInOpenTransaction<Result>(_ block: () throws -> Result) throws -> Result {
        let result: Result
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        if isInWriteTransaction { try commitWrite() }
        return result
    }

    /// How many asynchronous writes of this process are suspended waiting for
    /// this file's write lock right now (a diagnostic: a lasting non-zero
    /// figure means a write transaction is held open somewhere).
    public var asyncWritesWaitingForLock: Int {
        session.coordinator.asyncWritersWaiting.withLock { $0 }
    }

    /// Advances the vault to the latest version, as ``refresh()``, from async code.
    @discardableResult
    public func asyncRefresh(isolation: isolated (any Actor)? = #isolation) async -> Bool {
        refresh()
    }

    /// Opens a write transaction, suspending while another connection holds the lock.
    func acquireWriteLockSuspending(isolation: isolated (any Actor)?) async throws {
        refuseFrozenWrite()
        precondition(session.actor != nil || session.isMainThread,
                     "asyncWrite needs a vault confined to an actor or the main actor (\(path)): open it with Vault.open() inside the actor, or use write { } on this thread")
        guard !isInWriteTransaction else { throw VaultObjectError.alreadyInWriteTransaction }
        let clock = ContinuousClock()
        let deadline = clock.now + session.database.configuration.busyTimeout
        var delay = Duration.milliseconds(1)
        var counted = false
        defer { if counted { session.coordinator.asyncWritersWaiting.withLock { $0 -= 1 } } }
        while try !openWriteTransaction(waiting: false) {
            if !counted {
                counted = true
                session.coordinator.asyncWritersWaiting.withLock { $0 += 1 }
            }
            guard clock.now < deadline else {
                throw VaultObjectError.writeLockTimeout(path: path, seconds: Int(session.database.configuration.busyTimeout.components.seconds))
            }
            try await Task.sleep(for: delay)
            delay = Swift.min(delay * 2, .milliseconds(16))
            session.verifyConfinement("a Vault")
            guard !isInWriteTransaction else { throw VaultObjectError.alreadyInWriteTransaction }
        }
    }
}

/// Returned by ``Vault/asyncOpen(configuration:callbackQueue:callback:)``: cancel to skip the callback.
public final class AsyncOpenTask: Sendable {
    private let cancelled = Locked(false)
    init() {}
    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { cancelled.withLock { $0 } }
    /// Skips the callback if it has not run yet.
    public func cancel() { cancelled.withLock { $0 = true } }
}
