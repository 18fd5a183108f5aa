import ArgumentParser

/// The `vault` command-line tool.
@main
struct VaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "Create, inspect and demonstrate VaultKit encrypted vaults.",
        subcommands: [DemoCommand.self]
    )
}
