// `import VaultKit` is enough: the storage-core types an app needs
// (MasterKey, KeyStore, FileKeyStore, VaultError, …) come with it.
@_exported import VaultCore
