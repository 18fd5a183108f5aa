import Foundation

/// One committed version of a vault, held open for reading: a reader
/// connection inside a read transaction.
///
/// In WAL mode a read transaction sees the database as of the last commit
/// before it began, whatever is committed afterwards (sqlite.org/wal.html,
/// "readers … see a consistent snapshot"). Every read through one snapshot
/// therefore sees the same version, and none of them takes a lock or makes a
/// system call to start a transaction of its own — the per-statement WAL
/// read lock of autocommit reads is paid once, when the snapshot opens.
///
/// ```swift
/// let snapshot = try vault.makeSnapshot()
/// let a = try snapshot.read { db in try db.fetchOne("SELECT count(*) FROM note") }
/// // … other connections commit …
/// let b = try snapshot.read { db in try db.fetchOne("SELECT count(*) FROM note") }   // same as a
/// ```
///
/// A snapshot pins its version: while it is open, a checkpoint cannot copy
/// later commits past it into the database file, so the WAL grows. Close it
/// (or let it go) when done; the reader returns to the vault's pool.
///
/// Like ``Database``, a snapshot is used by one thread at a time; it is not
/// `Sendable`.
public final class DatabaseSnapshot {
    private let database: Database
    private var release: ((Database) -> Void)?

    init(database: Database, release: @escaping (Database) -> Void) throws {
        self.database = database
        self.release = release
        do {
            try database.guarded { () throws in
                try database.execute("BEGIN DEFERRED TRANSACTION")
                // A deferred transaction starts reading at its first statement:
                // read now, so the version is fixed at this instant.
                _ = try database.fetchOne("SELECT 1 FROM sqlite_schema LIMIT 1")
            }
        } catch {
            self.release = nil
            if database.isInTransaction { try? database.execute("ROLLBACK TRANSACTION") }
            release(database)
            throw error
        }
    }

    deinit { close() }

    /// Whether the snapshot still holds its version.
    public var isOpen: Bool { release != nil }

    /// Runs `body` on the snapshot's connection. Statements see the snapshot's
    /// version; the connection refuses writes.
    /// - Throws: ``VaultError/misuse(_:)`` after ``close()``.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard isOpen else { throw VaultError.misuse("the snapshot of \(database.path) is closed") }
        return try database.guarded { () throws -> T in try body(database) }
    }

    /// Ends the read transaction and gives the connection back to the vault.
    public func close() {
        guard let release else { return }
        self.release = nil
        if database.isInTransaction { try? database.execute("COMMIT TRANSACTION") }
        release(database)
    }
}

extension VaultDatabase {
    /// Opens a snapshot of the latest committed version on a reader connection.
    ///
    /// Does not wait for a reader: when every reader of the pool
    /// (``Configuration/maximumReaderCount``) is held by other snapshots or
    /// reads, it throws ``VaultError/misuse(_:)`` naming the limit, rather
    /// than block until one is released (a thread holding a snapshot while
    /// waiting for another would wait forever).
    public func makeSnapshot() throws -> DatabaseSnapshot {
        guard let reader = try checkOutReader(waiting: false) else {
            throw VaultError.misuse("too many snapshots of \(path) are open at once (the limit is maximumReaderCount = \(configuration.maximumReaderCount)); close some, or raise the limit")
        }
        return try DatabaseSnapshot(database: reader) { [weak self] reader in
            self?.checkIn(reader)
        }
    }
}
