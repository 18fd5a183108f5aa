import CSQLite
import Foundation
import VaultCore
import VaultKit

/// The 6-property model of the object benchmark (the storage workloads' row shape).
final class BenchRow: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var score = 0.0
    @Persisted var created = 0
    @Persisted var active = false
}

/// Objects vs raw prepared statements, both through the encrypting VFS, in one run.
@MainActor func runObjectBenchmark() {
    let count = option("--objects", default: 100_000)
    let reps = option("--reps", default: 5)
    let names = (0..<count).map { i in String(UnicodeScalar(UInt8(97 + i % 26))) + String(repeating: "n", count: 19) }
    var rawInsert: [Double] = [], objectInsert: [Double] = [], rawRead: [Double] = [], objectRead: [Double] = []
    var rawFetch: [Double] = [], objectFetch: [Double] = []
    var trackedRead: [Double] = [], trackedFetch: [Double] = []
    var rawUpdate: [Double] = [], objectUpdate: [Double] = []
    let updated = min(count, 10_000)
    var generator = Generator(state: 0xDEADBEEF)
    let lookups = (0..<count).map { _ in Int(generator.next() % UInt64(count)) }
    do {
        for _ in 0..<reps {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-objects-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let keyData = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 * 13) })

            // Raw statements through the same VFS and settings.
            let raw = try VaultDatabase(configuration: .init(fileURL: directory.appendingPathComponent("raw.vault"), masterKey: try MasterKey(bytes: keyData)))
            try raw.withConnection { db in
                let handle = db.sqliteConnection
                exec(handle, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL, created INTEGER NOT NULL, active INTEGER NOT NULL)")
                let insert = prepare(handle, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)")
                var start = now()
                exec(handle, "BEGIN")
                for i in 0..<count {
                    sqlite3_bind_int64(insert, 1, Int64(i)); sqlite3_bind_text(insert, 2, names[i], -1, vaultkit_sqlite_transient())
                    sqlite3_bind_int64(insert, 3, Int64(i % 100)); sqlite3_bind_double(insert, 4, Double(i) / 7)
                    sqlite3_bind_int64(insert, 5, Int64(1_700_000_000 + i)); sqlite3_bind_int64(insert, 6, Int64(i % 2))
                    check(sqlite3_step(insert), handle, "insert"); sqlite3_reset(insert)
                }
                exec(handle, "COMMIT")
                rawInsert.append(Double(now() - start) / 1000 / Double(count))
                sqlite3_finalize(insert)
                let scan = prepare(handle, "SELECT id, name, age, score, created, active FROM t")
                start = now()
                var checksum = 0
                while sqlite3_step(scan) == SQLITE_ROW {
                    checksum &+= Int(sqlite3_column_int64(scan, 0)) &+ Int(sqlite3_column_bytes(scan, 1)) &+ Int(sqlite3_column_int64(scan, 2))
                    checksum &+= Int(sqlite3_column_double(scan, 3)) &+ Int(sqlite3_column_int64(scan, 4)) &+ Int(sqlite3_column_int64(scan, 5))
                    _ = String(cString: sqlite3_column_text(scan, 1))
                }
                rawRead.append(Double(now() - start) / 1000 / Double(count * 6))
                sqlite3_finalize(scan)
                let fetch = prepare(handle, "SELECT id, name, age, score, created, active FROM t WHERE id = ?")
                start = now()
                for key in lookups {
                    sqlite3_bind_int64(fetch, 1, Int64(key))
                    if sqlite3_step(fetch) == SQLITE_ROW { checksum &+= Int(sqlite3_column_int64(fetch, 2)) }
                    sqlite3_reset(fetch)
                }
                rawFetch.append(Double(now() - start) / 1000 / Double(count))
                sqlite3_finalize(fetch)
                // Four properties of each of `updated` rows, one statement per row, one transaction.
                let update = prepare(handle, "UPDATE t SET name = ?, age = ?, score = ?, active = ? WHERE id = ?")
                start = now()
                exec(handle, "BEGIN")
                for key in lookups.prefix(updated) {
                    sqlite3_bind_text(update, 1, "updated", -1, vaultkit_sqlite_transient())
                    sqlite3_bind_int64(update, 2, Int64(key % 50))
                    sqlite3_bind_double(update, 3, Double(key) / 3)
                    sqlite3_bind_int64(update, 4, 1)
                    sqlite3_bind_int64(update, 5, Int64(key))
                    check(sqlite3_step(update), handle, "update"); sqlite3_reset(update)
                }
                exec(handle, "COMMIT")
                rawUpdate.append(Double(now() - start) / 1000 / Double(updated))
                sqlite3_finalize(update)
                if checksum == 42 { print("") }
            }
            raw.close()

            // Objects.
            var configuration = Vault.Configuration(fileURL: directory.appendingPathComponent("objects.vault"), encryptionKey: keyData)
            configuration.objectTypes = [BenchRow.self]
            let vault = try Vault(configuration: configuration)
            var start = now()
            try vault.write {
                for i in 0..<count {
                    let row = BenchRow()
                    row.id = i; row.name = names[i]; row.age = i % 100; row.score = Double(i) / 7
                    row.created = 1_700_000_000 + i; row.active = i % 2 == 1
                    vault.add(row)
                }
            }
            objectInsert.append(Double(now() - start) / 1000 / Double(count))
            start = now()
            var checksum = 0
            for row in vault.objects(BenchRow.self) {
                checksum &+= row.id &+ row.name.utf8.count &+ row.age &+ Int(row.score) &+ row.created &+ (row.active ? 1 : 0)
            }
            objectRead.append(Double(now() - start) / 1000 / Double(count * 6))
            start = now()
            for key in lookups {
                if let row = vault.object(ofType: BenchRow.self, forPrimaryKey: key) { checksum &+= row.age }
            }
            objectFetch.append(Double(now() - start) / 1000 / Double(count))
            start = now()
            try vault.write {
                for key in lookups.prefix(updated) {
                    guard let row = vault.object(ofType: BenchRow.self, forPrimaryKey: key) else { continue }
                    row.name = "updated"; row.age = key % 50; row.score = Double(key) / 3; row.active = true
                }
            }
            objectUpdate.append(Double(now() - start) / 1000 / Double(updated))

            // The same reads with Observation tracking on (a vault of its own on the same file).
            var trackedConfiguration = configuration
            trackedConfiguration.observationTracking = true
            let tracked = try Vault(configuration: trackedConfiguration)
            start = now()
            for row in tracked.objects(BenchRow.self) {
                checksum &+= row.id &+ row.name.utf8.count &+ row.age &+ Int(row.score) &+ row.created &+ (row.active ? 1 : 0)
            }
            trackedRead.append(Double(now() - start) / 1000 / Double(count * 6))
            start = now()
            for key in lookups {
                if let row = tracked.object(ofType: BenchRow.self, forPrimaryKey: key) { checksum &+= row.age }
            }
            trackedFetch.append(Double(now() - start) / 1000 / Double(count))
            if checksum == 42 { print("") }
        }
    } catch {
        print("vault-bench: \(error)")
        exit(1)
    }
    print("\n## objects vs raw statements, both through the encrypting VFS (\(count) rows, \(reps) repetitions, medians)")
    print("| workload | raw statements | objects | raw rate / object rate |")
    print("|---|---:|---:|---:|")
    print(String(format: "| insert, one transaction | %.2f µs/row | %.2f µs/object | %.2f× |", median(rawInsert), median(objectInsert), median(zip(rawInsert, objectInsert).map { $1 / $0 })))
    print(String(format: "| read every property | %.3f µs/value | %.3f µs/property | %.2f× |", median(rawRead), median(objectRead), median(zip(rawRead, objectRead).map { $1 / $0 })))
    print(String(format: "| fetch by primary key | %.2f µs | %.2f µs | %.2f× |", median(rawFetch), median(objectFetch), median(zip(rawFetch, objectFetch).map { $1 / $0 })))
    print(String(format: "| set 4 properties of \(updated) rows, one transaction (objects: fetch + 4 setters) | %.2f µs/row | %.2f µs/object | %.2f× |",
                 median(rawUpdate), median(objectUpdate), median(zip(rawUpdate, objectUpdate).map { $1 / $0 })))
    let readRatios = zip(objectRead, trackedRead).map { $1 / $0 }, fetchRatios = zip(objectFetch, trackedFetch).map { $1 / $0 }
    print("\n## Observation tracking on vs off (same file, same run)")
    print("| workload | off | on | on / off (range) |")
    print("|---|---:|---:|---:|")
    print(String(format: "| read every property | %.3f µs | %.3f µs | %.2f× (%.2f–%.2f×) |", median(objectRead), median(trackedRead), median(readRatios), readRatios.min() ?? 0, readRatios.max() ?? 0))
    print(String(format: "| fetch by primary key, then one property | %.2f µs | %.2f µs | %.2f× (%.2f–%.2f×) |", median(objectFetch), median(trackedFetch), median(fetchRatios), fetchRatios.min() ?? 0, fetchRatios.max() ?? 0))
}
