import Foundation

/// Everything that can go wrong loading or storing a key, each with what to do.
///
/// No case carries key bytes or a passphrase.
public enum KeyStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No key file exists for the identifier.
    case keyNotFound(identifier: String, path: String)
    /// A key with this identifier exists already (keys are never overwritten silently).
    case keyExists(identifier: String, path: String)
    /// The identifier cannot name a key file.
    case invalidIdentifier(String, reason: String)
    /// Group or others may read or write the key file.
    case insecurePermissions(path: String, mode: UInt16)
    /// The key file is sealed with a passphrase and none was given.
    case passphraseRequired(path: String)
    /// The passphrase does not open the key file.
    case wrongPassphrase(path: String)
    /// The key file is damaged: empty, cut short, or its checksum does not match.
    case corrupt(path: String, reason: String)
    /// The key file was written by a newer format.
    case unsupportedVersion(path: String, version: Int)
    /// The key file holds a key that is not 64 bytes long.
    case wrongKeyLength(path: String, length: Int)
    /// The key file belongs to another identifier (renamed or copied).
    case identifierMismatch(path: String, expected: String, found: String)
    /// The file system refused an operation.
    case io(path: String, detail: String)

    public var description: String {
        switch self {
        case .keyNotFound(let identifier, let path):
            return "No key named '\(identifier)' (expected the file \(path))."
        case .keyExists(let identifier, let path):
            return "A key named '\(identifier)' exists already at \(path); keys are never overwritten. Delete it first, or choose another identifier."
        case .invalidIdentifier(let identifier, let reason):
            return "'\(identifier)' cannot name a key: \(reason)."
        case .insecurePermissions(let path, let mode):
            return "Permissions \(String(format: "%04o", mode)) for '\(path)' are too open: a key file must not be accessible by group or others. Run: chmod 600 '\(path)'"
        case .passphraseRequired(let path):
            return "The key file \(path) is protected by a passphrase; give it with --passphrase-file or --passphrase-stdin (or FileKeyStore(passphrase:))."
        case .wrongPassphrase(let path):
            return "The passphrase does not open the key file \(path)."
        case .corrupt(let path, let reason):
            return "The key file \(path) is damaged: \(reason). Restore it from a backup."
        case .unsupportedVersion(let path, let version):
            return "The key file \(path) uses format version \(version), which this version of VaultKit cannot read."
        case .wrongKeyLength(let path, let length):
            return "The key file \(path) holds a \(length)-byte key; vault master keys are exactly 64 bytes."
        case .identifierMismatch(let path, let expected, let found):
            return "The key file \(path) belongs to the key '\(found)', not '\(expected)' (was it renamed or copied?)."
        case .io(let path, let detail):
            return "I/O error on \(path): \(detail)."
        }
    }
}
