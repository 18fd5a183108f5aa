import Foundation
import OpenCombineShim
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

/// An actor whose asynchronous writes fail, are cancelled, and then succeed.
actor FailingWriter {
    struct Refused: Error {}

    func run(configuration: Vault.Configuration, lockHeld: @escaping @Sendable () -> Void) async throws -> [String] {
        let vault = try await Vault.open(configuration: configuration)
        var log: [String] = []
        do {
            try await vault.asyncWrite { vault.add(TItem(40, "rolled back")); throw Refused() }
        } catch is Refused {
            log.append("thrown, \(vault.objects(TItem.self).filter("id == 40").count) stored, in write \(vault.isInWriteTransaction)")
        }
        // A write waiting for a lock held elsewhere, cancelled while it waits.
        lockHeld()
        let waiting = _Concurrency.Task { [self] () -> String in
            _ = self
            do {
                try await vault.asyncWrite { vault.add(TItem(41, "never")) }
                return "committed"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }
        try await _Concurrency.Task.sleep(for: .milliseconds(30))
        waiting.cancel()
        log.append(await waiting.value)
        return log
    }
}

/// An actor that keeps its vault across suspension points and hears commits made elsewhere.
actor Librarian {
    func run(configuration: Vault.Configuration) async throws -> [String] {
        let vault = try await Vault.open(configuration: configuration)
        var log: [String] = []
        let results = vault.objects(TItem.self).sorted(byKeyPath: "id")
        var changes = results.changes().makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next(isolation: self) else { return ["no initial"] }
        log.append("initial \(initial.map(\.id))")

        // Another thread commits; the change reaches this actor by itself (no refresh(), no run loop).
        try await _Concurrency.Task.detached {
            let other = try Vault(configuration: configuration)
            try other.write { other.add(TItem(50, "from another thread")); other.object(ofType: TItem.self, forPrimaryKey: 1)?.score = 9 }
        }.value
        guard case .update(let items, let deletions, let insertions, let modifications)? = await changes.next(isolation: self) else {
            return log + ["no update"]
        }
        log.append("update \(items.map(\.id)) -\(deletions) +\(insertions) ~\(modifications)")

        // The vault and its objects stay usable across awaits, whichever thread resumes the actor.
        let first = try #require(vault.object(ofType: TItem.self, forPrimaryKey: 1))
        for _ in 0..<5 { try await _Concurrency.Task.sleep(for: .milliseconds(1)) }
        try await vault.asyncWrite { first.name = "written on the actor" }
        await _Concurrency.Task.yield()
        log.append("\(first.name) score \(first.score)")
        return log
    }
}

@Suite("Swift concurrency: actor-isolated vaults and asynchronous writes")
struct ConcurrencyTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("concurrency") }

    @Test("async writes from 4 tasks wait for a lock held by another thread without blocking the cooperative pool, then all commit")
    func asyncWritesDoNotBlock() throws {
        // In a child process: this suite's parallel tests would otherwise fill the cooperative pool themselves.
        let output = try runHelper(["async-writes", directory.file("async.vault").path],
                                   input: testKey.map { String(format: "%02x", $0) }.joined())
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("waiting 4"), "the four writes waited for the lock together: \(lines)")
        #expect(lines.contains("canary true"), "sixteen tasks ran on the 2-thread pool while four writes waited: \(lines)")
        #expect(lines.last == "ids [1, 2, 3, 4, 100]")
    }

    @Test("an actor-isolated vault is used across await points and its observers hear other threads' commits on the actor", .timeLimit(.minutes(5)))
    func actorIsolatedVault() async throws {
        let configuration = threadingConfiguration(directory)
        try onNewThread { try seedBox(try Vault(configuration: configuration)) }
        let log = try await Librarian().run(configuration: configuration)
        #expect(log == [
            "initial [1, 2, 3]",
            // 2 and 3 link to the box whose list holds 1: written through links, as Realm counts them.
            "update [1, 2, 3, 50] -[] +[3] ~[0, 1, 2]",
            "written on the actor score 9",
        ])
    }

    @Test("an asyncWrite whose block throws rolls back; one cancelled while it waits for the lock throws CancellationError and holds nothing", .timeLimit(.minutes(5)))
    func asyncWriteFailures() async throws {
        let configuration = threadingConfiguration(directory)
        let release = DispatchSemaphore(value: 0), held = DispatchSemaphore(value: 0)
        // The lock holder starts only when the actor asks for it, whatever the machine's load.
        let log = try await FailingWriter().run(configuration: configuration) {
            Thread {
                if let vault = try? Vault(configuration: configuration) {
                    vault.beginWrite()
                    vault.add(TItem(50, "holder"))
                    held.signal()
                    _ = release.wait(timeout: .now() + 120)
                    try? vault.commitWrite()
                } else {
                    held.signal()
                }
            }.start()
            _ = held.wait(timeout: .now() + 120)
        }
        release.signal()
        #expect(log == ["thrown, 0 stored, in write false", "cancelled"])
        // Nothing was left holding the writer: a later write goes through.
        let count = try onNewThread { () -> Int in
            let vault = try Vault(configuration: configuration)
            try vault.write { vault.add(TItem(51, "after")) }
            return vault.objects(TItem.self).count
        }
        #expect(count == 2)
    }

    @Test("writeAsync on a plain thread runs at once, as write {} does, then calls onComplete")
    func plainThreadWriteAsync() throws {
        let configuration = threadingConfiguration(directory)
        let outcome = try onNewThread { () -> [String] in
            let vault = try Vault(configuration: configuration)
            var log: [String] = []
            vault.writeAsync({ vault.add(TItem(60, "now")); log.append("block") }, onComplete: { error in log.append("complete \(error == nil)") })
            log.append("returned, \(vault.objects(TItem.self).count) stored")
            return log
        }
        #expect(outcome == ["block", "complete true", "returned, 1 stored"])
    }

    @Test("writeAsync, beginAsyncWrite/commitAsyncWrite and cancelAsyncWrite on a queue-confined vault: in order, completions on the queue")
    func callbackAsyncWrites() throws {
        let configuration = threadingConfiguration(directory)
        let queue = DispatchQueue(label: "vaultkit.tests.async-writes")
        let log = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        queue.async {
            do {
                let vault = try Vault(configuration: configuration, queue: queue)
                vault.writeAsync({ vault.add(TItem(1, "one")) }, onComplete: { error in
                    dispatchPrecondition(condition: .onQueue(queue))
                    log.withLock { $0.append("1 \(error == nil)") }
                })
                let cancelled = vault.writeAsync({ vault.add(TItem(2, "two")) }, onComplete: { _ in log.withLock { $0.append("2 ran") } })
                try vault.cancelAsyncWrite(cancelled)
                vault.beginAsyncWrite {
                    vault.add(TItem(3, "three"))
                    vault.commitAsyncWrite { error in
                        log.withLock { $0.append("3 \(error == nil)") }
                        done.signal()
                    }
                }
                log.withLock { $0.append("scheduled \(vault.isPerformingAsynchronousWriteOperations)") }
                #expect(throws: VaultObjectError.self) { try vault.cancelAsyncWrite(cancelled) }
            } catch {
                log.withLock { $0.append("\(error)") }
                done.signal()
            }
        }
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(log.withLock { $0 } == ["scheduled true", "1 true", "3 true"])
        let ids = try Vault(configuration: configuration).objects(TItem.self).map(\.id)
        #expect(Set(ids) == [1, 3])
    }

    @Test("asyncOpen opens on a background queue and calls back on the given queue with a vault confined to it")
    func asyncOpen() throws {
        let configuration = threadingConfiguration(directory)
        let queue = DispatchQueue(label: "vaultkit.tests.async-open")
        let outcome = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Vault.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
            dispatchPrecondition(condition: .onQueue(queue))
            switch result {
            case .success(let vault):
                do {
                    try vault.write { vault.add(TItem(7, "seven")) }
                    outcome.withLock { $0 = "opened, \(vault.objects(TItem.self).count) item" }
                } catch {
                    outcome.withLock { $0 = "\(error)" }
                }
            case .failure(let error):
                outcome.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(outcome.withLock { $0 } == "opened, 1 item")
    }

    @Test("asyncOpen(configuration:) as a Combine publisher emits a vault confined to the receive(on:) queue, or fails with the opening error")
    func asyncOpenPublisher() throws {
        let configuration = threadingConfiguration(directory)
        let queue = DispatchQueue(label: "vaultkit.tests.async-open-publisher")
        let events = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        var cancellables = Set<AnyCancellable>()
        Vault.asyncOpen(configuration: configuration)
            .receive(on: queue)
            .sink(receiveCompletion: { completion in
                events.withLock { $0.append(completion.isFinished ? "finished" : "failed") }
                done.signal()
            }, receiveValue: { vault in
                dispatchPrecondition(condition: .onQueue(queue))
                do {
                    try vault.write { vault.add(TItem(8, "eight")) }
                    events.withLock { $0.append("opened, \(vault.objects(TItem.self).count) item") }
                } catch {
                    events.withLock { $0.append("\(error)") }
                }
            })
            .store(in: &cancellables)
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(events.withLock { $0 } == ["opened, 1 item", "finished"])

        // The wrong key: no vault, the error Realm gives (invalidDatabase).
        var wrongKey = configuration
        wrongKey.encryptionKey = Data(repeating: 9, count: 64)
        let failure = Locked<Vault.Error.Code?>(nil)
        Vault.asyncOpen(configuration: wrongKey)
            .receive(on: queue)
            .sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { failure.withLock { $0 = (error as? Vault.Error)?.code } }
                done.signal()
            }, receiveValue: { _ in Issue.record("a vault opened with the wrong key") })
            .store(in: &cancellables)
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(failure.withLock { $0 } == .invalidDatabase)
    }
}

private extension Subscribers.Completion {
    var isFinished: Bool { if case .finished = self { return true } else { return false } }
}
