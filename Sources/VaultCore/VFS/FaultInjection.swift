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
// the tests that arm it for their own directory — it costs one lock-protected
// check per I/O call, far below the call itself.

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
    }

    private static let plan = Locked<Plan?>(nil)

    /// Counts (and, with `failAt`, fails the `failAt`-th, 1-based) I/O call on files whose path starts with `pathPrefix`.
    package static func arm(pathPrefix: String, failAt: Int?, diskFull: Bool = false) {
        plan.withLock { $0 = Plan(pathPrefix: pathPrefix, remaining: failAt.map { $0 - 1 }, diskFull: diskFull) }
    }

    /// Disarms; returns how many calls were counted and which one failed.
    @discardableResult
    package static func disarm() -> (calls: Int, failed: Call?) {
        plan.withLock { current in
            defer { current = nil }
            return (current?.calls ?? 0, current?.failed)
        }
    }

    /// The error code to return instead of making `call` on `path`, or nil to go ahead.
    static func failure(_ call: Call, path: String) -> Int32? {
        plan.withLock { current -> Int32? in
            guard var active = current, active.failed == nil, path.hasPrefix(active.pathPrefix) else { return nil }
            active.calls += 1
            defer { current = active }
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
