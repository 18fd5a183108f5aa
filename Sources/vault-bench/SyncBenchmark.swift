import Foundation
import VaultCore
import VaultKit
import VaultSync

/// The cost of recording change sets: the object benchmark's writes on a
/// vault with sync on and one without, in the same run (order alternated per
/// repetition); the cost of making the change sets from the noted commits
/// (off the write path); and the size of a change set per changed property.
@MainActor func runSyncBenchmark() {
    let count = option("--objects", default: 20_000)
    let reps = option("--reps", default: 5)
    let commits = option("--commits", default: 500)
    let updated = min(count, 5_000)
    var insert: [(plain: Double, synced: Double)] = []
    var update: [(plain: Double, synced: Double)] = []
    var single: [(plain: Double, synced: Double)] = []
    var making: [Double] = []
    do {
        for rep in 0..<reps {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-sync-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 * 13) })
            var figures: [Bool: (insert: Double, update: Double, single: Double)] = [:]
            for synced in rep % 2 == 0 ? [false, true] : [true, false] {
                let configuration = Vault.Configuration(fileURL: directory.appendingPathComponent(synced ? "synced.vault" : "plain.vault"),
                                                        encryptionKey: key, objectTypes: [BenchRow.self])
                let sync = synced ? try SyncedVault(configuration: configuration) : nil
                let vault = try Vault(configuration: configuration)
                var start = now()
                try vault.write {
                    for i in 0..<count {
                        vault.add(BenchRow(value: ["id": i, "name": "name \(i)", "age": i % 100, "score": Double(i) / 7, "created": 1_700_000_000 + i, "active": i % 2 == 0]))
                    }
                }
                let insertTime = Double(now() - start) / 1000 / Double(count)
                start = now()
                try vault.write {
                    for key in stride(from: 0, to: count, by: max(1, count / updated)).prefix(updated) {
                        guard let row = vault.object(ofType: BenchRow.self, forPrimaryKey: key) else { continue }
                        row.name = "updated"; row.age = key % 50; row.score = Double(key) / 3; row.active = true
                    }
                }
                let updateTime = Double(now() - start) / 1000 / Double(updated)
                start = now()
                for i in 0..<commits {
                    try vault.write { vault.object(ofType: BenchRow.self, forPrimaryKey: i % count)?.age = i }
                }
                let singleTime = Double(now() - start) / 1000 / Double(commits)
                figures[synced] = (insertTime, updateTime, singleTime)
                if let sync {
                    // Off the write path: the noted commits made into change sets (every object inserted, then updated).
                    start = now()
                    _ = try sync.pendingChangeSets()
                    making.append(Double(now() - start) / 1000 / Double(count))
                }
                withExtendedLifetime(sync) {}
            }
            guard let plain = figures[false], let synced = figures[true] else { continue }
            insert.append((plain.insert, synced.insert))
            update.append((plain.update, synced.update))
            single.append((plain.single, synced.single))
        }
        print("\n## recording change sets: sync on vs off (same run, \(count) objects, \(reps) repetitions, medians; ratio range over repetitions)")
        print("| workload | sync off | sync on | on / off (range) |")
        print("|---|---:|---:|---:|")
        for (name, unit, pairs) in [("insert, one transaction", "µs/object", insert),
                                    ("set 4 properties of \(updated) objects, one transaction", "µs/object", update),
                                    ("one commit setting one property (\(commits) commits)", "µs/commit", single)] {
            let ratios = pairs.map { $0.synced / $0.plain }
            print(String(format: "| %@ | %.2f %@ | %.2f %@ | %.2f× (%.2f–%.2f×) |", name, median(pairs.map(\.plain)), unit,
                         median(pairs.map(\.synced)), unit, median(ratios), ratios.min() ?? 0, ratios.max() ?? 0))
        }
        print(String(format: "| making the change sets afterwards (not on the write path: before an upload or a merge) | | %.2f µs/object | |", median(making)))
        try printChangeSetSizes()
    } catch {
        print("vault-bench: \(error)")
        exit(1)
    }
}

/// Bytes of a change set (encoded, and sealed as a relay stores it) for commits changing 1 and 4 properties.
@MainActor private func printChangeSetSizes() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-sync-sizes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let configuration = Vault.Configuration(fileURL: directory.appendingPathComponent("sizes.vault"),
                                            encryptionKey: Data(repeating: 7, count: 64), objectTypes: [BenchRow.self])
    let synced = try SyncedVault(configuration: configuration)
    let vault = try Vault(configuration: configuration)
    try vault.write { vault.add(BenchRow(value: ["id": 1, "name": "first", "age": 30, "score": 1.5, "created": 1_700_000_000, "active": true])) }
    try vault.write { vault.object(ofType: BenchRow.self, forPrimaryKey: 1)?.age = 31 }
    try vault.write {
        guard let row = vault.object(ofType: BenchRow.self, forPrimaryKey: 1) else { return }
        row.name = "second"; row.age = 32; row.score = 2.5; row.active = false
    }
    guard let space = SyncSpaceID(bytes: Array(repeating: 1, count: 16)) else { return }
    let sealer = try ChangeSetSealer(space: space, keys: [1: try SyncKey.generate()], currentKeyID: 1)
    let changeSets = try synced.pendingChangeSets()
    guard changeSets.count == 3 else { return }
    let encoded = try changeSets.map { try ChangeSetCodec.encode($0).count }
    let sealed = try changeSets.map { try sealer.seal($0).envelope.count }
    print("\n## change-set size (an Int primary key, a 20-character device clock; sealed = the envelope a relay stores)")
    print("| commit | encoded | sealed |")
    print("|---|---:|---:|")
    print("| insert one object with 6 properties | \(encoded[0]) B | \(sealed[0]) B |")
    print("| set 1 property | \(encoded[1]) B | \(sealed[1]) B |")
    print("| set 4 properties | \(encoded[2]) B | \(sealed[2]) B |")
    print(String(format: "| each further property (from the two above) | %.1f B | |", Double(encoded[2] - encoded[1]) / 3))
}
