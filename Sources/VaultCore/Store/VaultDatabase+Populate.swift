import Foundation

extension VaultDatabase {
    /// Creates a vault at `configuration`'s file that appears complete or not at all.
    ///
    /// The vault is built under a hidden temporary name in the same directory (with
    /// the same key), `populate` fills it through a ``VaultDatabase`` of its own, the
    /// connections are closed, and the file is fsynced and published under its name
    /// with `link()`, which never replaces a file. If `populate` throws, or the
    /// process dies at any point, the name never holds a vault: at most a hidden
    /// `.<name>.vaultkit-new-…` file is left (deleted here on a throw).
    ///
    /// - Throws: ``VaultError/inUse(path:detail:)`` if a file exists at the path
    ///   (before or by the time the new vault is published; nothing is replaced),
    ///   ``VaultError/invalidConfiguration(_:)`` for an in-memory configuration,
    ///   and whatever `populate` or creating the vault throws.
    public static func createPopulated(configuration: Configuration, _ populate: (VaultDatabase) throws -> Void) throws {
        guard case .file(let url) = configuration.storage else {
            throw VaultError.invalidConfiguration("a vault built and published atomically needs a file URL, not an in-memory identifier")
        }
        let path = url.path
        if FileManager.default.fileExists(atPath: path) {
            throw VaultError.inUse(path: path, detail: "a file already exists there; nothing was written (delete or move it first)")
        }
        let published = try VaultCreation.createAtomically(at: path) { temporaryPath in
            var temporary = configuration
            temporary.storage = .file(URL(fileURLWithPath: temporaryPath))
            temporary.readOnly = false
            let database = try VaultDatabase(configuration: temporary)
            defer { database.close() }
            try populate(database)
            // Everything in the main file, so that the published file is the whole vault.
            try database.writeWithoutTransaction { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
            database.close()
        }
        guard published else {
            throw VaultError.inUse(path: path, detail: "another file appeared there while the vault was being built; nothing was replaced")
        }
    }
}
