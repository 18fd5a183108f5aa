import Foundation
import VaultCore

extension Vault {
    // MARK: - Maintenance

    /// Authenticates every page SQLite reaches and runs its integrity check:
    /// the throwing way to find damage before a non-throwing read meets it.
    public func verify() throws {
        try database.verify()
    }

    /// Writes a compacted, encrypted copy to `fileURL`, under `encryptionKey` (or this vault's key).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        try database.writeCopy(toFile: fileURL, encryptionKey: encryptionKey)
    }
}
