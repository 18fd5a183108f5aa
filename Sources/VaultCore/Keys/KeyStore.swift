/// Where master keys live, by identifier.
///
/// Keys come back as ``MasterKey`` (guarded memory, wiped when released),
/// never as a `Data` copy that lingers. ``FileKeyStore`` is the file-based
/// implementation; an app can adopt the protocol for the platform keychain or
/// a hardware-backed store.
///
/// ```swift
/// let store = try FileKeyStore(directory: keysDirectory)
/// var config = VaultDatabase.Configuration(fileURL: vaultURL, keyStore: store, keyIdentifier: "main")
/// ```
public protocol KeyStore: Sendable {
    /// Loads the key named `identifier`.
    func loadKey(identifier: String) throws(KeyStoreError) -> MasterKey
    /// Stores `key` under `identifier`. Never replaces an existing key.
    func storeKey(_ key: MasterKey, identifier: String) throws(KeyStoreError)
    /// Deletes the key named `identifier`.
    func deleteKey(identifier: String) throws(KeyStoreError)
    /// The identifiers of every stored key, sorted.
    func keyIdentifiers() throws(KeyStoreError) -> [String]
}
