import Foundation
import Testing
import VaultTestSupport
import VaultKit

// Realm's `_name(for:)`: a key path's name as the query language spells it,
// through links, lists, sets, maps, backlinks and embedded objects.

final class KPNode: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var flag = false
    @Persisted var label: String?
    @Persisted var next: KPNode?
    @Persisted var children: List<KPNode>
    @Persisted var tags: List<String>
    @Persisted var members: MutableSet<KPNode>
    @Persisted var byName: Map<String, KPNode?>
    @Persisted var spot: KPSpot?
    @Persisted(originProperty: "children") var parents: LinkingObjects<KPNode>
    var computed: Int { id * 2 }
}

final class KPSpot: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var owner: KPNode?
}

@Suite("_name(for:)")
struct KeyPathNameTests {
    @Test("top-level properties of every kind")
    func topLevel() {
        #expect(_name(for: \KPNode.id) == "id")
        #expect(_name(for: \KPNode.flag) == "flag")
        #expect(_name(for: \KPNode.label) == "label")
        #expect(_name(for: \KPNode.next) == "next")
        #expect(_name(for: \KPNode.children) == "children")
        #expect(_name(for: \KPNode.tags) == "tags")
        #expect(_name(for: \KPNode.members) == "members")
        #expect(_name(for: \KPNode.byName) == "byName")
        #expect(_name(for: \KPNode.spot) == "spot")
        #expect(_name(for: \KPNode.parents) == "parents")
    }

    @Test("paths through links, embedded objects, lists, sets, maps and backlinks, to any depth")
    func nested() {
        #expect(_name(for: \KPNode.next?.label) == "next.label")
        #expect(_name(for: \KPNode.next?.next?.flag) == "next.next.flag")
        #expect(_name(for: \KPNode.spot?.city) == "spot.city")
        #expect(_name(for: \KPNode.spot?.owner?.label) == "spot.owner.label")
        #expect(_name(for: \KPNode.children[0].flag) == "children.flag")
        #expect(_name(for: \KPNode.children[0].next?.parents) == "children.next.parents")
        #expect(_name(for: \KPNode.children[0].next?.parents[0].id) == "children.next.parents.id")
        #expect(_name(for: \KPNode.members[0].label) == "members.label")
        #expect(_name(for: \KPNode.byName[""]??.flag) == "byName.flag")
        #expect(_name(for: \KPNode.parents[0].spot?.city) == "parents.spot.city")
    }

    @Test("the names work where string key paths are taken")
    func usedInQueries() throws {
        let directory = try TemporaryDirectory("keypath-name")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("k.vault"), encryptionKey: testKey, objectTypes: [KPNode.self]))
        try vault.write {
            let a = KPNode(value: ["id": 1, "label": "a"])
            let b = KPNode(value: ["id": 2, "label": "b", "next": a])
            vault.add([a, b])
        }
        let path = _name(for: \KPNode.next?.label)
        #expect(vault.objects(KPNode.self).filter("\(path) == %@", "a").map(\.id) == [2])
        #expect(vault.objects(KPNode.self).sorted(byKeyPath: _name(for: \KPNode.label), ascending: false).map(\.id) == [2, 1])
    }
}
