import ArgumentParser
import Foundation
import VaultCore
import VaultStudio

/// `vault-studio VAULT [--key-file K | --keystore DIR --key-id ID] [--passphrase-file F] [--port N] [--read-only]`
@main
struct VaultStudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault-studio",
        abstract: "Browse and edit a vault in a local web browser.",
        discussion: """
        Serves on 127.0.0.1 only. The first line printed is the URL to open; it
        holds a random token. A browser that opens it is sent on to the same page
        without the token and proves itself from then on with a cookie that no
        other site's page can make it send. Stop with Ctrl-C.
        """
    )

    @Argument(help: ArgumentHelp("The vault file.", valueName: "vault"))
    var vault: String

    @Option(name: .long, help: ArgumentHelp("A key file (written by `vault keygen --output`).", valueName: "path"))
    var keyFile: String?

    @Option(name: .long, help: ArgumentHelp("A key directory (written by `vault keygen --keystore`).", valueName: "directory"))
    var keystore: String?

    @Option(name: .long, help: ArgumentHelp("The key's identifier in --keystore.", valueName: "id"))
    var keyId: String?

    @Option(name: .long, help: ArgumentHelp("A file holding the key file's passphrase.", valueName: "path"))
    var passphraseFile: String?

    @Option(name: .long, help: ArgumentHelp("The port on 127.0.0.1 (0 or absent: any free port).", valueName: "n"))
    var port: Int = 0

    @Flag(name: .long, help: "Open the vault read-only: no edit or delete forms.")
    var readOnly = false

    func validate() throws {
        guard (keyFile != nil) != (keystore != nil) else {
            throw ValidationError("give the key with either --key-file, or --keystore and --key-id")
        }
        if keystore != nil && keyId == nil { throw ValidationError("--keystore needs --key-id") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    /// The vault's master key, loaded as the `vault` tool loads it (`MasterKey.load`).
    func loadKey() throws -> MasterKey {
        try MasterKey.load(keyFile: keyFile.map { URL(fileURLWithPath: $0) }, keyDirectory: keystore.map { URL(fileURLWithPath: $0) },
                           identifier: keyId, passphrase: try passphraseFile.map { try Passphrase(contentsOf: URL(fileURLWithPath: $0)) })
    }

    func run() async throws {
        let url = URL(fileURLWithPath: vault)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ValidationError("no vault at \(url.path)")
        }
        let store = try StudioStore(fileURL: url, key: try loadKey(), readOnly: readOnly)
        try await store.open()
        let router = StudioRouter(session: StudioSession(), store: store)
        try await StudioServer.run(router: router, port: port) { address in
            FileHandle.standardOutput.write(Data((address + "\n").utf8))
        }
    }
}
