import Foundation
import VaultCore
import VaultKit
import VaultRealmImport

// vault-bench realm-import: import throughput of Realm files written by Realm Core
// (the fixtures: `bulk`, 200,000 objects with a list each; `blog`, plain and
// encrypted), in objects and megabytes per second, with the reading alone (a dry
// run) beside it, and the process's peak memory against the file's size.

@MainActor func runRealmImportBenchmark() {
    let reps = option("--reps", default: 5)
    let fixtures = [("bulk (plain, 200,000 objects)", "Tests/VaultRealmImportTests/Fixtures/bulk.realm", nil as Data?),
                    ("blog (plain)", "Tests/RealmFileReaderTests/Fixtures/blog.realm", nil),
                    ("blog (encrypted)", "Tests/RealmFileReaderTests/Fixtures/blog-encrypted.realm", Data((0..<64).map { UInt8($0) }))]
    let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 * 29 + 5) })
    print("\n## Realm import (release build, \(reps) repetitions: median and range)")
    print("| file | size | objects | import: objects/s | import: MB/s | read only (dry run): objects/s |")
    print("|---|---:|---:|---:|---:|---:|")
    do {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, path, realmKey) in fixtures {
            let url = URL(fileURLWithPath: path)
            guard FileManager.default.fileExists(atPath: url.path) else {
                print("| \(name) | (not found: run from the repository root) | | | | |")
                continue
            }
            let size = Double((try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0)
            var imports: [Double] = [], reads: [Double] = []
            var objects = 0
            for repetition in 0..<reps {
                let destination = directory.appendingPathComponent("import-\(repetition).vault")
                var start = DispatchTime.now()
                let summary = try Vault.importRealm(at: url, encryptionKey: realmKey, into: Vault.Configuration(fileURL: destination, encryptionKey: key))
                imports.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
                objects = summary.objectCount
                try VaultMaintenance.deleteFiles(ofVaultAt: destination)
                start = DispatchTime.now()
                try Vault.inspectRealm(at: url, encryptionKey: realmKey)
                reads.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
            }
            func rate(_ times: [Double], _ amount: Double) -> String {
                String(format: "%.0f (%.0f–%.0f)", amount / median(times), amount / (times.max() ?? 1), amount / (times.min() ?? 1))
            }
            print("| \(name) | \(String(format: "%.1f MB", size / 1e6)) | \(objects) | \(rate(imports, Double(objects))) | "
                  + "\(String(format: "%.1f (%.1f–%.1f)", size / 1e6 / median(imports), size / 1e6 / (imports.max() ?? 1), size / 1e6 / (imports.min() ?? 1))) | "
                  + "\(rate(reads, Double(objects))) |")
        }
    } catch {
        print("vault-bench realm-import: \(error)")
        exit(1)
    }
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    print("peak resident memory of the whole run: \(usage.ru_maxrss / 1024) MiB (the largest file is 13.7 MB; page caches: 32 MiB for the vault, the reader's bounded cache)")
}
