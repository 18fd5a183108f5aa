import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

final class MxObserved: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyVaultValue
}

/// What one observer of a nested collection received, in order.
private final class NestedReceived<Change> {
    var changes: [Change] = []
}

@Suite("AnyVaultValue: observing nested lists and dictionaries")
struct MixedNotificationTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("mixed-notifications") }

    private func openVault() throws -> Vault {
        try Vault(configuration: Vault.Configuration(fileURL: directory.file("n.vault"), encryptionKey: testKey, objectTypes: [MxObserved.self]))
    }

    @Test("a nested dictionary reports keys added, removed and changed, at any depth (Realm's MixedCollectionTest cases)")
    func dictionaryChanges() throws {
        let vault = try openVault()
        let object = MxObserved()
        object.value = .fromDictionary(["key0": .fromDictionary(["key1": .fromDictionary(["key5": .int(5)])]), "key3": .int(3)])
        try vault.write { vault.add(object) }
        func expectChange(_ map: Map<String, AnyVaultValue>?, deletions: [String], insertions: [String], modifications: [String],
                          _ write: () -> Void) throws {
            let received = NestedReceived<VaultMapChange<Map<String, AnyVaultValue>>>()
            let token = try #require(map).observe { received.changes.append($0) }
            vault.refresh()
            try vault.write { write() }
            vault.refresh()
            guard case .update(_, let d, let i, let m)? = received.changes.last else {
                Issue.record("no update delivered: \(received.changes.count) changes")
                return
            }
            #expect(d == deletions && i == insertions && m == modifications, "got \(d) \(i) \(m)")
            token.invalidate()
        }
        try expectChange(object.value.dictionaryValue, deletions: [], insertions: ["key2"], modifications: []) {
            object.value.dictionaryValue?["key2"] = .fromDictionary(["key0": .int(1)])
        }
        try expectChange(object.value.dictionaryValue?["key2"]?.dictionaryValue, deletions: [], insertions: [], modifications: ["key0"]) {
            object.value.dictionaryValue?["key2"]?.dictionaryValue?["key0"] = .string("new")
        }
        try expectChange(object.value.dictionaryValue, deletions: ["key3"], insertions: [], modifications: []) {
            object.value.dictionaryValue?["key3"] = nil
        }
        let deep = object.value.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue
        try expectChange(deep, deletions: [], insertions: ["key6"], modifications: []) {
            object.value.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue?["key6"] = .bool(true)
        }
        try expectChange(deep, deletions: ["key5", "key6"], insertions: [], modifications: []) {
            object.value.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue?.removeAll()
        }
    }

    @Test("a nested list reports positions inserted, deleted and modified; an unrelated write reports nothing")
    func listChanges() throws {
        let vault = try openVault()
        let object = MxObserved()
        let inner: AnyVaultValue = .fromArray([.fromArray([.float(43), .string("lunch"), .double(12.34)]), .bool(false)])
        object.value = .fromArray([inner, .decimal128(Decimal128(1))])
        try vault.write { vault.add(object) }
        func expectChange(_ list: List<AnyVaultValue>?, deletions: [Int], insertions: [Int], modifications: [Int], _ write: () -> Void) throws {
            let received = NestedReceived<VaultCollectionChange<List<AnyVaultValue>>>()
            let token = try #require(list).observe { received.changes.append($0) }
            vault.refresh()
            try vault.write { write() }
            vault.refresh()
            guard case .update(_, let d, let i, let m)? = received.changes.last else {
                Issue.record("no update delivered: \(received.changes.count) changes")
                return
            }
            #expect(d == deletions && i == insertions && m == modifications, "got \(d) \(i) \(m)")
            token.invalidate()
        }
        try expectChange(object.value.listValue, deletions: [], insertions: [2], modifications: []) {
            object.value.listValue?.append(.int(7))
        }
        try expectChange(object.value.listValue?[0].listValue, deletions: [], insertions: [], modifications: [1]) {
            object.value.listValue?[0].listValue?[1] = .objectId(ObjectId.generate())
        }
        try expectChange(object.value.listValue?[0].listValue?[0].listValue, deletions: [2], insertions: [], modifications: []) {
            object.value.listValue?[0].listValue?[0].listValue?.removeLast()
        }
        try expectChange(object.value.listValue?[0].listValue?[0].listValue, deletions: [0, 1], insertions: [], modifications: []) {
            object.value.listValue?[0].listValue?[0].listValue?.removeAll()
        }
        // A write elsewhere in the value leaves this list's observer silent.
        let received = NestedReceived<VaultCollectionChange<List<AnyVaultValue>>>()
        let token = try #require(object.value.listValue?[0].listValue).observe { received.changes.append($0) }
        vault.refresh()
        try vault.write { object.value.listValue?[2] = .int(8) }
        vault.refresh()
        #expect(received.changes.count == 1, "only .initial")
        token.invalidate()
    }
}
