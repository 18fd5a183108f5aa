import Foundation
import Testing
import VaultTestSupport
import VaultCore
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

    @Test("inside a write the cache serves lookups and takes every property set; a rollback, an upsert, a delete and an insert leave it exact", arguments: StorageMode.writable)
    func insideWrites(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("pk-cache-write")
        let configuration = mode.configuration(directory, types: [SpellingItem.self])
        let vault = try Vault(configuration: configuration)
        try vault.write { for id in 1...10 { vault.add(SpellingItem(value: ["id": id, "name": "v\(id)", "group": "g"])) } }
        for id in 1...10 { #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: id)?.name == "v\(id)") }
        #expect(vault.session.primaryKeyCache.count == 10)

        // The read-modify-write loop: each set is seen by the next lookup, and the cache stays whole.
        vault.beginWrite()
        for id in 1...10 {
            vault.object(ofType: SpellingItem.self, forPrimaryKey: id)?.name = "w\(id)"
            vault.object(ofType: SpellingItem.self, forPrimaryKey: id)?.group = "h\(id)"
            let again = vault.object(ofType: SpellingItem.self, forPrimaryKey: id)
            #expect(again?.name == "w\(id)" && again?.group == "h\(id)")
        }
        #expect(vault.session.primaryKeyCache.count == 10)
        // SQL agrees with the cache (the pending update reaches SQLite before a query).
        #expect(vault.objects(SpellingItem.self).filter("name == 'w3' AND group == 'h3'").count == 1)
        vault.cancelWrite()
        for id in 1...10 {
            let item = vault.object(ofType: SpellingItem.self, forPrimaryKey: id)
            #expect(item?.name == "v\(id)" && item?.group == "g", "rolled back: \(id)")
        }

        try vault.write {
            for id in 1...10 { vault.object(ofType: SpellingItem.self, forPrimaryKey: id)?.name = "x\(id)" }
            vault.create(SpellingItem.self, value: ["id": 4, "name": "upserted"], update: .modified)
            #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 4)?.name == "upserted")
            if let item = vault.object(ofType: SpellingItem.self, forPrimaryKey: 5) { vault.delete(item) }
            #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 5) == nil)
            #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 11) == nil)
            vault.add(SpellingItem(value: ["id": 11, "name": "added"]))
            #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 11)?.name == "added")
            vault.object(ofType: SpellingItem.self, forPrimaryKey: 6)?.name = "after the insert"
            #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 6)?.name == "after the insert")
            // Sets through objects the cache did not hand out: from a query, and a dynamic object.
            for item in vault.objects(SpellingItem.self).filter("id == 7") { item.name = "via results" }
            #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 7)?.name == "via results")
            vault.dynamicObject(ofType: "SpellingItem", forPrimaryKey: 8)?["name"] = "dynamic"
            #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 8)?.name == "dynamic")
            vault.object(ofType: SpellingItem.self, forPrimaryKey: 8)?.name = "typed again"
            #expect(vault.dynamicObject(ofType: "SpellingItem", forPrimaryKey: 8)?["name"] as? String == "typed again")
        }
        // What was committed, read through the cache here and from SQLite by another vault instance.
        var expected = Dictionary(uniqueKeysWithValues: (1...10).map { ($0, "x\($0)") })
        expected[4] = "upserted"
        expected[5] = nil
        expected[6] = "after the insert"
        expected[7] = "via results"
        expected[8] = "typed again"
        expected[11] = "added"
        let cached = Dictionary(uniqueKeysWithValues: (1...11).compactMap { id in vault.object(ofType: SpellingItem.self, forPrimaryKey: id).map { (id, $0.name) } })
        #expect(cached == expected)
        let stored = try onNewThread { () -> [Int: String] in
            let other = try Vault(configuration: configuration, isolation: nil)
            return Dictionary(uniqueKeysWithValues: other.objects(SpellingItem.self).map { ($0.id, $0.name) })
        }
        #expect(stored == expected)
    }

    @Test("keys of every kind are told apart: an integer from the same number as text or real, from NULL, and from the same integer of another class")
    func keysOfEveryKind() throws {
        let directory = try TemporaryDirectory("pk-cache-kinds")
        let vault = try Vault(configuration: StorageMode.inMemory.configuration(directory, types: [SpellingItem.self, PUContact.self]))
        let items = vault.schema(for: SpellingItem.self), contacts = vault.schema(for: PUContact.self)
        let cache = PrimaryKeyCache()
        let keys: [(ObjectSchema, DatabaseValue)] = [
            (items, .integer(1)), (items, .text("1")), (items, .real(1)), (items, .null), (items, .blob(Data([1]))),
            (items, .integer(-1)), (items, .integer(Int64.max)), (contacts, .integer(1)), (contacts, .text("1")),
        ]
        for (rowID, (schema, key)) in keys.enumerated() {
            cache.store(PrimaryKeyCache.Row(rowID: Int64(rowID), values: [key]), schema, key, version: 7)
        }
        #expect(cache.count == keys.count)
        for (rowID, (schema, key)) in keys.enumerated() {
            #expect(cache.lookup(schema, key, version: 7)??.rowID == Int64(rowID), "\(schema.className) \(key)")
        }
        #expect(cache.lookup(items, .integer(2), version: 7) == nil)
        #expect(cache.lookup(items, .text("2"), version: 7) == nil)
        #expect(cache.lookup(items, .integer(1), version: 8) == nil)
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
