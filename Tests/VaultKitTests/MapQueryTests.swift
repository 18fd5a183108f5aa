import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Queries on a map of objects, as realm-swift's MapTests use them (testFilter,
// testKeyedSortable, testKeyedAggregatable): where, sorted, the aggregates of a
// property, on the map's non-nil values; key lookups read one entry.

final class MQDog: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var age = 0
    @Persisted var weight = 0.0
}

final class MQOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var dogs: Map<String, MQDog?>
}

@Suite("Map of objects: where, sorted, aggregates and key lookups")
struct MapQueryTests {
    let directory: TemporaryDirectory
    let vault: Vault
    let owner: MQOwner

    init() throws {
        directory = try TemporaryDirectory("map-queries")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("dogs.vault"), encryptionKey: testKey,
                                                                 objectTypes: [MQDog.self, MQOwner.self]))
        try vault.write {
            let owner = vault.create(MQOwner.self, value: ["id": 1])
            owner.dogs["c"] = MQDog(value: ["name": "Rex", "age": 7, "weight": 30.0])
            owner.dogs["a"] = MQDog(value: ["name": "Bo", "age": 2, "weight": 10.0])
            owner.dogs["b"] = MQDog(value: ["name": "Max", "age": 4, "weight": 20.0])
            owner.dogs["none"] = .some(nil)
        }
        self.vault = vault
        owner = try #require(vault.object(ofType: MQOwner.self, forPrimaryKey: 1))
    }

    @Test("results hold the non-nil values in key order; where and filter select, sorted orders")
    func queries() throws {
        #expect(owner.dogs.results.map(\.name) == ["Bo", "Max", "Rex"], "keys a, b, c; the nil value is skipped")
        let young = owner.dogs.where { $0.age < 5 }
        #expect(young.map(\.name) == ["Bo", "Max"])
        #expect(owner.dogs.filter("age >= %d", 4).map(\.name) == ["Max", "Rex"])
        #expect(owner.dogs.sorted(byKeyPath: "age", ascending: false).map(\.name) == ["Rex", "Max", "Bo"])
        #expect(owner.dogs.sorted(by: \.weight, ascending: true).map(\.name) == ["Bo", "Max", "Rex"])
        #expect(owner.dogs.sorted(by: [SortDescriptor(keyPath: "name", ascending: false)]).map(\.name) == ["Rex", "Max", "Bo"])
        #expect(throws: QueryError.self) { try owner.dogs.filter("noSuchProperty == 1", arguments: []) }
        // Live: a write is seen by results made before it.
        try vault.write { owner.dogs["d"] = MQDog(value: ["name": "Ace", "age": 1, "weight": 5.0]) }
        #expect(young.map(\.name) == ["Bo", "Max", "Ace"])
    }

    @Test("aggregates of a property, by name and by key path, managed and unmanaged")
    func aggregates() throws {
        #expect(owner.dogs.min(ofProperty: "age") as Int? == 2)
        #expect(owner.dogs.max(ofProperty: "weight") as Double? == 30.0)
        #expect(owner.dogs.sum(ofProperty: "age") as Int == 13)
        #expect(owner.dogs.average(ofProperty: "weight") as Double? == 20.0)
        #expect(owner.dogs.min(of: \.age) == 2 && owner.dogs.max(of: \.age) == 7)
        #expect(owner.dogs.sum(of: \.weight) == 60.0 && owner.dogs.average(of: \.weight) == 20.0)
        let unmanaged = Map<String, MQDog?>()
        #expect(unmanaged.min(of: \.age) == nil && unmanaged.sum(of: \.age) == 0 && unmanaged.average(of: \.weight) == nil)
        unmanaged["x"] = MQDog(value: ["name": "X", "age": 3, "weight": 1.5])
        unmanaged["y"] = MQDog(value: ["name": "Y", "age": 9, "weight": 2.5])
        unmanaged["z"] = .some(nil)
        #expect(unmanaged.min(of: \.age) == 3 && unmanaged.max(of: \.age) == 9)
        #expect(unmanaged.sum(of: \.age) == 12 && unmanaged.average(of: \.weight) == 2.0)
    }

    @Test("a key lookup finds one entry: present, present with nil, absent, and a deleted object's key")
    func keyLookups() throws {
        #expect(owner.dogs["b"]??.name == "Max")
        #expect(owner.dogs.contains(key: "none") && owner.dogs["none"] != nil && owner.dogs["none"]! == nil)
        #expect(owner.dogs["zzz"] == nil && !owner.dogs.contains(key: "zzz"))
        let rex = try #require(owner.dogs["c"] ?? nil)
        try vault.write { vault.delete(rex) }
        #expect(owner.dogs.contains(key: "c"), "a map keeps the key of a deleted object (Realm's rule)")
        #expect(owner.dogs["c"]! == nil)
        #expect(owner.dogs.results.map(\.name) == ["Bo", "Max"])
        try vault.write { owner.dogs["c"] = nil }
        #expect(!owner.dogs.contains(key: "c") && owner.dogs.count == 3)
    }
}
