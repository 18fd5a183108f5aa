import Foundation
import VaultCore

// MARK: - Versions
//
// A vault reads one committed version at a time, as a Realm does: each
// instance sees a consistent snapshot of the file that moves only at defined
// points. On SQLite's WAL a snapshot is a reader connection held inside one
// read transaction (VaultCore's `DatabaseSnapshot`). Between two advance
// points every read of the vault — property getters, `Results`, collections,
// links — runs inside that transaction, so it sees one version whatever other
// connections, threads or processes commit meanwhile. It is also cheaper: an
// autocommit read takes and drops the WAL read lock (two `fcntl` calls) for
// every statement; inside a snapshot that is paid once.
//
// Advance points:
//   - `refresh()`;
//   - `beginWrite()` / `write {}`: the write transaction runs on the writer
//     connection and sees the latest commit; reads inside it see its own
//     uncommitted changes;
//   - after a commit the snapshot opens anew at the next read, so the vault
//     sees its own commit — or a later one, when another connection commits
//     between our COMMIT and that read (stock SQLite cannot open a read
//     transaction at a chosen past version: that needs SQLITE_ENABLE_SNAPSHOT,
//     which Debian's build lacks);
//   - notification delivery with `autorefresh` (Realm's property): a vault
//     that delivers by itself (main thread, serial queue) refreshes first.
//
// The snapshot opens lazily, at the first read after an advance point, so a
// vault that only writes pins nothing.
//
// Version numbers. SQLite's `PRAGMA data_version` is per connection and says
// nothing comparable across connections, so every VaultKit write transaction
// that changes a row increments `commitSequence` in `_vaultkit_metadata`
// before it commits (the same page as the schema version: one row, at most
// one more dirty page). Every snapshot therefore knows exactly which commit
// it reads (`Vault.commitSequence`): the version that change capture and
// notifications key on. A vault written before the sequence existed reads 0
// until its first VaultKit commit.
//
// Caches — a managed object's row, a `Results`' ids and count — are keyed by
// `contentVersion`, which moves on every write through this vault and when
// the snapshot moves to another commit sequence.
//
// In-memory vaults run in rollback-journal mode (the in-memory VFS has no
// wal-index), where a held read transaction would block every writer: they
// read through the writer connection statement by statement, see the latest
// commit, and take in other instances' commits at the same advance points.
//
// Pinning: while a snapshot is open, a checkpoint cannot copy later commits
// past it into the database file, so the WAL grows behind a vault that sits
// at an old version. A vault drops its snapshot at every advance point (its
// own writes included); call `refresh()` on a vault kept idle for long.
// Each snapshot's version is counted by the file's coordinator (a
// VersionPin), and `maximumNumberOfActiveVersions` bounds how many distinct
// versions the process keeps alive: a write that would exceed it throws
// at its start, naming the limit, rather than letting the file grow unseen.
extension Vault {
    /// Runs `body` on the connection reads use: the writer inside this vault's
    /// write transaction, else the vault's snapshot (the writer for in-memory vaults).
    func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        session.verifyConfinement("a Vault")
        if case .open(let writer, let thread) = session.transaction, thread == currentThreadIdentifier() {
            // SQL must see what the objects see: pending new rows and property writes go
            // first (see Vault+PendingInserts and Vault+PendingUpdates).
            if session.pendingUpdate != nil || session.pendingInserts != nil { flushPendingUpdate() }
            return try body(writer)
        }
        if session.isFrozen { return try withFrozenDatabase(body) }
        guard session.readsFromSnapshots else { return try session.database.withConnection(body) }
        return try currentSnapshot().read(body)
    }

    /// Fixes the version that reads see until the next advance point, and
    /// records it as ``commitSequence``: observations start from it and are
    /// delivered at it. A file vault opens its snapshot. An in-memory vault has
    /// no snapshots — its reads always see the latest commit — so its sequence
    /// is read here: otherwise an observation registered on a vault that had
    /// not yet written would start from 0, the first commit after it would
    /// span an uncaptured range, and its modifications would be lost.
    func fixReadVersion() {
        guard session.readsFromSnapshots || session.isFrozen else {
            guard !isInWriteTransaction,
                  let sequence = try? session.database.withConnection({ db in try storedCommitSequence(on: db) }) else { return }
            move(to: sequence)
            return
        }
        _ = try? withDatabase { _ in }
    }

    /// The open snapshot, opening one at the latest commit if there is none.
    func currentSnapshot() throws -> SharedSnapshot {
        if let snapshot = session.version.snapshot { return snapshot }
        let (opened, sequence) = try openSnapshot()
        return install(opened, at: sequence)
    }

    /// A snapshot at the latest commit, with its commit sequence. Throws when
    /// another process changed the schema of this vault's classes (see ExternalSchemaChange).
    private func openSnapshot() throws -> (DatabaseSnapshot, UInt64) {
        if let change = session.schemas.externalChange { throw change }
        let opened = try session.database.makeSnapshot()
        do {
            let sequence = try opened.read { db -> UInt64 in
                if let change = try externalSchemaChange(on: db) { throw change }
                return try storedCommitSequence(on: db)
            }
            return (opened, sequence)
        } catch {
            opened.close()
            throw error
        }
    }

    @discardableResult
    private func install(_ opened: DatabaseSnapshot, at sequence: UInt64) -> SharedSnapshot {
        let shared = SharedSnapshot(opened, pin: VersionPin(sequence, in: session.coordinator))
        session.version.snapshot = shared
        move(to: sequence)
        return shared
    }

    /// Ends the snapshot: the next read opens one at the latest commit (frozen
    /// vaults made at its version keep it open until the last of them goes).
    func releaseSnapshot() {
        guard !session.isFrozen else { return }
        session.version.snapshot = nil
    }

    /// Throws when a new version would keep more alive than `maximumNumberOfActiveVersions`
    /// allows (checked as a write begins, as Realm does).
    func checkActiveVersions(latest: UInt64) throws {
        guard let limit = configuration.maximumNumberOfActiveVersions else { return }
        let count = session.coordinator.activeVersionCount(latest: latest)
        if count > Int(clamping: limit) { throw VaultObjectError.tooManyActiveVersions(count: count, limit: limit) }
    }

    /// Records that the vault now reads commit `sequence`; cached values go stale if it moved.
    func move(to sequence: UInt64) {
        if session.version.move(to: sequence) { bumpContentVersion() }
    }

    /// The commit sequence stored in the file as `db` sees it (0 before the first VaultKit commit).
    func storedCommitSequence(on db: Database) throws -> UInt64 {
        if !session.version.hasCommitSequenceRow {
            // A read-only vault may come from a writer that never created the row.
            guard try db.fetchOne(SystemTables.metadataTableExistsSQL) != nil,
                  try db.fetchOne(SystemTables.selectCommitSequenceSQL) != nil else { return 0 }
            session.version.hasCommitSequenceRow = true
        }
        return UInt64(bitPattern: try db.fetchOne(SystemTables.selectCommitSequenceSQL)?[0].int64 ?? 0)
    }

    /// Increments the commit sequence inside the open write transaction; returns the new value.
    func incrementCommitSequence(on db: Database) throws -> UInt64 {
        try db.cachedStatement(SystemTables.incrementCommitSequenceSQL).execute()
        session.version.hasCommitSequenceRow = true
        return UInt64(bitPattern: try db.fetchOne(SystemTables.selectCommitSequenceSQL)?[0].int64 ?? 0)
    }

    /// Advances the vault to the latest committed version: later reads see
    /// every commit made before this call, by any connection or process.
    ///
    /// - Returns: whether the vault moved to a different version (Realm's
    ///   contract: `true` may also mean the version changed without data you read changing).
    @discardableResult
    public func refresh() -> Bool {
        session.verifyConfinement("a Vault")
        guard !isInWriteTransaction, !isFrozen else { return false }
        let before = commitSequence
        do {
            if session.readsFromSnapshots {
                // The new version is opened before the old one is let go: if another
                // process changed the schema under this vault's classes, the vault
                // stays at the version it reads (its writes throw migration required).
                let (opened, sequence) = try openSnapshot()
                releaseSnapshot()
                install(opened, at: sequence)
            } else {
                move(to: try session.database.withConnection { db in try storedCommitSequence(on: db) })
            }
        } catch let change as VaultObjectError where session.schemas.externalChange == change {
            return false
        } catch {
            // Reads will meet (and report) the same error; refresh keeps Realm's non-throwing signature.
            releaseSnapshot()
            bumpContentVersion()
            return true
        }
        let moved = commitSequence != before
        if moved { notifyVaultObservers(.didChange) }
        deliverNotifications()
        return moved
    }

    /// Releases the vault's snapshot (so it pins no version) and drops cached
    /// values; an open write transaction is cancelled first, as in Realm. Unlike
    /// Realm, objects and results obtained before stay usable: they reload at the
    /// version of the next read.
    public func invalidate() {
        guard !isFrozen else { return }
        if isInWriteTransaction { cancelWrite() }
        releaseSnapshot()
        bumpContentVersion()
    }
}
