import CSQLite
import Foundation

extension VaultDatabase {
    /// A private in-memory copy of this in-memory vault as it is now (its last
    /// commit, or the open transaction's state when called from inside it):
    /// VaultKit's frozen in-memory vaults read one, since an in-memory vault
    /// (rollback-journal mode) cannot hold a version open for long.
    ///
    /// The copy is made with SQLite's online backup (sqlite.org/backup.html),
    /// page by page from this vault's writer connection into the new
    /// database's, all in process memory; it lives as long as the returned
    /// instance and shares nothing with the source afterwards.
    package func makeMemoryCopy() throws -> VaultDatabase {
        guard case .inMemory = openedConfiguration.storage else {
            throw VaultError.invalidConfiguration("makeMemoryCopy is for in-memory vaults")
        }
        var configuration = openedConfiguration
        configuration.storage = .inMemory(identifier: "vaultkit-copy-" + UUID().uuidString)
        configuration.readOnly = false
        let copy = try VaultDatabase(configuration: configuration)
        try withConnection { (source: Database) throws in
            try copy.withConnection { (target: Database) throws in
                guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
                    throw target.error(sqlite3_extended_errcode(target.handle), sql: nil)
                }
                let status = sqlite3_backup_step(backup, -1)
                sqlite3_backup_finish(backup)
                guard status == SQLITE_DONE else { throw target.error(status, sql: nil) }
            }
        }
        return copy
    }
}
