import VaultCore

// What `import VaultKit` shows an app: the Realm-style object API, plus the
// storage-core types an app needs to hold keys, choose a keystore, read an
// error or run maintenance. Nothing else of VaultCore (connections,
// statements, SQL functions) is re-exported: an app that wants the SQL layer
// imports VaultCore itself. (Typealiases rather than `@_exported import`,
// which would put every core symbol in every app's autocompletion; VaultKit's
// names shadow VaultCore's, so importing both is not ambiguous.)

/// A vault's 64-byte master key, held in guarded memory and wiped after use.
public typealias MasterKey = VaultCore.MasterKey
/// Where master keys are kept and loaded from.
public typealias KeyStore = VaultCore.KeyStore
/// A keystore of passphrase-wrapped key files in a directory.
public typealias FileKeyStore = VaultCore.FileKeyStore
/// A passphrase that wraps the keys of a ``FileKeyStore``.
public typealias Passphrase = VaultCore.Passphrase
/// How hard a passphrase is stretched.
public typealias PassphraseCost = VaultCore.PassphraseCost
/// The errors of keystores.
public typealias KeyStoreError = VaultCore.KeyStoreError
/// The errors of the storage core: wrong key, integrity, I/O, read-only…
public typealias VaultError = VaultCore.VaultError
/// Where and how an integrity check failed.
public typealias IntegrityFailure = VaultCore.IntegrityFailure
/// A SQLite error the core could not classify further.
public typealias SQLiteError = VaultCore.SQLiteError
/// Offline maintenance: rotate a master key, rekey, inspect, verify.
public typealias VaultMaintenance = VaultCore.VaultMaintenance
/// The cipher suite a vault is sealed with.
public typealias CipherSuite = VaultCore.CipherSuite
