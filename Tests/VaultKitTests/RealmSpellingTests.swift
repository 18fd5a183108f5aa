import Foundation
import Testing
import VaultTestSupport
import VaultCore
@testable import VaultKit

// Realm API found missing while porting realm-swift's public surface: nested
// names, convenience methods and overloads, each with Realm's behaviour.

final class SpellingItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var group = ""
    @Persisted var amount = Decimal128(0)
    @Persisted var items: List<SpellingItem>
    @Persisted var numbers: List<Int>
    @Persisted var byName: Map<String, SpellingItem?>
    @Persisted var labels: Map<String, String>
}

@Suite("Realm spellings")
struct RealmSpellingTests {
    private func open(_ directory: TemporaryDirectory) throws -> Vault {
        try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [SpellingItem.self]))
    }

    @Test("Vault's nested names, queue-less opening and the configuration initializer's labels")
    func names() throws {
        #expect(Vault.UpdatePolicy.error.rawValue == 1 && Vault.UpdatePolicy.all.rawValue == 2 && Vault.UpdatePolicy.modified.rawValue == 3)
        let notification: Vault.Notification = .didChange
        #expect(notification == VaultNotification.didChange)
        let directory = try TemporaryDirectory("spellings-names")
        let seed = directory.file("seed.vault")
        let configuration = Vault.Configuration(fileURL: directory.file("a.vault"), encryptionKey: testKey,
                                                shouldCompactOnLaunch: { _, _ in false }, objectTypes: [SpellingItem.self], seedFilePath: seed)
        #expect(configuration.seedFilePath == seed && configuration.shouldCompactOnLaunch != nil)
        var opened = configuration
        opened.seedFilePath = nil
        let vault = try Vault(configuration: opened, queue: nil)
        #expect(vault.isEmpty)
        #expect(SpellingItem.className() == "SpellingItem")
        #expect(vault.schema["SpellingItem"] == SpellingItem.sharedSchema())
        #expect(SpellingItem.sharedSchema()?.objectClass == SpellingItem.self)
        #expect(SpellingItem.sharedSchema()?.isAsymmetric == false)
        #expect(SpellingItem.sharedSchema()?["amount"]?.type == .decimal128)
        #expect(Status() == .active)
        // Enums compare by raw value, as Realm's do.
        #expect([Priority.high, .low].sorted() == [.low, .high] && Status.active < Status.archived)
        let priorities = List<Priority>()
        priorities.append(objectsIn: [.high, .low, .high])
        #expect(priorities.min() == .low && priorities.max() == .high)
    }

    @Test("configurations compare as Realm's do (location, key, options, classes) and print without their key")
    func configurationEquality() throws {
        let directory = try TemporaryDirectory("spellings-configuration")
        let a = Vault.Configuration(fileURL: directory.file("a.vault"), encryptionKey: testKey, schemaVersion: 2, objectTypes: [SpellingItem.self])
        var b = Vault.Configuration(fileURL: directory.file("a.vault"), encryptionKey: Data(testKey), schemaVersion: 2, objectTypes: [SpellingItem.self])
        #expect(a == b)
        b.schemaVersion = 3
        #expect(a != b)
        var otherKey = a
        otherKey.encryptionKey = Data(repeating: 1, count: 64)
        #expect(a != otherKey)
        var otherTypes = a
        otherTypes.objectTypes = [Person.self]
        #expect(a != otherTypes)
        #expect(Vault.Configuration(inMemoryIdentifier: "x") == Vault.Configuration(inMemoryIdentifier: "x"))
        let text = a.description
        #expect(text.contains("a.vault") && text.contains("schemaVersion: 2") && text.contains("SpellingItem") && text.contains("redacted"))
        let keyHex = testKey.map { String(format: "%02x", $0) }.joined()
        #expect(!text.contains(keyHex.prefix(16)) && !text.contains("\(Array(testKey).prefix(4))"))
    }

    @Test("freeze/thaw/delete helpers on Vault, commitWrite(withoutNotifying:)")
    func vaultHelpers() throws {
        let directory = try TemporaryDirectory("spellings-vault")
        let vault = try open(directory)
        let item = SpellingItem(value: ["id": 1, "name": "a"])
        let other = SpellingItem(value: ["id": 2, "name": "b"])
        try vault.write {
            vault.add([item, other])
            item.byName["b"] = other
        }
        let frozen = vault.freeze(item)
        #expect(frozen.isFrozen)
        #expect(vault.thaw(frozen)?.isFrozen == false)
        #expect(vault.freeze(vault.objects(SpellingItem.self)).isFrozen)

        var calls = 0
        let token = vault.objects(SpellingItem.self).observe { _ in calls += 1 }
        defer { token.invalidate() }
        vault.refresh()
        #expect(calls == 1)
        vault.beginWrite()
        item.name = "quiet"
        try vault.commitWrite(withoutNotifying: [token])
        vault.refresh()
        #expect(calls == 1)

        try vault.write { vault.delete(item.byName) }
        #expect(vault.objects(SpellingItem.self).map(\.id) == [1])
        #expect(item.byName.count == 1 && item.byName["b"] == .some(nil))
    }

    @Test("deleting an object a map holds keeps its key, now nil, and notifies the key as modified (Realm's rule)")
    func mapNullifiesDeletedTargets() throws {
        let directory = try TemporaryDirectory("spellings-map-nullify")
        let vault = try open(directory)
        let owner = SpellingItem(value: ["id": 1])
        let target = SpellingItem(value: ["id": 2])
        try vault.write {
            vault.add([owner, target])
            owner.byName["t"] = target
            owner.byName["none"] = .some(nil)
        }
        var updates: [(deletions: [String], insertions: [String], modifications: [String])] = []
        let token = owner.byName.observe { change in
            if case .update(_, let deletions, let insertions, let modifications) = change { updates.append((deletions, insertions, modifications)) }
        }
        defer { token.invalidate() }
        vault.refresh()
        try vault.write { vault.delete(target) }
        vault.refresh()
        #expect(owner.byName.count == 2)
        #expect(owner.byName["t"] == .some(nil))
        #expect(updates.count == 1)
        #expect(updates.first?.deletions == [] && updates.first?.modifications == ["t"])
    }

    @Test("List removeFirst/removeLast counts and range expressions")
    func listRanges() throws {
        let list = List<Int>()
        list.append(objectsIn: 0..<10)
        list.removeFirst(2)
        list.removeLast(2)
        #expect(Array(list) == [2, 3, 4, 5, 6, 7])
        list.replaceSubrange(0...1, with: [9])
        list.removeSubrange(3...)
        #expect(Array(list) == [9, 4, 5])
        list.removeFirst()
        list.removeLast()
        #expect(Array(list) == [4])
    }

    @Test("typed sort descriptors, sections and index(matching:) on lists; typed key-path observation of a list")
    func typedCollections() throws {
        let directory = try TemporaryDirectory("spellings-typed")
        let vault = try open(directory)
        let owner = SpellingItem(value: ["id": 0])
        try vault.write {
            vault.add(owner)
            for (id, name, group) in [(1, "c", "x"), (2, "a", "y"), (3, "b", "x")] {
                owner.items.append(SpellingItem(value: ["id": id, "name": name, "group": group]))
            }
        }
        let descriptor = SortDescriptor(keyPath: \SpellingItem.name, ascending: false)
        #expect(descriptor.keyPath == "name" && !descriptor.ascending)
        #expect(owner.items.sorted(by: [descriptor]).map(\.id) == [1, 3, 2])
        let sections = owner.items.sectioned(by: \.group, ascending: true)
        #expect(sections.allKeys == ["x", "y"])
        #expect(sections.vault === vault && !sections.isInvalidated && !sections.isFrozen)
        #expect(sections[0].vault === vault && !sections[0].isInvalidated && !sections[0].isFrozen)
        #expect(sections.freeze()[1].isFrozen)
        #expect(owner.items.sectioned(by: { $0.group }, sortDescriptors: ["group", "name"]).map { $0.map(\.id) } == [[3, 1], [2]])
        #expect(owner.items.index(matching: { $0.name == "b" }) == 2)
        #expect(owner.items.index(matching: { $0.name == "z" }) == nil)

        var changes: [[Int]] = []
        let token = owner.items.observe(keyPaths: [\SpellingItem.name]) { change in
            if case .update(_, _, _, let modifications) = change { changes.append(modifications) }
        }
        defer { token.invalidate() }
        vault.refresh()
        try vault.write { owner.items[0].group = "z" }   // not an observed property
        vault.refresh()
        try vault.write { owner.items[1].name = "bb" }
        vault.refresh()
        #expect(changes == [[1]])
        let firstSection = sections[0]
        try vault.write { vault.delete(owner) }
        #expect(sections.isInvalidated && firstSection.isInvalidated, "the list they are based on went with its owner")
    }

    @Test("Map key-value coding and a throwing merge")
    func mapSpellings() throws {
        let map = Map<String, String>()
        map.setValue("one", forKey: "a")
        #expect(map.value(forKey: "a") as? String == "one")
        map.setValue(nil, forKey: "a")
        #expect(map.value(forKey: "a") == nil && map.isEmpty)
        struct Conflict: Error {}
        map["k"] = "old"
        #expect(throws: Conflict.self) { try map.merge([(key: "k", value: "new")]) { _, _ in throw Conflict() } }
        map.merge([(key: "k", value: "new")])
        #expect(map["k"] == "new")
    }

    @Test("Decimal128 is Numeric; ObjectId from a timestamp, machine and process; Vault.Error is Equatable")
    func values() throws {
        var total = Decimal128(0)
        for value in [Decimal128(1), Decimal128(2.5)] { total += value }
        #expect(total == Decimal128(3.5))
        func sum<T: Numeric>(_ values: [T]) -> T { values.reduce(.zero, +) }
        #expect(sum([Decimal128(1), Decimal128(2)]) == Decimal128(3))
        #expect(Decimal128(exactly: 12) == Decimal128(12))
        #expect(Decimal128.max > Decimal128(1e100) && Decimal128.min < Decimal128(-1e100))

        let id = ObjectId(timestamp: Date(timeIntervalSince1970: 0x01020304), machineId: 0x0A0B0C, processId: 0x0D0E)
        #expect(Array(id.bytes[0..<9]) == [1, 2, 3, 4, 0x0C, 0x0B, 0x0A, 0x0E, 0x0D])
        #expect(id.timestamp == Date(timeIntervalSince1970: 0x01020304))

        let directory = try TemporaryDirectory("spellings-errors")
        var missing = Vault.Configuration(fileURL: directory.file("missing.vault"), encryptionKey: testKey)
        missing.readOnly = true
        do {
            _ = try Vault(configuration: missing)
            Issue.record("a read-only open of a missing file must fail")
        } catch let error as Vault.Error {
            #expect(error == Vault.Error(.fileNotFound, underlyingError: VaultError.misuse("other")))
            #expect(error.fileURL?.lastPathComponent == "missing.vault")
        }
        #expect(Vault.Error.callFailed.code == .fail)
    }

    @Test("DynamicObject reads and writes properties as members")
    func dynamicMembers() throws {
        let directory = try TemporaryDirectory("spellings-dynamic")
        let vault = try open(directory)
        try vault.write { vault.add(SpellingItem(value: ["id": 1, "name": "a"])) }
        let dynamic = try #require(vault.dynamicObjects("SpellingItem").first)
        #expect(dynamic.name as? String == "a")
        try vault.write { dynamic.name = "b" }
        #expect(vault.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name == "b")
    }
}
