import Foundation
import VaultCore
import VaultKit

// vault-bench migration: how long opening a vault of N objects takes when it
// must migrate them — adding a property computed from two others (every object
// visited by the migration block), and renaming a property (a table rebuild
// and one UPDATE, no block per object).

private enum MigrationRowV0 {
    final class MRow: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var first = ""
        @Persisted var last = ""
        @Persisted var age = 0
    }
}

private enum MigrationRowComputed {
    final class MRow: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var first = ""
        @Persisted var last = ""
        @Persisted var age = 0
        @Persisted var fullName = ""
    }
}

private enum MigrationRowRenamed {
    final class MRow: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var first = ""
        @Persisted var surname = ""
        @Persisted var age = 0
    }
}

@MainActor func runMigrationBenchmark() {
    let count = option("--objects", default: 100_000)
    let reps = option("--reps", default: 3)
    let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 * 31) })
    var computed: [Double] = [], renamed: [Double] = [], opens: [Double] = []
    do {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = directory.appendingPathComponent("seed.vault")
        do {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: seed, encryptionKey: key, objectTypes: [MigrationRowV0.MRow.self]))
            try vault.write {
                for i in 0..<count { vault.add(MigrationRowV0.MRow(value: ["id": i, "first": "first\(i)", "last": "last\(i % 1000)", "age": i % 90])) }
            }
        }
        func timedOpen(_ configuration: Vault.Configuration) throws -> Double {
            let url = try freshCopy(of: seed, in: directory)
            var configuration = configuration
            configuration.fileURL = url
            let start = DispatchTime.now()
            let vault = try Vault(configuration: configuration)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            withExtendedLifetime(vault) {}
            return seconds
        }
        for _ in 0..<reps {
            opens.append(try timedOpen(Vault.Configuration(fileURL: seed, encryptionKey: key, objectTypes: [MigrationRowV0.MRow.self])))
            var addComputed = Vault.Configuration(fileURL: seed, encryptionKey: key, schemaVersion: 1, objectTypes: [MigrationRowComputed.MRow.self])
            addComputed.migrationBlock = { migration, _ in
                migration.enumerateObjects(ofType: "MRow") { old, new in
                    new?["fullName"] = "\(old?["first"] as? String ?? "") \(old?["last"] as? String ?? "")"
                }
            }
            computed.append(try timedOpen(addComputed))
            var rename = Vault.Configuration(fileURL: seed, encryptionKey: key, schemaVersion: 1, objectTypes: [MigrationRowRenamed.MRow.self])
            rename.migrationBlock = { migration, _ in migration.renameProperty(onType: "MRow", from: "last", to: "surname") }
            renamed.append(try timedOpen(rename))
        }
    } catch {
        print("vault-bench migration: \(error)")
        exit(1)
    }
    func row(_ name: String, _ values: [Double]) {
        print(String(format: "| %@ | %.3f s (%.3f–%.3f) | %.2f µs |", name, median(values), values.min() ?? 0, values.max() ?? 0, median(values) / Double(count) * 1e6))
    }
    print("\n## migration (\(count) objects, encrypted, \(reps) repetitions, medians)")
    print("| opening the vault | time (range) | per object |")
    print("|---|---:|---:|")
    row("no migration (the same file at the same version)", opens)
    row("add a required property computed from two others (the block visits every object)", computed)
    row("rename a property (table rebuild, one UPDATE)", renamed)
}

/// A fresh copy of the seed vault (each measured open migrates its own file).
private func freshCopy(of seed: URL, in directory: URL) throws -> URL {
    let url = directory.appendingPathComponent("copy-\(UUID().uuidString).vault")
    try FileManager.default.copyItem(at: seed, to: url)
    return url
}
