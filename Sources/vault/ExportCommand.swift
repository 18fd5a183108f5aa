import ArgumentParser
import Foundation
import VaultCore
import VaultInterchange
import VaultKit

/// `vault export`: every object of a vault in the canonical JSON encoding (VaultInterchange does the work).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every class and object of a vault as JSON (read-only).",
        discussion: """
        The encoding is the canonical one of shared/fixtures/realm/README.md (and of the
        VaultInterchange module): classes alphabetical, objects by primary key, dates to the
        nanosecond. It streams: memory does not grow with the vault.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json
    }

    @Argument(help: "The vault file.")
    var vault: String

    @OptionGroup var key: KeyOptions

    @Option(name: .long, help: "The output format.")
    var format: Format = .json

    @Option(name: .long, help: ArgumentHelp("Write to this file instead of standard output (it must not exist).", valueName: "path"))
    var output: String?

    func run() throws {
        do {
            var configuration = Vault.Configuration(fileURL: URL(fileURLWithPath: vault), readOnly: true)
            configuration.masterKey = try key.loadKey()
            configuration.observationTracking = false
            guard FileManager.default.fileExists(atPath: vault) else { throw VaultError.fileNotFound(path: vault) }
            // Opened without models, at the version it stores: nothing to migrate.
            configuration.schemaVersion = try schemaVersionAtURL(URL(fileURLWithPath: vault), encryptionKey: configuration.encryptionKey)
            let opened = try Vault(configuration: configuration)
            let handle: FileHandle
            if let output {
                guard FileManager.default.createFile(atPath: output, contents: nil, attributes: [.posixPermissions: 0o600]),
                      let file = FileHandle(forWritingAtPath: output) else {
                    throw VaultError.io(path: output, detail: "cannot create the output file")
                }
                handle = file
            } else {
                handle = FileHandle.standardOutput
            }
            defer { if output != nil { try? handle.close() } }
            try CanonicalJSONExport.write(opened, to: handle)
        } catch let error as ExitCode {
            throw error
        } catch {
            throw fail(error)
        }
    }
}
