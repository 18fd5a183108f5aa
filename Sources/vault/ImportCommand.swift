import ArgumentParser
import Foundation
import VaultCore
import VaultInterchange
import VaultKit

/// `vault import`: a canonical JSON document into a new vault (VaultInterchange does the work).
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create a vault from a JSON document written by `vault export --format json`.",
        discussion: """
        The vault (which must not exist) takes the document's schema and schema version; it
        appears complete or not at all, and an error names the class, object and property
        that failed. The document is read in passes, one object at a time.
        """
    )

    @Argument(help: "The vault to create (must not exist).")
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
            summary = try CanonicalJSONImport.importDocument(at: URL(fileURLWithPath: document), into: configuration)
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
