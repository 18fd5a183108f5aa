import CSQLite
import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

@Suite("Encrypted storage: no plaintext reaches the disk")
struct EncryptedStorageTests {
    @Test("a vault round-trips rows across close and reopen")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("rt.vault")
        let key = try MasterKey.generate()
        do {
            let vault = try makeVault(url, key: key, rows: 500)
            #expect(try readRows(vault).count == 500)
        }
        let rows = try readRows(try openVault(url, key: key))
        #expect(rows.count == 500)
        #expect(rows.last?.1.hasSuffix("500") == true)
        #expect(rows.first?.1.hasPrefix(plaintextMarker) == true)
    }

    @Test("every value type survives the round trip byte for byte")
    func valueTypes() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("types.vault")
        let key = try MasterKey.generate()
        let blob = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 31) })   // spans overflow pages
        let text = "héllo, wörld — 日本語 🎉" + String(repeating: "z", count: 5000)
        do {
            let vault = try openVault(url, key: key)
            try vault.write { db in
                try db.execute("CREATE TABLE v(i INTEGER, r REAL, s TEXT, b BLOB, n)")
                try db.execute("INSERT INTO v VALUES (?, ?, ?, ?, ?)", arguments: [.integer(Int64.min), .real(-0.5), .text(text), .blob(blob), .null])
                try db.execute("INSERT INTO v VALUES (?, ?, ?, ?, ?)", arguments: [.integer(Int64.max), .real(.greatestFiniteMagnitude), .text(""), .blob(Data()), .null])
            }
        }
        let rows = try openVault(url, key: key).read { db in try db.fetchAll("SELECT i, r, s, b, n FROM v ORDER BY rowid") }
        #expect(rows.count == 2)
        #expect(rows[0][0] == .integer(Int64.min))
        #expect(rows[0][1] == .real(-0.5))
        #expect(rows[0][2] == .text(text))
        #expect(rows[0][3] == .blob(blob))
        #expect(rows[0][4] == .null)
        #expect(rows[1][0] == .integer(Int64.max))
        #expect(rows[1][1] == .real(.greatestFiniteMagnitude))
    }

    @Test("no marker in db, wal or shm during a transaction, after commit, and after checkpoint")
    func noPlaintextDuringAndAfterWrites() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("p.vault")
        let key = try MasterKey.generate()
        let vault = try openVault(url, key: key) { config in
            config.pageCacheSize = 64 * 1024     // a small cache so that pages spill to the WAL mid-transaction
            config.spillThreshold = 0
            config.walAutocheckpointPages = 0    // keep everything in the WAL until the explicit checkpoint
        }
        try vault.write { db in
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            // Rows of about 250 bytes: some 190 pages, so that spilled frames fill
            // whole 63-frame groups, which the WAL writes without waiting for the commit.
            let padding = String(repeating: "p", count: 200)
            for i in 1...3000 {
                try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(Int64(i)), .text("\(plaintextMarker) \(i) \(padding)")])
            }
            // Still inside the transaction: spilled pages are in the WAL now.
            let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
            #expect(wal.count > 40_000, "pages should have spilled to the WAL")
            try expectNoPlaintext(in: directory, "during the transaction")
        }
        try expectNoPlaintext(in: directory, "after commit")
        try vault.write { db in
            try db.execute("UPDATE t SET body = body || ? WHERE id % 3 = 0", arguments: [.text(plaintextMarker)])
            try db.execute("DELETE FROM t WHERE id % 7 = 0")
        }
        try expectNoPlaintext(in: directory, "after update and delete")
        try vault.checkpoint()
        try expectNoPlaintext(in: directory, "after checkpoint")
        #expect(try vault.read { db in try db.fetchOne("SELECT count(*) FROM t")?[0].int64 } == 3000 - 3000 / 7)
    }

    @Test("VACUUM keeps the vault encrypted and intact")
    func vacuum() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("vac.vault")
        let key = try MasterKey.generate()
        let vault = try makeVault(url, key: key, rows: 2000)
        try vault.write { db in try db.execute("DELETE FROM t WHERE id % 2 = 0") }
        try vault.writeWithoutTransaction { db in try db.execute("VACUUM") }
        try expectNoPlaintext(in: directory, "after VACUUM")
        try vault.checkpoint()
        try expectNoPlaintext(in: directory, "after VACUUM and checkpoint")
        try vault.verify()
        vault.close()
        let rows = try readRows(try openVault(url, key: key))
        #expect(rows.count == 1000)
        #expect(rows.allSatisfy { $0.0 % 2 == 1 })
    }

    @Test("writeCopy (VACUUM INTO) makes an encrypted copy with its own data key")
    func writeCopy() throws {
        let directory = try TemporaryDirectory()
        let key = try MasterKey.generate()
        let vault = try makeVault(directory.file("src.vault"), key: key, rows: 1500)
        let otherKey = try MasterKey.generate()
        try vault.writeCopy(toFile: directory.file("copy.vault"), masterKey: otherKey)
        try expectNoPlaintext(in: directory, "after VACUUM INTO")
        #expect(throws: VaultError.self) { try vault.writeCopy(toFile: directory.file("copy.vault")) }

        // The copy opens with the new key only, holds the same rows, and is a WAL-mode vault.
        #expect(throws: VaultError.wrongKey(path: VaultVFS.fullPathname(directory.file("copy.vault").path))) {
            _ = try openVault(directory.file("copy.vault"), key: key)
        }
        let copy = try openVault(directory.file("copy.vault"), key: otherKey)
        #expect(try readRows(copy).map(\.0) == Array(1...1500).map(Int64.init))
        #expect(try copy.read { db in try db.fetchOne("PRAGMA journal_mode")?[0].string } == "wal")
        // Its header has another salt and another wrapped data key.
        let source = try Data(contentsOf: directory.file("src.vault")).prefix(4096)
        let copied = try Data(contentsOf: directory.file("copy.vault")).prefix(4096)
        #expect(source[120..<152] != copied[120..<152])
        // No hidden temporary file is left behind.
        #expect(try directory.allFiles().allSatisfy { !$0.lastPathComponent.contains("vaultkit-new") })
    }

    @Test("a rollback journal (journal_mode=DELETE) is sealed and still rolls back")
    func sealedRollbackJournal() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("j.vault")
        let key = try MasterKey.generate()
        let vault = try makeVault(url, key: key, rows: 800)
        try vault.writeWithoutTransaction { db in try db.execute("PRAGMA journal_mode = DELETE") }
        let journal = URL(fileURLWithPath: url.path + "-journal")
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try vault.write { db in
                try db.execute("UPDATE t SET body = 'changed'")
                try db.execute("DELETE FROM t WHERE id > 400")
                // The journal now holds the old pages (with their markers), sealed.
                let bytes = try Data(contentsOf: journal)
                #expect(bytes.count > 40_000)
                #expect(!bytes.contains(plaintextMarker))
                #expect(!bytes.contains("changed"))
                throw Abort()
            }
        }
        let rows = try readRows(vault)
        #expect(rows.count == 800)
        #expect(rows.allSatisfy { $0.1.hasPrefix(plaintextMarker) })
        try expectNoPlaintext(in: directory)
    }

    @Test("large sorts spill to sealed temporary files when temp_store is FILE")
    func sealedTemporaryFiles() throws {
        #if os(Linux)
        let directory = try TemporaryDirectory()
        let key = try MasterKey.generate()
        let vault = try openVault(directory.file("sort.vault"), key: key) { config in
            config.temporaryStorage = .sealedFiles
            config.pageCacheSize = 256 * 1024
        }
        try vault.write { db in
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for i in 1...30_000 {
                try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(Int64(i)), .text("\(plaintextMarker) \((i * 7919) % 30_000) padding padding padding")])
            }
        }
        let statistics = try vault.read { db -> (files: Int, checked: Int) in
            // Sorting by a non-indexed expression spills the sorter to temporary files.
            let statement = try db.makeStatement("SELECT body FROM t ORDER BY substr(body, 26) DESC")
            try statement.bind([])
            #expect(try statement.step())
            // Mid-iteration: the sorter's temporary files are open (and already unlinked).
            var files = 0, checked = 0
            for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                      target.hasSuffix("(deleted)"), target.contains("etilqs") else { continue }
                files += 1
                guard let bytes = FileManager.default.contents(atPath: "/proc/self/fd/\(entry)") else { continue }
                checked += bytes.count
                #expect(!bytes.contains(plaintextMarker), "plaintext in temporary file \(target)")
            }
            var rows = 1
            while try statement.step() { rows += 1 }
            #expect(rows == 30_000)
            return (files, checked)
        }
        #expect(statistics.files > 0, "the sort should have used temporary files")
        #expect(statistics.checked > 100_000)
        #endif
    }

    @Test("concurrent readers see a stable snapshot while the writer commits")
    func snapshotIsolation() throws {
        let directory = try TemporaryDirectory()
        let key = try MasterKey.generate()
        let vault = try makeVault(directory.file("iso.vault"), key: key, rows: 10)
        let readerInside = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        let counts = Locked<[Int64]>([])
        let reader = Thread {
            do {
                try vault.read { db in
                    let first = try db.fetchOne("SELECT count(*) FROM t")?[0].int64 ?? -1
                    readerInside.signal()
                    writerDone.wait()
                    let second = try db.fetchOne("SELECT count(*) FROM t")?[0].int64 ?? -1
                    counts.withLock { $0 = [first, second] }
                }
            } catch {
                counts.withLock { $0 = [-1] }
            }
        }
        reader.start()
        readerInside.wait()
        try vault.write { db in try db.execute("INSERT INTO t(body) VALUES ('new')") }
        writerDone.signal()
        while counts.withLock({ $0.isEmpty }) { usleep(1000) }
        #expect(counts.withLock { $0 } == [10, 10])
        #expect(try vault.read { db in try db.fetchOne("SELECT count(*) FROM t")?[0].int64 } == 11)
    }

    @Test("the vault header keeps a valid-looking SQLite header and the v1 layout")
    func headerLayout() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("h.vault")
        _ = try makeVault(url, key: try MasterKey.generate(), rows: 1)
        let bytes = try Data(contentsOf: url)
        #expect(bytes.prefix(16) == Data("SQLite format 3\0".utf8))
        #expect(bytes[16] == 0x10 && bytes[17] == 0x00)        // page size 4096
        #expect(bytes[18] == 2 && bytes[19] == 2)              // WAL versions
        #expect(bytes[20] == 40)                               // reserve
        #expect(bytes[100..<108] == Data("VaultKit".utf8))
        #expect(bytes.count % 4096 == 0 && bytes.count >= 8192)
    }
}
