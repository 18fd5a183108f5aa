import ArgumentParser

/// The `vault` command-line tool.
@main
struct VaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "Create keys for, rotate, verify, inspect, export and import VaultKit encrypted vaults (Realm files too).",
        discussion: """
        Keys are read from key files (`vault keygen` writes them), never from the
        command line. Passphrases come from a file or standard input.

        Exit codes: 0 success; 64 usage error; 65 integrity failure or not a vault;
        69 a tool `vault port` or `vault studio` needs is not installed;
        66 file not found; 74 I/O error; 75 vault in use; 77 wrong key, wrong
        passphrase or unsafe key-file permissions; 78 damaged or unsupported key file.
        """,
        subcommands: [KeygenCommand.self, InfoCommand.self, VerifyCommand.self, RecoverCommand.self, SchemaCommand.self, ImportRealmCommand.self, ImportCommand.self, ExportCommand.self, RotateKeyCommand.self, RekeyCommand.self, PortCommand.self, StudioCommand.self, DemoCommand.self]
    )
}
