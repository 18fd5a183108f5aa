import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Rows looked up by primary key are kept for the version they were read at:
// every lookup must still give exactly what SQLite holds at that version.

@Suite("Primary-key lookups through the per-version row cache")
struct PrimaryKeyCacheTests {
    @Test("repeated lookups see every write: own writes, pending property updates, deletes, creates of a key missed before", arguments: StorageMode.writable)
    func freshness(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("pk-cache")
        let vault = try Vault(configuration: mode.configuration(directory, types: [SpellingItem.self]))
        try vault.write { vault.add(SpellingItem(value: ["id": 1, "name": "a"])) }
        #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name == "a")
        #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 2) == nil)
        #expect(vault.session.primaryKeyCache.count == 2)
        try vault.write {
            vault.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name = "b"
            // The update is pending (not in SQLite yet); a lookup must still see it.
            #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name == "b")
            vault.add(SpellingItem(value: ["id": 2, "name": "new"]))
            #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 2)?.name == "new")
        }
        #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name == "b")
        #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 2)?.name == "new")
        try vault.write {
            if let item = vault.object(ofType: SpellingItem.self, forPrimaryKey: 2) { vault.delete(item) }
        }
        #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 2) == nil)
        try vault.write { vault.create(SpellingItem.self, value: ["id": 1, "name": "c"], update: .modified) }
        #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name == "c")
    }

    @Test("a commit made on another thread shows after refresh; a frozen vault keeps its version")
    func otherThreads() throws {
        let directory = try TemporaryDirectory("pk-cache-threads")
        let configuration = StorageMode.encryptedFile.configuration(directory, types: [SpellingItem.self])
        let vault = try Vault(configuration: configuration)
        try vault.write { vault.add(SpellingItem(value: ["id": 1, "name": "a"])) }
        #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name == "a")
        let frozen = vault.freeze()
        #expect(frozen.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name == "a")
        let done = DispatchSemaphore(value: 0)
        let failure = LockedBox<String?>(nil)
        Thread.detachNewThread {
            do {
                let other = try Vault(configuration: configuration, isolation: nil)
                try other.write { other.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name = "from another thread" }
            } catch {
                failure.set("\(error)")
            }
            done.signal()
        }
        done.wait()
        #expect(failure.get() == nil)
        vault.refresh()
        #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name == "from another thread")
        #expect(frozen.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name == "a")
    }

    @Test("the cache never holds more than its capacity")
    func bounded() throws {
        let directory = try TemporaryDirectory("pk-cache-bound")
        let vault = try Vault(configuration: StorageMode.inMemory.configuration(directory, types: [SpellingItem.self]))
        try vault.write { for id in 0..<100 { vault.add(SpellingItem(value: ["id": id])) } }
        for round in 0..<3 {
            for id in 0..<(PrimaryKeyCache.capacity + 500) {
                let found = vault.object(ofType: SpellingItem.self, forPrimaryKey: id)
                #expect((found != nil) == (id < 100), "round \(round), id \(id)")
                #expect(vault.session.primaryKeyCache.count <= PrimaryKeyCache.capacity)
            }
        }
    }
}

/// A value shared with another thread under a lock.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
