import Foundation
import VaultCore

/// Write transactions (one writer connection held from begin to commit or
/// cancel), the deferred error of a write, and taking in other commits.
extension Vault {
    // MARK: - Transactions

    /// Whether a write transaction is open.
    public var isInWriteTransaction: Bool { session.transaction.isStarted }

    /// Runs `block` in a write transaction and commits it; rolls back and
    /// rethrows if `block` throws or any operation inside it failed.
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        refuseFrozenWrite()
        guard !isInWriteTransaction else { throw VaultObjectError.alreadyInWriteTransaction }
        try openWriteTransaction()
        return try runInOpenTransaction(block)
    }

    /// Opens a write transaction (`BEGIN IMMEDIATE`), first taking in other connections' commits.
    ///
    /// The vault keeps the writer connection for the whole transaction (one
    /// lock, not one per operation); commit or cancel it on the same thread.
    /// Unavailable from async code: an `await` between `beginWrite()` and
    /// `commitWrite()` may resume on another thread while the lock is held.
    ///
    /// It does not throw, as Realm's does not: a failure to open the transaction
    /// (the writer busy past its timeout, another process's migration) is
    /// recorded, the operations until the end of the transaction are skipped,
    /// and ``commitWrite()`` throws it. Beginning a write inside a write is a
    /// programmer error and stops the program, as Realm's exception does.
    @available(*, noasync, message: "a write transaction holds the writer connection on this thread; an await between beginWrite and commitWrite could resume on another. Use write { } (synchronous) instead.")
    public func beginWrite() {
        refuseFrozenWrite()
        precondition(!isInWriteTransaction, "The vault at \(path) is already in a write transaction: commit or cancel it before beginning another")
        do {
            try openWriteTransaction()
        } catch {
            // A transaction that holds nothing and only fails: commitWrite() throws the error.
            session.transaction = .failedToBegin
            session.write.failToBegin(error)
        }
    }

    /// Stops the program for a write on a frozen vault (Realm's exception).
    func refuseFrozenWrite() {
        session.verifyConfinement("a Vault")
        precondition(!session.isFrozen, "Cannot begin a write transaction on a frozen vault (\(path)): frozen vaults never change; thaw() it, or write through a live Vault")
    }

    /// Opens the write transaction, throwing what stops it (see ``beginWrite()``).
    /// With `waiting` false, a writer lock held elsewhere is not waited for:
    /// returns false at once (asynchronous writes suspend and try again).
    @discardableResult
    func openWriteTransaction(waiting: Bool = true) throws -> Bool {
        if let change = session.schemas.externalChange { throw change }
        let database = session.database
        let writer = try database.borrowWriter()
        do {
            if waiting {
                try writer.execute("BEGIN IMMEDIATE TRANSACTION")
            } else {
                guard try writer.tryBeginImmediate() else {
                    database.returnWriter(writer)
                    return false
                }
            }
        } catch {
            database.returnWriter(writer)
            throw error
        }
        session.transaction = .open(writer: writer, thread: currentThreadIdentifier())
        session.write.begin(changes: writer.totalChangesCount)
        // An advance point: the write sees the latest commit, and the snapshot is let go.
        releaseSnapshot()
        do {
            if let change = try externalSchemaChange(on: writer) { throw change }
            move(to: try storedCommitSequence(on: writer))
            try loadRowIDHighWater(on: writer)
            try checkActiveVersions(latest: commitSequence)
        } catch {
            cancelWrite()
            throw error
        }
        // Capture this transaction's changes only while someone observes the file (here
        // or in another process), or sync records its commits (see SyncAccess).
        let observed = session.coordinator.isCapturing
        if observed || commitParticipant != nil {
            let capture = ChangeCapture()
            capture.isForObservers = observed
            writer.setRowChangeObserver(capture.rowObserver)
            session.write.capture = capture
        }
        return true
    }

    /// Ends the write transaction: the writer (if it opened) is given back, on the thread that borrowed it.
    private func endTransaction() {
        if case .open(let writer, let thread) = session.transaction {
            precondition(thread == currentThreadIdentifier(), "A write transaction must end on the thread that began it (Vault at \(path))")
            session.transaction = .idle
            session.database.returnWriter(writer)
        } else {
            session.transaction = .idle
        }
    }

    /// Commits the open write transaction, or rolls it back and throws the first
    /// error an operation inside it recorded.
    @available(*, noasync, message: "a write transaction holds the writer connection on this thread; an await between beginWrite and commitWrite could resume on another. Use write { } (synchronous) instead.")
    public func commitWrite() throws {
        guard isInWriteTransaction else { throw VaultObjectError.notInWriteTransaction("commitWrite()") }
        flushPendingUpdate()
        if let error = session.write.deferredError {
            cancelWrite()
            throw error
        }
        let previousSequence = commitSequence
        var committedSequence = previousSequence
        let capture = endCapture()
        do {
            // Sync records the commit inside the transaction (see SyncAccess).
            if let capture, !configuration.readOnly, let participant = commitParticipant {
                let rows = committedRows(capture.changes)
                if !rows.inserted.isEmpty || !rows.deleted.isEmpty || !rows.written.isEmpty {
                    try participant.vaultWillCommit(self, rows: rows)
                }
            }
            try withDatabase { db in
                // Only a transaction that changed rows is a new version.
                if db.totalChangesCount != session.write.changesAtStart && !configuration.readOnly {
                    committedSequence = try incrementCommitSequence(on: db)
                    // Recorded before COMMIT, so no observer can read this version
                    // before its changes are known; withdrawn if the commit fails.
                    if let capture, capture.isForObservers {
                        session.coordinator.record(capture.changes, sequence: committedSequence)
                        // For observers in other processes (see ChangeLog).
                        if session.coordinator.isFile {
                            try ChangeLog.append(capture.changes, sequence: committedSequence, on: db, schemas: schema(named:))
                        }
                    }
                }
                try db.execute("COMMIT TRANSACTION")
            }
        } catch {
            if committedSequence != previousSequence { session.coordinator.withdraw(sequence: committedSequence) }
            cancelWrite()
            throw error
        }
        session.version.commitSequence = committedSequence
        session.write.commit()
        endTransaction()
        if committedSequence != previousSequence { didCommit() }
    }

    /// Rolls back the open write transaction; objects read afterwards show the stored values.
    @available(*, noasync, message: "a write transaction holds the writer connection on this thread; an await between beginWrite and commitWrite could resume on another. Use write { } (synchronous) instead.")
    public func cancelWrite() {
        guard isInWriteTransaction else { return }
        session.pendingUpdate = nil
        session.pendingRows = []
        dropPendingInserts()
        _ = endCapture()
        // A transaction that failed to begin holds no writer: nothing to roll back.
        if let writer = session.transaction.writer { _ = try? writer.execute("ROLLBACK TRANSACTION") }
        // Tables created by a first use inside the transaction are gone: register those classes again when next used.
        // Objects this transaction inserted are invalidated when next read (their rows are gone).
        session.schemas.forget(session.write.rollBack())
        endTransaction()
        bumpContentVersion()
    }

    /// Records the first error of the current write; `commitWrite` throws it.
    func deferError(_ error: Swift.Error) {
        session.write.recordError(error)
    }

    /// Whether an operation of the current write failed already (later ones are skipped).
    var hasDeferredError: Bool { session.write.deferredError != nil }

    /// Marks every cached value stale (from within the session's domain, checked as every read of the version is).
    func bumpContentVersion() { session.contentVersion = session.checkedContentVersion &+ 1 }

    /// Traps outside a write (a programmer error, as in Realm); false when an earlier operation of this write failed.
    func requireWrite(_ operation: String) -> Bool {
        guard isInWriteTransaction else {
            preconditionFailure("\(operation) needs a write transaction: wrap it in vault.write { … }")
        }
        return session.write.deferredError == nil
    }

    /// Stops capturing on the writer; returns what the transaction changed.
    private func endCapture() -> ChangeCapture? {
        guard let capture = session.write.takeCapture() else { return nil }
        session.transaction.writer?.setRowChangeObserver(nil)
        return capture
    }

    /// A new version was committed through this vault: tell the vault-level
    /// observers now, wake the other observing sessions, schedule our own deliveries.
    private func didCommit() {
        VaultLog.log(.trace, "commit \(commitSequence) on \(path)")
        notifyVaultObservers(.didChange)
        session.coordinator.wakeObservers(except: ObjectIdentifier(session))
        session.coordinator.signalCommit()
        if !session.observing.observations.isEmpty { scheduleDelivery() }
    }
}
