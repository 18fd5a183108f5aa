import Foundation
import VaultCore

extension Vault {
    /// Where a vault lives, how it is encrypted, and which classes it stores —
    /// Realm's `Realm.Configuration`, with the same names.
    ///
    /// ```swift
    /// var config = Vault.Configuration(fileURL: url, encryptionKey: key64)
    /// config.schemaVersion = 1
    /// config.objectTypes = [Person.self, Dog.self]
    /// Vault.Configuration.defaultConfiguration = config      // once, at launch
    /// let vault = try Vault()
    /// ```
    public struct Configuration: Sendable {
        /// The vault file. Setting it clears ``inMemoryIdentifier`` (whichever
        /// is set last wins, as in Realm).
        public var fileURL: URL? {
            didSet {
                if fileURL != nil { inMemoryIdentifier = nil }
                conflictingLocations = false
            }
        }
        /// Keep the vault in memory only, shared by every `Vault` with this
        /// identifier. Setting it clears ``fileURL`` (whichever is set last wins).
        public var inMemoryIdentifier: String? {
            didSet {
                if inMemoryIdentifier != nil { fileURL = nil }
                conflictingLocations = false
            }
        }
        /// Both were given to the initialiser: which one was meant is unknown, so opening refuses.
        private var conflictingLocations = false
        /// The 64-byte master key, as Realm takes it. Every on-disk vault is
        /// encrypted: a `nil` key with no ``keyStore`` is an error (unlike Realm,
        /// where nil meant unencrypted).
        ///
        /// Setting it copies the bytes into a ``MasterKey`` (guarded memory,
        /// wiped when the last configuration holding it goes); the configuration
        /// keeps no `Data`. Swift cannot wipe the caller's `Data`: prefer
        /// ``masterKey`` (for example from a ``KeyStore``). Reading it returns a
        /// copy. A key that is not 64 bytes long is reported when the vault opens.
        public var encryptionKey: Data? {
            get { masterKey.map { key in key.withUnsafeBytes { Data($0) } } }
            set {
                guard let newValue else {
                    masterKey = nil
                    invalidKeyLength = nil
                    return
                }
                do {
                    masterKey = try MasterKey(bytes: newValue)
                    invalidKeyLength = nil
                } catch {
                    masterKey = nil
                    invalidKeyLength = newValue.count
                }
            }
        }
        /// The master key, held in guarded memory from here to the VFS.
        public var masterKey: MasterKey? {
            didSet { if masterKey != nil { invalidKeyLength = nil } }
        }
        /// The length of an `encryptionKey` that could not be a key (thrown at open).
        private var invalidKeyLength: Int?
        /// Or load the key from a keystore…
        public var keyStore: (any KeyStore)?
        /// …under this identifier.
        public var keyIdentifier: String?
        /// Open without ever writing; every write throws.
        public var readOnly = false
        /// A vault file copied to ``fileURL`` when no file is there yet, before
        /// the vault opens (Realm's `seedFilePath`): ship a prepared vault in the
        /// app bundle. It must be a VaultKit vault readable with this
        /// configuration's key (make one with ``Vault/writeCopy(toFile:encryptionKey:)``).
        public var seedFilePath: URL?
        /// When a commit waits for the disk: ``Durability/full`` (the default) or
        /// ``Durability/normal``, SQLite's `synchronous` setting for a write-ahead log.
        public var durability = Durability.full
        /// The version of the code's schema; raise it when the models change.
        public var schemaVersion: UInt64 = 0
        /// Called when the vault opens with a higher ``schemaVersion`` than the
        /// file's, after the new schema is applied, to move data into it (Realm's
        /// `migrationBlock`; see ``Migration``). The whole migration is one
        /// transaction: if it fails the file stays at the old version.
        public var migrationBlock: MigrationBlock?
        /// Asked when the file is first opened in the process, with its size and
        /// the bytes its data occupies; return `true` to compact it before use
        /// (Realm's `shouldCompactOnLaunch`). Not allowed on read-only vaults.
        ///
        /// ```swift
        /// config.shouldCompactOnLaunch = { totalBytes, usedBytes in
        ///     totalBytes > 100 * 1024 * 1024 && Double(usedBytes) / Double(totalBytes) < 0.5
        /// }
        /// ```
        public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)?
        /// Delete the file and start empty when the stored schema differs in a way
        /// that needs a migration, instead of failing — also when `schemaVersion`
        /// was raised: the migration block is then not called (Realm's rule).
        public var deleteVaultIfMigrationNeeded = false
        /// The most versions of the file this process may keep alive at once
        /// (Realm's setting): the latest commit plus every older one a vault on
        /// some thread or queue still reads. `beginWrite()` and `write {}` throw
        /// ``VaultObjectError/tooManyActiveVersions(count:limit:)`` beyond it.
        /// A version kept alive stops checkpoints from copying later commits into
        /// the file, so the write-ahead log grows behind it; a low value in
        /// development finds the idle vault that does it. `nil`: no limit.
        public var maximumNumberOfActiveVersions: UInt?
        /// Whether managed objects take part in Observation: code inside
        /// `withObservationTracking` (a SwiftUI view body, for one) that reads a
        /// property is told when a later version changes it. On by default on
        /// Apple platforms, off elsewhere; it costs a little on every read and
        /// capture on every commit while on (see Benchmarks/README.md, "Objects
        /// with Observation tracking").
        #if canImport(Darwin)
        public var observationTracking = true
        #else
        public var observationTracking = false
        #endif
        /// The model classes this vault stores (linked classes are added automatically).
        /// `nil`: classes are registered on first use.
        public var objectTypes: [ObjectBase.Type]? {
            get { objectTypeList?.types }
            set { objectTypeList = newValue.map(ObjectTypeList.init) }
        }
        private var objectTypeList: ObjectTypeList?
        /// The sync section (`VaultSync`'s `SyncConfiguration`, set through its `sync` property).
        @_spi(VaultSync) public var syncSettings: (any VaultSyncSettings)?

        /// A configuration for an encrypted file.
        public init(fileURL: URL? = nil, inMemoryIdentifier: String? = nil, encryptionKey: Data? = nil,
                    readOnly: Bool = false, schemaVersion: UInt64 = 0, migrationBlock: MigrationBlock? = nil,
                    deleteVaultIfMigrationNeeded: Bool = false,
                    shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)? = nil,
                    objectTypes: [ObjectBase.Type]? = nil, seedFilePath: URL? = nil) {
            self.fileURL = inMemoryIdentifier == nil ? (fileURL ?? Configuration.defaultFileURL) : nil
            self.inMemoryIdentifier = inMemoryIdentifier
            // Realm silently keeps the in-memory one; writes would vanish at close. Refuse instead.
            self.conflictingLocations = fileURL != nil && inMemoryIdentifier != nil
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteVaultIfMigrationNeeded = deleteVaultIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.seedFilePath = seedFilePath
            self.encryptionKey = encryptionKey   // through the setter: copied into a MasterKey
        }

        /// `default.vault` in the application-support directory.
        public static var defaultFileURL: URL {
            let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            return base.appendingPathComponent("default.vault")
        }

        private static let defaultStorage = Locked(Configuration())

        /// The configuration `Vault()` uses. Set it once at launch. (It holds
        /// the key as a ``MasterKey``, never as plain `Data`.)
        public static var defaultConfiguration: Configuration {
            get { defaultStorage.withLock { $0 } }
            set { defaultStorage.withLock { $0 = newValue } }
        }

        /// The storage-core configuration for this vault.
        func databaseConfiguration() throws(VaultError) -> VaultDatabase.Configuration {
            if conflictingLocations {
                throw VaultError.invalidConfiguration("both fileURL and inMemoryIdentifier were given: pass one (a vault is either a file or in memory)")
            }
            if let inMemoryIdentifier {
                var configuration = VaultDatabase.Configuration(inMemoryIdentifier: inMemoryIdentifier)
                configuration.prepareDatabase = ConnectionSetup.prepare
                return configuration
            }
            guard let fileURL else { throw VaultError.invalidConfiguration("set fileURL or inMemoryIdentifier") }
            var configuration: VaultDatabase.Configuration
            try refuseInvalidKeyLength()
            if let masterKey {
                configuration = VaultDatabase.Configuration(fileURL: fileURL, masterKey: masterKey)
            } else if let keyStore, let keyIdentifier {
                configuration = VaultDatabase.Configuration(fileURL: fileURL, keyStore: keyStore, keyIdentifier: keyIdentifier)
            } else {
                throw VaultError.missingKey(path: fileURL.path)
            }
            configuration.readOnly = readOnly
            configuration.synchronous = durability == .full ? .full : .normal
            configuration.prepareDatabase = ConnectionSetup.prepare
            return configuration
        }

        /// Throws for an `encryptionKey` that could not be a key (kept until now, when it is used).
        private func refuseInvalidKeyLength() throws(VaultError) {
            if let invalidKeyLength {
                throw VaultError.invalidKey("a master key must be exactly \(MasterKey.byteCount) bytes; the encryptionKey has \(invalidKeyLength)")
            }
        }

        /// The key a copy written with this configuration is sealed under
        /// (``Vault/writeCopy(configuration:)``): its master key, or the one its key
        /// store holds under ``keyIdentifier``; nil when it names none.
        func keyForCopy() throws -> MasterKey? {
            try refuseInvalidKeyLength()
            if let masterKey { return masterKey }
            if let keyStore, let keyIdentifier { return try keyStore.loadKey(identifier: keyIdentifier) }
            return nil
        }

        /// When a commit waits for the disk (sqlite.org/pragma.html#pragma_synchronous,
        /// in write-ahead-log mode, which file vaults use). In-memory vaults ignore it.
        public enum Durability: Sendable, Equatable {
            /// Every commit fsyncs the write-ahead log before `write` returns: a
            /// commit that returned survives a crash of the process, of the operating
            /// system, and a power failure.
            case full
            /// Commits return without waiting for the disk; the log is fsynced at
            /// checkpoints. A commit survives a crash of the process, but the last
            /// commits before a power failure or an operating-system crash may be
            /// rolled back — the vault stays consistent and opens, at an earlier
            /// version. (SQLite: "a transaction committed in WAL mode with
            /// synchronous=NORMAL might roll back following a power loss or system
            /// crash".) Single-object commits are several times faster.
            case normal
        }
    }
}

/// Class metatypes are not Sendable; this is safe because the list is
/// immutable once set and a metatype has no mutable state of its own.
private struct ObjectTypeList: @unchecked Sendable {
    let types: [ObjectBase.Type]
}
