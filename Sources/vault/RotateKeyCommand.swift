import ArgumentParser
import Foundation
import VaultCore

/// `vault rotate-key`: rewrap the data key under a new master key, O(1).
struct RotateKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-key",
        abstract: "Rotate the master key in O(1): rewrap the data key under a new master key (pages are not rewritten).",
        discussion: "Refuses while any process has the vault open. After it, only the new key opens the vault. A rewrap is not revocation: after a suspected compromise use `vault rekey`."
    )

    @Argument(help: "The vault file.")
    var vault: String

    @OptionGroup var key: KeyOptions
    @OptionGroup var newKey: NewKeyOptions

    @Flag(name: .long, help: "Check the keys and the vault, change nothing.")
    var dryRun = false

    func validate() throws {
        guard newKey.isGiven else { throw ValidationError("give the new key with --new-key-file or --new-key-id") }
    }

    func run() throws {
        do {
            let url = URL(fileURLWithPath: vault)
            let current = try key.loadKey()
            let replacement = try newKey.loadKey(keystore: key.keystore)
            guard !current.isSameKey(as: replacement) else {
                throw ValidationError("the new key is the same as the current key")
            }
            if dryRun {
                let report = try VaultMaintenance.authenticate(vaultAt: url, key: current)
                try VaultMaintenance.ensureNotInUse(vaultAt: url)   // the real run would stop here too
                print("Dry run: the current key opens \(vault) (\(report.databasePages) pages); the new key is ready. Nothing changed.")
                return
            }
            try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: current, to: replacement)
            print("Rotated the master key of \(vault): only the new key opens it now.")
        } catch let error as ValidationError {
            throw error
        } catch {
            throw fail(error)
        }
    }
}
