import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

@Suite("Snapshots: one committed version held open")
struct SnapshotTests {
    @Test("a snapshot reads one version while the writer commits; a new one sees the commit; closing frees its reader")
    func fixedVersion() throws {
        let directory = try TemporaryDirectory("snapshots")
        let vault = try makeVault(directory.file("s.vault"), key: try MasterKey.generate(), rows: 3) { $0.maximumReaderCount = 2 }
        let count = { (db: Database) throws -> Int64 in try db.fetchOne("SELECT count(*) FROM t")?[0].int64 ?? -1 }
        let snapshot = try vault.makeSnapshot()
        #expect(try snapshot.read(count) == 3)
        try vault.write { db in try db.execute("INSERT INTO t(id, body) VALUES (4, 'four')") }
        #expect(try snapshot.read(count) == 3, "the snapshot keeps its version")
        #expect(try vault.read(count) == 4, "a new read transaction sees the commit")
        #expect(throws: VaultError.self, "snapshot connections refuse writes") {
            try snapshot.read { db in try db.execute("INSERT INTO t(id, body) VALUES (5, 'five')") }
        }

        // The pool holds two readers: a second snapshot fits, a third is refused at once (never waits).
        let second = try vault.makeSnapshot()
        #expect(try second.read(count) == 4)
        let error = #expect(throws: VaultError.self) { _ = try vault.makeSnapshot() }
        #expect("\(String(describing: error))".contains("maximumReaderCount"))
        snapshot.close()
        #expect(!snapshot.isOpen)
        #expect(throws: VaultError.self) { _ = try snapshot.read(count) }
        let third = try vault.makeSnapshot()
        #expect(try third.read(count) == 4)
        withExtendedLifetime(second) {}
    }
}
