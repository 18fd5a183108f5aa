import Foundation
import Testing
import VaultCore
import VaultInterchange
import VaultKit
import VaultRealmImport
import VaultTestSupport

/// Long work reports progress: through the APIs' callbacks, and as a bar on a terminal only.
@Suite("Progress of long work")
struct ProgressTests {
    @Test func callbacksClimbToTheirTotal() throws {
        let directory = try TemporaryDirectory("progress")
        let url = directory.file("blog.vault")
        try Vault.importRealm(at: ImportFixtures.url("blog.realm"), into: ImportFixtures.configuration(url))
        let key = try MasterKey(bytes: ImportFixtures.vaultKey)

        var verified: [(Int64, Int64)] = []
        let report = try VaultMaintenance.authenticate(vaultAt: url, key: key) { verified.append(($0, $1)) }
        #expect(report.isIntact)
        #expect(verified.count >= 2 && verified.map(\.0) == verified.map(\.0).sorted())
        #expect(verified.last.map { $0.0 == $0.1 } == true)

        var exported: [(Int, Int)] = []
        do {
            let vault = try Vault(configuration: ImportFixtures.configuration(url, schemaVersion: 3))
            let sink = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/null"))
            try CanonicalJSONExport.write(vault, to: sink) { exported.append(($0, $1)) }
            vault.invalidate()
        }
        #expect(exported.last.map { $0.0 == 7180 && $0.1 == 7180 } == true)

        var copied: [(Int64, Int64)] = []
        try VaultMaintenance.rekey(vaultAt: directory.file("blog.vault"), from: key, to: nil) { copied.append(($0, $1)) }
        #expect(!copied.isEmpty && copied.last.map { $0.0 == $0.1 } == true)
    }

    /// `vault verify` draws its bar on a terminal (run under `script`, which gives it one) and
    /// prints nothing extra when standard error is a pipe.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
    func aBarOnlyOnATerminal() throws {
        let directory = try TemporaryDirectory("progress-cli")
        let vault = try builtExecutable("vault").path
        let keyFile = directory.file("k.key").path
        let vaultFile = directory.file("bulk.vault").path
        func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let output = Pipe(), error = Pipe()
            process.standardOutput = output
            process.standardError = error
            try process.run()
            let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let err = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, out, err)
        }
        #expect(try run(vault, ["keygen", "--output", keyFile]).0 == 0)
        #expect(try run(vault, ["import-realm", ImportFixtures.url("blog.realm").path, vaultFile, "--key-file", keyFile]).0 == 0)
        let piped = try run(vault, ["verify", vaultFile, "--key-file", keyFile])
        #expect(piped.0 == 0 && piped.2.isEmpty, "no bar when standard error is not a terminal: \(piped.2)")
        let command = [vault, "verify", vaultFile, "--key-file", keyFile].map { "'\($0)'" }.joined(separator: " ")
        let onTerminal = try run("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(onTerminal.0 == 0)
        #expect(onTerminal.1.contains("100%") && onTerminal.1.contains("bytes authenticated"), "\(onTerminal.1)")
    }
}
