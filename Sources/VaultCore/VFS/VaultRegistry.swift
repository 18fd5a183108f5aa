import CSQLite
import Foundation

/// The keys of one open vault file, shared by its WAL and journal handles.
final class DatabaseKeys: Sendable {
    let fileSalt: [UInt8]
    let pageKey: SecureBytes

    init(fileSalt: [UInt8], pageKey: SecureBytes) {
        self.fileSalt = fileSalt
        self.pageKey = pageKey
    }
}

/// How SQLite's opens find their keys.
///
/// SQLite's `xOpen` carries only a file name, so the VFS needs side channels:
/// - the *open context* (a task-local, bound by the connection around
///   `sqlite3_open_v2` or around a statement that creates a file, such as
///   `VACUUM INTO`) carries the master key and whether a new vault may be
///   created. Nothing outside that scope can open a vault file with it.
/// - the *open databases* table maps a database path to its unlocked page key,
///   so the `-wal` and `-journal` of an open database are sealed with that
///   database's key.
/// - the *failure log* keeps, per thread, the detailed error behind the last
///   result code the VFS returned, so that the connection can throw a typed
///   ``VaultError`` instead of a bare `SQLITE_IOERR`.
enum VaultRegistry {
    /// What the connection tells the VFS about the file it is opening.
    struct OpenContext: Sendable {
        var masterKey: MasterKey
        /// Whether an empty or missing file becomes a new vault.
        var mayCreate: Bool
    }

    @TaskLocal static var openContext: OpenContext?

    private static let openDatabases = Locked<[String: (keys: DatabaseKeys, handles: Int)]>([:])
    private static let failures = Locked<[UInt: VaultError]>([:])

    // MARK: Open databases

    static func retainDatabase(path: String, keys: DatabaseKeys) {
        openDatabases.withLock { table in
            let handles = (table[path]?.handles ?? 0) + 1
            table[path] = (keys, handles)
        }
    }

    static func releaseDatabase(path: String) {
        openDatabases.withLock { table in
            guard let entry = table[path] else { return }
            if entry.handles <= 1 { table[path] = nil } else { table[path] = (entry.keys, entry.handles - 1) }
        }
    }

    static func keys(forDatabase path: String) -> DatabaseKeys? {
        openDatabases.withLock { $0[path]?.keys }
    }

    // MARK: Failure log

    static func recordFailure(_ error: VaultError) {
        let thread = currentThreadIdentifier()
        failures.withLock { $0[thread] = error }
    }

    /// Takes (and clears) the last failure the VFS recorded on this thread.
    static func takeFailure() -> VaultError? {
        let thread = currentThreadIdentifier()
        return failures.withLock { $0.removeValue(forKey: thread) }
    }
}

/// A number that identifies the calling thread while it lives (connections
/// and VaultKit's write transactions belong to one thread at a time).
@inlinable
package func currentThreadIdentifier() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
