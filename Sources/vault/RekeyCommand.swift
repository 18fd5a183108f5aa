import ArgumentParser
import Foundation
import VaultCore

/// `vault rekey`: re-encrypt every page under a fresh data key.
struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt every page under a fresh data key (and a new master key), crash-safely in place of the file.",
        discussion: "Copies the vault through the encrypting VFS into a new file beside it, fsyncs it and renames it over the original. Refuses while any process has the vault open."
    )

    @Argument(help: "The vault file.")
    var vault: String

    @OptionGroup var key: KeyOptions
    @OptionGroup var newKey: NewKeyOptions

    @Flag(name: .long, help: "Keep the current master key (rotate the data key only).")
    var keepMasterKey = false

    @Flag(name: .long, help: "Check the keys and the vault, change nothing.")
    var dryRun = false

    func validate() throws {
        guard newKey.isGiven != keepMasterKey else {
            throw ValidationError("give the new master key (--new-key-file or --new-key-id), or --keep-master-key")
        }
    }

    func run() throws {
        do {
            let url = URL(fileURLWithPath: vault)
            let current = try key.loadKey()
            let replacement = keepMasterKey ? nil : try newKey.loadKey(keystore: key.keystore)
            if dryRun {
                let report = try VaultMaintenance.authenticate(vaultAt: url, key: current)
                try VaultMaintenance.ensureNotInUse(vaultAt: url)   // the real run would stop here too
                print("Dry run: the current key opens \(vault) (\(report.databasePages) pages, \(report.isIntact ? "intact" : "NOT intact")). Nothing changed.")
                return
            }
            let bar = ProgressBar.onTerminal(unless: false, unit: "bytes copied")
            defer { bar?.finish() }
            try VaultMaintenance.rekey(vaultAt: url, from: current, to: replacement,
                                       progress: bar.map { bar in { bar.update(Int($0), of: Int($1)) } })
            print("Re-encrypted \(vault) under a fresh data key\(replacement == nil ? "" : " and the new master key").")
        } catch {
            throw fail(error)
        }
    }
}
