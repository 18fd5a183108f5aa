import Foundation
import VaultCore

// MARK: - Realm's error, spelled Vault.Error
//
// RealmSwift's file-level failures are one type, `Realm.Error` (`RLMError`),
// with a `code` apps switch on: `catch Realm.Error.fileNotFound`,
// `catch let error as Realm.Error where error.code == .schemaMismatch`.
// VaultKit's own errors are richer and typed (`VaultError` from the storage
// core, `VaultObjectError` from the object layer); the entry points Realm's
// error covers — opening a vault, `writeCopy`, `deleteFiles(for:)`,
// `schemaVersionAtURL`, `performMigration(for:)` — throw `Vault.Error`, whose
// `code` is Realm's and whose `underlyingError` is VaultKit's, unchanged.

extension Vault {
    /// A failure of opening, copying, deleting or migrating a vault file, with Realm's
    /// error code (RealmSwift's `Realm.Error`). ``underlyingError`` is VaultKit's typed
    /// error (`VaultError` or ``VaultObjectError``), which says exactly what happened.
    ///
    /// ```swift
    /// do {
    ///     let vault = try Vault(configuration: configuration)
    /// } catch Vault.Error.schemaMismatch {
    ///     // the models changed without a higher schemaVersion
    /// } catch let error as Vault.Error where error.code == .invalidDatabase {
    ///     print(error.underlyingError)        // e.g. VaultError.wrongKey(path:)
    /// }
    /// ```
    public struct Error: Swift.Error, Sendable, CustomStringConvertible, LocalizedError {
        /// Realm's error codes (`RLMError`), with Realm's raw values.
        public enum Code: Int, Sendable, CaseIterable {
            /// A general failure (and VaultKit failures Realm has no code for).
            case fail = 1
            /// An I/O error opening the file.
            case fileAccess = 2
            /// The file or its directory may not be read or written.
            case filePermissionDenied = 3
            /// A file was to be written, and one exists at the path (never overwritten).
            case fileExists = 4
            /// No file at the path (a read-only open, or a copy's directory).
            case fileNotFound = 5
            /// The file needs an upgrade the configuration does not allow.
            case fileFormatUpgradeRequired = 6
            /// Another process holds the file in an incompatible way.
            case incompatibleLockFile = 8
            /// No address space for the file.
            case addressSpaceExhausted = 9
            /// The models differ from the stored schema and need a migration (a higher `schemaVersion`).
            case schemaMismatch = 10
            /// The operation needs the file closed, and a vault has it open.
            case alreadyOpen = 12
            /// An input value was invalid (for example a key of the wrong length).
            case invalidInput = 13
            /// The disk is full.
            case outOfDiskSpace = 14
            /// Another process uses the file in a way that cannot be shared.
            case incompatibleSession = 15
            /// The file was written by a newer format or cipher suite.
            case unsupportedFileFormatVersion = 16
            /// Realm's: a second sync agent on one file. Never thrown by VaultKit (one
            /// sync session per file is shared by every vault of it); kept so a
            /// Realm app's `switch` over the codes compiles.
            case multipleSyncAgents = 17
            /// Realm's: a flexible-sync subscription failed. Never thrown by VaultKit
            /// (its sync has no subscriptions: a space syncs whole).
            case subscriptionFailed = 18
            /// A file operation failed in a way with no more specific code.
            case fileOperationFailed = 19
            /// Not a vault, the wrong key, or damaged (pages that fail authentication).
            case invalidDatabase = 20
            /// Realm's: a synced file opened as a local one, or the reverse. Never
            /// thrown by VaultKit (a vault's sync bookkeeping is tables in the file,
            /// whichever way it is opened).
            case incompatibleHistories = 21
            /// Realm's: a write to a class no flexible-sync subscription covers.
            /// Never thrown by VaultKit (no subscriptions).
            case noSubscriptionForWrite = 22

            /// `catch Vault.Error.fileNotFound`: matches a `Vault.Error` with this code.
            public static func ~= (code: Code, error: any Swift.Error) -> Bool {
                (error as? Vault.Error)?.code == code
            }
        }

        /// Realm's code for the failure.
        public let code: Code
        /// VaultKit's error: a `VaultError` or a ``VaultObjectError``, as thrown underneath.
        public let underlyingError: any Swift.Error & Sendable

        /// An error with `code`, wrapping `underlyingError`.
        public init(_ code: Code, underlyingError: any Swift.Error & Sendable) {
            self.code = code
            self.underlyingError = underlyingError
        }

        /// An error with `code` alone (Realm's `Realm.Error(.fail)`), for code that throws
        /// Realm's errors itself; its description names the code.
        public init(_ code: Code) {
            self.init(code, underlyingError: CodeOnlyError(code: code))
        }

        /// Realm's `errorCode`: the code's raw value.
        public var errorCode: Int { code.rawValue }
        /// The underlying error's sentence.
        public var description: String { "\(underlyingError)" }
        /// The underlying error's sentence (`localizedDescription`).
        public var errorDescription: String? { description }

        // Realm spells the codes as members of the error type: `Realm.Error.fileExists`.
        /// ``Code/fail``.
        public static var fail: Code { .fail }
        /// ``Code/fileAccess``.
        public static var fileAccess: Code { .fileAccess }
        /// ``Code/filePermissionDenied``.
        public static var filePermissionDenied: Code { .filePermissionDenied }
        /// ``Code/fileExists``.
        public static var fileExists: Code { .fileExists }
        /// ``Code/fileNotFound``.
        public static var fileNotFound: Code { .fileNotFound }
        /// ``Code/fileFormatUpgradeRequired``.
        public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
        /// ``Code/incompatibleLockFile``.
        public static var incompatibleLockFile: Code { .incompatibleLockFile }
        /// ``Code/addressSpaceExhausted``.
        public static var addressSpaceExhausted: Code { .addressSpaceExhausted }
        /// ``Code/schemaMismatch``.
        public static var schemaMismatch: Code { .schemaMismatch }
        /// ``Code/alreadyOpen``.
        public static var alreadyOpen: Code { .alreadyOpen }
        /// ``Code/invalidInput``.
        public static var invalidInput: Code { .invalidInput }
        /// ``Code/outOfDiskSpace``.
        public static var outOfDiskSpace: Code { .outOfDiskSpace }
        /// ``Code/incompatibleSession``.
        public static var incompatibleSession: Code { .incompatibleSession }
        /// ``Code/unsupportedFileFormatVersion``.
        public static var unsupportedFileFormatVersion: Code { .unsupportedFileFormatVersion }
        /// ``Code/fileOperationFailed``.
        public static var fileOperationFailed: Code { .fileOperationFailed }
        /// ``Code/invalidDatabase``.
        public static var invalidDatabase: Code { .invalidDatabase }

        /// `error` as a `Vault.Error`: itself if it is one, else wrapped with the code Realm gives it.
        static func wrapping(_ error: any Swift.Error) -> Vault.Error {
            if let error = error as? Vault.Error { return error }
            if let error = error as? VaultObjectError {
                if case .migrationRequired = error { return Vault.Error(.schemaMismatch, underlyingError: error) }
                if case .invalidModel = error { return Vault.Error(.schemaMismatch, underlyingError: error) }
                return Vault.Error(.fail, underlyingError: error)
            }
            guard let error = error as? VaultError else { return Vault.Error(.fail, underlyingError: UnderlyingFailure("\(error)")) }
            return Vault.Error(code(of: error), underlyingError: error)
        }

        private static func code(of error: VaultError) -> Code {
            switch error {
            case .fileNotFound: return .fileNotFound
            case .wrongKey, .notAVault, .integrity: return .invalidDatabase
            case .unsupportedFormat: return .unsupportedFileFormatVersion
            case .invalidKey, .missingKey, .invalidConfiguration: return .invalidInput
            case .inUse: return .alreadyOpen
            case .readOnly: return .filePermissionDenied
            case .keyStore: return .fileAccess
            case .io(_, let detail):
                let text = detail.lowercased()
                if text.contains("already exists") || text.contains("never overwrite") { return .fileExists }
                if text.contains("permission denied") || text.contains("not permitted") { return .filePermissionDenied }
                if text.contains("disk is full") || text.contains("no space") { return .outOfDiskSpace }
                if text.contains("does not exist") || text.contains("no such file") { return .fileNotFound }
                return .fileOperationFailed
            case .sqlite(let failure):
                if failure.code == .full { return .outOfDiskSpace }
                if failure.code == .permission || failure.code == .readOnly { return .filePermissionDenied }
                if failure.code == .notADatabase || failure.code == .corrupt { return .invalidDatabase }
                if failure.code == .cannotOpen || failure.code == .ioError { return .fileAccess }
                return .fail
            case .misuse, .cryptoUnavailable: return .fail
            }
        }

        /// An error of another type, kept as its description.
        struct UnderlyingFailure: Swift.Error, Sendable, CustomStringConvertible {
            let description: String
            init(_ description: String) { self.description = description }
        }
    }
}

extension Vault.Error: Equatable {
    /// Realm's error for a completion that produced neither a result nor an error.
    public static let callFailed = Vault.Error(.fail, underlyingError: VaultError.misuse("Call failed"))

    /// The file the failure concerns, when the underlying error names one (Realm's `fileURL`).
    public var fileURL: URL? {
        guard let error = underlyingError as? VaultError else { return nil }
        switch error {
        case .missingKey(let path), .wrongKey(let path), .notAVault(let path, _), .unsupportedFormat(let path, _),
             .readOnly(let path, _), .fileNotFound(let path), .io(let path, _), .inUse(let path, _):
            return URL(fileURLWithPath: path)
        default:
            return nil
        }
    }

    /// Whether both have the same code (Realm compares codes, not messages).
    public static func == (lhs: Vault.Error, rhs: Vault.Error) -> Bool { lhs.code == rhs.code }
}

/// The underlying error of a ``Vault/Error`` made from a code alone.
struct CodeOnlyError: Swift.Error, Sendable, CustomStringConvertible {
    let code: Vault.Error.Code
    var description: String { "Vault.Error(.\(code))" }
}
