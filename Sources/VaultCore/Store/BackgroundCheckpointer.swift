import CSQLite
import Dispatch

// MARK: - Checkpoints off the commit path
//
// In WAL mode a commit appends pages to the `-wal` file; a checkpoint copies
// them back into the database file so the WAL can start over. SQLite's
// automatic checkpoint runs inside the commit that crosses
// `wal_autocheckpoint` pages: that commit pays for reading every WAL frame
// (here: authenticating and decrypting it), sealing it again for the database
// file, and syncing that file: on an update-heavy workload a large share of
// commit time (see Benchmarks/README.md, "Background checkpoints").
//
// Here the writer connection has no automatic checkpoint. Its WAL hook
// (sqlite.org/c3ref/wal_hook.html), which SQLite calls after each commit with
// the WAL's size in pages, asks for a checkpoint once the WAL holds
// `walAutocheckpointPages`; the checkpoint runs on a connection of its own on a
// background queue, as `PRAGMA wal_checkpoint(PASSIVE)`. PASSIVE never waits
// for a lock: readers and the writer go on while it copies, and it copies only
// what no open reader still needs. Requests coalesce: one checkpoint at a
// time, and a commit made meanwhile asks again if the WAL is still large.
//
// The WAL cannot grow without limit: if a commit finds it at four times the
// threshold (the background checkpoint could not keep up, or it failed), that
// commit checkpoints itself, PASSIVE, inside the hook, as SQLite's own
// automatic checkpoint would. Only one connection may checkpoint at a time,
// so if the background checkpoint is still running (a slow disk: its sync can
// take seconds while commits at NORMAL take microseconds), the commit first
// waits for it, up to the busy timeout. That wait is the back-pressure that
// makes the bound hold; without it a commit would find the checkpoint lock
// taken, do nothing, and the WAL would grow for as long as the disk stayed
// slow. What still grows the WAL is a reader that keeps an old version open
// (no checkpoint may overwrite what it reads), as with SQLite's own
// checkpoints.
//
// With synchronous = FULL every commit waits for its own sync, and a
// checkpoint syncing the database file at the same time slows small commits
// (the syncs compete for the disk). So at FULL the checkpoint a small commit
// brings on stays inside it, as SQLite runs it; only a *large* commit — one
// that by itself appended a quarter of the threshold or more, the batch
// imports and bulk updates — hands its checkpoint to the background
// connection. Such a commit would otherwise pay for authenticating,
// decrypting, resealing and syncing every page it just wrote a second time,
// a large part of a bulk update's write (figures for both sides of this rule
// in Benchmarks/README.md, "Background checkpoints"). The next small commit
// that finds the WAL over the threshold waits (bounded) for that checkpoint
// before checkpointing inline, so the WAL stays bounded.
//
// Crash safety is SQLite's: a checkpoint is an ordinary WAL checkpoint from
// another connection of the same process, exactly what another process's
// connection could do; the power-loss and fault-injection tests run with it.

/// Runs the checkpoints of one vault on a background connection (see above).
///
/// `@unchecked Sendable` is safe: the mutable state is behind `state`'s lock,
/// and the checkpoint connection is used only on `queue`, which is serial.
final class BackgroundCheckpointer: @unchecked Sendable {
    private struct State {
        var isScheduled = false
        var isClosed = false
        var connection: Database?
    }

    /// WAL pages after which a checkpoint is asked for.
    let threshold: Int32
    /// At synchronous = FULL: only a commit that appended ``largeCommitPages``
    /// or more checkpoints in the background; smaller ones checkpoint inline.
    let backgroundForLargeCommitsOnly: Bool
    /// What a commit must append to count as large: a quarter of the threshold.
    var largeCommitPages: Int32 { max(1, threshold / 4) }
    /// The WAL's size at the previous commit (the writer's hook only: one thread at a time).
    private var previousWALPages: Int32 = 0
    /// WAL pages at which a commit checkpoints itself.
    var hardLimit: Int32 { threshold &* 4 }
    private let queue = DispatchQueue(label: "VaultCore.checkpoint", qos: .utility)
    /// Holds a member while a background checkpoint is queued or running.
    private let pending = DispatchGroup()
    /// How long a commit at the hard limit waits for the background checkpoint.
    private let maximumWait: DispatchTimeInterval
    private let state = Locked(State())
    private let openConnection: () throws(VaultError) -> Database
    /// Checkpoints the background connection ran (for tests and benchmarks).
    private let completed = Locked(0)

    /// Marks the queue, so that `close()` called on it (the vault's last
    /// reference released by a checkpoint) does not wait for itself.
    private static let queueKey = DispatchSpecificKey<Bool>()

    init(threshold: Int, backgroundForLargeCommitsOnly: Bool = false, maximumWaitMilliseconds: Int32,
         openConnection: @escaping () throws(VaultError) -> Database) {
        self.threshold = Int32(clamping: max(1, threshold))
        self.backgroundForLargeCommitsOnly = backgroundForLargeCommitsOnly
        self.maximumWait = .milliseconds(Int(max(0, maximumWaitMilliseconds)))
        self.openConnection = openConnection
        queue.setSpecific(key: Self.queueKey, value: true)
    }

    /// How many checkpoints ran in the background so far.
    var backgroundCheckpointCount: Int { completed.withLock { $0 } }

    /// Installs the WAL hook on the writer connection, which keeps the checkpointer alive.
    func install(on writer: Database) {
        // The writer keeps its checkpointer: a connection still borrowed when the
        // vault is released must never call the hook on a freed object.
        writer.hookContext = self
        sqlite3_wal_hook(writer.handle, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by SQLite after each commit on the writer, with the WAL's size.
    fileprivate func didCommit(writer: OpaquePointer?, walPages: Int32) -> Int32 {
        // A WAL smaller than before was restarted: this commit wrote all of it.
        let appended = walPages >= previousWALPages ? walPages &- previousWALPages : walPages
        previousWALPages = walPages
        guard walPages >= threshold else { return SQLITE_OK }
        if walPages >= hardLimit || (backgroundForLargeCommitsOnly && appended < largeCommitPages) {
            // The bound, or a small commit at FULL: this commit checkpoints what it can (PASSIVE: it never
            // waits for a reader or another writer). Its result is not the
            // commit's: the commit is durable already, and a checkpoint that could
            // not finish is simply tried again later. A running background
            // checkpoint holds the checkpoint lock: wait for it (bounded) rather
            // than be refused. It never waits for this thread: PASSIVE takes no
            // lock a committed writer holds.
            _ = pending.wait(timeout: .now() + maximumWait)
            _ = sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return SQLITE_OK
        }
        let schedule = state.withLock { state -> Bool in
            guard !state.isScheduled, !state.isClosed else { return false }
            state.isScheduled = true
            return true
        }
        if schedule {
            pending.enter()
            queue.async {
                defer { self.pending.leave() }
                self.runCheckpoint()
            }
        }
        return SQLITE_OK
    }

    private func runCheckpoint() {
        defer { state.withLock { $0.isScheduled = false } }
        guard let connection = checkpointConnection() else { return }
        do {
            _ = try connection.guarded { () throws(VaultError) -> Row? in try connection.fetchOne("PRAGMA wal_checkpoint(PASSIVE)") }
            completed.withLock { $0 += 1 }
        } catch {
            // Left to the next request, or to the commit at the bound: a failed
            // checkpoint loses nothing (the WAL still holds every commit).
            state.withLock { $0.connection = nil }
        }
    }

    private func checkpointConnection() -> Database? {
        if let existing = state.withLock({ $0.isClosed ? nil : $0.connection }) { return existing }
        guard !state.withLock({ $0.isClosed }), let opened = try? openConnection() else { return nil }
        return state.withLock { state -> Database? in
            guard !state.isClosed else { return nil }
            state.connection = opened
            return opened
        }
    }

    /// Waits for a running checkpoint and closes the background connection.
    func close() {
        state.withLock { $0.isClosed = true }
        if DispatchQueue.getSpecific(key: Self.queueKey) != true { queue.sync {} }
        state.withLock { $0.connection = nil }
    }
}

private let walHook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { box, db, _, pages in
    guard let box else { return SQLITE_OK }
    return Unmanaged<BackgroundCheckpointer>.fromOpaque(box).takeUnretainedValue().didCommit(writer: db, walPages: pages)
}
