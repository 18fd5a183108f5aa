import ArgumentParser
import Foundation
import VaultCore

/// `vault verify`: authenticate every page and frame, then SQLite's integrity check.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Authenticate every page of the database and WAL, run SQLite's integrity check, and report failures by page."
    )

    @Argument(help: "The vault file.")
    var vault: String

    @OptionGroup var key: KeyOptions

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() throws {
        let report: VaultMaintenance.VerificationReport
        do {
            let bar = ProgressBar.onTerminal(unless: json, unit: "bytes authenticated")
            defer { bar?.finish() }
            report = try VaultMaintenance.authenticate(vaultAt: URL(fileURLWithPath: vault), key: try key.loadKey(),
                                                       progress: bar.map { bar in { bar.update(Int($0), of: Int($1)) } })
        } catch {
            throw fail(error)
        }
        if json {
            printJSON([
                "ok": report.isIntact, "databasePages": report.databasePages, "walFrames": report.walFrames,
                "failures": report.failures.map { ["file": $0.path, "location": "\($0.location)", "reason": $0.reason] },
                "tornTail": report.tornTail.map { ["file": $0.path, "location": "\($0.location)", "reason": $0.reason] },
                "integrityCheck": report.integrityProblems.isEmpty ? ["ok"] : report.integrityProblems,
            ])
        } else {
            for failure in report.failures {
                FileHandle.standardError.write(Data("vault: \(failure.path): \(failure.location): \(failure.reason)\n".utf8))
            }
            for torn in report.tornTail {
                FileHandle.standardError.write(Data("vault: warning: \(torn.path): \(torn.location): part of a torn WAL tail (a transaction cut short by a crash or power loss; it was never committed and is not part of the vault)\n".utf8))
            }
            for problem in report.integrityProblems {
                FileHandle.standardError.write(Data("vault: integrity check: \(problem)\n".utf8))
            }
            if report.isIntact {
                print("OK: \(report.databasePages) database pages and \(report.walFrames) WAL frames authenticated; SQLite integrity check ok")
            } else {
                print("FAILED: \(report.failures.count) units failed authentication, \(report.integrityProblems.count) integrity-check problems")
            }
        }
        if !report.isIntact { throw ExitCode(ExitStatus.integrityFailure) }
    }
}
