import ArgumentParser
import Foundation
import VaultCore
import VaultInterchange
import VaultKit

/// `vault import`: a canonical JSON document into a new vault (VaultInterchange does the work).
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a JSON document written by `vault export --format json` into a vault.",
        discussion: """
        A new vault takes the document's schema and schema version, and appears complete or not at all. Into an existing vault, the document is merged in one transaction: objects whose primary key the vault holds are updated, the others created, links resolved once every object exists; its classes must be the vault's. Either way an error names the class, object and property that failed, and nothing is written. The document is read in passes, one object at a time.
        """
    )

    @Argument(help: "The vault: created if it does not exist, else merged into.")
    var vault: String

    @Argument(help: "The JSON document.")
    var document: String

    @OptionGroup var key: KeyOptions

    @Flag(name: .long, help: "Print the summary as JSON.")
    var json = false

    func run() throws {
        guard FileManager.default.fileExists(atPath: document) else { throw fail(VaultError.fileNotFound(path: document)) }
        let summary: JSONImportSummary
        do {
            var configuration = Vault.Configuration(fileURL: URL(fileURLWithPath: vault))
            configuration.masterKey = try key.loadKey()
            configuration.observationTracking = false
            let bar = ProgressBar.onTerminal(unless: json, unit: "objects")
            defer { bar?.finish() }
            let progress = bar.map { bar in { (done: Int, total: Int) in bar.update(done, of: total) } }
            if FileManager.default.fileExists(atPath: vault) {
                // Opened without models, at the version it stores: its classes are read from the file.
                configuration.schemaVersion = try schemaVersionAtURL(URL(fileURLWithPath: vault), encryptionKey: configuration.encryptionKey)
                let opened = try Vault(configuration: configuration)
                summary = try CanonicalJSONImport.importDocument(at: URL(fileURLWithPath: document), into: opened, progress: progress)
            } else {
                summary = try CanonicalJSONImport.importDocument(at: URL(fileURLWithPath: document), into: configuration, progress: progress)
            }
        } catch let error as JSONImportError {
            FileHandle.standardError.write(Data("vault: error: \(error.description)\n".utf8))
            switch error {
            case .destinationExists: throw ExitCode(ExitStatus.inUse)
            case .io: throw ExitCode(ExitStatus.ioError)
            default: throw ExitCode(ExitStatus.integrityFailure)
            }
        } catch {
            throw fail(error)
        }
        if json {
            printJSON(["vault": vault, "schemaVersion": summary.schemaVersion, "objects": summary.objectCount,
                       "classes": summary.classes.map { ["name": $0.className, "objects": $0.objects] as [String: Any] }])
        } else {
            print("\(summary.objectCount) objects imported into \(vault) from \(document) (schema version \(summary.schemaVersion))")
        }
    }
}
