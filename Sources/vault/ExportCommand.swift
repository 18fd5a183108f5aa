import ArgumentParser
import Foundation
import VaultCore
import VaultInterchange
import VaultKit

/// `vault export`: every object of a vault in the canonical JSON encoding (VaultInterchange does the work).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every class and object of a vault as JSON or CSV (read-only).",
        discussion: """
        json: the canonical encoding of shared/fixtures/realm/README.md (the VaultInterchange module): classes alphabetical, objects by primary key, dates to the nanosecond; to standard output or --output FILE. `vault import` reads it back.

        csv: one <Class>.csv per class into --output DIR (required), a `name:type` schema header, lossless cells (null is an empty cell, an empty string is "").

        Both stream: memory does not grow with the vault. Output files are created 0600 and never overwritten.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, csv
    }

    @Argument(help: "The vault file.")
    var vault: String

    @OptionGroup var key: KeyOptions

    @Option(name: .long, help: "The output format.")
    var format: Format = .json

    @Option(name: .long, help: ArgumentHelp("json: a file instead of standard output; csv: the directory for the files. Existing files are never overwritten.", valueName: "path"))
    var output: String?

    func validate() throws {
        if format == .csv && output == nil { throw ValidationError("--format csv writes one file per class: give the directory with --output") }
    }

    func run() throws {
        do {
            var configuration = Vault.Configuration(fileURL: URL(fileURLWithPath: vault), readOnly: true)
            configuration.masterKey = try key.loadKey()
            configuration.observationTracking = false
            guard FileManager.default.fileExists(atPath: vault) else { throw VaultError.fileNotFound(path: vault) }
            // Opened without models, at the version it stores: nothing to migrate.
            configuration.schemaVersion = try schemaVersionAtURL(URL(fileURLWithPath: vault), encryptionKey: configuration.encryptionKey)
            let opened = try Vault(configuration: configuration)
            // A bar only when the document does not go to the terminal itself.
            let bar = ProgressBar.onTerminal(unless: output == nil, unit: "objects")
            defer { bar?.finish() }
            let progress = bar.map { bar in { (done: Int, total: Int) in bar.update(done, of: total) } }
            if format == .csv, let output {
                try CSVExport.write(opened, toDirectory: URL(fileURLWithPath: output), progress: progress)
                return
            }
            let handle: FileHandle
            if let output {
                guard !FileManager.default.fileExists(atPath: output),
                      FileManager.default.createFile(atPath: output, contents: nil, attributes: [.posixPermissions: 0o600]),
                      let file = FileHandle(forWritingAtPath: output) else {
                    throw VaultError.io(path: output, detail: "the output file exists or cannot be created (nothing is overwritten)")
                }
                handle = file
            } else {
                handle = FileHandle.standardOutput
            }
            defer { if output != nil { try? handle.close() } }
            try CanonicalJSONExport.write(opened, to: handle, progress: progress)
        } catch let error as ExitCode {
            throw error
        } catch {
            throw fail(error)
        }
    }
}
