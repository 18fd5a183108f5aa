import Foundation
import VaultCore

extension Vault.Configuration: Equatable, CustomStringConvertible {
    /// Whether both describe the same vault the same way, as Realm compares
    /// configurations: location, key (the same key bytes, compared in constant
    /// time; or the same key store and identifier), read-only, schema version,
    /// `deleteVaultIfMigrationNeeded`, durability, the model classes and the sync section. Blocks
    /// (`migrationBlock`, `shouldCompactOnLaunch`) cannot be compared and are not.
    public static func == (lhs: Vault.Configuration, rhs: Vault.Configuration) -> Bool {
        let sameKey: Bool
        switch (lhs.masterKey, rhs.masterKey) {
        case (nil, nil): sameKey = true
        case let (left?, right?): sameKey = left.isSameKey(as: right)
        default: sameKey = false
        }
        let sameKeyStore = lhs.keyIdentifier == rhs.keyIdentifier && (lhs.keyStore == nil) == (rhs.keyStore == nil)
        let types = { (configuration: Vault.Configuration) in configuration.objectTypes.map { $0.map { ObjectIdentifier($0) } } }
        return lhs.fileURL?.standardizedFileURL == rhs.fileURL?.standardizedFileURL
            && lhs.inMemoryIdentifier == rhs.inMemoryIdentifier
            && sameKey && sameKeyStore
            && lhs.readOnly == rhs.readOnly
            && lhs.schemaVersion == rhs.schemaVersion
            && lhs.deleteVaultIfMigrationNeeded == rhs.deleteVaultIfMigrationNeeded
            && lhs.durability == rhs.durability
            && lhs.seedFilePath == rhs.seedFilePath
            && types(lhs) == types(rhs)
            && VaultSyncActivation.same(lhs.syncSettings, rhs.syncSettings)
    }

    /// The configuration without its key: where, how, and which classes.
    public var description: String {
        var parts: [String] = []
        if let inMemoryIdentifier { parts.append("inMemoryIdentifier: \(inMemoryIdentifier)") }
        if let fileURL { parts.append("fileURL: \(fileURL.path)") }
        parts.append("encryptionKey: \(masterKey == nil ? (keyIdentifier.map { "from key store (\($0))" } ?? "none") : "set (redacted)")")
        parts.append("readOnly: \(readOnly)")
        parts.append("schemaVersion: \(schemaVersion)")
        parts.append("deleteVaultIfMigrationNeeded: \(deleteVaultIfMigrationNeeded)")
        if let objectTypes { parts.append("objectTypes: [\(objectTypes.map { String(describing: $0) }.joined(separator: ", "))]") }
        return "Vault.Configuration(\(parts.joined(separator: ", ")))"
    }
}
