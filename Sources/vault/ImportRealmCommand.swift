import ArgumentParser
import Foundation
import RealmFileReader
import VaultCore
import VaultKit
import VaultRealmImport

/// `vault import-realm`: a `.realm` file into a new vault (VaultRealmImport does the work).
struct ImportRealmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-realm",
        abstract: "Import a Realm file (plain or encrypted) into a new vault, with the file's own schema.",
        discussion: """
        Reads SOURCE.realm (file formats 22-24: RealmSwift 10.8 and later) without Realm, and writes every class and object into DEST.vault, which must not exist; it appears complete or not at all. An encrypted Realm file needs its 64-byte key in --realm-key-file (the raw 64 bytes, or 128 hex characters). --dry-run reads and checks everything and writes nothing.
        """
    )

    @Argument(help: "The Realm file.")
    var source: String

    @Argument(help: "The vault to create (must not exist).")
    var destination: String

    @OptionGroup var key: KeyOptions

    @Option(name: .long, help: ArgumentHelp("Realm's 64-byte key of an encrypted SOURCE: raw bytes or 128 hex characters.", valueName: "path"))
    var realmKeyFile: String?

    @Flag(name: .long, help: "Read everything and report counts per class; write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Print the summary as JSON.")
    var json = false

    func run() throws {
        guard FileManager.default.fileExists(atPath: source) else { throw fail(VaultError.fileNotFound(path: source)) }
        let realmKey: Data?
        do {
            realmKey = try realmKeyFile.map { try RealmKeyFile.read(at: $0) }
        } catch {
            throw failImport(error)
        }
        let bar = ProgressBar.onTerminal(unless: json, unit: "objects")
        let summary: RealmImportSummary
        do {
            if dryRun {
                summary = try Vault.inspectRealm(at: URL(fileURLWithPath: source), encryptionKey: realmKey, progress: bar.map { bar in { bar.update($0.objectsDone, of: $0.objectsTotal) } })
            } else {
                var configuration = Vault.Configuration(fileURL: URL(fileURLWithPath: destination))
                configuration.masterKey = try key.loadKey()
                summary = try Vault.importRealm(at: URL(fileURLWithPath: source), encryptionKey: realmKey,
                                                into: configuration, progress: bar.map { bar in { bar.update($0.objectsDone, of: $0.objectsTotal) } })
            }
        } catch {
            bar?.finish()
            throw failImport(error)
        }
        bar?.finish()
        report(summary)
    }

    private func report(_ summary: RealmImportSummary) {
        if json {
            printJSON([
                "source": source,
                "destination": dryRun ? NSNull() : destination as Any,
                "dryRun": dryRun,
                "fileFormat": summary.fileFormatVersion,
                "schemaVersion": summary.schemaVersion,
                "encrypted": summary.wasEncrypted,
                "objects": summary.objectCount,
                "classes": summary.classes.map { ["name": $0.className, "embedded": $0.isEmbedded, "objects": $0.objects] as [String: Any] },
            ])
            return
        }
        let verb = dryRun ? "read (dry run, nothing written)" : "imported into \(destination)"
        print("\(summary.objectCount) objects \(verb) from \(source) (file format \(summary.fileFormatVersion), schema version \(summary.schemaVersion)\(summary.wasEncrypted ? ", encrypted" : ""))")
        for entry in summary.classes {
            print("  \(entry.className): \(entry.isEmbedded ? "embedded" : "\(entry.objects) objects")")
        }
    }
}

/// Prints the error of an import and exits: 65 for a damaged or foreign Realm file (a value or
/// an object it cannot hold, named by class, object and property), 77 for a wrong or missing
/// key, 75 when the destination exists, 66 for a missing source.
func failImport(_ error: Error) -> ExitCode {
    let code: Int32
    let message: String
    switch error {
    case let error as RealmImportError:
        message = error.description
        switch error {
        case .realmFile(let fileError):
            switch fileError {
            case .wrongEncryptionKey, .encryptionKeyRequired, .fileNotEncrypted, .invalidKeyLength: code = ExitStatus.wrongKey
            case .io: code = ExitStatus.ioError
            default: code = ExitStatus.integrityFailure
            }
        case .schemaMismatch, .unsupportedValue, .invalidObject: code = ExitStatus.integrityFailure
        case .destinationExists: code = ExitStatus.inUse
        case .destination: code = ExitStatus.ioError
        }
    case let error as RealmKeyFile.Problem:
        message = error.description
        code = ExitStatus.keyFileProblem
    default:
        return fail(error)
    }
    FileHandle.standardError.write(Data("vault: error: \(message)\n".utf8))
    return ExitCode(code)
}

/// Realm's key file: the raw 64 bytes, or 128 hex characters (whitespace around them ignored).
enum RealmKeyFile {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func read(at path: String) throws -> Data {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw Problem(description: "cannot read the Realm key file \(path)")
        }
        if contents.count == 64 { return contents }
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count == 128 else {
            throw Problem(description: "the Realm key file \(path) holds \(contents.count) bytes: it must hold Realm's 64-byte key, raw or as 128 hex characters")
        }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let h = hexValue(high), let l = hexValue(low) else {
                throw Problem(description: "the Realm key file \(path) is not 128 hex characters")
            }
            bytes.append(h << 4 | l)
        }
        return Data(bytes)
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
