import Foundation
import VaultCore

/// Names an asynchronous write (Realm's `AsyncTransactionId`), to cancel it
/// with ``Vault/cancelAsyncWrite(_:)`` before it runs.
public typealias AsyncTransactionId = UInt32

// Realm's callback forms of asynchronous writes (see Vault+Concurrency for the design).
extension Vault {
    /// Runs `block` in a write transaction later, in this vault's domain
    /// (its queue, the main queue, or its actor), once the write lock is free
    /// — no thread waits for it meanwhile — then commits and calls
    /// `onComplete` there with the error, if any. Writes run in the order
    /// they were asked for.
    ///
    /// On a vault confined to a plain thread there is no way back to the
    /// thread later: the write runs at once, as ``write(_:)``, and
    /// `onComplete` right after it.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void, onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        enqueueAsyncWrite(commits: true, block, onComplete: onComplete)
    }

    /// Opens a write transaction later, in this vault's domain, once the
    /// write lock is free, and runs `asyncWriteBlock` inside it: the block
    /// ends it with ``commitAsyncWrite(allowGrouping:_:)``, ``commitWrite()``
    /// or ``cancelWrite()`` (Realm's `beginAsyncWrite`); a block that does
    /// neither is cancelled when it returns, as in Realm.
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        enqueueAsyncWrite(commits: false, asyncWriteBlock, onComplete: nil)
    }

    /// Commits the open write transaction and calls `onComplete` afterwards,
    /// in this vault's domain, with the error, if any. `allowGrouping` is
    /// accepted for Realm's signature; every commit is made durable on its own.
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        let id = session.asyncWrites.nextId()
        let outcome: Swift.Error?
        do {
            try commitWrite()
            outcome = nil
        } catch {
            outcome = error
        }
        if let onComplete {
            let transfer = ConfinedTransfer(onComplete)
            if session.scheduler?.schedule({ transfer.value(outcome) }) != true { onComplete(outcome) }
        }
        return id
    }

    /// Cancels an asynchronous write that has not started yet.
    /// - Throws: ``VaultObjectError/unknownAsyncTransaction(_:)`` when it is not pending.
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        session.verifyConfinement("a Vault")
        guard session.asyncWrites.cancel(asyncTransactionId) else {
            throw VaultObjectError.unknownAsyncTransaction(asyncTransactionId)
        }
    }

    /// Whether asynchronous writes are waiting to run or running (inside an
    /// `asyncWrite`, `writeAsync` or `beginAsyncWrite` block too, as in Realm).
    public var isPerformingAsynchronousWriteOperations: Bool {
        session.asyncWrites.isBusy
    }

    /// Runs an asynchronous write's block, counted in ``isPerformingAsynchronousWriteOperations``.
    func runningAsyncWriteBlock<Result>(_ body: () throws -> Result) rethrows -> Result {
        session.asyncWrites.blockStarted()
        defer { session.asyncWrites.blockEnded() }
        return try body()
    }

    private func enqueueAsyncWrite(commits: Bool, _ block: @escaping () -> Void, onComplete: ((Swift.Error?) -> Void)?) -> AsyncTransactionId {
        refuseFrozenWrite()
        let id = session.asyncWrites.nextId()
        guard let scheduler = session.scheduler else {
            // A plain thread: nothing to come back to later.
            runAsyncWrite(commits: commits, block, onComplete: onComplete)
            return id
        }
        session.asyncWrites.enqueue(id)
        let work = ConfinedTransfer((vault: self, block: block, onComplete: onComplete))
        let attempt = AsyncWriteAttempt(scheduler: scheduler) {
            let (vault, block, onComplete) = work.value
            return vault.attemptAsyncWrite(id: id, commits: commits, block, onComplete: onComplete)
        }
        attempt.start()
        return id
    }

    /// One try at a queued asynchronous write, in the vault's domain: false
    /// to be called again later (an earlier write is still queued, or the lock is busy).
    private func attemptAsyncWrite(id: AsyncTransactionId, commits: Bool, _ block: () -> Void, onComplete: ((Swift.Error?) -> Void)?) -> Bool {
        guard session.asyncWrites.pending.contains(id) else {
            session.asyncWrites.finish(id)
            return true   // cancelled
        }
        // In order: an earlier queued write goes first.
        guard session.asyncWrites.isNext(id), !isInWriteTransaction else { return false }
        do {
            guard try openWriteTransaction(waiting: false) else { return false }
        } catch {
            finishAsyncWrite(id)
            onComplete?(error)
            return true
        }
        finishAsyncWrite(id)
        if commits {
            do {
                try runningAsyncWriteBlock { try runInOpenTransaction(block) }
                onComplete?(nil)
            } catch {
                onComplete?(error)
            }
        } else {
            runningAsyncWriteBlock(block)
            // A block that neither committed nor cancelled is cancelled, as Realm's is.
            if isInWriteTransaction { cancelWrite() }
        }
        return true
    }

    private func finishAsyncWrite(_ id: AsyncTransactionId) {
        session.asyncWrites.finish(id)
    }

    /// A write that runs at once (no domain to come back to).
    private func runAsyncWrite(commits: Bool, _ block: () -> Void, onComplete: ((Swift.Error?) -> Void)?) {
        guard commits else {
            beginWrite()
            runningAsyncWriteBlock(block)
            if isInWriteTransaction { cancelWrite() }
            return
        }
        do {
            try runningAsyncWriteBlock { try write { block() } }
            onComplete?(nil)
        } catch {
            onComplete?(error)
        }
    }
}

/// Retries an asynchronous write in its vault's domain until it runs, with a
/// backoff (1 ms doubling to 16 ms) while the write lock is held elsewhere.
private final class AsyncWriteAttempt: Sendable {
    private let scheduler: SessionScheduler
    private let body: @Sendable () -> Bool
    private let delay = Locked(1)

    init(scheduler: SessionScheduler, body: @escaping @Sendable () -> Bool) {
        self.scheduler = scheduler
        self.body = body
    }

    func start() {
        _ = scheduler.schedule { self.run() }
    }

    private func run() {
        guard !body() else { return }
        let milliseconds = delay.withLock { value -> Int in
            defer { value = Swift.min(value * 2, 16) }
            return value
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { self.start() }
    }
}
