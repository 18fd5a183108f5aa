import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// `vault import-realm` and `vault export --format json`, run as a user runs them.
@Suite("vault import-realm and vault export")
struct ImportCommandTests {
    private func vault(_ arguments: [String]) throws -> VaultRun { try runVault(arguments) }

    private func keyFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("vault.key").path
        #expect(try vault(["keygen", "--output", path]).status == 0)
        return path
    }

    @Test func importThenExportGivesBackTheFixture() throws {
        let directory = try TemporaryDirectory("import-cli")
        let key = try keyFile(in: directory)
        let source = ImportFixtures.url("blog-encrypted.realm").path
        let destination = directory.file("blog.vault").path
        let run = try vault(["import-realm", source, destination, "--key-file", key,
                             "--realm-key-file", ImportFixtures.url("blog-encrypted.key.hex").path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == """
            7180 objects imported into \(destination) from \(source) (file format 24, schema version 3, encrypted)
              Address: embedded
              Author: 200 objects
              Comment: 4980 objects
              Post: 2000 objects

            """)
        let exported = directory.file("blog.json")
        let export = try vault(["export", destination, "--key-file", key, "--format", "json", "--output", exported.path])
        #expect(export.status == 0, "\(export.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: exported)) as? [String: Any])
        let differences = ImportFixtures.differences(json, try ImportFixtures.json("blog.json"))
        #expect(differences.isEmpty, "\(differences)")
        // To standard output, byte for byte the same document.
        let toStdout = try vault(["export", destination, "--key-file", key])
        #expect(toStdout.output == (try String(contentsOf: exported, encoding: .utf8)))
        #expect(fileMode(exported.path) & 0o077 == 0)
    }

    @Test func dryRunAndJSON() throws {
        let directory = try TemporaryDirectory("import-cli")
        let key = try keyFile(in: directory)
        let destination = directory.file("never.vault").path
        let run = try vault(["import-realm", ImportFixtures.url("alltypes.realm").path, destination, "--key-file", key, "--dry-run", "--json"])
        #expect(run.status == 0, "\(run.error)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        // 100 AllTypes and 20 Target objects (embedded objects travel inside them).
        #expect(summary["objects"] as? Int == 120)
        #expect(summary["dryRun"] as? Bool == true)
        #expect(summary["fileFormat"] as? Int == 24)
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test func errorsHaveTheirExitCodes() throws {
        let directory = try TemporaryDirectory("import-cli")
        let key = try keyFile(in: directory)
        let destination = directory.file("x.vault").path
        let encrypted = ImportFixtures.url("blog-encrypted.realm").path
        let wrongKey = directory.file("wrong.key")
        try Data(repeating: 7, count: 64).write(to: wrongKey)
        let wrong = try vault(["import-realm", encrypted, destination, "--key-file", key, "--realm-key-file", wrongKey.path])
        #expect(wrong.status == 77)
        #expect(wrong.error.contains("key"))
        #expect(try vault(["import-realm", encrypted, destination, "--key-file", key]).status == 77)
        let foreign = directory.file("foreign.realm")
        try Data(repeating: 0x41, count: 10_000).write(to: foreign)
        #expect(try vault(["import-realm", foreign.path, destination, "--key-file", key]).status == 65)
        #expect(try vault(["import-realm", directory.file("missing.realm").path, destination, "--key-file", key]).status == 66)
        let badKeyFile = directory.file("short.key")
        try Data("abc".utf8).write(to: badKeyFile)
        #expect(try vault(["import-realm", encrypted, destination, "--key-file", key, "--realm-key-file", badKeyFile.path]).status == 78)
        #expect(!FileManager.default.fileExists(atPath: destination))
        // An existing destination: 75, untouched.
        try Data("mine".utf8).write(to: URL(fileURLWithPath: destination))
        #expect(try vault(["import-realm", ImportFixtures.url("blog.realm").path, destination, "--key-file", key]).status == 75)
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data("mine".utf8))
    }

    @Test func importJSONAndExportCSV() throws {
        let directory = try TemporaryDirectory("import-cli")
        let key = try keyFile(in: directory)
        let first = directory.file("first.vault").path
        #expect(try vault(["import-realm", ImportFixtures.url("alltypes.realm").path, first, "--key-file", key]).status == 0)
        let document = directory.file("doc.json").path
        #expect(try vault(["export", first, "--key-file", key, "--output", document]).status == 0)
        let second = directory.file("second.vault").path
        let run = try vault(["import", second, document, "--key-file", key])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "120 objects imported into \(second) from \(document) (schema version 1)\n")
        let again = try vault(["export", second, "--key-file", key])
        #expect(again.output == (try String(contentsOfFile: document, encoding: .utf8)))
        // Into an existing vault: merged (every object updated in place), the same bytes out.
        let merged = try vault(["import", second, document, "--key-file", key])
        #expect(merged.status == 0, "\(merged.error)")
        #expect(try vault(["export", second, "--key-file", key]).output == (try String(contentsOfFile: document, encoding: .utf8)))
        // A document that is not JSON: 65, nothing written.
        let junk = directory.file("junk.json")
        try Data("{\"schemaVersion\": 1, \"classes\": {".utf8).write(to: junk)
        let bad = try vault(["import", directory.file("third.vault").path, junk.path, "--key-file", key])
        #expect(bad.status == 65 && bad.error.contains("malformed JSON"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("third.vault").path))

        // CSV: a directory is required; files are never overwritten.
        #expect(try vault(["export", second, "--key-file", key, "--format", "csv"]).status == 64)
        let csv = directory.file("csv").path
        #expect(try vault(["export", second, "--key-file", key, "--format", "csv", "--output", csv]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: csv).sorted() == ["AllTypes.csv", "Target.csv"])
        #expect(try vault(["export", second, "--key-file", key, "--format", "csv", "--output", csv]).status == 75)
    }

    /// A process killed in the middle of an import leaves no vault; the next import succeeds.
    @Test func killedMidImportLeavesNoVault() throws {
        let directory = try TemporaryDirectory("import-kill")
        let key = try keyFile(in: directory)
        let destination = directory.file("bulk.vault").path
        for delay in [0.05, 0.2, 0.4] {
            let process = Process()
            process.executableURL = try builtExecutable("vault")
            process.arguments = ["import-realm", ImportFixtures.url("bulk.realm").path, destination, "--key-file", key]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal {
                #expect(!FileManager.default.fileExists(atPath: destination), "killed after \(delay) s")
            } else {
                // It finished first: then it is complete.
                #expect(process.terminationStatus == 0)
                try FileManager.default.removeItem(atPath: destination)
            }
        }
        let run = try vault(["import-realm", ImportFixtures.url("bulk.realm").path, destination, "--key-file", key])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasPrefix("200000 objects imported"))
        // The killed imports' hidden files are gone: the next import removed them.
        let left = try ImportFixtures.files(in: directory.url).filter { $0.contains("vaultkit-new") }
        #expect(left == [], "\(left)")
    }

    /// A build still in progress (its use lock held) is left alone by another import of
    /// the same name; an abandoned one (lock free) is removed.
    @Test func onlyAbandonedBuildsAreRemoved() throws {
        let directory = try TemporaryDirectory("import-stale")
        let abandoned = directory.file(".doc.vault.vaultkit-new-00112233445566aa").path
        let live = directory.file(".doc.vault.vaultkit-new-ffeeddccbbaa9988").path
        for path in [abandoned, abandoned + "-wal", abandoned + ".lock", live, live + "-wal"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        }
        let liveLock = open(live + ".lock", O_RDWR | O_CREAT, 0o600)
        #expect(liveLock >= 0 && flock(liveLock, LOCK_SH) == 0)
        defer { close(liveLock) }
        let document = directory.file("doc.json")
        try Data(#"{"schemaVersion":0,"classes":{}}"#.utf8).write(to: document)
        let key = try keyFile(in: directory)
        let run = try vault(["import", directory.file("doc.vault").path, document.path, "--key-file", key])
        #expect(run.status == 0, "\(run.error)")
        let left = try ImportFixtures.files(in: directory.url).filter { $0.contains("vaultkit-new") }.sorted()
        #expect(left == [".doc.vault.vaultkit-new-ffeeddccbbaa9988", ".doc.vault.vaultkit-new-ffeeddccbbaa9988-wal",
                         ".doc.vault.vaultkit-new-ffeeddccbbaa9988.lock"])
    }
}
