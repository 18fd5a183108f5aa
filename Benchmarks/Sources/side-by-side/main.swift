// side-by-side: VaultKit (encrypted) and GRDB (plain SQLite) on the same
// workloads in one process, alternating which goes first on each repetition.
// Prints µs per operation for both (medians) and VaultKit/GRDB with its range.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct Settings {
    var objects = 100_000
    var commits = 10_000
    var fetches = 100_000
    var updates = 10_000
    var repetitions = 5
    /// Runs one library only (for profiling): "VaultKit" or "GRDB".
    var only: String?
    /// Prints every repetition's figures, not only the medians.
    var detail = false
    /// Skips `sync()` before the timed commit phases (to see what the settling changes).
    var settle = true
    /// Repeats one workload (fetch, iterate, filtered, update, insert — 10,000 new objects in one transaction — or 200 single-object commits) on one store, for a profiler.
    var profile: String?

    init(_ arguments: [String]) {
        var index = 1
        func value() -> Int? {
            index += 1
            return index < arguments.count ? Int(arguments[index]) : nil
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--objects": objects = value() ?? objects; fetches = objects
            case "--commits": commits = value() ?? commits
            case "--repetitions": repetitions = value() ?? repetitions
            case "--only": index += 1; only = index < arguments.count ? arguments[index] : nil
            case "--profile": index += 1; profile = index < arguments.count ? arguments[index] : nil
            case "--detail": detail = true
            case "--no-settle": settle = false
            case "--quick": (objects, fetches, commits, updates, repetitions) = (10_000, 10_000, 300, 1_000, 2)
            default:
                print("usage: side-by-side [--objects N] [--commits N] [--repetitions N] [--quick] [--only VaultKit|GRDB] [--profile fetch|iterate|filtered|commits|update|insert] [--detail] [--no-settle]")
                exit(2)
            }
            index += 1
        }
        updates = min(updates, objects)
    }
}

/// One workload's timings: µs per operation, per repetition, per library.
final class Timings {
    let label: String
    var vaultKit: [Double] = []
    var grdb: [Double] = []
    init(_ label: String) { self.label = label }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// µs per operation since `start` (from `now()`), over `operations` operations.
func elapsed(since start: UInt64, _ operations: Int) -> Double {
    Double(now() - start) / 1000 / Double(max(operations, 1))
}

/// Writes every dirty page of the machine to disk before a timed commit phase,
/// so that a phase does not pay for the writeback of an earlier one (GRDB's
/// NORMAL commits leave unsynced WAL pages behind; VaultKit's FULL ones do not).
func settleDisk() { if settings.settle { sync() } }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func peakMemoryMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024   // kilobytes on Linux
}

let settings = Settings(CommandLine.arguments)
let labels = ["bulk insert, one transaction", "single-object commits, each library's default durability",
              "single-object commits, both synchronous = FULL", "single-object commits, both synchronous = NORMAL",
              "key fetch, cold (query interface)",
              "key fetch, warm (query interface)", "key fetch, warm (GRDB: cached statement)",
              "iterate all, every property", "age >= 30 AND age < 40, every property of the matches",
              "random updates, one transaction"]
let timings = labels.map(Timings.init)
let root = FileManager.default.temporaryDirectory.appendingPathComponent("vaultkit-side-by-side-\(UUID().uuidString)")
var checksums: [String: Int] = [:]

/// Runs every workload for one library in a fresh directory; appends its timings.
@MainActor func run<C: Contender>(_: C.Type, repetition: Int, record: (Int, Double) -> Void) throws {
    let directory = root.appendingPathComponent("\(C.name)-\(repetition)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let items = (1...settings.objects).map(Item.make)
    var generator = SystemRandomNumberGenerator()
    let keys = (0..<settings.fetches).map { _ in Int.random(in: 1...settings.objects, using: &generator) }
    var sum = 0
    do {
        let store = try C(directory: directory, fullSync: C.name == "VaultKit")
        var start = now()
        try store.bulkInsert(items)
        record(0, elapsed(since: start, items.count))
        let extra = (1...settings.commits).map { Item.make(settings.objects + $0) }
        settleDisk()
        start = now()
        try store.singleCommits(extra)
        record(1, elapsed(since: start, extra.count))
    }
    // Both at FULL, then both at NORMAL, each on a store of its own: their
    // difference is what one sync per commit costs each library in this run.
    for (row, fullSync) in [(2, true), (3, false)] {
        let syncDirectory = directory.appendingPathComponent(fullSync ? "full" : "normal")
        try FileManager.default.createDirectory(at: syncDirectory, withIntermediateDirectories: true)
        let store = try C(directory: syncDirectory, fullSync: fullSync)
        let extra = (1...settings.commits).map { Item.make($0) }
        settleDisk()
        let start = now()
        try store.singleCommits(extra)
        record(row, elapsed(since: start, extra.count))
    }
    // Reopened: a cold page cache and no prepared statements.
    let store = try C(directory: directory, fullSync: C.name == "VaultKit")
    if let workload = settings.profile {
        checksums[C.name, default: 0] &+= try profiledWorkload(store, workload, keys: keys)
        return
    }
    var start = now()
    sum &+= try store.fetch(keys)
    record(4, elapsed(since: start, keys.count))
    start = now()
    sum &+= try store.fetch(keys)
    record(5, elapsed(since: start, keys.count))
    start = now()
    sum &+= try store.fetchFast(keys)
    record(6, elapsed(since: start, keys.count))
    start = now()
    sum &+= try store.iterateAll()
    record(7, elapsed(since: start, settings.objects + settings.commits))
    start = now()
    sum &+= try store.filtered()
    record(8, elapsed(since: start, 1))
    start = now()
    try store.update(Array(keys.prefix(settings.updates)))
    record(9, elapsed(since: start, settings.updates))
    checksums[C.name, default: 0] &+= sum
}

/// The calling thread's CPU time, in nanoseconds.
func threadCPUTime() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The loop `--profile` runs (one symbol to point a profiler at: `--toggle-collect=*profiledWorkload*`).
@inline(never) func profiledWorkload<C: Contender>(_ store: C, _ workload: String, keys: [Int]) throws -> Int {
    var sum = 0
    for pass in 0..<10 {
        let start = now()
        let cpuStart = threadCPUTime()
        // The thread's CPU time too: wall time well above it is time spent waiting (I/O, locks, another thread).
        defer { print(String(format: "%@ %@: %.2f ms (this thread on the CPU: %.2f ms)", C.name, workload, Double(now() - start) / 1e6, Double(threadCPUTime() - cpuStart) / 1e6)) }
        switch workload {
        case "fetch": sum &+= try store.fetchFast(keys)
        case "iterate": sum &+= try store.iterateAll()
        case "commits": try store.singleCommits((0..<200).map { Item.make(10_000_000 + pass * 1_000 + $0) })
        case "update": try store.update(Array(keys.prefix(settings.updates)))
        case "insert": try store.bulkInsert((0..<10_000).map { Item.make(20_000_000 + pass * 10_000 + $0) })
        default: sum &+= try store.filtered()
        }
    }
    return sum
}

print("side-by-side: \(settings.objects) objects, \(settings.commits) single-object commits, \(settings.fetches) key fetches, "
    + "\(settings.updates) updates, \(settings.repetitions) repetitions (order alternates)")
do {
    for repetition in 0..<settings.repetitions {
        let vaultKitFirst = repetition % 2 == 0
        for first in [true, false] {
            if first == vaultKitFirst {
                guard settings.only != "GRDB" else { continue }
                try run(VaultKitContender.self, repetition: repetition) { timings[$0].vaultKit.append($1) }
            } else {
                guard settings.only != "VaultKit" else { continue }
                try run(GRDBContender.self, repetition: repetition) { timings[$0].grdb.append($1) }
            }
        }
        print("  repetition \(repetition + 1) done")
    }
} catch {
    print("side-by-side: \(error)")
    exit(1)
}
try? FileManager.default.removeItem(at: root)

// The filtered query's matches, for a per-object figure.
let matches = (1...settings.objects).map(Item.make).filter { (30..<40).contains($0.age) }.count
print("\n| workload | VaultKit µs/op | GRDB µs/op | VaultKit / GRDB (range) |")
print("|---|---:|---:|---:|")
for (index, entry) in timings.enumerated() {
    let ratios = zip(entry.vaultKit, entry.grdb).map { $0 / $1 }
    let unit = index == 8 ? " (per match: \(String(format: "%.3f", median(entry.vaultKit) / Double(matches))) / \(String(format: "%.3f", median(entry.grdb) / Double(matches))))" : ""
    print(String(format: "| %@%@ | %.3f | %.3f | %.2f× (%.2f–%.2f) |", entry.label, unit, median(entry.vaultKit), median(entry.grdb),
                 median(ratios), ratios.min() ?? .nan, ratios.max() ?? .nan))
}
printRealmTargets(timings, matches: matches)
// What the sync alone costs per commit (FULL − NORMAL, same repetition), and the
// FULL-commit ratio VaultKit would reach if everything but its sync took no time.
let (full, normal) = (timings[2], timings[3])
let syncs = (0..<min(full.vaultKit.count, full.grdb.count)).map { index in
    let vaultKitSync = full.vaultKit[index] - normal.vaultKit[index]
    return (vaultKit: vaultKitSync, grdb: full.grdb[index] - normal.grdb[index], floor: vaultKitSync / full.grdb[index])
}
if !syncs.isEmpty {
    print(String(format: "\nsync per commit (FULL − NORMAL): VaultKit %.1f µs, GRDB %.1f µs; FULL-commit ratio with nothing but VaultKit's sync: %.2f× (%.2f–%.2f)",
                 median(syncs.map(\.vaultKit)), median(syncs.map(\.grdb)), median(syncs.map(\.floor)),
                 syncs.map(\.floor).min() ?? .nan, syncs.map(\.floor).max() ?? .nan))
}
if settings.detail {
    print("\nper repetition (µs/op, in run order), VaultKit | GRDB:")
    for entry in timings {
        let format = { (values: [Double]) in values.map { String(format: "%.2f", $0) }.joined(separator: " ") }
        print("  \(entry.label): \(format(entry.vaultKit)) | \(format(entry.grdb))")
    }
}
print(String(format: "\npeak memory (max RSS of the process, both libraries): %.1f MiB", peakMemoryMiB()))
print("checksums (same work read): VaultKit \(checksums["VaultKit"] ?? 0 != 0 ? "ok" : "0"), GRDB \(checksums["GRDB"] ?? 0 != 0 ? "ok" : "0")")
