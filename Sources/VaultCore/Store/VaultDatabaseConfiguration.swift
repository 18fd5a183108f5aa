import Foundation

extension VaultDatabase {
    /// Where a vault lives and how its connections behave.
    ///
    /// ```swift
    /// var config = VaultDatabase.Configuration(fileURL: url, masterKey: try MasterKey(bytes: key64))
    /// config.readOnly = true
    /// let vault = try VaultDatabase(configuration: config)
    /// ```
    ///
    /// The defaults favour no loss of committed data (`synchronous = FULL`) and
    /// few decryptions (a 32 MiB page cache per connection).
    public struct Configuration: Sendable {
        /// Where the data lives.
        public enum Storage: Sendable, Equatable {
            /// An encrypted vault file. Its `-wal`, `-shm` and `-journal` sit beside it.
            case file(URL)
            /// Process memory only: connections that use the same identifier share
            /// the data, which disappears when the last one closes. Never touches
            /// the disk and is not encrypted.
            case inMemory(identifier: String)
        }

        /// When SQLite waits for the disk (sqlite.org/pragma.html#pragma_synchronous).
        public enum Synchronous: String, Sendable {
            /// Every commit is fsynced before it returns: no committed transaction
            /// is lost to a crash or a power failure. The default.
            case full = "FULL"
            /// Commits are durable against a crash of the process, but the last
            /// ones may roll back after a power failure. Faster.
            case normal = "NORMAL"
        }

        /// Where SQLite keeps temporary tables, indexes and sorter spills.
        public enum TemporaryStorage: Sendable {
            /// In the process's memory (`temp_store = MEMORY`). The default.
            case memory
            /// In temporary files, each sealed under a random key that never
            /// leaves the process. For sorts larger than memory.
            case sealedFiles
        }

        /// Where the data lives.
        public var storage: Storage
        /// The 64-byte master key of an on-disk vault. An on-disk vault needs
        /// this, or a ``keyStore`` and ``keyIdentifier``.
        public var masterKey: MasterKey?
        /// Where to load the master key from, when ``masterKey`` is `nil`.
        public var keyStore: (any KeyStore)?
        /// The identifier of the master key in ``keyStore``.
        public var keyIdentifier: String?
        /// Open an existing vault without ever writing to it. Every write throws
        /// ``VaultError/readOnly(path:detail:)``; works when the file and its
        /// directory are not writable.
        public var readOnly = false
        /// The durability of commits.
        public var synchronous = Synchronous.full
        /// Bytes of decrypted pages each connection caches. Every cache miss
        /// costs one authenticated decryption, so this is the main read-speed lever.
        public var pageCacheSize = 32 * 1024 * 1024
        /// Dirty bytes a write transaction may hold in the page cache before
        /// SQLite spills pages to the WAL mid-transaction (`PRAGMA cache_spill`).
        /// A spilled page is sealed, then often read back and sealed again at
        /// commit: a high threshold keeps ordinary transactions from paying twice.
        public var spillThreshold = 64 * 1024 * 1024
        /// Where temporary data goes.
        public var temporaryStorage = TemporaryStorage.memory
        /// The largest number of reader connections open at once.
        public var maximumReaderCount = 4
        /// How long a connection waits for a lock before `SQLITE_BUSY`.
        public var busyTimeout: Duration = .seconds(5)
        /// WAL pages after which a checkpoint runs (sqlite.org/pragma.html#pragma_wal_autocheckpoint); 0 turns checkpoints off.
        public var walAutocheckpointPages = 1000
        /// Whether checkpoints run on a background connection instead of inside
        /// the commit that crosses ``walAutocheckpointPages`` (see
        /// BackgroundCheckpointer): commits stay short, and a commit still
        /// checkpoints itself if the WAL reaches four times the threshold,
        /// waiting up to ``busyTimeout`` for a background checkpoint still
        /// running, so that the bound holds on a slow disk too.
        ///
        /// With ``Synchronous/normal`` a commit never waits for the disk, and
        /// moving every checkpoint out makes single-object commits faster. With
        /// ``Synchronous/full`` every commit waits for its sync anyway, and a
        /// checkpoint syncing the database file at the same time makes small
        /// commits slower (figures in Benchmarks/README.md, "Background
        /// checkpoints"), so there only a large commit (one that appended a
        /// quarter of ``walAutocheckpointPages`` or more: a batch import, a bulk
        /// update) leaves its checkpoint to the background; smaller ones
        /// checkpoint in the commit, as SQLite runs them. Vault files only;
        /// in-memory vaults checkpoint as SQLite does.
        public var checkpointsInBackground = true
        /// Runs on every connection the vault opens, after VaultCore configured it:
        /// the place to register SQL functions and collations.
        public var prepareDatabase: (@Sendable (Database) throws -> Void)?

        /// An encrypted vault file.
        public init(fileURL: URL, masterKey: MasterKey?) {
            self.storage = .file(fileURL)
            self.masterKey = masterKey
        }

        /// An encrypted vault file whose key is loaded from a keystore at open.
        public init(fileURL: URL, keyStore: any KeyStore, keyIdentifier: String) {
            self.storage = .file(fileURL)
            self.keyStore = keyStore
            self.keyIdentifier = keyIdentifier
        }

        /// An in-memory vault shared by every connection that uses `identifier`.
        public init(inMemoryIdentifier identifier: String) {
            self.storage = .inMemory(identifier: identifier)
        }

        /// The master key: the one given, or the one loaded from the keystore.
        func resolveMasterKey() throws(VaultError) -> MasterKey? {
            if let masterKey { return masterKey }
            guard let keyStore, let keyIdentifier else { return nil }
            do {
                return try keyStore.loadKey(identifier: keyIdentifier)
            } catch {
                throw VaultError.keyStore(error)
            }
        }

        func validate() throws(VaultError) {
            guard spillThreshold >= 0 else { throw .invalidConfiguration("spillThreshold must not be negative") }
            guard pageCacheSize >= 0 else { throw .invalidConfiguration("pageCacheSize must not be negative") }
            guard maximumReaderCount >= 1 else { throw .invalidConfiguration("maximumReaderCount must be at least 1") }
            guard walAutocheckpointPages >= 0 else { throw .invalidConfiguration("walAutocheckpointPages must not be negative") }
            switch storage {
            case .inMemory(let identifier):
                guard !identifier.isEmpty else { throw .invalidConfiguration("inMemoryIdentifier must not be empty") }
                guard !readOnly else { throw .invalidConfiguration("an in-memory vault cannot be read-only: nothing could ever be written to it") }
            case .file(let url):
                guard url.isFileURL else { throw .invalidConfiguration("fileURL must be a file URL, not \(url.scheme ?? "a relative reference")") }
                guard masterKey != nil || (keyStore != nil && keyIdentifier != nil) else { throw .missingKey(path: url.path) }
            }
        }
    }
}
