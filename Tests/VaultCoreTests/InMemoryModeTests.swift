import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

@Suite("In-memory mode")
struct InMemoryModeTests {
    func memoryVault(_ identifier: String, configure: (inout VaultDatabase.Configuration) -> Void = { _ in }) throws -> VaultDatabase {
        var configuration = VaultDatabase.Configuration(inMemoryIdentifier: identifier)
        configure(&configuration)
        return try VaultDatabase(configuration: configuration)
    }

    @Test("vaults with the same identifier share data; others do not; it vanishes with the last one")
    func sharingAndLifetime() throws {
        let identifier = "shared-\(UUID().uuidString)"
        do {
            let first = try memoryVault(identifier)
            try first.write { db in
                try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
                try db.execute("INSERT INTO t(body) VALUES (?)", arguments: [.text(plaintextMarker)])
            }
            let second = try memoryVault(identifier)
            #expect(try readRows(second).map(\.1) == [plaintextMarker])
            try second.write { db in try db.execute("INSERT INTO t(body) VALUES ('from second')") }
            #expect(try readRows(first).count == 2)

            let other = try memoryVault("other-\(UUID().uuidString)")
            #expect(throws: VaultError.self) { _ = try readRows(other) }
            first.close()
            #expect(try readRows(second).count == 2, "data lives while any connection lives")
        }
        #expect(!MemoryFileSystem.shared.hasFiles(withPrefix: MemoryVFS.path(forIdentifier: identifier)))
        let again = try memoryVault(identifier)
        #expect(throws: VaultError.self) { _ = try readRows(again) }
    }

    @Test("journals and temporary files stay in memory; nothing is written to disk")
    func neverTouchesDisk() throws {
        let identifier = "disk-\(UUID().uuidString)"
        let before = MemoryFileSystem.shared.currentStatistics()
        let vault = try memoryVault(identifier) {
            $0.temporaryStorage = .sealedFiles     // SQLite would use temp files: they must stay in memory too
            $0.pageCacheSize = 128 * 1024
        }
        try vault.write { db in
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for i in 1...20_000 {
                try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(Int64(i)), .text("\(plaintextMarker) \((i * 7919) % 20_000) padding padding")])
            }
        }
        try vault.write { db in try db.execute("UPDATE t SET body = body || 'x' WHERE id % 2 = 0") }
        // A full sort (no LIMIT, which would keep only the top rows) spills to temporary files.
        let sorted = try vault.read { db in try db.fetchAll("SELECT body FROM t ORDER BY substr(body, 26) DESC") }
        #expect(sorted.count == 20_000)
        let after = MemoryFileSystem.shared.currentStatistics()
        #expect(after.journalOpens > before.journalOpens, "rollback journals were served from memory")
        #expect(after.temporaryOpens > before.temporaryOpens, "temporary files were served from memory")
        // The in-memory VFS has no code path to the file system; and no file by its name exists.
        #expect(!FileManager.default.fileExists(atPath: MemoryVFS.path(forIdentifier: identifier)))
        #expect(!FileManager.default.fileExists(atPath: "/vaultkit-memory"))
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/vaultkit-memory"))
    }

    @Test("an in-memory vault needs no key and rolls back like any other")
    func transactions() throws {
        let vault = try memoryVault("tx-\(UUID().uuidString)")
        try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try vault.write { db in
                try db.execute("INSERT INTO t(body) VALUES ('gone')")
                throw Failure()
            }
        }
        #expect(try readRows(vault).isEmpty)
    }
}
