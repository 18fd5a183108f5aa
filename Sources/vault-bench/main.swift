// vault-bench: encrypted (vault VFS) vs plain SQLite, measured in the same run.
//
//   swift run -c release vault-bench [storage] [--reps N] [--rows N]
//
// Workloads follow ../shared/design/performance-anchors.md, through SQLite's C
// API with prepared statements on both sides, so the ratio isolates the cost of
// the page-sealing VFS. Each repetition runs plain then encrypted on fresh files;
// the reported ratio is the median of the per-repetition ratios.
import CSQLite
import CSodium
import Foundation
import VaultCore

let arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let parsed = Int(arguments[index + 1]) else { return value }
    return parsed
}
let repetitions = option("--reps", default: 7)
let rowCount = option("--rows", default: 100_000)
let singleCommits = option("--commits", default: 10_000)
let fullCommits = option("--full-commits", default: 2_000)
let lookups = option("--lookups", default: 100_000)
let updates = option("--updates", default: 10_000)

// MARK: - Helpers

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func check(_ status: Int32, _ db: OpaquePointer?, _ what: String) {
    guard status == SQLITE_OK || status == SQLITE_DONE || status == SQLITE_ROW else {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? ""
        FileHandle.standardError.write(Data("vault-bench: \(what) failed (\(status)): \(message)\n".utf8))
        exit(1)
    }
}

func exec(_ db: OpaquePointer, _ sql: String) {
    check(sqlite3_exec(db, sql, nil, nil, nil), db, sql)
}

func prepare(_ db: OpaquePointer, _ sql: String) -> OpaquePointer {
    var statement: OpaquePointer?
    check(sqlite3_prepare_v2(db, sql, -1, &statement, nil), db, sql)
    guard let statement else { exit(1) }
    return statement
}

struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return state
    }
}

/// Every input a run needs, made before any timing starts: 20-character
/// names (NUL-terminated, bound with SQLITE_STATIC) and random numbers.
final class Inputs {
    let names: UnsafeMutablePointer<CChar>
    let count: Int
    var randoms: [UInt64]
    private var cursor = 0

    init(count: Int, randomCount: Int, seed: UInt64) {
        var generator = Generator(state: seed)
        self.count = count
        names = .allocate(capacity: count * 21)
        for i in 0..<count {
            for j in 0..<20 { names[i * 21 + j] = CChar(97 + Int(generator.next() % 26)) }
            names[i * 21 + 20] = 0
        }
        randoms = (0..<randomCount).map { _ in generator.next() }
    }

    deinit { names.deallocate() }

    func name(_ i: Int) -> UnsafePointer<CChar> { UnsafePointer(names + (i % count) * 21) }

    func next() -> UInt64 {
        cursor = (cursor + 1) % randoms.count
        return randoms[cursor]
    }
}

/// SQLITE_STATIC: the buffer outlives the statement step.
let sqliteStatic = unsafeBitCast(0, to: sqlite3_destructor_type.self)

/// The SQLite settings a run applies to both engines, so that the ratio
/// measures encryption and nothing else.
struct Settings {
    var cacheKiB: Int?        // nil: SQLite's default (-2000)
    var spillPages: Int?      // nil: SQLite's default
    func apply(_ db: OpaquePointer) {
        exec(db, "PRAGMA cache_size=\(cacheKiB.map { "-\($0)" } ?? "-2000")")
        // SQLite's default spill threshold is 1 page, i.e. "whenever the cache is full".
        exec(db, "PRAGMA cache_spill=\(spillPages ?? 1)")
    }
}

/// One engine under test: how to open a connection on a fresh or existing file.
struct Engine {
    let label: String
    let open: (URL, Settings) -> (OpaquePointer, AnyObject?)   // (connection, owner to keep alive)
}

let benchKey: MasterKey = {
    do { return try MasterKey.generate() } catch { print("vault-bench: \(error)"); exit(1) }
}()

let plainEngine = Engine(label: "plain") { url, settings in
    var db: OpaquePointer?
    check(sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil), db, "open")
    guard let db else { exit(1) }
    exec(db, "PRAGMA page_size=4096; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
    settings.apply(db)
    return (db, nil)
}

let vaultEngine = Engine(label: "vault") { url, settings in
    var configuration = VaultDatabase.Configuration(fileURL: url, masterKey: benchKey)
    configuration.synchronous = .normal
    // Checkpoints in the commit, as plain SQLite runs them: this benchmark compares
    // the storage layers, and the run switches to FULL behind VaultDatabase's back
    // (where VaultDatabase itself would not checkpoint in the background).
    configuration.checkpointsInBackground = false
    do {
        let vault = try VaultDatabase(configuration: configuration)
        var handle: OpaquePointer?
        try vault.writeWithoutTransaction { db in handle = db.sqliteConnection }
        guard let handle else { exit(1) }
        // The vault's own defaults are replaced by the run's settings, as for plain.
        settings.apply(handle)
        return (handle, vault)
    } catch {
        print("vault-bench: \(error)"); exit(1)
    }
}

struct Measurement { var insert, commit, commitFull, lookup, scan, update: Double }

/// Runs the five workloads on a fresh file; returns µs per unit of each.
@MainActor func runWorkloads(engine: Engine, directory: URL, settings: Settings) -> Measurement {
    let url = directory.appendingPathComponent("\(engine.label).db")
    let generator = Inputs(count: rowCount + singleCommits + fullCommits + updates, randomCount: 1 << 20, seed: 0x9E3779B97F4A7C15)
    var nameIndex = 0
    // The engine's workloads, its FULL commits and the cold reopen start with no
    // dirty pages of the machine waiting to be written back (the other engine's,
    // or an earlier phase's), as the side-by-side benchmark's commit phases do.
    sync()
    var (db, owner) = engine.open(url, settings)
    exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, score REAL, created INTEGER)")

    // 1. Bulk insert in one transaction.
    let insert = prepare(db, "INSERT INTO t(id, name, age, score, created) VALUES (?, ?, ?, ?, ?)")
    var start = now()
    exec(db, "BEGIN")
    for i in 1...rowCount {
        sqlite3_bind_int64(insert, 1, Int64(i))
        sqlite3_bind_text(insert, 2, generator.name(nameIndex), 20, sqliteStatic); nameIndex += 1
        sqlite3_bind_int64(insert, 3, Int64(generator.next() % 100))
        sqlite3_bind_double(insert, 4, Double(generator.next() % 10_000) / 100)
        sqlite3_bind_int64(insert, 5, Int64(1_700_000_000 + i))
        check(sqlite3_step(insert), db, "insert"); sqlite3_reset(insert)
    }
    exec(db, "COMMIT")
    let insertMicros = Double(now() - start) / 1000 / Double(rowCount)

    // 2. Single-row autocommit inserts, synchronous=NORMAL then FULL.
    func commits(_ count: Int, from first: Int) -> Double {
        let begin = now()
        for i in first..<(first + count) {
            sqlite3_bind_int64(insert, 1, Int64(i))
            sqlite3_bind_text(insert, 2, generator.name(nameIndex), 20, sqliteStatic); nameIndex += 1
            sqlite3_bind_int64(insert, 3, Int64(generator.next() % 100))
            sqlite3_bind_double(insert, 4, 1.5)
            sqlite3_bind_int64(insert, 5, Int64(i))
            check(sqlite3_step(insert), db, "commit insert"); sqlite3_reset(insert)
        }
        return Double(now() - begin) / 1000 / Double(count)
    }
    let commitMicros = commits(singleCommits, from: rowCount + 1)
    exec(db, "PRAGMA synchronous=FULL")
    sync()
    let fullMicros = commits(fullCommits, from: rowCount + singleCommits + 1)
    exec(db, "PRAGMA synchronous=NORMAL")
    sqlite3_finalize(insert)
    let totalRows = rowCount + singleCommits + fullCommits

    // Cold cache: checkpoint, close, reopen.
    exec(db, "PRAGMA wal_checkpoint(TRUNCATE)")
    if owner == nil { sqlite3_close_v2(db) }
    owner = nil
    sync()
    (db, owner) = engine.open(url, settings)

    // 3. Random primary-key lookups.
    let lookup = prepare(db, "SELECT name, age, score FROM t WHERE id = ?")
    start = now()
    var checksum = 0
    for _ in 0..<lookups {
        sqlite3_bind_int64(lookup, 1, Int64(generator.next() % UInt64(totalRows)) + 1)
        if sqlite3_step(lookup) == SQLITE_ROW { checksum &+= Int(sqlite3_column_int64(lookup, 1)) }
        sqlite3_reset(lookup)
    }
    let lookupMicros = Double(now() - start) / 1000 / Double(lookups)
    sqlite3_finalize(lookup)

    // 4. Filtered full scan, µs per page of the table.
    var pages = prepare(db, "PRAGMA page_count")
    _ = sqlite3_step(pages); let pageCount = max(1, Int(sqlite3_column_int64(pages, 0))); sqlite3_finalize(pages)
    let scan = prepare(db, "SELECT name, score FROM t WHERE age > 50")
    start = now()
    var matched = 0
    while sqlite3_step(scan) == SQLITE_ROW { matched += 1; checksum &+= Int(sqlite3_column_bytes(scan, 0)) }
    let scanMicros = Double(now() - start) / 1000 / Double(pageCount)
    sqlite3_finalize(scan)
    pages = prepare(db, "SELECT 1"); sqlite3_finalize(pages)

    // 5. Random updates in one transaction.
    let update = prepare(db, "UPDATE t SET score = score + 1, name = ? WHERE id = ?")
    start = now()
    exec(db, "BEGIN")
    for _ in 0..<updates {
        sqlite3_bind_text(update, 1, generator.name(nameIndex), 20, sqliteStatic); nameIndex += 1
        sqlite3_bind_int64(update, 2, Int64(generator.next() % UInt64(totalRows)) + 1)
        check(sqlite3_step(update), db, "update"); sqlite3_reset(update)
    }
    exec(db, "COMMIT")
    let updateMicros = Double(now() - start) / 1000 / Double(updates)
    sqlite3_finalize(update)
    if owner == nil { sqlite3_close_v2(db) }
    owner = nil
    if checksum == 42 && matched == 0 { print("") }   // keeps the reads observable
    return Measurement(insert: insertMicros, commit: commitMicros, commitFull: fullMicros, lookup: lookupMicros, scan: scanMicros, update: updateMicros)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

@MainActor func runStorageBenchmark(settings: Settings, title: String) {
    var plain: [Measurement] = []
    var vault: [Measurement] = []
    for repetition in 0..<repetitions {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Alternate which engine goes first: each starts after a sync(), but the
        // machine still drifts over a run, and the drift must not favour one engine.
        if repetition % 2 == 0 {
            plain.append(runWorkloads(engine: plainEngine, directory: directory, settings: settings))
            vault.append(runWorkloads(engine: vaultEngine, directory: directory, settings: settings))
        } else {
            vault.append(runWorkloads(engine: vaultEngine, directory: directory, settings: settings))
            plain.append(runWorkloads(engine: plainEngine, directory: directory, settings: settings))
        }
    }
    print("\n## \(title) — \(repetitions) repetitions, medians")
    print("| workload | plain | vault | vault/plain |")
    print("|---|---:|---:|---:|")
    let rows: [(String, KeyPath<Measurement, Double>, String)] = [
        ("insert \(rowCount) rows, one transaction", \.insert, "µs/row"),
        ("\(singleCommits) single-row commits (NORMAL)", \.commit, "µs/commit"),
        ("\(fullCommits) single-row commits (FULL)", \.commitFull, "µs/commit"),
        ("\(lookups) random PK lookups, cold", \.lookup, "µs/lookup"),
        ("scan WHERE age > 50", \.scan, "µs/page"),
        ("\(updates) random updates, one transaction", \.update, "µs/row"),
    ]
    for (name, path, unit) in rows {
        let ratios = zip(plain, vault).map { $1[keyPath: path] / $0[keyPath: path] }
        print(String(format: "| %@ | %.2f %@ | %.2f %@ | %.2f× |", name, median(plain.map { $0[keyPath: path] }), unit,
                     median(vault.map { $0[keyPath: path] }), unit, median(ratios)))
    }
}

/// The per-page crypto floor on this machine: seal and open one 4096-byte page.
func runCryptoFloor() {
    _ = sodium_init()
    let count = 20_000
    var key = [UInt8](repeating: 0, count: 32); randombytes_buf(&key, 32)
    var nonce = [UInt8](repeating: 0, count: 24); randombytes_buf(&nonce, 24)
    var page = [UInt8](repeating: 7, count: 4056)
    var sealed = [UInt8](repeating: 0, count: 4056)
    var tag = [UInt8](repeating: 0, count: 16)
    let ad = [UInt8](repeating: 1, count: 42)
    var start = now()
    for i in 0..<count {
        nonce[23] = UInt8(truncatingIfNeeded: i)
        crypto_aead_xchacha20poly1305_ietf_encrypt_detached(&sealed, &tag, nil, page, 4056, ad, 42, nil, nonce, key)
    }
    let sealMicros = Double(now() - start) / 1000 / Double(count)
    start = now()
    for _ in 0..<count {
        _ = crypto_aead_xchacha20poly1305_ietf_decrypt_detached(&page, nil, sealed, 4056, tag, ad, 42, nonce, key)
    }
    let openMicros = Double(now() - start) / 1000 / Double(count)
    print(String(format: "\n## crypto floor: XChaCha20-Poly1305 seal %.2f µs/page, open %.2f µs/page", sealMicros, openMicros))
}

/// Master-key rotation (O(1)) against rekey (O(size)) on a vault of `--megabytes`.
@MainActor func runRotationBenchmark() {
    let megabytes = option("--megabytes", default: 100)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-rotation-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("big.vault")
    do {
        let keys = [benchKey, try MasterKey.generate()]
        do {
            var configuration = VaultDatabase.Configuration(fileURL: url, masterKey: keys[0])
            configuration.synchronous = .normal
            let vault = try VaultDatabase(configuration: configuration)
            let payload = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try vault.write { db in
                try db.execute("CREATE TABLE blob(id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
                let insert = try db.cachedStatement("INSERT INTO blob(data) VALUES (?)")
                for _ in 0..<(megabytes * 1000) { try insert.execute([.blob(payload)]) }
            }
            try vault.checkpoint()
            vault.close()
        }
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        var rotations: [Double] = []
        for i in 0..<9 {
            let start = now()
            try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: keys[i % 2], to: keys[(i + 1) % 2])
            rotations.append(Double(now() - start) / 1_000_000)
        }
        let start = now()
        try VaultMaintenance.rekey(vaultAt: url, from: keys[1], to: keys[0])
        let rekeyMilliseconds = Double(now() - start) / 1_000_000
        print("\n## key rotation on a \(size / 1_000_000) MB vault (\(size / 4096) pages)")
        print("| operation | time |")
        print("|---|---:|")
        print(String(format: "| rotate-key (rewrap the data key; median of 9) | %.2f ms |", median(rotations)))
        print(String(format: "| rekey (re-encrypt every page into a new file) | %.0f ms |", rekeyMilliseconds))
    } catch {
        print("vault-bench: \(error)")
        exit(1)
    }
}

let mode = arguments.first(where: { !$0.hasPrefix("--") && Int($0) == nil }) ?? "storage"
switch mode {
case "storage":
    runCryptoFloor()
    print("vault-bench storage: plain SQLite \(String(cString: sqlite3_libversion())) vs the vault VFS (XChaCha20-Poly1305)")
    let defaults = VaultDatabase.Configuration(inMemoryIdentifier: "defaults")
    runStorageBenchmark(settings: Settings(cacheKiB: nil, spillPages: nil),
                        title: "A. SQLite's defaults on both sides (2 MB page cache, default cache spill)")
    runStorageBenchmark(settings: Settings(cacheKiB: defaults.pageCacheSize / 1024, spillPages: defaults.spillThreshold / 4096),
                        title: "B. the vault's defaults on both sides (\(defaults.pageCacheSize >> 20) MiB page cache, spill above \(defaults.spillThreshold >> 20) MiB)")
case "rotation":
    runRotationBenchmark()
case "objects":
    runObjectBenchmark()
case "queries":
    runQueryBenchmark()
case "notifications":
    runNotificationBenchmark()
case "migration":
    runMigrationBenchmark()
case "realm-import":
    runRealmImportBenchmark()
case "json-import":
    runJSONImportMemoryBenchmark()
case "sync":
    runSyncBenchmark()
    runSignedSyncBenchmark()
case "notifications-child":
    runNotificationChild()
default:
    print("usage: vault-bench [storage|rotation|objects|queries|notifications|migration|realm-import|json-import|sync] [--scale-mb N] [--megabytes N] [--objects N] [--reps N] [--rows N] [--commits N] [--full-commits N] [--lookups N] [--updates N]")
    exit(2)
}
