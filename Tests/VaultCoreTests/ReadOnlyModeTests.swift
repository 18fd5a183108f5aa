import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

#if canImport(Glibc)
import Glibc
#endif

@Suite("Read-only mode")
struct ReadOnlyModeTests {
    @Test("a read-only vault reads, refuses every write, and leaves the file unchanged")
    func refusesWrites() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("ro.vault")
        let key = try MasterKey.generate()
        try makeVault(url, key: key, rows: 50).close()
        let before = try Data(contentsOf: url)

        let vault = try openVault(url, key: key) { $0.readOnly = true }
        #expect(try readRows(vault).count == 50)
        for attempt in 0..<3 {
            let error = #expect(throws: VaultError.self) {
                switch attempt {
                case 0: try vault.write { db in try db.execute("INSERT INTO t(body) VALUES ('x')") }
                case 1: try vault.read { db in try db.execute("INSERT INTO t(body) VALUES ('x')") }
                default: try vault.read { db in try db.execute("CREATE TABLE u(a)") }
                }
            }
            guard case .readOnly? = error else { Issue.record("attempt \(attempt): expected readOnly, got \(String(describing: error))"); continue }
        }
        vault.close()
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("a writable vault's readers refuse writes too")
    func readersAreQueryOnly() throws {
        let directory = try TemporaryDirectory()
        let vault = try makeVault(directory.file("q.vault"), key: try MasterKey.generate(), rows: 3)
        let error = #expect(throws: VaultError.self) {
            try vault.read { db in try db.execute("DELETE FROM t") }
        }
        guard case .readOnly? = error else { Issue.record("expected readOnly, got \(String(describing: error))"); return }
        #expect(try readRows(vault).count == 3)
    }

    @Test("read-only works when neither the file nor its directory is writable")
    func unwritableFiles() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("locked.vault")
        let key = try MasterKey.generate()
        try makeVault(url, key: key, rows: 42).close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        let before = try Data(contentsOf: url)
        let filesBefore = try directory.allFiles().map(\.lastPathComponent).sorted()
        chmod(url.path, 0o444)
        chmod(directory.url.path, 0o555)
        defer { chmod(directory.url.path, 0o755) }

        // As root, file modes do not apply: the helper drops to uid 65534 first.
        var arguments = ["read-only-check", url.path]
        if getuid() == 0 { arguments.append("--as-nobody") }
        let output = try runHelper(arguments, input: hex(key))
        #expect(output.contains("rows 42"), "\(output)")
        #expect(output.contains("write refused: read-only"), "\(output)")
        #expect(try Data(contentsOf: url) == before)
        #expect(try directory.allFiles().map(\.lastPathComponent).sorted() == filesBefore, "nothing may be created beside it")
    }
}
