import Foundation

/// One library's part of one repetition, run a phase (one timed workload) at a
/// time: the main loop runs each phase for both libraries back to back, so the
/// two timings a ratio is made of are taken seconds apart, not a whole run apart
/// (this machine's speed drifts over tens of seconds; a ratio of timings taken
/// far apart measured the drift as much as the libraries).
@MainActor protocol PhaseRunner: AnyObject {
    /// Runs workload `phase` (an index into `labels`); its µs per operation, or
    /// nil once the run is over (after a `--profile` loop).
    func run(phase: Int) throws -> Double?
    /// Adds the run's checksum and removes its files.
    func finish()
}

/// ``PhaseRunner`` for library `C`, in a fresh directory of its own.
@MainActor final class LibraryRun<C: Contender>: PhaseRunner {
    private let directory: URL
    private let items: [Item]
    private let keys: [Int]
    private var store: C?
    private var sum = 0
    private var profiled = false

    /// The same `items` and `keys` are given to both libraries of a repetition.
    init(repetition: Int, items: [Item], keys: [Int]) throws {
        directory = root.appendingPathComponent("\(C.name)-\(repetition)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.items = items
        self.keys = keys
    }

    private func timed(_ operations: Int, _ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return elapsed(since: start, operations)
    }

    func run(phase: Int) throws -> Double? {
        guard !profiled else { return nil }
        switch phase {
        case 0:
            let store = try C(directory: directory, fullSync: C.name == "VaultKit")
            self.store = store
            return try timed(items.count) { try store.bulkInsert(items) }
        case 1:
            guard let store else { return nil }
            let extra = (1...settings.commits).map { Item.make(settings.objects + $0) }
            settleDisk()
            let result = try timed(extra.count) { try store.singleCommits(extra) }
            self.store = nil   // closed; reopened cold for the reads (phase 4)
            return result
        case 2, 3:
            // Both at FULL, then both at NORMAL, each on a store of its own: their
            // difference is what one sync per commit costs each library in this run.
            let fullSync = phase == 2
            let syncDirectory = directory.appendingPathComponent(fullSync ? "full" : "normal")
            try FileManager.default.createDirectory(at: syncDirectory, withIntermediateDirectories: true)
            let syncStore = try C(directory: syncDirectory, fullSync: fullSync)
            let extra = (1...settings.commits).map { Item.make($0) }
            settleDisk()
            // Timed inline: a store made in this phase cannot be captured by `timed`'s
            // closure under strict concurrency (the compiler reports a sending risk).
            let start = now()
            try syncStore.singleCommits(extra)
            return elapsed(since: start, extra.count)
        case 4:
            // Reopened: a cold page cache and no prepared statements.
            let store = try C(directory: directory, fullSync: C.name == "VaultKit")
            self.store = store
            if let workload = settings.profile {
                profiled = true
                // As in the timed run, where the filtered query follows a whole iteration at the same version.
                if workload == "filtered" { sum &+= try store.iterateAll() }
                sum &+= try profiledWorkload(store, workload, keys: keys)
                return nil
            }
            return try timed(keys.count) { sum &+= try store.fetch(keys) }
        case 5: return try store.map { store in try timed(keys.count) { sum &+= try store.fetch(keys) } }
        case 6: return try store.map { store in try timed(keys.count) { sum &+= try store.fetchFast(keys) } }
        case 7: return try store.map { store in try timed(settings.objects + settings.commits) { sum &+= try store.iterateAll() } }
        case 8: return try store.map { store in try timed(1) { sum &+= try store.filtered() } }
        case 9: return try store.map { store in try timed(settings.updates) { try store.update(Array(keys.prefix(settings.updates))) } }
        default: return nil
        }
    }

    func finish() {
        checksums[C.name, default: 0] &+= sum
        store = nil
        try? FileManager.default.removeItem(at: directory)
    }
}
