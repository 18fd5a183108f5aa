import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on `<vault>.lock` that says "this vault is open".
///
/// Every ``VaultDatabase`` holds it shared for its lifetime; operations that
/// replace the vault file (rekey) or change which key opens it take it
/// exclusively, and so refuse while any process has the vault open. SQLite's
/// own locks cannot say this: an idle WAL connection holds no lock on the
/// database file.
///
/// `flock(2)` on a separate file, not `fcntl` on the database: closing any
/// descriptor of a file drops every `fcntl` lock the process holds on it, which
/// would silently release SQLite's own locks (sqlite.org/howtocorrupt.html §2.2).
/// `@unchecked Sendable` is safe: the descriptor is immutable, and only `deinit` releases it.
final class VaultUseLock: @unchecked Sendable {
    enum Mode { case shared, exclusive }

    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    static func lockPath(forVault path: String) -> String { path + ".lock" }

    /// Whether the locked file is still the one at `vaultPath`'s lock path. A lock file that
    /// another process may delete (a build's, see `VaultCreation.removeAbandonedBuilds`) can
    /// be unlinked between its `open` and its `flock`: a lock on the unlinked file protects
    /// nothing, so its holder checks this and takes the lock again.
    func isLinked(forVault vaultPath: String) -> Bool {
        var locked = stat(), named = stat()
        guard fstat(descriptor, &locked) == 0, stat(Self.lockPath(forVault: vaultPath), &named) == 0 else { return false }
        return locked.st_ino == named.st_ino && locked.st_dev == named.st_dev
    }

    /// Takes the lock without waiting.
    /// - Returns: `nil` when the lock file cannot be created (a read-only directory);
    ///   the vault then opens without it.
    /// - Throws: ``VaultError/inUse(path:detail:)`` when the lock is held in a conflicting mode.
    static func acquire(vaultPath path: String, mode: Mode) throws(VaultError) -> VaultUseLock? {
        let lockPath = lockPath(forVault: path)
        var descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor < 0 { descriptor = open(lockPath, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            if mode == .exclusive {
                throw VaultError.io(path: lockPath, detail: "cannot create the lock file (\(String(cString: strerror(errno))))")
            }
            return nil
        }
        let operation = (mode == .shared ? LOCK_SH : LOCK_EX) | LOCK_NB
        guard flock(descriptor, operation) == 0 else {
            close(descriptor)
            throw VaultError.inUse(path: path, detail: mode == .shared
                ? "a key rotation or rekey is replacing it right now"
                : "another connection or process has it open")
        }
        return VaultUseLock(descriptor: descriptor)
    }
}
