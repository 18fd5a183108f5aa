import CSQLite
import Foundation
import VaultCore
import VaultKit

/// The models of the query benchmark.
final class BenchTag: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

final class BenchPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var email = ""
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var score = 0.0
    @Persisted var tags: List<BenchTag>
}

/// Queries through VaultKit vs the same queries written by hand in SQL over
/// the same tables, in the same encrypted vault file and the same run.
///
/// VaultKit's side is what an app writes: `vault.objects(T.self).filter(…)`
/// each time (parse, compile, statement-cache lookup, run). The hand-written
/// side is a prepared statement bound and stepped through SQLite's C API on a
/// second connection to the same file, in autocommit mode like VaultKit's.
@MainActor func runQueryBenchmark() {
    let count = option("--objects", default: 100_000)
    let reps = option("--reps", default: 5)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-queries-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let keyData = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 * 29) })
    let syllables = ["ka", "lo", "mi", "ne", "so", "ta", "ru", "vi", "Ab", "ZE"]
    func name(_ i: Int) -> String { (0..<4).map { syllables[(i / [1, 10, 100, 1000][$0] + $0 * 3) % 10] }.joined() + " \(i % 997)" }

    var results: [(label: String, ours: [Double], raw: [Double], matches: Int)] = []
    var compileTimes: [Double] = []
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fileURL = directory.appendingPathComponent("queries.vault")
        var configuration = Vault.Configuration(fileURL: fileURL, encryptionKey: keyData)
        configuration.objectTypes = [BenchPerson.self, BenchTag.self]
        let vault = try Vault(configuration: configuration)
        try vault.write {
            let tags = (0..<50).map { i -> BenchTag in
                let tag = BenchTag()
                tag.id = i
                tag.name = "tag\(i)"
                vault.add(tag)
                return tag
            }
            for i in 0..<count {
                let person = BenchPerson()
                person.id = i
                person.email = "user\(i)@example.org"
                person.name = name(i)
                person.age = i % 90
                person.score = Double((i &* 7919) % 100_000) / 10
                for k in 0..<(i % 4) { person.tags.append(tags[(i &* 7 &+ k &* 13) % 50]) }
                vault.add(person)
            }
        }
        let rawDatabase = try VaultDatabase(configuration: .init(fileURL: fileURL, masterKey: try MasterKey(bytes: keyData)))
        defer { rawDatabase.close() }
        let people = vault.objects(BenchPerson.self)
        let list = "\"_vk_list_BenchPerson_tags\""

        /// Times `body` `iterations` times; µs per run.
        func time(_ iterations: Int, _ body: () throws -> Int) rethrows -> (Double, Int) {
            var last = 0
            let start = now()
            for _ in 0..<iterations { last = try body() }
            return (Double(now() - start) / 1000 / Double(iterations), last)
        }

        struct Case {
            let label: String
            let iterations: Int
            let ours: () throws -> Int
            let rawSQL: String
            let bind: (OpaquePointer) -> Void
            /// Rows the hand-written query returns are read column by column.
            let readsRows: Bool
        }
        var emailIndex = 0
        let only = ProcessInfo.processInfo.environment["VAULT_BENCH_QUERY"].flatMap(Int.init)
        var cases: [Case] = [
            Case(label: "indexed equality (email == %@), count", iterations: only == 0 ? 200_000 : 2000, ours: {
                emailIndex = (emailIndex &+ 7919) % count
                return try people.filter("email == %@", arguments: ["user\(emailIndex)@example.org"]).count
            }, rawSQL: "SELECT count(*) FROM \"BenchPerson\" WHERE \"email\" = ?", bind: { statement in
                emailIndex = (emailIndex &+ 7919) % count
                sqlite3_bind_text(statement, 1, "user\(emailIndex)@example.org", -1, vaultkit_sqlite_transient())
            }, readsRows: false),
            Case(label: "non-indexed range (age BETWEEN {30, 39}), count", iterations: 20, ours: {
                try people.filter("age BETWEEN {30, 39}", arguments: []).count
            }, rawSQL: "SELECT count(*) FROM \"BenchPerson\" WHERE \"age\" BETWEEN 30 AND 39", bind: { _ in }, readsRows: false),
            Case(label: "string CONTAINS[c] (name CONTAINS[c] 'abka'), count", iterations: 20, ours: {
                try people.filter("name CONTAINS[c] %@", arguments: ["abka"]).count
            }, rawSQL: "SELECT count(*) FROM \"BenchPerson\" WHERE \"name\" LIKE '%' || ? || '%'", bind: { statement in
                sqlite3_bind_text(statement, 1, "abka", -1, vaultkit_sqlite_transient())
            }, readsRows: false),
            Case(label: "to-many ANY (ANY tags.name == 'tag7'), count", iterations: 20, ours: {
                try people.filter("ANY tags.name == %@", arguments: ["tag7"]).count
            }, rawSQL: "SELECT count(*) FROM \"BenchPerson\" p WHERE p.\"_vk_id\" IN (SELECT l.\"_vk_owner\" FROM \(list) l JOIN \"BenchTag\" t ON t.\"_vk_id\" = l.\"value\" WHERE t.\"name\" = ?)", bind: { statement in
                sqlite3_bind_text(statement, 1, "tag7", -1, vaultkit_sqlite_transient())
            }, readsRows: false),
            Case(label: "@count (tags.@count >= 2), count", iterations: 20, ours: {
                try people.filter("tags.@count >= 2", arguments: []).count
            }, rawSQL: "SELECT count(*) FROM \"BenchPerson\" p WHERE (SELECT count(*) FROM \(list) l WHERE l.\"_vk_owner\" = p.\"_vk_id\") >= 2", bind: { _ in }, readsRows: false),
            Case(label: "sorted page (age >= 18 sorted by email, [5000..<5020]), all properties", iterations: 200, ours: {
                var checksum = 0
                for person in try people.filter("age >= 18", arguments: []).sorted(byKeyPath: "email")[5000..<5020] {
                    checksum &+= person.id &+ person.email.utf8.count &+ person.name.utf8.count &+ person.age &+ Int(person.score)
                }
                return checksum
            }, rawSQL: "SELECT \"_vk_id\", \"id\", \"email\", \"name\", \"age\", \"score\" FROM \"BenchPerson\" WHERE \"age\" >= 18 ORDER BY \"email\" LIMIT 20 OFFSET 5000", bind: { _ in }, readsRows: true),
        ]

        if let only { cases = [cases[only]] }
        for _ in 0..<reps {
            for (index, entry) in cases.enumerated() {
                if results.count <= index { results.append((entry.label, [], [], 0)) }
                let (ours, matches) = try time(entry.iterations, entry.ours)
                // Autocommit, as the vault's own queries run: each statement is its own read transaction.
                let (raw, _) = try rawDatabase.withConnection { db -> (Double, Int) in
                    let handle = db.sqliteConnection
                    let statement = prepare(handle, entry.rawSQL)
                    defer { sqlite3_finalize(statement) }
                    return time(entry.iterations) {
                        entry.bind(statement)
                        var checksum = 0
                        while sqlite3_step(statement) == SQLITE_ROW {
                            if entry.readsRows {
                                checksum &+= Int(sqlite3_column_int64(statement, 1)) &+ Int(sqlite3_column_bytes(statement, 2)) &+ Int(sqlite3_column_bytes(statement, 3))
                                checksum &+= Int(sqlite3_column_int64(statement, 4)) &+ Int(sqlite3_column_double(statement, 5))
                                _ = String(cString: sqlite3_column_text(statement, 2))
                                _ = String(cString: sqlite3_column_text(statement, 3))
                            } else {
                                checksum &+= Int(sqlite3_column_int64(statement, 0))
                            }
                        }
                        sqlite3_reset(statement)
                        return checksum
                    }
                }
                results[index].ours.append(ours)
                results[index].raw.append(raw)
                results[index].matches = matches
            }
            // Parse + compile (+ statement-cache lookup) of a typical query, nothing run.
            let (compile, _) = try time(2000) {
                _ = try people.filter("name BEGINSWITH[c] %@ AND age > %d AND ANY tags.name == %@", arguments: ["ab", 18, "tag3"])
                return 0
            }
            compileTimes.append(compile)
        }
        vault.invalidate()
    } catch {
        print("vault-bench: \(error)")
        exit(1)
    }
    print("\n## queries vs hand-written SQL, same encrypted vault, same run (\(count) objects, \(reps) repetitions, medians)")
    print("| query | VaultKit | hand-written SQL | VaultKit / SQL | result |")
    print("|---|---:|---:|---:|---:|")
    for entry in results {
        print(String(format: "| %@ | %.1f µs | %.1f µs | %.2f× | %d |", entry.label, median(entry.ours), median(entry.raw),
                     median(zip(entry.ours, entry.raw).map { $0 / $1 }), entry.matches))
    }
    print(String(format: "\nfilter() of a 3-condition query (parse + compile + statement-cache lookup, nothing run): %.1f µs", median(compileTimes)))
}
