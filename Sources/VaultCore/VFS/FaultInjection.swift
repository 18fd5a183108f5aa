import CSQLite

// MARK: - Fault injection
//
// SQLite's own practice, for VaultKit's tests: make the Nth I/O call on a
// vault's files fail — a read, a write, a sync, a truncation, a size query or
// a lock — with the error a real disk gives (EIO, ENOSPC, a busy lock), then
// check that the failure surfaced as a typed error, that the vault opens again,
// and that every transaction reported committed is there with its contents.
//
// The hook sits where the vault VFS calls the file system (SealedFile's
// physical I/O, and the sync and lock pass-throughs). Unarmed — always, outside
// the tests that arm it for their own directory — it costs one atomic load per
// I/O call (the number of armed plans); the lock is taken only while a plan is armed.
//
// It exists in debug builds only (`VAULTKIT_TEST_SEAMS`, set by Package.swift for
// the debug configuration). A release build compiles the inert version at the end
// of this file: every hook is an inlined constant, so the VFS carries no plan, no
// lock and no counter.

#if VAULTKIT_TEST_SEAMS

/// Makes a chosen I/O call on files under a directory fail (tests only).
package enum FaultInjection {
    /// The kinds of I/O call that can be made to fail.
    package enum Call: String, Sendable, CaseIterable {
        case read, write, sync, truncate, fileSize, lock
    }

    private struct Plan {
        let pathPrefix: String
        /// Calls still to pass before the failing one (`nil`: count only).
        var remaining: Int?
        var calls = 0
        var failed: Call?
        let diskFull: Bool
        /// Power-loss mode: the failing call is the moment of the crash — every
        /// later call fails too — and writes not yet synced are kept for the
        /// test to drop or tear (see ``UnsyncedWrite``).
        let powerLoss: Bool
        var unsynced: [UnsyncedWrite] = []
    }

    /// A write made since its file's last sync: what was there before it.
    package struct UnsyncedWrite: Sendable {
        package let path: String
        package let offset: Int64
        package let count: Int
        /// The bytes the write replaced (shorter when the write extended the file).
        package let previous: [UInt8]
        /// The file's size before the write.
        package let previousSize: Int64
    }

    /// Armed plans by path prefix (tests arm their own directories, possibly at once).
    private static let plans = Locked<[String: Plan]>([:])
    /// How many plans are armed, readable without the lock (written under it).
    private static let armedCount = AtomicWord()
    /// Whether no plan is armed: the check every I/O call makes first.
    private static var isIdle: Bool { armedCount.load() == 0 }

    /// Counts (and, with `failAt`, fails the `failAt`-th, 1-based) I/O call on files whose path starts with `pathPrefix`.
    package static func arm(pathPrefix: String, failAt: Int?, diskFull: Bool = false, powerLoss: Bool = false) {
        plans.withLock {
            $0[pathPrefix] = Plan(pathPrefix: pathPrefix, remaining: failAt.map { $0 - 1 }, diskFull: diskFull, powerLoss: powerLoss)
            armedCount.store(UInt($0.count))
        }
    }

    /// Disarms; returns how many calls were counted, which one failed, and (power
    /// loss) the writes not synced when it did, oldest first.
    @discardableResult
    package static func disarm(pathPrefix: String) -> (calls: Int, failed: Call?, unsynced: [UnsyncedWrite]) {
        plans.withLock { all in
            let current = all.removeValue(forKey: pathPrefix)
            armedCount.store(UInt(all.count))
            return (current?.calls ?? 0, current?.failed, current?.unsynced ?? [])
        }
    }

    /// The key of the plan covering `path` (one lookup per armed plan; none armed: nothing to do).
    private static func key(for path: String, in all: [String: Plan]) -> String? {
        guard !all.isEmpty else { return nil }
        return all.keys.first { path.hasPrefix($0) }
    }

    /// Power-loss mode: whether writes to `path` are being recorded.
    static func isRecording(_ path: String) -> Bool {
        if isIdle { return false }
        return plans.withLock { all in key(for: path, in: all).flatMap { all[$0] }.map { $0.powerLoss && $0.failed == nil } ?? false }
    }

    /// Records a write about to be made (power-loss mode).
    static func recordWrite(_ write: UnsyncedWrite) {
        if isIdle { return }
        plans.withLock { all in
            if let key = key(for: write.path, in: all) { all[key]?.unsynced.append(write) }
        }
    }

    /// A sync of `path` succeeded: its writes are durable.
    static func didSync(_ path: String) {
        if isIdle { return }
        plans.withLock { all in
            if let key = key(for: path, in: all) { all[key]?.unsynced.removeAll { $0.path == path } }
        }
    }

    /// The error code to return instead of making `call` on `path`, or nil to go ahead.
    static func failure(_ call: Call, path: String) -> Int32? {
        if isIdle { return nil }
        return plans.withLock { all -> Int32? in
            guard let key = key(for: path, in: all), var active = all[key] else { return nil }
            // After a simulated crash nothing reaches the disk any more.
            if active.failed != nil { return active.powerLoss ? SQLITE_IOERR_WRITE_CODE : nil }
            active.calls += 1
            defer { all[key] = active }
            guard let remaining = active.remaining else { return nil }
            if remaining > 0 {
                active.remaining = remaining - 1
                return nil
            }
            active.failed = call
            switch call {
            case .read: return SQLITE_IOERR_READ_CODE
            case .write: return active.diskFull ? SQLITE_FULL : SQLITE_IOERR_WRITE_CODE
            case .sync: return SQLITE_IOERR_FSYNC_CODE
            case .truncate: return SQLITE_IOERR_TRUNCATE_CODE
            case .fileSize: return SQLITE_IOERR_FSTAT_CODE
            case .lock: return SQLITE_BUSY
            }
        }
    }
}

#else

/// Release builds: the hooks the VFS calls, each a constant the optimizer removes.
enum FaultInjection {
    /// The kinds of I/O call the VFS reports.
    enum Call { case read, write, sync, truncate, fileSize, lock }

    @inline(__always) static func didSync(_ path: String) {}
    @inline(__always) static func failure(_ call: Call, path: String) -> Int32? { nil }
}

#endif
