import Foundation
import Testing
import VaultPorting

@Suite("vault-port on disk")
struct CommandLineTests {
    @Test func writesInPlaceAndExitsOneOnReports() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        _ = try directory.write(LegacyApp.source, to: "Sources/App/App.swift")
        let run = try runVaultPort([directory.url.path])
        #expect(run.status == 1)
        #expect(try directory.read("Sources/App/App.swift") == LegacyApp.expected)
        #expect(run.stderr.contains("App.swift:61: not ported:"))
        let again = try runVaultPort([directory.url.path])
        #expect(again.status == 1)
        #expect(try directory.read("Sources/App/App.swift") == LegacyApp.expected)
    }

    @Test func exitsZeroWhenEverythingPorts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try directory.write("import RealmSwift\nlet r: Realm? = nil\n", to: "A.swift")
        let run = try runVaultPort([file.path])
        #expect(run.status == 0)
        #expect(try directory.read("A.swift") == "import VaultKit\nlet r: Vault? = nil\n")
    }

    @Test func dryRunPrintsADiffAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try directory.write("import RealmSwift\nlet r: Realm? = nil\n", to: "A.swift")
        let run = try runVaultPort(["--dry-run", file.path])
        #expect(run.status == 0)
        #expect(run.stdout == """
            --- \(file.path)
            +++ \(file.path)
            @@ -1,2 +1,2 @@
            -import RealmSwift
            -let r: Realm? = nil
            +import VaultKit
            +let r: Vault? = nil

            """)
        #expect(try directory.read("A.swift") == "import RealmSwift\nlet r: Realm? = nil\n")
    }

    @Test func jsonListsChangesAndUnportableLines() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = try directory.write(LegacyApp.source, to: "App.swift")
        let run = try runVaultPort(["--json", "--dry-run", file.path])
        #expect(run.status == 1)
        let report = try JSONDecoder().decode(JSONReport.self, from: Data(run.stdout.utf8))
        #expect(report.dryRun)
        #expect(report.modifiedFiles == [file.path])
        #expect(report.notPortable.map(\.line) == [61, 104])
        #expect(report.changes.first == PortChange(file: file.path, line: 2, rule: "imports",
                                                   before: "import RealmSwift", after: "import VaultKit"))
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let change = (object?["changes"] as? [[String: Any]])?.first
        #expect(Set(change?.keys.map { $0 } ?? []) == ["file", "line", "rule", "before", "after"])
        #expect(try directory.read("App.swift") == LegacyApp.source)
    }

    @Test func usageAndIOErrorsExitTwo() throws {
        #expect(try runVaultPort([]).status == 2)
        #expect(try runVaultPort(["--no-such-flag", "x"]).status == 2)
        #expect(try runVaultPort(["/nonexistent/path/x.swift"]).status == 2)
        #expect(try runVaultPort(["--help"]).status == 0)
    }

    @Test func unifiedDiffOfInsertionsAndRemovals() {
        let diff = UnifiedDiff.diff(old: "a\nb\nc\nd\n", new: "a\nx\nb\nd\n", oldName: "f", newName: "f")
        #expect(diff == "--- f\n+++ f\n@@ -1,4 +1,4 @@\n a\n+x\n b\n-c\n d\n")
        #expect(UnifiedDiff.diff(old: "same\n", new: "same\n", oldName: "f", newName: "f") == "")
    }
}
