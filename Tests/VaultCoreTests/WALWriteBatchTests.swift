import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

// WAL frames are sealed into a batch and written a group at a time
// (VFS/WALWriteBatch.swift). What must hold: every commit is on disk before
// SQLite publishes it (another connection reads it at once, with or without a
// sync per commit), frames still batched are written before anything reads
// them, a failed batch write fails the commit and loses no earlier one, and
// the batching does happen.

@Suite("WAL frames written a group at a time")
struct WALWriteBatchTests {
    /// A body that fills most of a page, so that each row is a leaf page of its own.
    static func body(_ id: Int) -> String {
        String(repeating: String(UnicodeScalar(UInt8(65 + id % 26))), count: 3_000) + " \(id)"
    }

    static func insert(_ db: Database, ids: ClosedRange<Int>) throws {
        for id in ids {
            try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(Int64(id)), .text(body(id))])
        }
    }

    /// Every row's id and body, read back.
    static func rows(_ db: Database) throws -> [Int: String] {
        var result: [Int: String] = [:]
        for row in try db.fetchAll("SELECT id, body FROM t") {
            guard let id = row[0].int64, let body = row[1].string else { continue }
            result[Int(id)] = body
        }
        return result
    }

    /// A vault whose log only grows (no checkpoint, in a commit or in the
    /// background): commits land at every slot of several groups.
    static func openGrowingLog(_ url: URL, key: MasterKey,
                               _ configure: (inout VaultDatabase.Configuration) -> Void = { _ in }) throws -> VaultDatabase {
        try openVault(url, key: key) { config in
            config.walAutocheckpointPages = 0
            config.checkpointsInBackground = false
            configure(&config)
        }
    }

    static func expected(_ ids: ClosedRange<Int>) -> [Int: String] {
        Dictionary(uniqueKeysWithValues: ids.map { ($0, body($0)) })
    }

    @Test("each commit is read at once by another connection, at FULL and NORMAL, for transactions of 1 to 130 frames, across groups", arguments: [VaultDatabase.Configuration.Synchronous.full, .normal])
    func commitsAreOnDiskWhenPublished(synchronous: VaultDatabase.Configuration.Synchronous) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("b.vault")
        let key = try MasterKey.generate()
        let vault = try Self.openGrowingLog(url, key: key) { config in config.synchronous = synchronous }
        try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        var next = 1
        // Sizes around a group's 63 frames, so that commits start and end at every kind of slot.
        for count in [1, 62, 1, 63, 64, 2, 130, 1, 61, 3] {
            let ids = next...(next + count - 1)
            try vault.write { db in try Self.insert(db, ids: ids) }
            next += count
            // `read` runs on a reader connection: its own WAL handle, reading what is on disk.
            let seen = try vault.read { db in try Self.rows(db) }
            #expect(seen == Self.expected(1...(next - 1)), "after the commit of \(count) rows")
        }
        vault.close()
        let reopened = try openVault(url, key: key)
        try reopened.verify()
        #expect(try reopened.read { db in try Self.rows(db) } == Self.expected(1...(next - 1)))
    }

    @Test("a transaction reads back its own spilled frames; a rolled-back spill is overwritten by the next commit")
    func spilledFramesAndRollback() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("s.vault")
        let key = try MasterKey.generate()
        let vault = try Self.openGrowingLog(url, key: key) { config in
            config.pageCacheSize = 64 * 1024   // 16 pages: the transaction spills to the WAL as it goes
            config.spillThreshold = 0
        }
        try vault.write { db in
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try Self.insert(db, ids: 1...100)
            // Pages long spilled (some still batched) are read back inside the transaction.
            #expect(try Self.rows(db) == Self.expected(1...100))
        }
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try vault.write { db in
                try Self.insert(db, ids: 101...300)
                #expect(try db.fetchOne("SELECT count(*) FROM t")?[0].int64 == 300)
                throw Abandon()
            }
        }
        try vault.write { db in try Self.insert(db, ids: 101...110) }
        #expect(try vault.read { db in try Self.rows(db) } == Self.expected(1...110))
        vault.close()
        let reopened = try openVault(url, key: key)
        try reopened.verify()
        #expect(try reopened.read { db in try Self.rows(db) } == Self.expected(1...110))
        try reopened.checkpoint()
        #expect(try reopened.read { db in try Self.rows(db) } == Self.expected(1...110))
    }

    @Test("a commit of 200 frames reaches the disk in far fewer writes than frames")
    func framesAreWrittenInBatches() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("w.vault")
        let key = try MasterKey.generate()
        let vault = try Self.openGrowingLog(url, key: key)
        try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        let walSizeBefore = try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int ?? 0
        let prefix = directory.url.path + "/"
        FaultInjection.arm(pathPrefix: prefix, failAt: nil)
        try vault.write { db in try Self.insert(db, ids: 1...200) }
        let calls = FaultInjection.disarm(pathPrefix: prefix).calls
        let walSize = try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int ?? 0
        let frames = SealedFileLayout.walFrameCount(physicalSize: Int64(walSize)) - SealedFileLayout.walFrameCount(physicalSize: Int64(walSizeBefore))
        #expect(frames >= 200)
        // Written a frame at a time this was two writes a frame (header, then page), over 400 calls.
        #expect(calls < Int(frames) / 4, "\(calls) I/O calls for \(frames) frames")
        #expect(try vault.read { db in try Self.rows(db) } == Self.expected(1...200))
    }

    @Test("a batch write that fails fails its commit; every earlier commit survives, the vault verifies")
    func failedBatchWrites() throws {
        let directory = try TemporaryDirectory()
        let key = try MasterKey.generate()
        // How many I/O calls the failing transaction makes, counted once.
        func run(_ url: URL, failAt point: Int?) throws -> (calls: Int, committed: Bool) {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let vault = try Self.openGrowingLog(url, key: key)
            try vault.write { db in
                try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
                try Self.insert(db, ids: 1...70)
            }
            let prefix = url.deletingLastPathComponent().path + "/"
            FaultInjection.arm(pathPrefix: prefix, failAt: point)
            var committed = true
            do {
                try vault.write { db in try Self.insert(db, ids: 71...200) }
            } catch {
                #expect(error is VaultError, "a typed error, not \(type(of: error))")
                committed = false
            }
            let fired = FaultInjection.disarm(pathPrefix: prefix)
            vault.close()
            return (fired.calls, committed)
        }
        let total = try run(directory.file("count/c.vault"), failAt: nil).calls
        #expect(total > 0)
        for point in 1...total {
            let url = directory.file("fail-\(point)/f.vault")
            let (_, committed) = try run(url, failAt: point)
            let reopened = try openVault(url, key: key)
            try reopened.verify()
            let rows = try reopened.read { db in try Self.rows(db) }
            // A failure after the commit frame was written may still leave the commit on disk.
            #expect(rows == Self.expected(1...70) || rows == Self.expected(1...200), "failing I/O call \(point) of \(total)")
            if committed { #expect(rows == Self.expected(1...200), "a commit reported done is there (call \(point))") }
            reopened.close()
        }
    }
}
