import Foundation
import Testing
import VaultTestSupport

/// The new commands' `--help`, exactly (scripts and the README rely on their spellings).
@Suite("vault import-realm, import and export: --help")
struct CommandHelpTests {
    private func help(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = try builtExecutable("vault")
        process.arguments = [command, "--help"]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func importRealmHelp() throws {
        #expect(try help("import-realm") == """
            OVERVIEW: Import a Realm file (plain or encrypted) into a new vault, with the
            file's own schema.

            Reads SOURCE.realm (file formats 22-24: RealmSwift 10.8 and later) without
            Realm, and writes every class and object into DEST.vault, which must not exist;
            it appears complete or not at all. An encrypted Realm file needs its 64-byte
            key in --realm-key-file (the raw 64 bytes, or 128 hex characters). --dry-run
            reads and checks everything and writes nothing.

            USAGE: vault import-realm <source> <destination> [--key-file <path>] [--keystore <directory>] [--key-id <id>] [--passphrase-file <path>] [--passphrase-stdin] [--realm-key-file <path>] [--dry-run] [--json]

            ARGUMENTS:
              <source>                The Realm file.
              <destination>           The vault to create (must not exist).

            OPTIONS:
              --key-file <path>       A key file (written by `vault keygen --output`).
              --keystore <directory>  A key directory (written by `vault keygen
                                      --keystore`).
              --key-id <id>           The key's identifier in --keystore.
              --passphrase-file <path>
                                      A file holding the key file's passphrase.
              --passphrase-stdin      Read the key file's passphrase from the first line of
                                      standard input.
              --realm-key-file <path> Realm's 64-byte key of an encrypted SOURCE: raw bytes
                                      or 128 hex characters.
              --dry-run               Read everything and report counts per class; write
                                      nothing.
              --json                  Print the summary as JSON.
              -h, --help              Show help information.


            """)
    }

    @Test func importHelp() throws {
        #expect(try help("import") == """
            OVERVIEW: Import a JSON document written by `vault export --format json` into a
            vault.

            A new vault takes the document's schema and schema version, and appears
            complete or not at all. Into an existing vault, the document is merged in one
            transaction: objects whose primary key the vault holds are updated, the others
            created, links resolved once every object exists; its classes must be the
            vault's. Either way an error names the class, object and property that failed,
            and nothing is written. The document is read in passes, one object at a time.

            USAGE: vault import <vault> <document> [--key-file <path>] [--keystore <directory>] [--key-id <id>] [--passphrase-file <path>] [--passphrase-stdin] [--json]

            ARGUMENTS:
              <vault>                 The vault: created if it does not exist, else merged
                                      into.
              <document>              The JSON document.

            OPTIONS:
              --key-file <path>       A key file (written by `vault keygen --output`).
              --keystore <directory>  A key directory (written by `vault keygen
                                      --keystore`).
              --key-id <id>           The key's identifier in --keystore.
              --passphrase-file <path>
                                      A file holding the key file's passphrase.
              --passphrase-stdin      Read the key file's passphrase from the first line of
                                      standard input.
              --json                  Print the summary as JSON.
              -h, --help              Show help information.


            """)
    }

    @Test func exportHelp() throws {
        #expect(try help("export") == """
            OVERVIEW: Write every class and object of a vault as JSON or CSV (read-only).

            json: the canonical encoding of shared/fixtures/realm/README.md (the
            VaultInterchange module): classes alphabetical, objects by primary key, dates
            to the nanosecond; to standard output or --output FILE. `vault import` reads it
            back.

            csv: one <Class>.csv per class into --output DIR (required), a `name:type`
            schema header, lossless cells (null is an empty cell, an empty string is "").

            Both stream: memory does not grow with the vault. Output files are created 0600
            and never overwritten.

            USAGE: vault export <vault> [--key-file <path>] [--keystore <directory>] [--key-id <id>] [--passphrase-file <path>] [--passphrase-stdin] [--format <format>] [--output <path>]

            ARGUMENTS:
              <vault>                 The vault file.

            OPTIONS:
              --key-file <path>       A key file (written by `vault keygen --output`).
              --keystore <directory>  A key directory (written by `vault keygen
                                      --keystore`).
              --key-id <id>           The key's identifier in --keystore.
              --passphrase-file <path>
                                      A file holding the key file's passphrase.
              --passphrase-stdin      Read the key file's passphrase from the first line of
                                      standard input.
              --format <format>       The output format. (values: json, csv; default: json)
              --output <path>         json: a file instead of standard output; csv: the
                                      directory for the files. Existing files are never
                                      overwritten.
              -h, --help              Show help information.


            """)
    }
}
