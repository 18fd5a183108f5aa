import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Realm's key-value coding on objects: value(forKey:), setValue(_:forKey:) and
// object["name"] for every property kind, collections included.

final class KVItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score: Double?
    @Persisted var friend: KVItem?
    @Persisted var tags: List<String>
    @Persisted var friends: List<KVItem>
    @Persisted var labels: MutableSet<Int>
    @Persisted var counts: Map<String, Int>
    @Persisted(originProperty: "friends") var followers: LinkingObjects<KVItem>
}

@Suite("Key-value coding on objects")
struct KeyValueCodingTests {
    @Test("value(forKey:) gives columns, links and a model object's live collections; setValue(_:forKey:) writes them", arguments: StorageMode.writable)
    func everyKind(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("kvc-objects")
        let vault = try Vault(configuration: mode.configuration(directory, types: [KVItem.self]))
        let (a, b) = (KVItem(value: ["id": 1, "name": "a"]), KVItem(value: ["id": 2, "name": "b"]))
        try vault.write {
            vault.add([a, b])
            a.tags.append("x")
            a.friends.append(b)
            a.labels.insert(3)
            a.counts["k"] = 1
        }
        #expect(a.value(forKey: "name") as? String == "a")
        #expect(a.value(forKey: "score") == nil)
        #expect(a.value(forKey: "nope") == nil)
        let tags = try #require(a.value(forKey: "tags") as? List<String>)
        #expect(Array(tags) == ["x"])
        #expect((a["friends"] as? List<KVItem>)?.first?.id == 2)
        #expect((a["labels"] as? MutableSet<Int>).map(Array.init) == [3])
        #expect((a["counts"] as? Map<String, Int>)?["k"] == 1)
        #expect((b["followers"] as? LinkingObjects<KVItem>)?.map(\.id) == [1])

        try vault.write {
            a.setValue("renamed", forKey: "name")
            a.setValue(2.5, forKey: "score")
            a["friend"] = b
            a.setValue(["y", "z"], forKey: "tags")
            a["friends"] = [b, a]
            a["labels"] = [7, 8]
            a.setValue(["m": 5, "n": 6], forKey: "counts")
        }
        #expect(a.name == "renamed" && a.score == 2.5 && a.friend?.id == 2)
        #expect(Array(a.tags) == ["y", "z"], "the live list sees the replaced contents")
        #expect(Array(tags) == ["y", "z"])
        #expect(a.friends.map(\.id) == [2, 1])
        #expect(Set(a.labels) == [7, 8])
        #expect(a.counts["m"] == 5 && a.counts["n"] == 6 && a.counts["k"] == nil)
        try vault.write { b["tags"] = a.tags }
        #expect(Array(b.tags) == ["y", "z"], "another managed list's elements")
    }

    @Test("a DynamicObject gives live collections typed by the stored property (see DynamicCollectionTests)")
    func dynamicObjects() throws {
        let directory = try TemporaryDirectory("kvc-dynamic")
        let vault = try Vault(configuration: StorageMode.inMemory.configuration(directory, types: [KVItem.self]))
        try vault.write { vault.add(KVItem(value: ["id": 1, "tags": ["x"], "counts": ["k": 2]])) }
        let dynamic = try #require(vault.dynamicObject(ofType: "KVItem", forPrimaryKey: 1))
        #expect((dynamic["tags"] as? List<String>).map(Array.init) == ["x"])
        #expect((dynamic.value(forKey: "counts") as? Map<String, Int>)?["k"] == 2)
    }
}

@Suite("dynamicCreate(_:value:update:)")
struct DynamicCreateTests {
    @Test("creates objects of a class named at run time, links given as DynamicObjects; update by primary key", arguments: StorageMode.writable)
    func dynamicCreate(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("dynamic-create")
        let vault = try Vault(configuration: mode.configuration(directory, types: [KVItem.self]))
        try vault.write {
            let first = vault.dynamicCreate("KVItem", value: ["id": 1, "name": "first", "tags": ["t"]])
            #expect(first.className == "KVItem" && first["name"] as? String == "first")
            let second = vault.dynamicCreate("KVItem", value: ["id": 2, "name": "second", "friend": first, "friends": [first]])
            #expect((second["friend"] as? DynamicObject)?["id"] as? Int == 1)
            vault.dynamicCreate("KVItem", value: ["id": 1, "name": "updated"], update: .modified)
        }
        let items = vault.objects(KVItem.self).sorted(byKeyPath: "id")
        #expect(items.map(\.name) == ["updated", "second"])
        #expect(Array(items[0].tags) == ["t"], "an update from a dictionary writes only the keys given")
        #expect(items[1].friend?.id == 1 && items[1].friends.map(\.id) == [1])
        #expect(vault.dynamicObjects("KVItem").count == 2)
        #expect(throws: VaultObjectError.self) {
            try vault.write { vault.dynamicCreate("KVItem", value: ["id": 2, "name": "duplicate"]) }
        }
        #expect(vault.objects(KVItem.self).count == 2, "the failed write left nothing")
    }
}
