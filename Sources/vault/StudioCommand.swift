import ArgumentParser
import Foundation

/// `vault studio VAULT …`: browses a vault in a local web browser by running the
/// `vault-studio` tool. That tool is a web server built on Hummingbird and
/// SwiftNIO and lives in its own package (`Server/`, with the sync server), so that apps depending on
/// VaultKit never resolve NIO; this subcommand finds it and hands it every argument.
struct StudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Browse and edit a vault in a local web browser (127.0.0.1 only).",
        discussion: """
        Runs the vault-studio tool with the same arguments:
            vault studio VAULT [--key-file K | --keystore DIR --key-id ID] [--passphrase-file F] [--port N] [--read-only]
        It prints the URL to open (with a per-run token) as its first line. It is
        found through $VAULT_STUDIO, then beside this `vault` executable, then on
        $PATH. Build it with:
            cd Server && swift build -c release --product vault-studio
        Exit code 69 when the tool cannot be found.
        """
    )

    @Argument(parsing: .captureForPassthrough, help: "The vault and the options for vault-studio (--key-file, --port, --read-only, …).")
    var arguments: [String] = []

    /// The `vault-studio` tool (see ``CompanionTool``).
    static let tool = CompanionTool(name: "vault-studio", environmentVariable: "VAULT_STUDIO", packageFolder: "Server", reason: "SwiftNIO")

    func run() throws {
        try Self.tool.run(arguments, for: "studio")
    }
}
