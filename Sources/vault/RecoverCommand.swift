import ArgumentParser
import Foundation
import VaultCore

/// `vault recover`: make a vault whose write-ahead log is damaged open again.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Cut a damaged write-ahead log after the last commit before the damage, so the vault opens with every transaction before it.",
        discussion: "A torn end of the log (power loss) is dropped automatically when the vault opens; this is for damage a later commit proves was not a torn write. The original log is kept as <vault>-wal.before-recover. Damaged database pages cannot be recovered this way: restore a backup. Refuses while any process has the vault open."
    )

    @Argument(help: "The vault file.")
    var vault: String

    @OptionGroup var key: KeyOptions

    @Flag(name: .long, help: "Report what would be cut, change nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() throws {
        let report: VaultMaintenance.RecoveryReport
        do {
            report = try VaultMaintenance.recover(vaultAt: URL(fileURLWithPath: vault), key: try key.loadKey(), dryRun: dryRun)
        } catch {
            throw fail(error)
        }
        if json {
            printJSON([
                "dryRun": dryRun, "firstDamage": report.firstDamage.map { "\($0.location)" as Any } ?? NSNull(),
                "keptFrames": report.keptFrames, "droppedFrames": report.droppedFrames, "droppedCommits": report.droppedCommits,
                "databaseFailures": report.databaseFailures.map { "\($0.location)" },
                "savedLog": report.savedLog.map { $0 as Any } ?? NSNull(), "recoverable": report.isRecoverable,
            ])
        } else {
            if let damage = report.firstDamage {
                let verb = dryRun ? "would cut" : "cut"
                print("WAL damaged at \(damage.location): \(verb) \(report.droppedFrames) frames (\(report.droppedCommits) commits after the damage); \(report.keptFrames) frames kept.")
                if let saved = report.savedLog { print("The original log is saved as \(saved).") }
            } else {
                print("The write-ahead log is intact: nothing to cut.")
            }
            for failure in report.databaseFailures {
                FileHandle.standardError.write(Data("vault: \(failure.path): \(failure.location): damaged; not recoverable by this tool, restore a backup\n".utf8))
            }
        }
        if !report.isRecoverable { throw ExitCode(ExitStatus.integrityFailure) }
    }
}
