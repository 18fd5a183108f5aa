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
        var generator = SystemRandomNumberGenerator()
        var totalCommits: Int64 = 0
        for round in 0..<rounds {
            let process = Process()
            process.executableURL = try helperExecutable()
            process.arguments = ["durability-writer", url.path, journalMode]
            let stdin = Pipe(), stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            try process.run()
            stdin.fileHandleForWriting.write(Data((hex(key) + "\n").utf8))
            try stdin.fileHandleForWriting.close()
            // Between 30 ms and 400 ms of work: sometimes during creation or
            // recovery, mostly mid-commit or mid-checkpoint.
            usleep(UInt32(30_000 + Int.random(in: 0..<370_000, using: &generator)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "round \(round): the writer stopped by itself")
            let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let reported = output.split(separator: "\n").compactMap { line -> Int64? in
                line.hasPrefix("committed ") ? Int64(line.dropFirst("committed ".count)) : nil
            }.max() ?? 0

            guard FileManager.default.fileExists(atPath: url.path) else {
                #expect(reported == 0, "round \(round): commits were reported but the vault does not exist")
                continue
            }
            let vault = try openVault(url, key: key)
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
        #expect(totalCommits > 20, "the writer should have committed across the rounds")
    }
}
