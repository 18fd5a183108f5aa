import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// Mirrors `durabilityPayload` in VaultTestHelper/main.swift.
func expectedDurabilityPayload(_ id: Int) -> String {
    let length = 16 + (id * 7919) % 3000
    return String(repeating: String(UnicodeScalar(UInt8(65 + id % 26))), count: length)
}

@Suite("Durability: SIGKILL at random moments never loses a committed transaction", .serialized)
struct DurabilityTests {
    @Test("kill the writer at random points, reopen, compare with what it reported committed", arguments: ["wal", "delete"])
    func killAtRandomPoints(journalMode: String) throws {
        let directory = try TemporaryDirectory("durability")
        let url = directory.file("d.vault")
        let key = try MasterKey.generate()
        let rounds = journalMode == "wal" ? 24 : 12
        var totalCommits: Int64 = 0
        for round in 0..<rounds {
            let writer = try RunningHelper(["durability-writer", url.path, journalMode], input: hex(key))
            // Blind kills land during creation or recovery; the others mostly mid-commit or mid-checkpoint.
            let (progressed, termination) = writer.kill(inRound: round, afterLineStartingWith: "committed ",
                                                        delay: 0..<370_000, blindDelay: 30_000..<400_000)
            #expect(progressed, "round \(round): the writer committed nothing in 60 s")
            #expect(termination == .uncaughtSignal, "round \(round): the writer stopped by itself")
            let reported = writer.printedLines.compactMap { line -> Int64? in
                line.hasPrefix("committed ") ? Int64(line.dropFirst("committed ".count)) : nil
            }.max() ?? 0

            guard FileManager.default.fileExists(atPath: url.path) else {
                #expect(reported == 0, "round \(round): commits were reported but the vault does not exist")
                continue
            }
            let vault = try openVault(url, key: key)
            // Killed while creating the vault: the file exists, the tables were never committed.
            let created = try vault.read { db in try db.fetchOne("SELECT count(*) FROM sqlite_master WHERE name = 't'")?[0].int64 } == 1
            guard created else {
                #expect(reported == 0 && totalCommits == 0, "round \(round): commits were reported but the table is gone")
                try vault.verify()
                vault.close()
                continue
            }
            let rows = try vault.read { db in try db.fetchAll("SELECT id, body FROM t ORDER BY id") }
            let counter = try vault.read { db in try db.fetchOne("SELECT value FROM counter WHERE id = 1")?[0].int64 } ?? 0
            let ids = rows.compactMap { $0[0].int64 }
            let last = ids.last ?? 0
            let contiguous: [Int64] = last > 0 ? Array(1...last) : []
            #expect(ids == contiguous, "round \(round): ids are not contiguous")
            #expect(last >= max(reported, totalCommits), "round \(round): a reported commit was lost (reported \(reported), found \(last))")
            #expect(last <= max(reported, totalCommits) + 1, "round \(round): more rows than commits")
            #expect(counter == last, "round \(round): counter \(counter) vs last row \(last)")
            for row in rows {
                guard let id = row[0].int64 else { continue }
                if row[1].string != expectedDurabilityPayload(Int(id)) {
                    Issue.record("round \(round): row \(id) has different content")
                    break
                }
            }
            try vault.verify()
            vault.close()
            totalCommits = last
        }
    }
}
