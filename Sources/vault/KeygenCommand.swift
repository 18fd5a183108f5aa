import ArgumentParser
import Foundation
import VaultCore

/// `vault keygen`: a new random 64-byte master key in a key file.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Generate a 64-byte master key into a key file (mode 0600), optionally sealed with a passphrase."
    )

    @Option(name: .long, help: ArgumentHelp("Write the key file here.", valueName: "path"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Or store it in this key directory…", valueName: "directory"))
    var keystore: String?

    @Option(name: .long, help: ArgumentHelp("…under this identifier (also recorded inside --output files).", valueName: "id"))
    var id: String = "vault"

    @Option(name: .long, help: ArgumentHelp("Seal the key with the passphrase in this file.", valueName: "path"))
    var passphraseFile: String?

    @Flag(name: .long, help: "Seal the key with a passphrase read from standard input.")
    var passphraseStdin = false

    @Option(name: .long, help: "Argon2id cost for the passphrase: interactive, moderate or sensitive.")
    var cost: String = "moderate"

    func validate() throws {
        guard (output != nil) != (keystore != nil) else { throw ValidationError("give either --output or --keystore") }
        guard PassphraseCost(rawValue: cost) != nil else { throw ValidationError("--cost must be interactive, moderate or sensitive") }
        if passphraseFile != nil && passphraseStdin { throw ValidationError("use --passphrase-file or --passphrase-stdin, not both") }
    }

    func run() throws {
        do {
            let passphrase: Passphrase? = try passphraseFile.map { try Passphrase(contentsOf: URL(fileURLWithPath: $0)) }
                ?? (passphraseStdin ? try Passphrase.readFromStandardInput() : nil)
            let key = try MasterKey.generate()
            let costValue = PassphraseCost(rawValue: cost) ?? .moderate
            let path: String
            if let output {
                let url = URL(fileURLWithPath: output)
                try FileKeyStore.writeKeyFile(key, identifier: id, to: url, passphrase: passphrase, cost: costValue)
                path = url.path
            } else {
                let store = try FileKeyStore(directory: URL(fileURLWithPath: keystore ?? "."), passphrase: passphrase, passphraseCost: costValue)
                try store.storeKey(key, identifier: id)
                path = try store.fileURL(for: id).path
            }
            print("Generated key '\(id)' in \(path) (\(passphrase == nil ? "not passphrase-protected" : "sealed with a passphrase, Argon2id \(costValue.rawValue)"))")
        } catch {
            throw fail(error)
        }
    }
}
