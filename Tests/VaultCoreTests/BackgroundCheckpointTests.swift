import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

@Suite("Checkpoints off the commit path")
struct BackgroundCheckpointTests {
    /// The WAL's size in frames (each a 24-byte header and a page), from its file size.
    private func walFrames(_ url: URL) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
        return max(0, size - 32) / (VaultFileHeader.pageSize + 24)
    }

    @Test("commits leave checkpoints to a background connection; the WAL stays bounded and every commit is in the file after reopening")
    func walStaysBounded() throws {
        let directory = try TemporaryDirectory("background-checkpoint")
        let url = directory.file("b.vault")
        let key = try MasterKey.generate()
        let threshold = 40
        do {
            let vault = try openVault(url, key: key) { $0.walAutocheckpointPages = threshold; $0.synchronous = .normal }
            try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)") }
            var largest = 0
            for id in 1...3_000 {
                try vault.write { db in try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(Int64(id)), .text(String(repeating: "x", count: 300))]) }
                largest = max(largest, walFrames(url))
            }
            #expect(vault.backgroundCheckpointCount > 0, "checkpoints ran in the background")
            // At FULL durability they stay in the commit (see BackgroundCheckpointer).
            let full = try openVault(directory.file("full.vault"), key: key) { $0.walAutocheckpointPages = threshold }
            try full.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)") }
            for id in 1...500 { try full.write { db in try db.execute("INSERT INTO t(id) VALUES (?)", arguments: [.integer(Int64(id))]) } }
            #expect(full.backgroundCheckpointCount == 0)
            // The WAL file keeps its largest size. At four times the threshold a
            // commit waits for any running background checkpoint and checkpoints
            // itself; with no reader open, the next commit starts the WAL over.
            // So even on a loaded machine (a checkpoint's sync can take seconds)
            // it stays near four times the threshold plus one commit's frames.
            // Without checkpoints it would hold every one of the 3,000 commits
            // (over 6,000 frames).
            #expect(largest <= threshold * 5, "largest WAL: \(largest) frames")
            #expect(try readCount(vault) == 3_000)
        }
        let reopened = try openVault(url, key: key)
        #expect(try readCount(reopened) == 3_000)
        try reopened.verify()
    }

    @Test("at FULL durability a large commit leaves its checkpoint to the background, small ones checkpoint inline; the WAL stays bounded and nothing is lost")
    func largeCommitsAtFull() throws {
        let directory = try TemporaryDirectory("background-checkpoint-full")
        let url = directory.file("f.vault")
        let key = try MasterKey.generate()
        let threshold = 40
        do {
            let vault = try openVault(url, key: key) { $0.walAutocheckpointPages = threshold }
            try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)") }
            // Small commits first: inline, as SQLite's own checkpoints.
            for id in 1...200 { try vault.write { db in try db.execute("INSERT INTO t(id, body) VALUES (?, 'small')", arguments: [.integer(Int64(id))]) } }
            #expect(vault.backgroundCheckpointCount == 0)
            // Large commits (each well over a quarter of the threshold): the background's.
            var largest = 0
            for batch in 0..<6 {
                try vault.write { db in
                    for row in 0..<60 {
                        let id = Int64(1_000 + batch * 100 + row)
                        try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(id), .text(String(repeating: "y", count: 3_000))])
                    }
                }
                largest = max(largest, walFrames(url))
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while vault.backgroundCheckpointCount == 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            #expect(vault.backgroundCheckpointCount > 0, "a large commit's checkpoint ran in the background")
            // Small commits after them wait for it and keep the WAL bounded.
            for id in 201...400 {
                try vault.write { db in try db.execute("INSERT INTO t(id, body) VALUES (?, 'small')", arguments: [.integer(Int64(id))]) }
                largest = max(largest, walFrames(url))
            }
            // Four times the threshold plus one large commit (about 60 pages of rows and their index) at most.
            #expect(largest <= threshold * 4 + 80, "largest WAL: \(largest) frames")
            #expect(try readCount(vault) == 400 + 360)
        }
        let reopened = try openVault(url, key: key)
        #expect(try readCount(reopened) == 400 + 360)
        try reopened.verify()
    }

    @Test("a reader holding an old version is never blocked by checkpoints; writes go on and the WAL waits for it")
    func readersAreNotBlocked() throws {
        let directory = try TemporaryDirectory("background-checkpoint-reader")
        let url = directory.file("r.vault")
        let vault = try openVault(url, key: try MasterKey.generate()) { $0.walAutocheckpointPages = 20; $0.synchronous = .normal }
        try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)") }
        let snapshot = try vault.makeSnapshot()
        let before = try snapshot.read { db in try db.fetchOne("SELECT count(*) FROM t")?[0].int64 }
        for id in 1...500 {
            try vault.write { db in try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(Int64(id)), .text("row \(id)")]) }
        }
        // The snapshot still reads its version while the writer committed past the bound.
        #expect(try snapshot.read { db in try db.fetchOne("SELECT count(*) FROM t")?[0].int64 } == before)
        #expect(walFrames(url) > 80, "the WAL keeps what the open reader needs")
        snapshot.close()
        for id in 501...600 {
            try vault.write { db in try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(Int64(id)), .text("row \(id)")]) }
        }
        #expect(try readCount(vault) == 600)
    }

    private func readCount(_ vault: VaultDatabase) throws -> Int64 {
        try vault.read { db in try db.fetchOne("SELECT count(*) FROM t")?[0].int64 ?? -1 }
    }
}
