import Foundation

/// Every error the storage core throws.
///
/// Each case carries what a person needs to act: the file, the page, what to
/// do next. No case ever carries key material, a passphrase or stored values;
/// SQL text appears only as the statement (arguments are always bound, so
/// they are never part of it).
///
/// ```swift
/// do {
///     let db = try VaultDatabase(configuration: config)
/// } catch VaultError.wrongKey(let path) {
///     print("\(path) is encrypted with another key")
/// } catch let VaultError.integrity(failure) {
///     print("tampered or damaged: \(failure)")
/// }
/// ```
public enum VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key given is not a valid master key (for example, not 64 bytes long).
    case invalidKey(String)
    /// An on-disk vault was configured without a key.
    case missingKey(path: String)
    /// The key does not unlock this vault (its data key failed to unwrap).
    case wrongKey(path: String)
    /// The file exists but is not a VaultKit vault (empty, plain SQLite, random bytes, a truncated header).
    case notAVault(path: String, reason: String)
    /// The vault was written by a newer format or cipher suite than this library knows.
    case unsupportedFormat(path: String, detail: String)
    /// A page, frame or header failed authentication, or the file was cut short:
    /// the bytes on disk are not what this vault wrote.
    case integrity(IntegrityFailure)
    /// A write was attempted on a vault opened read-only, or the file cannot be written.
    case readOnly(path: String, detail: String)
    /// No vault exists at the path and the configuration does not allow creating one.
    case fileNotFound(path: String)
    /// The configuration is inconsistent (the message says which setting to change).
    case invalidConfiguration(String)
    /// SQLite reported an error.
    case sqlite(SQLiteError)
    /// An operating-system I/O error outside SQLite.
    case io(path: String, detail: String)
    /// The library was used against its documented rules (for example, one
    /// connection from two threads at once).
    case misuse(String)
    /// libsodium could not start or a primitive failed unexpectedly.
    case cryptoUnavailable(String)
    /// Loading or storing a key failed.
    case keyStore(KeyStoreError)
    /// Another connection or process has the vault open, and the operation needs it alone.
    case inUse(path: String, detail: String)

    public var description: String {
        switch self {
        case .invalidKey(let reason):
            return "Invalid encryption key: \(reason)."
        case .missingKey(let path):
            return "No encryption key was given for the vault at \(path). On-disk vaults are always encrypted: pass a 64-byte master key (MasterKey.generate() makes one), or a keyStore and keyIdentifier."
        case .wrongKey(let path):
            return "The key does not open the vault at \(path): it was encrypted with a different master key (or its key slots were altered)."
        case .notAVault(let path, let reason):
            return "\(path) is not a VaultKit vault: \(reason)."
        case .unsupportedFormat(let path, let detail):
            return "The vault at \(path) uses a format this version of VaultKit cannot read: \(detail). Open it with a newer VaultKit."
        case .integrity(let failure):
            return failure.description
        case .readOnly(let path, let detail):
            return "The vault at \(path) is read-only: \(detail)."
        case .fileNotFound(let path):
            return "No vault exists at \(path) (read-only vaults are never created; open it read-write once to create it)."
        case .invalidConfiguration(let message):
            return "Invalid configuration: \(message)."
        case .sqlite(let error):
            return error.description
        case .io(let path, let detail):
            return "I/O error on \(path): \(detail)."
        case .misuse(let message):
            return "VaultKit misuse: \(message)."
        case .cryptoUnavailable(let message):
            return "Cryptography unavailable: \(message)."
        case .keyStore(let error):
            return error.description
        case .inUse(let path, let detail):
            return "The vault at \(path) is in use: \(detail). Close every app and process that has it open, then try again."
        }
    }
}

/// Where and how a vault failed authentication.
public struct IntegrityFailure: Sendable, Equatable, CustomStringConvertible {
    /// The file whose bytes failed (the database, its `-wal` or `-journal`).
    public var path: String
    /// What failed: a page, a WAL frame, the header.
    public var location: Location
    /// Why: failed authentication, file cut short, and so on.
    public var reason: String

    /// The unit that failed.
    public enum Location: Sendable, Equatable, CustomStringConvertible {
        /// The vault header block (magic, salt, key slots).
        case header
        /// A database page (1-based, as SQLite numbers pages).
        case databasePage(UInt64)
        /// The WAL header.
        case walHeader
        /// A WAL frame (1-based): its header or its page image.
        case walFrame(UInt64)
        /// A block of a rollback journal (0-based).
        case journalBlock(UInt64)
        /// A block of a temporary file (0-based).
        case temporaryBlock(UInt64)
        /// SQLite's own consistency checks failed after every page authenticated
        /// (for example, whole pages were removed from the end of the file).
        case databaseStructure

        public var description: String {
            switch self {
            case .header: "the vault header"
            case .databasePage(let page): "page \(page)"
            case .walHeader: "the WAL header"
            case .walFrame(let frame): "WAL frame \(frame)"
            case .journalBlock(let block): "journal block \(block)"
            case .temporaryBlock(let block): "temporary-file block \(block)"
            case .databaseStructure: "the database structure"
            }
        }
    }

    public init(path: String, location: Location, reason: String) {
        self.path = path
        self.location = location
        self.reason = reason
    }

    public var description: String {
        "Integrity failure in \(path) at \(location): \(reason). The file was modified outside VaultKit or damaged; nothing was read from it. Restore it from a backup."
    }
}
