import ArgumentParser
import Foundation

/// `vault port PATH…`: rewrites Realm source into VaultKit source by running the
/// `vault-port` tool. That tool is built on swift-syntax and lives in its own
/// package (`Porting/`), so that apps depending on VaultKit never build
/// swift-syntax; this subcommand finds it and hands it every argument.
struct PortCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port",
        abstract: "Rewrite RealmSwift source (legacy @objc dynamic models included) into VaultKit source.",
        discussion: """
        Runs the vault-port tool with the same arguments (see `vault port --help`
        once it is installed). It is found through $VAULT_PORT, then beside this
        `vault` executable, then on $PATH. Build it with:
            cd Porting && swift build -c release
        Exit code 69 when the tool cannot be found.
        """
    )

    @Argument(parsing: .captureForPassthrough, help: "The paths and options for vault-port (--dry-run, --json, …).")
    var arguments: [String] = []

    /// The `vault-port` tool (see ``CompanionTool``).
    static let tool = CompanionTool(name: "vault-port", environmentVariable: "VAULT_PORT", packageFolder: "Porting", reason: "swift-syntax")

    func run() throws {
        try Self.tool.run(arguments, for: "port")
    }
}
