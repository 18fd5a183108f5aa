import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Power loss, simulated (VFS/FaultInjection.swift, power-loss mode): the workload
// of the fault-injection test "crashes" at a chosen I/O call — nothing reaches the
// disk after it — and then every write not yet synced is kept, dropped, or torn at
// 512-byte sectors, at random, as a disk losing power would leave it; the -shm
// (shared memory) is gone, as after a reboot. The vault must open, verify, and
// hold exactly the transactions reported committed (or, when the interrupted
// commit's sync completed, that one too).

@Suite("Power loss")
struct PowerLossTests {
    /// Puts unsynced writes back to what they replaced, whole or by sector, at random.
    static func losePower(_ writes: [FaultInjection.UnsyncedWrite], using generator: inout some RandomNumberGenerator) throws -> (kept: Int, dropped: Int, torn: Int) {
        var counts = (kept: 0, dropped: 0, torn: 0)
        for write in writes.reversed() {
            guard FileManager.default.fileExists(atPath: write.path), let handle = FileHandle(forUpdatingAtPath: write.path) else { continue }
            defer { try? handle.close() }
            func restore(_ start: Int, _ end: Int) throws {
                // What was there (zeros where the write extended the file).
                var bytes = [UInt8](repeating: 0, count: end - start)
                if start < write.previous.count {
                    for i in start..<min(end, write.previous.count) { bytes[i - start] = write.previous[i] }
                }
                try handle.seek(toOffset: UInt64(write.offset) + UInt64(start))
                try handle.write(contentsOf: bytes)
            }
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                counts.kept += 1
            case 1:
                counts.dropped += 1
                let size = try handle.seekToEnd()
                if Int64(size) == write.offset + Int64(write.count) && write.previousSize <= write.offset {
                    try handle.truncate(atOffset: UInt64(max(write.previousSize, 0)))   // the extension never happened
                } else {
                    try restore(0, write.count)
                }
            default:
                counts.torn += 1
                var sector = 0
                while sector < write.count {
                    if Bool.random(using: &generator) { try restore(sector, min(sector + 512, write.count)) }
                    sector += 512
                }
            }
        }
        return counts
    }

    @Test("500 simulated power losses during the workload: every one opens, verifies and holds exactly the committed transactions")
    func crashPoints() throws {
        let directory = try TemporaryDirectory("power-loss")
        let countingFolder = directory.file("count")
        try FileManager.default.createDirectory(at: countingFolder, withIntermediateDirectories: false)
        FaultInjection.arm(pathPrefix: countingFolder.path + "/", failAt: nil)
        _ = try onNewThread { FaultInjectionTests.runWorkload(countingFolder.appendingPathComponent("v.vault")).committed.count }
        let total = FaultInjection.disarm(pathPrefix: countingFolder.path + "/").calls
        #expect(total > 50)

        var generator = SystemRandomNumberGenerator()
        var failures: [String] = []
        var totals = (kept: 0, dropped: 0, torn: 0)
        for trial in 0..<500 {
            let point = 1 + (trial * 7919) % total
            let folder = directory.file("t\(trial)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            let url = folder.appendingPathComponent("v.vault")
            FaultInjection.arm(pathPrefix: folder.path + "/", failAt: point, powerLoss: true)
            let run = try onNewThread { () -> (committed: FaultInjectionTests.State, attempted: FaultInjectionTests.State?) in
                let result = FaultInjectionTests.runWorkload(url)
                return (result.committed.last ?? .init(), result.attempted)
            }
            let crash = FaultInjection.disarm(pathPrefix: folder.path + "/")
            let counts = try Self.losePower(crash.unsynced, using: &generator)
            totals = (totals.kept + counts.kept, totals.dropped + counts.dropped, totals.torn + counts.torn)
            try? FileManager.default.removeItem(atPath: url.path + "-shm")
            do {
                let state = try FaultInjectionTests.read(url)
                if state != run.committed && state != run.attempted {
                    failures.append("trial \(trial), crash at call \(point): \(state.items.count) items, \(run.committed.items.count) committed")
                }
            } catch {
                failures.append("trial \(trial), crash at call \(point): \(error)")
            }
            try? FileManager.default.removeItem(at: folder)
        }
        #expect(failures.isEmpty, "\(failures.count) failures: \(failures.prefix(5))")
        print("power loss: 500 crash points over \(total) I/O calls; unsynced writes kept \(totals.kept), dropped \(totals.dropped), torn \(totals.torn)")
    }
}
