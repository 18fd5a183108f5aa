import Foundation
import VaultCore

extension Vault {
    // MARK: - Maintenance

    /// Authenticates every page SQLite reaches and runs its integrity check:
    /// the throwing way to find damage before a non-throwing read meets it.
    public func verify() throws {
        try session.database.verify()
    }

    /// Writes a compacted, encrypted copy to `fileURL`, under `encryptionKey` (or this vault's key).
    /// - Throws: ``Vault/Error`` (`.fileExists` when a file is at `fileURL`: nothing is overwritten).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        do {
            try session.database.writeCopy(toFile: fileURL, encryptionKey: encryptionKey)
        } catch {
            throw Vault.Error.wrapping(error)
        }
    }

    /// Writes a compacted, encrypted copy to the file `configuration` names
    /// (Realm's `writeCopy(configuration:)`), sealed under the configuration's
    /// key: its `masterKey` or `encryptionKey`, or the key its `keyStore` holds
    /// under `keyIdentifier`; this vault's own key when it names none (a vault
    /// file is never written unencrypted). The copy holds this vault's data at
    /// its current version; open it with `configuration`.
    /// - Throws: ``Vault/Error``: `.fileExists` when a file is already there
    ///   (nothing is overwritten); an error naming the problem for an in-memory
    ///   configuration, a key of the wrong length or a key the store does not hold.
    public func writeCopy(configuration: Configuration) throws {
        do {
            guard configuration.inMemoryIdentifier == nil, let url = configuration.fileURL else {
                throw VaultError.invalidConfiguration("writeCopy(configuration:) writes a file: give the configuration a fileURL (an in-memory vault cannot be a copy's destination)")
            }
            try session.database.writeCopy(toFile: url, masterKey: try configuration.keyForCopy())
        } catch {
            throw Vault.Error.wrapping(error)
        }
    }
}

extension Vault {
    /// Realm's `shouldCompactOnLaunch`: asked once per process, when the file
    /// is first opened, with its size and the bytes its live pages hold; `true`
    /// rebuilds it (`VACUUM`, through the encrypting VFS: every rebuilt page is
    /// sealed like any other) and truncates the write-ahead log.
    func compactOnLaunchIfAsked() throws {
        guard let decide = configuration.shouldCompactOnLaunch, session.readsFromSnapshots else { return }
        if configuration.readOnly {
            throw VaultError.invalidConfiguration("shouldCompactOnLaunch cannot be used with a read-only vault (compacting writes the file)")
        }
        guard session.coordinator.claimLaunchCompaction() else { return }
        let (pageCount, freePages, pageSize) = try withDatabase { db in
            (try db.fetchOne("PRAGMA page_count")?[0].int64 ?? 0,
             try db.fetchOne("PRAGMA freelist_count")?[0].int64 ?? 0,
             try db.fetchOne("PRAGMA page_size")?[0].int64 ?? 0)
        }
        let fileBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? Int(pageCount * pageSize)
        let usedBytes = Int((pageCount - freePages) * pageSize)
        guard decide(fileBytes, usedBytes) else { return }
        releaseSnapshot()
        try session.database.writeWithoutTransaction { db in
            try db.execute("VACUUM")
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        VaultLog.log(.info, "compacted \(path) on launch (\(fileBytes) bytes, \(usedBytes) in use)")
    }
}

extension Vault {
    /// Deletes the files of the vault `configuration` names (the database and
    /// its companions), as Realm's `Realm.deleteFiles(for:)`; returns whether
    /// anything was deleted. In-memory configurations have no files: false.
    /// - Throws: ``Vault/Error`` with code `.alreadyOpen` (underneath, `VaultError.inUse`) while
    ///   any vault of that file is open in this process or another (nothing is deleted then).
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        guard configuration.inMemoryIdentifier == nil, let url = configuration.fileURL else { return false }
        do {
            return try VaultMaintenance.deleteFiles(ofVaultAt: url)
        } catch {
            throw Vault.Error.wrapping(error)
        }
    }
}
