import ArgumentParser
import Foundation
import VaultCore

/// Where the vault's current master key comes from.
struct KeyOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A key file (written by `vault keygen --output`).", valueName: "path"))
    var keyFile: String?

    @Option(name: .long, help: ArgumentHelp("A key directory (written by `vault keygen --keystore`).", valueName: "directory"))
    var keystore: String?

    @Option(name: .long, help: ArgumentHelp("The key's identifier in --keystore.", valueName: "id"))
    var keyId: String?

    @Option(name: .long, help: ArgumentHelp("A file holding the key file's passphrase.", valueName: "path"))
    var passphraseFile: String?

    @Flag(name: .long, help: "Read the key file's passphrase from the first line of standard input.")
    var passphraseStdin = false

    func validate() throws {
        guard (keyFile != nil) != (keystore != nil) else {
            throw ValidationError("give the key with either --key-file, or --keystore and --key-id")
        }
        if keystore != nil && keyId == nil { throw ValidationError("--keystore needs --key-id") }
        if passphraseFile != nil && passphraseStdin { throw ValidationError("use --passphrase-file or --passphrase-stdin, not both") }
    }

    func passphrase() throws -> Passphrase? {
        if let passphraseFile { return try Passphrase(contentsOf: URL(fileURLWithPath: passphraseFile)) }
        if passphraseStdin { return try Passphrase.readFromStandardInput() }
        return nil
    }

    func loadKey() throws -> MasterKey {
        try MasterKey.load(keyFile: keyFile.map { URL(fileURLWithPath: $0) }, keyDirectory: keystore.map { URL(fileURLWithPath: $0) },
                           identifier: keyId, passphrase: try passphrase())
    }
}

/// Where the new master key comes from (rotate-key, rekey).
struct NewKeyOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A key file holding the new key.", valueName: "path"))
    var newKeyFile: String?

    @Option(name: .long, help: ArgumentHelp("The new key's identifier in --keystore.", valueName: "id"))
    var newKeyId: String?

    @Option(name: .long, help: ArgumentHelp("A file holding the new key file's passphrase.", valueName: "path"))
    var newPassphraseFile: String?

    var isGiven: Bool { newKeyFile != nil || newKeyId != nil }

    func loadKey(keystore: String?) throws -> MasterKey {
        let passphrase = try newPassphraseFile.map { try Passphrase(contentsOf: URL(fileURLWithPath: $0)) }
        if let newKeyFile {
            return try FileKeyStore.readKeyFile(at: URL(fileURLWithPath: newKeyFile), passphrase: passphrase).key
        }
        guard let newKeyId, let keystore else { throw ValidationError("--new-key-id needs --keystore") }
        return try FileKeyStore(directory: URL(fileURLWithPath: keystore), passphrase: passphrase).loadKey(identifier: newKeyId)
    }
}
