import Foundation
import VaultKit

// `VaultTestHelper async-writes <vault>` (key (hex) on stdin): a thread holds
// the write lock while four tasks, each with an actor-isolated vault, call
// `asyncWrite`; once all four wait, sixteen more tasks run on the cooperative
// pool (which has as many threads as cores, 2 here) and release the lock
// holder. Prints "waiting N" (writes seen waiting together), "canary true|false"
// (the sixteen ran while the writes waited) and "ids […]" (what was committed).
// A child process, so that the test suite's own tasks do not fill the pool.

actor HelperItemWriter {
    func add(_ id: Int, configuration: Vault.Configuration) async throws {
        let vault = try await Vault.open(configuration: configuration)
        try await vault.asyncWrite { vault.add(NItem.make(id, "async \(id)")) }
    }
}

func runAsyncWrites(configuration: Vault.Configuration) {
    let holding = DispatchSemaphore(value: 0)
    let canaryRan = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let report = Smuggled(value: NSMutableArray())   // touched by one task at a time, in order
    let holder = Thread {
        do {
            let vault = try Vault(configuration: configuration)
            vault.beginWrite()
            vault.add(NItem.make(100, "held"))
            holding.signal()
            let inTime = canaryRan.wait(timeout: .now() + 20) == .success
            try vault.commitWrite()
            report.value.add("canary \(inTime)")
        } catch {
            fail("\(error)")
        }
        finished.signal()
    }
    holder.start()
    holding.wait()
    Task.detached {
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in 1...4 {
                    group.addTask { try await HelperItemWriter().add(id, configuration: configuration) }
                }
                group.addTask {
                    var waiting = 0
                    for _ in 0..<10_000 {
                        waiting = try Vault(configuration: configuration, isolation: nil).asyncWritesWaitingForLock
                        if waiting >= 4 { break }
                        try await Task.sleep(for: .milliseconds(1))
                    }
                    report.value.add("waiting \(waiting)")
                    await withTaskGroup(of: Int.self) { canaries in
                        for index in 0..<16 { canaries.addTask { index } }
                        for await _ in canaries {}
                    }
                    canaryRan.signal()
                }
                try await group.waitForAll()
            }
        } catch {
            fail("\(error)")
        }
        finished.signal()
    }
    finished.wait()
    finished.wait()
    do {
        let ids = try Vault(configuration: configuration).objects(NItem.self).sorted(byKeyPath: "id").map(\.id)
        for line in report.value { print(line) }
        print("ids \(ids)")
    } catch {
        fail("\(error)")
    }
}
