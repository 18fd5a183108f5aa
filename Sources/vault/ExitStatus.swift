import ArgumentParser
import Foundation
import VaultCore
import VaultKit

/// The tool's exit codes (sysexits.h values, documented in `vault --help` and the README).
enum ExitStatus {
    static let integrityFailure: Int32 = 65   // EX_DATAERR: tampered, damaged, not a vault
    static let fileNotFound: Int32 = 66       // EX_NOINPUT
    static let ioError: Int32 = 74            // EX_IOERR
    static let inUse: Int32 = 75              // EX_TEMPFAIL: try again when the vault is closed
    static let wrongKey: Int32 = 77           // EX_NOPERM: wrong key or passphrase, unsafe key file
    static let keyFileProblem: Int32 = 78     // EX_CONFIG: damaged, missing or unsupported key file

    static func code(for error: VaultError) -> Int32 {
        switch error {
        case .wrongKey: wrongKey
        case .integrity, .notAVault, .unsupportedFormat: integrityFailure
        case .fileNotFound: fileNotFound
        case .inUse: inUse
        case .keyStore(let keyError): code(for: keyError)
        case .invalidKey, .missingKey: keyFileProblem
        default: ioError
        }
    }

    static func code(for error: KeyStoreError) -> Int32 {
        switch error {
        case .wrongPassphrase, .insecurePermissions: wrongKey
        case .io: ioError
        default: keyFileProblem
        }
    }
}

/// Prints `vault: error: …` on standard error and exits with the matching code.
func fail(_ error: Error) -> ExitCode {
    let message: String
    let code: Int32
    // The object layer's entry points throw Realm's error shape; the tool reports what is underneath.
    let error = (error as? Vault.Error)?.underlyingError ?? error
    switch error {
    case let error as VaultError:
        message = error.description; code = ExitStatus.code(for: error)
    case let error as KeyStoreError:
        message = error.description; code = ExitStatus.code(for: error)
    default:
        message = "\(error)"; code = ExitStatus.ioError
    }
    FileHandle.standardError.write(Data("vault: error: \(message)\n".utf8))
    return ExitCode(code)
}

/// Writes a JSON object to standard output with sorted keys.
func printJSON(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}
