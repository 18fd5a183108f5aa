import Foundation

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
        /// The vault file (ignored when ``inMemoryIdentifier`` is set).
        public var fileURL: URL?
        /// Keep the vault in memory only, shared by every `Vault` with this identifier.
        public var inMemoryIdentifier: String? {
            didSet { if inMemoryIdentifier != nil { fileURL = nil } }
        }
        /// The 64-byte master key. Every on-disk vault is encrypted: a `nil`
        /// key with no ``keyStore`` is an error (unlike Realm, where nil meant unencrypted).
        public var encryptionKey: Data?
        /// Or load the key from a keystore…
        public var keyStore: (any KeyStore)?
        /// …under this identifier.
        public var keyIdentifier: String?
        /// Open without ever writing; every write throws.
        public var readOnly = false
        /// The version of the code's schema; raise it when the models change.
        public var schemaVersion: UInt64 = 0
        /// Delete the file and start empty when the stored schema differs, instead of failing.
        public var deleteVaultIfMigrationNeeded = false
        /// The model classes this vault stores (linked classes are added automatically).
        /// `nil`: classes are registered on first use.
        public var objectTypes: [ObjectBase.Type]? {
            get { objectTypeList?.types }
            set { objectTypeList = newValue.map(ObjectTypeList.init) }
        }
        private var objectTypeList: ObjectTypeList?

        /// A configuration for an encrypted file.
        public init(fileURL: URL? = nil, inMemoryIdentifier: String? = nil, encryptionKey: Data? = nil,
                    readOnly: Bool = false, schemaVersion: UInt64 = 0,
                    deleteVaultIfMigrationNeeded: Bool = false, objectTypes: [ObjectBase.Type]? = nil) {
            self.fileURL = inMemoryIdentifier == nil ? (fileURL ?? Configuration.defaultFileURL) : nil
            self.inMemoryIdentifier = inMemoryIdentifier
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.deleteVaultIfMigrationNeeded = deleteVaultIfMigrationNeeded
            self.objectTypes = objectTypes
        }

        /// `default.vault` in the application-support directory.
        public static var defaultFileURL: URL {
            let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            return base.appendingPathComponent("default.vault")
        }

        private static let defaultStorage = DefaultConfigurationStorage()

        /// The configuration `Vault()` uses. Set it once at launch.
        public static var defaultConfiguration: Configuration {
            get { defaultStorage.get() }
            set { defaultStorage.set(newValue) }
        }

        /// The storage-core configuration for this vault.
        func databaseConfiguration() throws(VaultError) -> VaultDatabase.Configuration {
            if let inMemoryIdentifier {
                var configuration = VaultDatabase.Configuration(inMemoryIdentifier: inMemoryIdentifier)
                configuration.prepareDatabase = QuerySQLFunctions.register
                return configuration
            }
            guard let fileURL else { throw VaultError.invalidConfiguration("set fileURL or inMemoryIdentifier") }
            var configuration: VaultDatabase.Configuration
            if let encryptionKey {
                configuration = VaultDatabase.Configuration(fileURL: fileURL, masterKey: try MasterKey(bytes: encryptionKey))
            } else if let keyStore, let keyIdentifier {
                configuration = VaultDatabase.Configuration(fileURL: fileURL, keyStore: keyStore, keyIdentifier: keyIdentifier)
            } else {
                throw VaultError.missingKey(path: fileURL.path)
            }
            configuration.readOnly = readOnly
            configuration.prepareDatabase = QuerySQLFunctions.register
            return configuration
        }
    }
}

/// Class metatypes are not Sendable; the list is immutable once set.
private struct ObjectTypeList: @unchecked Sendable {
    let types: [ObjectBase.Type]
}

private final class DefaultConfigurationStorage: @unchecked Sendable {
    private let lock = NSLock()
    private var configuration = Vault.Configuration()
    func get() -> Vault.Configuration { lock.lock(); defer { lock.unlock() }; return configuration }
    func set(_ value: Vault.Configuration) { lock.lock(); configuration = value; lock.unlock() }
}
