import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

// Power loss in the middle of a commit (see VFS/WALTail.swift): the damaged
// end of the log is dropped and the vault opens with every committed
// transaction; damage to a transaction a later commit proves complete is an
// integrity failure naming the frame.

@Suite("Torn WAL tail")
struct TornTailTests {
    /// A vault whose WAL holds 20 committed transactions and a 21st, copied while open
    /// (so nothing is checkpointed), with the WAL's physical size after each commit.
    struct Fixture {
        let key: MasterKey
        let database: Data
        let wal: Data
        /// Physical WAL size after commit k (index 0: before the first).
        let sizes: [Int]
    }

    static func makeFixture() throws -> Fixture {
        let directory = try TemporaryDirectory("torn-fixture")
        let url = directory.file("t.vault")
        let key = try MasterKey.generate()
        let vault = try openVault(url, key: key) { $0.walAutocheckpointPages = 0 }
        try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        try vault.checkpoint()
        var sizes = [walSize(url)]
        for id in 1...21 {
            try vault.write { db in
                // Bodies of varying size: some transactions span several frames.
                try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(Int64(id)), .text(String(repeating: "x", count: 50 + (id * 977) % 9000))])
                if id % 3 == 0 { try db.execute("UPDATE t SET body = body || '!' WHERE id = ?", arguments: [.integer(Int64(id / 2))]) }
            }
            sizes.append(walSize(url))
        }
        let database = try Data(contentsOf: url)
        let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        vault.close()
        return Fixture(key: key, database: database, wal: wal, sizes: sizes)
    }

    private static func walSize(_ url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
    }

    /// Opens the files in a fresh directory: the ids of `t`, or the error.
    static func open(_ fixture: Fixture, wal: Data) throws -> Result<[Int64], VaultError> {
        let directory = try TemporaryDirectory("torn")
        let url = directory.file("t.vault")
        try fixture.database.write(to: url)
        try wal.write(to: URL(fileURLWithPath: url.path + "-wal"))
        do {
            let vault = try openVault(url, key: fixture.key)
            defer { vault.close() }
            let ids = try vault.read { db in try db.fetchAll("SELECT id FROM t ORDER BY id").compactMap { $0[0].int64 } }
            try vault.verify()
            return .success(ids)
        } catch let error as VaultError {
            return .failure(error)
        }
    }

    @Test("200 random damages to the last transaction (cut short, zeros, garbage, a torn sector, a zeroed last page) open with exactly the 20 committed ones")
    func randomTailDamage() throws {
        let fixture = try Self.makeFixture()
        let tail = fixture.sizes[20]..<fixture.sizes[21]
        #expect(tail.count > 4096, "the last transaction spans pages")
        var generator = SystemRandomNumberGenerator()
        var kinds: [String: Int] = [:]
        for trial in 0..<200 {
            var wal = fixture.wal
            let kind = ["cut", "cut+zeros", "cut+garbage", "zero sector", "garbage sector", "zero last page"][trial % 6]
            kinds[kind, default: 0] += 1
            let point = Int.random(in: tail, using: &generator)
            switch kind {
            case "cut": wal = wal.prefix(point)
            case "cut+zeros": wal = wal.prefix(point) + Data(count: Int.random(in: 1...6000, using: &generator))
            case "cut+garbage": wal = wal.prefix(point) + Data((0..<Int.random(in: 1...6000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            case "zero sector", "garbage sector":
                let sector = (point / 512) * 512
                let bytes = kind == "zero sector" ? Data(count: 512) : Data((0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) })
                wal.replaceSubrange(sector..<min(sector + 512, wal.count), with: bytes.prefix(wal.count - sector))
            default:
                wal.replaceSubrange((wal.count - 4096)..<wal.count, with: Data(count: 4096))
            }
            let outcome = try Self.open(fixture, wal: wal)
            guard case .success(let ids) = outcome else {
                Issue.record("trial \(trial) (\(kind) at \(point)): \(outcome)")
                continue
            }
            if kind.hasSuffix("sector") {
                // A sector of unused header-page slots leaves the 21st transaction whole.
                #expect(ids == Array(1...20) || ids == Array(1...21), "trial \(trial) (\(kind) at \(point)): \(ids.count) rows")
            } else {
                #expect(ids == Array(1...20), "trial \(trial) (\(kind) at \(point)): \(ids.count) rows")
            }
        }
        #expect(kinds.values.allSatisfy { $0 >= 30 })
    }

    @Test("damage to a transaction a later commit proves complete is an integrity failure naming its frame (every earlier transaction)")
    func earlierDamageDetected() throws {
        let fixture = try Self.makeFixture()
        let frames = fixture.sizes.map { (SealedFileLayout.wal.logicalSize(physicalSize: Int64($0)) - 32) / 4120 }
        let units = walUnits(fileSize: fixture.wal.count)
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for commit in 1...19 {
            // A unit (frame header or page) of a frame of this transaction.
            let candidates = units.filter { unit in
                guard case .walFrame(let frame) = unit.location else { return false }
                return Int64(frame) > frames[commit - 1] && Int64(frame) <= frames[commit]
            }
            for unit in candidates.shuffled(using: &generator).prefix(3) {
                var wal = fixture.wal
                wal[Int.random(in: unit.range, using: &generator)] ^= 0x40
                let outcome = try Self.open(fixture, wal: wal)
                guard case .failure(let error) = outcome, case .integrity(let failure) = error else {
                    Issue.record("commit \(commit), \(unit.location): \(outcome)")
                    continue
                }
                #expect(failure.location == unit.location)
                checked += 1
            }
        }
        #expect(checked >= 19)
    }

    @Test("vault verify reports a torn tail as a warning, not a failure")
    func verifyWarns() throws {
        let fixture = try Self.makeFixture()
        let directory = try TemporaryDirectory("torn-verify")
        let url = directory.file("t.vault")
        try fixture.database.write(to: url)
        try fixture.wal.prefix(fixture.sizes[21] - 1000).write(to: URL(fileURLWithPath: url.path + "-wal"))
        let report = try VaultMaintenance.authenticate(vaultAt: url, key: fixture.key)
        #expect(report.failures.isEmpty && report.isIntact)
        #expect(!report.tornTail.isEmpty)

        var damaged = fixture.wal
        damaged[fixture.sizes[5] - 100] ^= 0x01
        try damaged.write(to: URL(fileURLWithPath: url.path + "-wal"))
        let bad = try VaultMaintenance.authenticate(vaultAt: url, key: fixture.key)
        #expect(!bad.isIntact && bad.tornTail.isEmpty)
    }
}

@Suite("vault recover")
struct RecoverTests {
    @Test("damage a later commit proves is not a torn write: recover cuts the log after the last commit before it (a dry run only reports), keeping the original log")
    func recoverCutsAtDamage() throws {
        let fixture = try TornTailTests.makeFixture()
        let frames = fixture.sizes.map { (SealedFileLayout.wal.logicalSize(physicalSize: Int64($0)) - 32) / 4120 }
        let unit = try #require(walUnits(fileSize: fixture.wal.count).first { unit in
            guard case .walFrame(let frame) = unit.location else { return false }
            return Int64(frame) > frames[9] && Int64(frame) <= frames[10] && unit.range.count > 64   // a page of transaction 10
        })
        var wal = fixture.wal
        wal[unit.range.lowerBound + 10] ^= 0x01
        let directory = try TemporaryDirectory("recover")
        let url = directory.file("t.vault")
        try fixture.database.write(to: url)
        try wal.write(to: URL(fileURLWithPath: url.path + "-wal"))
        #expect(throws: VaultError.self) { _ = try openVault(url, key: fixture.key) }

        let dry = try VaultMaintenance.recover(vaultAt: url, key: fixture.key, dryRun: true)
        #expect(dry.firstDamage?.location == unit.location && dry.droppedCommits >= 11 && dry.keptFrames == Int(frames[9]))
        let afterDryRun = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        #expect(dry.savedLog == nil && afterDryRun == wal, "a dry run changes nothing")

        let done = try VaultMaintenance.recover(vaultAt: url, key: fixture.key, dryRun: false)
        #expect(done.isRecoverable && done.savedLog.map { FileManager.default.fileExists(atPath: $0) } == true)
        let vault = try openVault(url, key: fixture.key)
        defer { vault.close() }
        let ids = try vault.read { db in try db.fetchAll("SELECT id FROM t ORDER BY id").compactMap { $0[0].int64 } }
        #expect(ids == Array(1...9))
        try vault.verify()
    }

    @Test("an empty write-ahead log (a checkpoint truncated it) is intact: nothing to cut")
    func emptyLogIsIntact() throws {
        let directory = try TemporaryDirectory("recover-empty")
        let url = directory.file("e.vault")
        let key = try MasterKey.generate()
        let vault = try makeVault(url, key: key, rows: 20)
        try vault.writeWithoutTransaction { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        vault.close()
        try Data().write(to: URL(fileURLWithPath: url.path + "-wal"))
        let report = try VaultMaintenance.recover(vaultAt: url, key: key, dryRun: true)
        #expect(report.firstDamage == nil && report.droppedFrames == 0 && report.isRecoverable)
    }
}

@Suite("Torn rollback journal")
struct TornJournalTests {
    private struct Stop: Error {}

    /// The database as it was before a transaction, and that transaction's hot
    /// journal captured mid-way (what a crash leaves; the journal is synced
    /// before SQLite changes the database, so the database here is unchanged).
    private static func makeFixture() throws -> (key: MasterKey, database: Data, journal: Data, rows: [(Int64, String)]) {
        let directory = try TemporaryDirectory("journal-fixture")
        let url = directory.file("j.vault")
        let key = try MasterKey.generate()
        let vault = try makeVault(url, key: key, rows: 200, bodyLength: 300)
        try vault.writeWithoutTransaction { db in try db.execute("PRAGMA journal_mode = DELETE") }
        let rows = try readRows(vault)
        let database = try Data(contentsOf: url)
        var journal = Data()
        do {
            try vault.write { db in
                try db.execute("UPDATE t SET body = 'changed ' || id")
                journal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-journal"))
                throw Stop()
            }
        } catch is Stop {}
        vault.close()
        return (key, database, journal, rows)
    }

    private static func open(key: MasterKey, database: Data, journal: Data) throws -> Result<[(Int64, String)], VaultError> {
        let directory = try TemporaryDirectory("journal")
        let url = directory.file("j.vault")
        try database.write(to: url)
        try journal.write(to: URL(fileURLWithPath: url.path + "-journal"))
        do {
            let vault = try openVault(url, key: key)
            defer { vault.close() }
            let rows = try readRows(vault)
            try vault.verify()
            return .success(rows)
        } catch let error as VaultError {
            return .failure(error)
        }
    }

    @Test("a hot journal whose end is torn (cut, zeroed, garbage) plays back what it holds: the vault opens unchanged; damage before a valid block is an integrity failure")
    func tornJournal() throws {
        let fixture = try Self.makeFixture()
        #expect(fixture.journal.count >= 3 * 4096, "the journal spans several blocks")
        var generator = SystemRandomNumberGenerator()
        let blocks = fixture.journal.count / 4096
        for trial in 0..<30 {
            var journal = fixture.journal
            let lastBlock = (blocks - 1) * 4096
            switch trial % 3 {
            case 0: journal = journal.prefix(Int.random(in: lastBlock..<journal.count, using: &generator))
            case 1: journal.replaceSubrange(lastBlock..<journal.count, with: Data(count: journal.count - lastBlock))
            default:
                let start = Int.random(in: lastBlock..<(journal.count - 512), using: &generator)
                journal.replaceSubrange(start..<(start + 512), with: Data((0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            }
            guard case .success(let rows) = try Self.open(key: fixture.key, database: fixture.database, journal: journal) else {
                Issue.record("trial \(trial): a torn journal tail was refused"); continue
            }
            #expect(rows.count == fixture.rows.count && zip(rows, fixture.rows).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }, "trial \(trial)")
        }
        // A damaged block with a valid block after it: not a torn write.
        var damaged = fixture.journal
        damaged[4096 + 100] ^= 0x01
        guard case .failure(let error) = try Self.open(key: fixture.key, database: fixture.database, journal: damaged), case .integrity(let failure) = error else {
            Issue.record("damage inside the journal was not detected"); return
        }
        #expect(failure.location == .journalBlock(1))
    }
}
