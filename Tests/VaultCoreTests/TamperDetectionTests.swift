import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

/// A vault snapshot (database file, optional WAL) and the rows it must read back as.
struct TamperFixture {
    let key: MasterKey
    let database: Data
    let wal: Data?
    let expected: [(Int64, String)]
    /// The rows after the checkpoint and after each WAL transaction (the last is `expected`).
    var states: [[(Int64, String)]] = []
    /// The WAL's frame count after each transaction.
    var commitFrames: [Int64] = []

    /// A vault of ~30 pages, fully checkpointed (`withWAL == false`), or with
    /// later committed transactions still in its WAL.
    static func make(withWAL: Bool) throws -> TamperFixture {
        let directory = try TemporaryDirectory()
        let url = directory.file("f.vault")
        let key = try MasterKey.generate()
        let vault = try openVault(url, key: key) { $0.walAutocheckpointPages = 0 }
        try vault.write { db in
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for i in 1...300 {
                try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(Int64(i)), .text("\(plaintextMarker)-\(i)-" + String(repeating: "b", count: 300))])
            }
        }
        try vault.checkpoint()
        var states = [try readRows(vault)]
        var commitFrames: [Int64] = []
        if withWAL {
            for round in 0..<3 {
                try vault.write { db in
                    try db.execute("UPDATE t SET body = ? || id WHERE id % 4 = ? AND id <= 24", arguments: [.text("round\(round)-"), .integer(Int64(round))])
                    try db.execute("INSERT INTO t(body) VALUES (?)", arguments: [.text("appended-\(round)")])
                }
                states.append(try readRows(vault))
                let size = Int64((try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0)
                commitFrames.append((SealedFileLayout.wal.logicalSize(physicalSize: size) - 32) / 4120)
            }
        }
        let expected = try readRows(vault)
        // Copy while the vault is open and idle: db + WAL are a consistent pair.
        let database = try Data(contentsOf: url)
        let wal = withWAL ? try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal")) : nil
        if withWAL { #expect((wal?.count ?? 0) > 72) }
        vault.close()
        return TamperFixture(key: key, database: database, wal: wal, expected: expected, states: states, commitFrames: commitFrames)
    }

    enum Outcome {
        case error(VaultError)
        case sameData
        /// The rows of an earlier state (`states[k]`): a torn WAL tail was dropped.
        case earlierState(Int)
        case differentData
    }

    /// Writes (possibly altered) files to a fresh directory, opens, reads every row and verifies.
    func open(database: Data, wal: Data?) throws -> Outcome {
        let directory = try TemporaryDirectory("tamper")
        let url = directory.file("f.vault")
        try database.write(to: url)
        if let wal { try wal.write(to: URL(fileURLWithPath: url.path + "-wal")) }
        do {
            let vault = try openVault(url, key: key)
            let rows = try readRows(vault)
            try vault.verify()
            func matches(_ state: [(Int64, String)]) -> Bool { rows.count == state.count && zip(rows, state).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 } }
            if matches(expected) { return .sameData }
            if let earlier = states.indices.last(where: { matches(states[$0]) }) { return .earlierState(earlier) }
            return .differentData
        } catch let error as VaultError {
            return .error(error)
        }
    }
}

/// Deterministic sample positions in `range`.
func samplePositions(in range: Range<Int>, count: Int, seed: UInt64) -> [Int] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return range.lowerBound + Int((state >> 33) % UInt64(range.count))
    }
}

@Suite("Tamper detection: altered bytes are an error, never different data")
struct TamperDetectionTests {
    @Test("every bit flip in a database page is an integrity error naming the page")
    func databasePageFlips() throws {
        let fixture = try TamperFixture.make(withWAL: false)
        let pageRegion = 4096..<fixture.database.count
        var positions = samplePositions(in: pageRegion, count: 160, seed: 1)
        // The edges of units: first byte, last ciphertext byte, nonce, tag.
        positions += [4096, 4096 + 4055, 4096 + 4056, 4096 + 4079, 4096 + 4080, fixture.database.count - 1]
        for position in positions {
            var bytes = fixture.database
            bytes[position] ^= 0x04
            let outcome = try fixture.open(database: bytes, wal: nil)
            guard case .error(let error) = outcome else {
                Issue.record("flip at \(position) was not detected: \(outcome)")
                continue
            }
            guard case .integrity(let failure) = error else {
                Issue.record("flip at \(position) gave \(error), expected an integrity failure")
                continue
            }
            #expect(failure.location == .databasePage(UInt64((position - 4096) / 4096 + 1)), "flip at \(position)")
            #expect(failure.path.hasSuffix("f.vault"))
        }
    }

    @Test("bit flips in the header are an error where authenticated and change nothing elsewhere")
    func headerFlips() throws {
        let fixture = try TamperFixture.make(withWAL: false)
        for position in Array(0..<4096).filter({ $0 % 7 == 0 || (100..<160).contains($0) || (256..<384).contains($0) }) {
            var bytes = fixture.database
            bytes[position] ^= 0x01
            let outcome = try fixture.open(database: bytes, wal: nil)
            let authenticated = (100..<152).contains(position) || (256..<368).contains(position)
            switch outcome {
            case .differentData, .earlierState:
                Issue.record("flip at header byte \(position) produced different data")
            case .sameData:
                #expect(!authenticated, "flip at authenticated header byte \(position) went unnoticed")
            case .error:
                #expect(authenticated, "flip at unauthenticated header byte \(position) should be harmless")
            }
        }
    }

    @Test("a bit flip in a WAL unit: in a transaction a later commit proves complete, an integrity error naming the frame; in the last transaction, a torn tail dropped; padding changes nothing")
    func walFlips() throws {
        let fixture = try TamperFixture.make(withWAL: true)
        guard let wal = fixture.wal else { return }
        let units = walUnits(fileSize: wal.count)
        #expect(units.count >= 7, "the fixture's WAL should hold several frames")
        var positions = samplePositions(in: 0..<wal.count, count: 160, seed: 2)
        for unit in units { positions += [unit.range.lowerBound, unit.range.upperBound - 1, unit.range.upperBound - 20] }
        positions += [100, 4095, wal.count - 1]
        var detected = 0, dropped = 0
        for position in positions {
            var bytes = wal
            bytes[position] ^= 0x10
            let outcome = try fixture.open(database: fixture.database, wal: bytes)
            guard let unit = units.first(where: { $0.range.contains(position) }) else {
                // Page-0 padding, unused frame-header slots: not part of any unit, never read.
                guard case .sameData = outcome else { Issue.record("flip at WAL padding \(position): \(outcome)"); continue }
                continue
            }
            // The torn-tail rule (WALTail): which transaction the frame is in, how many commits follow it.
            var tornState: Int?
            if case .walFrame(let number) = unit.location {
                let frame = Int64(number)
                let round = fixture.commitFrames.firstIndex { frame <= $0 } ?? 0
                let isCommitFrame = frame == fixture.commitFrames[round]
                let laterCommits = fixture.commitFrames.count - round - (isCommitFrame ? 1 : 0)
                let headerIntact = unit.range.count > 64   // the flip hit the page unit, so the header says "commit"
                if laterCommits <= 1 && !(isCommitFrame && headerIntact && laterCommits >= 1) { tornState = round }
            }
            if let tornState {
                guard case .earlierState(let state) = outcome, state == tornState else {
                    Issue.record("WAL flip at \(position) (\(unit.location)) in the last transaction: \(outcome), expected the state before it (\(tornState))")
                    continue
                }
                dropped += 1
                continue
            }
            guard case .error(let error) = outcome else {
                Issue.record("WAL flip at \(position) was not detected: \(outcome)")
                continue
            }
            guard case .integrity(let failure) = error else {
                Issue.record("WAL flip at \(position) gave \(error)")
                continue
            }
            #expect(failure.path.hasSuffix("f.vault-wal"))
            #expect(failure.location == unit.location, "WAL flip at \(position)")
            detected += 1
        }
        #expect(detected > 50 && dropped > 20, "detected \(detected), dropped as torn tails \(dropped)")
    }

    @Test("a database flip under a WAL is an error or unseen (superseded), never different data")
    func databaseFlipsWithWAL() throws {
        let fixture = try TamperFixture.make(withWAL: true)
        var errors = 0
        for position in samplePositions(in: 4096..<fixture.database.count, count: 60, seed: 3) {
            var bytes = fixture.database
            bytes[position] ^= 0x80
            switch try fixture.open(database: bytes, wal: fixture.wal) {
            case .differentData, .earlierState: Issue.record("flip at \(position) produced different data")
            case .error: errors += 1
            case .sameData: break
            }
        }
        #expect(errors > 40, "most pages are not superseded by the WAL, so most flips must be seen")
    }

    @Test("swapped, zeroed and transplanted pages are detected")
    func pageMoves() throws {
        let fixture = try TamperFixture.make(withWAL: false)
        let page = { (n: Int) in 4096 * n..<(4096 * (n + 1)) }   // physical range of page n (1-based)
        func expectIntegrity(_ bytes: Data, wal: Data? = nil, _ what: String) throws {
            guard case .error(let error) = try fixture.open(database: bytes, wal: wal) else {
                Issue.record("\(what) was not detected"); return
            }
            guard case .integrity = error else { Issue.record("\(what) gave \(error)"); return }
        }
        var swapped = fixture.database
        swapped.replaceSubrange(page(2), with: fixture.database[page(3)])
        swapped.replaceSubrange(page(3), with: fixture.database[page(2)])
        try expectIntegrity(swapped, "swapping pages 2 and 3")

        var duplicated = fixture.database
        duplicated.replaceSubrange(page(4), with: fixture.database[page(5)])
        try expectIntegrity(duplicated, "copying page 5 over page 4")

        var zeroed = fixture.database
        zeroed.replaceSubrange(page(3), with: Data(count: 4096))
        try expectIntegrity(zeroed, "zeroing page 3")

        // The same page number from another vault under the same key: another data key and salt.
        let other = try TamperFixture.make(withWAL: false)
        var transplanted = fixture.database
        transplanted.replaceSubrange(page(2), with: other.database[page(2)])
        try expectIntegrity(transplanted, "page 2 from another vault")

        // The other vault's WAL next to this database: nothing in it authenticates, so
        // none of it is part of this vault (the torn-tail rule: as if the WAL were
        // deleted, which anyone with the files can do) and never read as data.
        let withWAL = try TamperFixture.make(withWAL: true)
        guard case .sameData = try fixture.open(database: fixture.database, wal: withWAL.wal) else {
            Issue.record("a WAL from another vault was read"); return
        }
    }

    @Test("WAL frames swapped, WAL header zeroed: detected")
    func walMoves() throws {
        let fixture = try TamperFixture.make(withWAL: true)
        guard let wal = fixture.wal else { Issue.record("no WAL"); return }
        let pages = walUnits(fileSize: wal.count).filter { if case .walFrame = $0.location { return $0.range.count == 4096 } else { return false } }.map(\.range)
        guard pages.count >= 3 else { Issue.record("WAL too short"); return }
        var swapped = wal
        swapped.replaceSubrange(pages[0], with: wal[pages[1]])
        swapped.replaceSubrange(pages[1], with: wal[pages[0]])
        guard case .error(.integrity) = try fixture.open(database: fixture.database, wal: swapped) else {
            Issue.record("swapped WAL frames not detected"); return
        }
        var zeroed = wal
        zeroed.replaceSubrange(0..<72, with: Data(count: 72))     // the sealed WAL header
        guard case .error(.integrity) = try fixture.open(database: fixture.database, wal: zeroed) else {
            Issue.record("zeroed WAL header not detected"); return
        }
    }

    @Test("truncation is detected: mid-page, whole pages, header only; a WAL cut mid-frame drops its last transaction")
    func truncation() throws {
        let fixture = try TamperFixture.make(withWAL: false)
        let count = fixture.database.count
        for (length, what) in [(count - 100, "mid-page"), (count - 4096, "the last page"), (count - 3 * 4096, "three pages"), (4096, "all pages"), (4096 + 10, "page 1 cut")] {
            let outcome = try fixture.open(database: fixture.database.prefix(length), wal: nil)
            guard case .error(let error) = outcome else { Issue.record("truncating \(what) was not detected: \(outcome)"); continue }
            guard case .integrity = error else { Issue.record("truncating \(what) gave \(error)"); continue }
        }
        let withWAL = try TamperFixture.make(withWAL: true)
        guard let wal = withWAL.wal else { return }
        // A WAL cut inside its last frame is a torn tail: the last transaction is dropped, the rest kept.
        let outcome = try withWAL.open(database: withWAL.database, wal: wal.prefix(wal.count - 1000))
        guard case .earlierState(let state) = outcome, state == withWAL.states.count - 2 else { Issue.record("WAL cut mid-frame: \(outcome)"); return }
    }
}
