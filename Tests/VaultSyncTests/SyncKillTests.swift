import Foundation
import Testing
import VaultCore
import VaultKit
@testable import VaultSync
import VaultTestSupport

/// A synced device is a child process killed with SIGKILL at a random moment
/// while it applies remote change sets or commits local edits; reopened, it
/// has lost nothing, applied nothing twice and nothing by half.
@Suite("Synced vaults: a device killed mid-apply or mid-commit recovers", .serialized)
struct SyncKillTests {
    private static let keyHex = syncTestKey.map { String(format: "%02x", $0) }.joined()

    @Test("killed while applying: every transaction whole or absent, the rest applied once afterwards")
    func killedWhileApplying() throws {
        let directory = try TemporaryDirectory("sync-kill-apply")
        // The author: many small commits of every kind.
        let author = try SyncTestDevice(directory, "author", relay: InProcessRelay())
        for index in 0..<120 {
            try author.write { vault in
                let note = vault.create(SyncNote.self, value: ["id": "k\(index % 15)", "title": "v\(index)", "rank": index], update: .modified)
                note.tags.insert("t\(index)", at: note.tags.isEmpty ? 0 : index % note.tags.count)
                note.counts["c\(index % 4)"] = index
                if index % 7 == 0 { note.place = SyncPlace(value: ["city": "c\(index)"]) }
                if index % 11 == 0, let other = vault.object(ofType: SyncNote.self, forPrimaryKey: "k\((index + 3) % 15)") { vault.delete(other) }
            }
            _ = try author.synced.pendingChangeSets()   // one change set per commit
        }
        let changeSets = try author.synced.pendingChangeSets()
        var file = Data()
        for changeSet in changeSets {
            let bytes = try ChangeSetCodec.encode(changeSet)
            file.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: bytes.count >> (8 * $0)) } + bytes)
        }
        let changeSetsFile = directory.file("changesets.bin")
        try file.write(to: changeSetsFile)
        // The reference: a device that applies them without interruption, one prefix at a time.
        var prefixDumps: [UInt64: String] = [:]
        let reference = try SyncTestDevice(directory, "reference", relay: InProcessRelay())
        prefixDumps[0] = try reference.synced.dump()
        for start in stride(from: 0, to: changeSets.count, by: 5) {
            try reference.synced.apply(Array(changeSets[start..<min(start + 5, changeSets.count)]))
            prefixDumps[UInt64(min(start + 5, changeSets.count))] = try reference.synced.dump()
        }
        var killedMidway = 0
        for round in 0..<6 {
            let vaultURL = directory.file("victim\(round).vault")
            let helper = try RunningHelper(["sync-apply", vaultURL.path, changeSetsFile.path], input: Self.keyHex)
            let outcome = helper.kill(inRound: round, afterLineStartingWith: "ready", delay: 0..<400_000, blindDelay: 0..<300_000)
            if !helper.printedLines.contains("done") { killedMidway += 1 }
            let victim = try SyncedVault(configuration: Vault.Configuration(fileURL: vaultURL, encryptionKey: syncTestKey, objectTypes: syncTestTypes))
            let applied = try victim.appliedChangeSets()[author.synced.device] ?? 0
            let reported = helper.printedLines.compactMap { $0.hasPrefix("applied ") ? UInt64($0.dropFirst(8)) : nil }.max() ?? 0
            #expect(applied >= reported, "round \(round): a reported transaction was lost (\(outcome))")
            #expect(try victim.dump() == prefixDumps[applied], "round \(round): the vault does not hold exactly the first \(applied) change sets")
            #expect(try victim.pendingChangeSets().isEmpty, "round \(round): applying recorded local change sets")
            try victim.apply(changeSets + changeSets.prefix(10))
            #expect(try victim.dump() == prefixDumps[UInt64(changeSets.count)], "round \(round): finishing after the kill gave other objects")
        }
        #expect(killedMidway > 0, "no round killed the helper before it finished")
    }

    @Test("killed while committing: every commit that returned is noted and reaches the outbox once, which replays to the same objects")
    func killedWhileCommitting() throws {
        let directory = try TemporaryDirectory("sync-kill-write")
        for round in 0..<4 {
            let vaultURL = directory.file("writer\(round).vault")
            let configuration = Vault.Configuration(fileURL: vaultURL, encryptionKey: syncTestKey, objectTypes: syncTestTypes)
            let helper = try RunningHelper(["sync-write", vaultURL.path], input: Self.keyHex)
            _ = helper.kill(inRound: round + 1, afterLineStartingWith: "committed 3", delay: 0..<200_000, blindDelay: 0..<200_000)
            let reported = helper.printedLines.compactMap { $0.hasPrefix("committed ") ? Int($0.dropFirst(10)) : nil }.max() ?? -1
            let synced = try SyncedVault(configuration: configuration)
            let outbox = try synced.pendingChangeSets()
            #expect(outbox.map(\.sequence) == (0..<outbox.count).map { UInt64($0 + 1) }, "round \(round): gaps in the outbox")
            let notes = try Vault(configuration: configuration).objects(SyncNote.self).count
            #expect(notes >= reported + 1, "round \(round): \(notes) notes, \(reported + 1) reported")
            let created = Set(outbox.flatMap(\.operations).filter { $0.change == .create }.map(\.object.key))
            #expect(created.count == notes, "round \(round): \(notes) notes, \(created.count) created in the outbox")
            // Another device replaying the outbox holds the same objects.
            let replica = try SyncTestDevice(directory, "replica\(round)", relay: InProcessRelay())
            try replica.synced.apply(outbox)
            #expect(try replica.synced.dump() == synced.dump(), "round \(round): the outbox does not replay to the vault's objects")
        }
    }
}
