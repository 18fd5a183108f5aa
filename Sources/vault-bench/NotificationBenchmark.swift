import Foundation
import VaultCore
import VaultKit

/// Sends values from observer blocks (run on the observers' queue) to the benchmark thread.
private final class Mailbox: @unchecked Sendable {
    // Safe because every access holds `lock`.
    private let lock = NSLock()
    private var deliveredAt: [UInt64] = []
    let signal = DispatchSemaphore(value: 0)

    func record(_ time: UInt64) {
        lock.lock()
        deliveredAt.append(time)
        lock.unlock()
        signal.signal()
    }

    var last: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return deliveredAt.last ?? 0
    }
}

/// The process's resident set in bytes (Linux /proc; 0 elsewhere).
private func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Notifications: commit-to-delivery latency, commit cost with 0, 1 and 100
/// observers, the price of the commit sequence, memory per observer.
@MainActor func runNotificationBenchmark() {
    let count = option("--objects", default: 10_000)
    let commits = option("--commits", default: 200)
    let reps = option("--reps", default: 3)
    let keyData = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 * 29) })
    var latencies: [Double] = [], movedLatencies: [Double] = [], crossProcess: [Double] = [], commitCost: [Int: [Double]] = [0: [], 1: [], 100: []]
    var signalShare: [Double] = [], rawCommit: [Double] = [], sequencedCommit: [Double] = [], memoryPerObserver: [Double] = []
    do {
        for _ in 0..<reps {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-notify-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = Vault.Configuration(fileURL: directory.appendingPathComponent("n.vault"), encryptionKey: keyData)
            configuration.objectTypes = [BenchRow.self]
            let vault = try Vault(configuration: configuration)
            try vault.write {
                for i in 0..<count {
                    let row = BenchRow()
                    row.id = i; row.name = String(format: "name-%06d", (i * 7919) % count); row.age = i % 100
                    vault.add(row)
                }
            }

            // Commit cost with no observer (capture off), before any observer exists in the process.
            let noObserver = try timeCommits(vault, commits: commits)
            commitCost[0, default: []].append(noObserver)
            // What the notification subsystem adds to such a commit: the listener check at
            // beginWrite and the commit signal after it (two failed opens: no pipe yet) —
            // the in-process capture check is one lock, far below.
            let signalStart = now()
            for _ in 0..<10_000 {
                _ = CommitSignal.hasListener(vaultPath: directory.appendingPathComponent("n.vault").path)
                CommitSignal.ring(vaultPath: directory.appendingPathComponent("n.vault").path)
            }
            signalShare.append(Double(now() - signalStart) / 1000 / 10_000 / noObserver)

            // Observers on a queue-confined vault, delivered there by themselves.
            let queue = DispatchQueue(label: "vault-bench.observers")
            let mailbox = Mailbox()
            let holder = ObserverHolder()
            try queue.sync {
                let observing = try Vault(configuration: configuration, queue: queue)
                holder.vault = observing
                let sorted = observing.objects(BenchRow.self).sorted(byKeyPath: "name")
                holder.tokens.append(sorted.observe { _ in mailbox.record(now()) })
            }
            guard mailbox.signal.wait(timeout: .now() + 30) == .success else { throw VaultError.misuse("no initial delivery") }

            // Latency: a one-object change committed here, delivered to the 10,000-object sorted Results there.
            var samples: [Double] = []
            for index in 0..<50 {
                let start = now()
                try vault.write { vault.object(ofType: BenchRow.self, forPrimaryKey: index)?.age += 1 }
                guard mailbox.signal.wait(timeout: .now() + 30) == .success else { throw VaultError.misuse("no delivery") }
                samples.append(Double(mailbox.last - start) / 1_000_000)
            }
            latencies.append(median(samples))

            // The same with a change of the sort key: the object moves, so the query re-runs and the ids are diffed.
            var movedSamples: [Double] = []
            for index in 0..<20 {
                let start = now()
                try vault.write { vault.object(ofType: BenchRow.self, forPrimaryKey: index)?.name = String(format: "moved-%06d", index) }
                guard mailbox.signal.wait(timeout: .now() + 30) == .success else { throw VaultError.misuse("no delivery") }
                movedSamples.append(Double(mailbox.last - start) / 1_000_000)
            }
            movedLatencies.append(median(movedSamples))

            // Across processes: a child commits through the core; its commit signal wakes the observers' queue.
            var crossSamples: [Double] = []
            for index in 0..<10 {
                let commitTime = try commitInChildProcess(vaultPath: directory.appendingPathComponent("n.vault").path, keyData: keyData, rowID: index)
                guard mailbox.signal.wait(timeout: .now() + 30) == .success else { throw VaultError.misuse("no cross-process delivery") }
                crossSamples.append(Double(mailbox.last &- commitTime) / 1_000_000)
            }
            crossProcess.append(median(crossSamples))
            commitCost[1, default: []].append(try timeCommits(vault, commits: commits, draining: mailbox))

            // 99 more observers: memory per observer, then commit cost with 100.
            let before = residentBytes()
            queue.sync {
                guard let observing = holder.vault else { return }
                for _ in 0..<99 {
                    holder.tokens.append(observing.objects(BenchRow.self).sorted(byKeyPath: "name").observe { _ in })
                }
                observing.refresh()   // deliver the initial sets (each keeps the ids it delivered)
            }
            memoryPerObserver.append(Double(residentBytes() - before) / 99)
            // Each commit re-runs 100 queries on the observers' queue: fewer commits keep the run short.
            commitCost[100, default: []].append(try timeCommits(vault, commits: max(1, commits / 10), draining: mailbox))
            queue.sync { holder.tokens.removeAll(); holder.vault = nil }

            // The commit sequence's own price: the same commits through the core, with and without its UPDATE.
            let raw = try VaultDatabase(configuration: .init(fileURL: directory.appendingPathComponent("raw.vault"), masterKey: try MasterKey(bytes: keyData)))
            try raw.write { db in
                try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER); CREATE TABLE m(key TEXT PRIMARY KEY, value)")
                try db.execute("INSERT INTO m VALUES ('commitSequence', 0)")
            }
            for round in 0..<6 {
                for sequenced in round % 2 == 0 ? [false, true] : [true, false] {
                    let start = now()
                    for i in 0..<commits {
                        try raw.write { db in
                            try db.execute("INSERT OR REPLACE INTO t(id, v) VALUES (?, ?)", arguments: [.integer(Int64(i % 100)), .integer(Int64(i))])
                            if sequenced { try db.cachedStatement("UPDATE m SET value = value + 1 WHERE key = 'commitSequence'").execute() }
                        }
                    }
                    let perCommit = Double(now() - start) / 1000 / Double(commits)
                    if sequenced { sequencedCommit.append(perCommit) } else { rawCommit.append(perCommit) }
                }
            }
            raw.close()
        }
    } catch {
        print("vault-bench: \(error)")
        exit(1)
    }
    print("\n## notifications (\(count) objects, \(commits) single-object commits per figure, \(reps) repetitions, medians; synchronous = FULL)")
    print("| measure | value |")
    print("|---|---:|")
    print(String(format: "| commit → delivery of a one-object change (not of the sort key) to a %d-object sorted Results observer (another thread, queue-confined vault) | %.2f ms (%.2f–%.2f) |",
                 count, median(latencies), latencies.min() ?? 0, latencies.max() ?? 0))
    print(String(format: "| the same when the change moves the object (its sort key written: the query re-runs) | %.2f ms (%.2f–%.2f) |",
                 median(movedLatencies), movedLatencies.min() ?? 0, movedLatencies.max() ?? 0))
    print(String(format: "| commit in another process → delivery to the same observer (the commit signal) | %.2f ms (%.2f–%.2f) |",
                 median(crossProcess), crossProcess.min() ?? 0, crossProcess.max() ?? 0))
    for observers in [0, 1, 100] {
        let values = commitCost[observers] ?? []
        print(String(format: "| one-object write transaction, %d observer%@ (observers' queries run on the other core meanwhile) | %.1f µs (%.1f–%.1f) |", observers, observers == 1 ? "" : "s",
                     median(values), values.min() ?? 0, values.max() ?? 0))
    }
    print(String(format: "| notification subsystem with no observer (the listener check and the commit signal: two failed opens) / a one-object commit | %.2f%% (%.2f–%.2f) |",
                 median(signalShare) * 100, (signalShare.min() ?? 0) * 100, (signalShare.max() ?? 0) * 100))
    let ratios = zip(rawCommit, sequencedCommit).map { $1 / $0 }
    print(String(format: "| the commit sequence's UPDATE: core commit with it / without it | %.3f× (%.3f–%.3f) |",
                 median(ratios), ratios.min() ?? 0, ratios.max() ?? 0))
    print(String(format: "| memory per observer of a %d-object Results (resident set growth / 99) | %.1f KiB |", count, median(memoryPerObserver) / 1024))
}

/// Keeps the observing vault and its tokens (used only on the observers' queue).
private final class ObserverHolder: @unchecked Sendable {
    // Safe because it is only touched inside `queue.sync` blocks of that one serial queue.
    var vault: Vault?
    var tokens: [NotificationToken] = []
}

/// µs per single-object write transaction; with observers, waits for each delivery so that none piles up.
@MainActor private func timeCommits(_ vault: Vault, commits: Int, draining mailbox: Mailbox? = nil) throws -> Double {
    var total: UInt64 = 0
    for index in 0..<commits {
        let start = now()
        try vault.write { vault.object(ofType: BenchRow.self, forPrimaryKey: index)?.age += 1 }
        total += now() - start
        if let mailbox { _ = mailbox.signal.wait(timeout: .now() + 30) }
    }
    return Double(total) / 1000 / Double(commits)
}

/// Runs `vault-bench notifications-child` to commit a one-object change in
/// another process; returns the child's monotonic clock at its commit.
private func commitInChildProcess(vaultPath: String, keyData: Data, rowID: Int) throws -> UInt64 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { process.executableURL = URL(fileURLWithPath: exe) }
    process.arguments = ["notifications-child", vaultPath, String(rowID)]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(keyData.map { String(format: "%02x", $0) }.joined().utf8 + [0x0A]))
    try input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let time = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw VaultError.misuse("the child process did not commit: \(text)")
    }
    return time
}

/// The child's side: opens the vault through the core, commits one insertion
/// (bumping VaultKit's commit sequence, as a Vault commit does) and prints the time.
@MainActor func runNotificationChild() {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count == 2, let rowID = Int64(arguments[1]), let line = readLine(), line.count == 128 else { exit(2) }
    var bytes: [UInt8] = []
    var index = line.startIndex
    while index < line.endIndex {
        let next = line.index(index, offsetBy: 2)
        bytes.append(UInt8(line[index..<next], radix: 16) ?? 0)
        index = next
    }
    do {
        let key = try MasterKey(wiping: &bytes)
        let vault = try VaultDatabase(configuration: .init(fileURL: URL(fileURLWithPath: arguments[0]), masterKey: key))
        try vault.write { db in
            // An insertion: a commit of another process is delivered with its insertions exact.
            try db.execute("INSERT INTO \"BenchRow\"(\"_vk_id\", \"name\", \"age\", \"score\", \"created\", \"active\") VALUES (?, 'zz-child', 0, 0, 0, 0)",
                           arguments: [.integer(1_000_000 + rowID)])
            try db.execute("UPDATE _vaultkit_metadata SET value = value + 1 WHERE key = 'commitSequence'")
        }
        print(DispatchTime.now().uptimeNanoseconds)
    } catch {
        FileHandle.standardError.write(Data("vault-bench child: \(error)\n".utf8))
        exit(1)
    }
}
