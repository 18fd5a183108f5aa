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
    /// Repeats one workload (fetch, iterate, collect — iterate after a one-object write —, filtered, update, insert — 10,000 new objects in one transaction — or 200 single-object commits) on one store, for a profiler.
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
                print("usage: side-by-side [--objects N] [--commits N] [--repetitions N] [--quick] [--only VaultKit|GRDB] [--profile fetch|iterate|collect|stop-before|stop-after|filtered|commits|update|insert] [--detail] [--no-settle]")
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
        case "collect":
            // The timed iterate phase's pass: the first at a version (a one-object write moves it).
            try store.update([keys[pass % keys.count]])
            sum &+= try store.iterateAll()
        case "stop-before", "stop-after":
            // A loop that breaks early, as the first at its version: just before a quarter
            // of the class (read as objects) or just after (the rest read ahead into the image).
            try store.update([keys[pass % keys.count]])
            let quarter = (settings.objects + settings.commits) / 4
            sum &+= try store.iteratePrefix(workload == "stop-before" ? quarter - 64 : quarter + 64)
        case "commits": try store.singleCommits((0..<200).map { Item.make(10_000_000 + pass * 1_000 + $0) })
        case "update": try store.update(Array(keys.prefix(settings.updates)))
        case "insert": try store.bulkInsert((0..<10_000).map { Item.make(20_000_000 + pass * 10_000 + $0) })
        default: sum &+= try store.filtered()
        }
    }
    return sum
}

print("side-by-side: \(settings.objects) objects, \(settings.commits) single-object commits, \(settings.fetches) key fetches, "
    + "\(settings.updates) updates, \(settings.repetitions) repetitions (each workload run for both libraries back to back, order alternating)")
do {
    for repetition in 0..<settings.repetitions {
        let items = (1...settings.objects).map(Item.make)
        var generator = SystemRandomNumberGenerator()
        let keys = (0..<settings.fetches).map { _ in Int.random(in: 1...settings.objects, using: &generator) }
        var runs: [(runner: any PhaseRunner, record: (Double, Int) -> Void)] = []
        if settings.only != "GRDB" {
            runs.append((try LibraryRun<VaultKitContender>(repetition: repetition, items: items, keys: keys), { timings[$1].vaultKit.append($0) }))
        }
        if settings.only != "VaultKit" {
            runs.append((try LibraryRun<GRDBContender>(repetition: repetition, items: items, keys: keys), { timings[$1].grdb.append($0) }))
        }
        for phase in labels.indices {
            // Which library goes first alternates with the phase and the repetition.
            let ordered = (phase + repetition) % 2 == 0 ? runs : runs.reversed()
            for run in ordered {
                if let microseconds = try run.runner.run(phase: phase) { run.record(microseconds, phase) }
            }
        }
        for run in runs { run.runner.finish() }
        try measureStockSQLiteFloors(repetition: repetition, items: items, keys: keys)
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
printStockSQLiteFloors(vaultKitInserts: timings[0].vaultKit, vaultKitUpdates: timings[9].vaultKit)
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
// Both libraries' stores are open at once (their phases alternate): `--only` gives each one's own peak.
print(String(format: "\npeak memory (max RSS of the process, %@): %.1f MiB",
             settings.only.map { "\($0) only" } ?? "both libraries' stores open at once; --only VaultKit|GRDB for one", peakMemoryMiB()))
print("checksums (same work read): VaultKit \(checksums["VaultKit"] ?? 0 != 0 ? "ok" : "0"), GRDB \(checksums["GRDB"] ?? 0 != 0 ? "ok" : "0")")
