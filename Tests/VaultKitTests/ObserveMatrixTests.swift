import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Every way to observe, on every storage: an encrypted file, an in-memory
// vault, and a read-only file (observed read-only while a writable handle
// writes). The observing vault never writes itself and the writes come from
// another thread's vault, so the first change after registration must reach
// the observer whatever the storage (an in-memory vault once lost it).

/// The storage's observing vault (read-only for `.readOnlyFile`) and its writable configuration.
struct MatrixVaults {
    let observer: Vault
    let writable: Vault.Configuration
    let observing: Vault.Configuration

    init(_ mode: StorageMode, _ directory: TemporaryDirectory) throws {
        writable = mode.configuration(directory, types: [NItem.self, NOwner.self])
        let seeder = try Vault(configuration: writable)
        try seeder.write { seeder.add(NItem(1, "a")) }
        var observing = writable
        if mode == .readOnlyFile { observing.readOnly = true }
        self.observing = observing
        observer = try Vault(configuration: observing)
        // Keeps an in-memory vault alive while the test runs (the seeder's session may be shared).
        withExtendedLifetime(seeder) {}
    }

    /// Commits `body` through a vault of another thread, and waits for it.
    func writeElsewhere(_ body: @escaping @Sendable (Vault) throws -> Void) throws {
        try Self.writeElsewhere(writable, body)
    }

    static func writeElsewhere(_ configuration: Vault.Configuration, _ body: @escaping @Sendable (Vault) throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<Error?>(nil)
        Thread.detachNewThread {
            do {
                let vault = try Vault(configuration: configuration)
                try vault.write { try body(vault) }
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

@Suite("Every observe entry point on every storage")
struct ObserveMatrixTests {
    @Test("Results.observe: the initial value, then the first write after it", arguments: StorageMode.allCases)
    func results(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("matrix-results")
        let vaults = try MatrixVaults(mode, directory)
        var log: [String] = []
        let token = vaults.observer.objects(NItem.self).sorted(byKeyPath: "id").observe { change in
            switch change {
            case .initial(let items): log.append("initial \(items.map(\.name))")
            case .update(let items, let d, let i, let m): log.append("update \(items.map(\.name)) -\(d) +\(i) ~\(m)")
            case .error(let error): log.append("error \(error)")
            }
        }
        vaults.observer.refresh()
        try vaults.writeElsewhere { $0.object(ofType: NItem.self, forPrimaryKey: 1)?.name = "b" }
        vaults.observer.refresh()
        try vaults.writeElsewhere { $0.add(NItem(2, "c")) }
        vaults.observer.refresh()
        #expect(log == ["initial [\"a\"]", "update [\"b\"] -[] +[] ~[0]", "update [\"b\", \"c\"] -[] +[1] ~[]"])
        token.invalidate()
    }

    @Test("observe(keyPaths:) counts writes to those properties only", arguments: StorageMode.allCases)
    func keyPaths(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("matrix-keypaths")
        let vaults = try MatrixVaults(mode, directory)
        var modifications: [[Int]] = []
        let token = vaults.observer.objects(NItem.self).observe(keyPaths: ["name"]) { change in
            if case .update(_, _, _, let m) = change { modifications.append(m) }
        }
        vaults.observer.refresh()
        try vaults.writeElsewhere { $0.object(ofType: NItem.self, forPrimaryKey: 1)?.score = 99 }
        vaults.observer.refresh()
        try vaults.writeElsewhere { $0.object(ofType: NItem.self, forPrimaryKey: 1)?.name = "renamed" }
        vaults.observer.refresh()
        #expect(modifications == [[0]], "the score write is not a change of name")
        token.invalidate()
    }

    @Test("an object's observe reports the first write after it", arguments: StorageMode.allCases)
    func object(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("matrix-object")
        let vaults = try MatrixVaults(mode, directory)
        let item = try #require(vaults.observer.object(ofType: NItem.self, forPrimaryKey: 1))
        var log: [String] = []
        let token = item.observe { change in
            if case .change(_, let properties) = change { log.append(properties.map { "\($0.name)=\($0.newValue ?? "nil")" }.joined(separator: ",")) }
            if case .deleted = change { log.append("deleted") }
        }
        try vaults.writeElsewhere { $0.object(ofType: NItem.self, forPrimaryKey: 1)?.score = 5 }
        vaults.observer.refresh()
        try vaults.writeElsewhere { $0.delete($0.objects(NItem.self)) }
        vaults.observer.refresh()
        #expect(log == ["score=5", "deleted"])
        token.invalidate()
    }

    @Test("Vault.observe hears .didChange for the first commit after it", arguments: StorageMode.allCases)
    func vaultLevel(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("matrix-vault")
        let vaults = try MatrixVaults(mode, directory)
        var heard: [VaultNotification] = []
        let token = vaults.observer.observe { notification, _ in heard.append(notification) }
        try vaults.writeElsewhere { $0.add(NItem(2, "b")) }
        #expect(vaults.observer.refresh())
        #expect(heard == [.didChange])
        token.invalidate()
    }

    @Test("observe(on: queue) for results and objects delivers the first write after registration by itself", arguments: StorageMode.allCases)
    func onQueue(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("matrix-queue")
        let vaults = try MatrixVaults(mode, directory)
        let queue = DispatchQueue(label: "vaultkit.tests.matrix")
        let log = Locked<[String]>([])
        let signal = DispatchSemaphore(value: 0)
        let results = vaults.observer.objects(NItem.self).observe(keyPaths: ["name"], on: queue) { change in
            switch change {
            case .initial(let items): log.withLock { $0.append("initial \(items.map(\.name))") }
            case .update(let items, _, _, let m): log.withLock { $0.append("update \(items.map(\.name)) ~\(m)") }
            case .error(let error): log.withLock { $0.append("error \(error)") }
            }
            signal.signal()
        }
        let item = try #require(vaults.observer.object(ofType: NItem.self, forPrimaryKey: 1))
        let object = item.observe(keyPaths: ["name"], on: queue) { change in
            if case .change(let object, _) = change { log.withLock { $0.append("object \(object.name)") } }
            signal.signal()
        }
        #expect(signal.wait(timeout: .now() + 10) == .success, "the initial delivery")
        try vaults.writeElsewhere { $0.object(ofType: NItem.self, forPrimaryKey: 1)?.name = "b" }
        #expect(signal.wait(timeout: .now() + 10) == .success)
        #expect(signal.wait(timeout: .now() + 10) == .success)
        #expect(Set(log.withLock { $0 }) == ["initial [\"a\"]", "update [\"b\"] ~[0]", "object b"])
        results.invalidate()
        object.invalidate()
    }

    @Test("an actor's vault and async sequences hear the first write after they start", .timeLimit(.minutes(5)), arguments: StorageMode.allCases)
    func actorAndAsyncSequence(mode: StorageMode) async throws {
        let directory = try TemporaryDirectory("matrix-actor")
        let vaults = try MatrixVaults(mode, directory)
        let writable = vaults.writable
        let log = try await MatrixObserver().run(observing: vaults.observing) {
            try MatrixVaults.writeElsewhere(writable) { $0.object(ofType: NItem.self, forPrimaryKey: 1)?.name = "b" }
        }
        #expect(log == ["initial [\"a\"]", "update [\"b\"] ~[0]", "object [\"name\"]"])
        withExtendedLifetime(vaults) {}
    }
}

/// Observes from an actor-isolated vault with `changes()` (an `AsyncSequence`).
actor MatrixObserver {
    func run(observing configuration: Vault.Configuration, write: @Sendable () throws -> Void) async throws -> [String] {
        let vault = try await Vault.open(configuration: configuration)
        var log: [String] = []
        var changes = vault.objects(NItem.self).changes().makeAsyncIterator()
        guard case .initial(let items)? = await changes.next(isolation: self) else { return ["no initial"] }
        log.append("initial \(items.map(\.name))")
        let item = try #require(vault.object(ofType: NItem.self, forPrimaryKey: 1))
        var objectChanges = item.changes().makeAsyncIterator()
        try write()
        guard case .update(let updated, _, _, let modifications)? = await changes.next(isolation: self) else { return log + ["no update"] }
        log.append("update \(updated.map(\.name)) ~\(modifications)")
        guard case .change(_, let properties)? = await objectChanges.next(isolation: self) else { return log + ["no object change"] }
        log.append("object \(properties.map(\.name))")
        return log
    }
}
