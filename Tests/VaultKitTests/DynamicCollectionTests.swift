import Foundation
import Testing
import VaultCore
@testable import VaultKit
import VaultTestSupport

// Collections of dynamic objects, as Realm's dynamic API and migrations give
// them: `object["dogs"] as! List<DynamicObject>`, `MutableSet<String>`,
// `Map<String, DynamicObject?>`, live and writable.

/// One class, "DCShelter", at two schema versions (nested types share the class name); "DCDog" the same in both.
enum ShelterV0 {
    final class DCShelter: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var dogs: List<DCDog>
        @Persisted var favourites: MutableSet<DCDog>
        @Persisted var byName: Map<String, DCDog?>
        @Persisted var best: DCDog?
        @Persisted var sizes: List<Int8>
        @Persisted var notes: List<String?>
        @Persisted var fees: List<Decimal128>
        @Persisted var tags: MutableSet<String>
        @Persisted var scores: Map<String, Double>
        @Persisted var budget = Decimal128(0)
    }

    final class DCDog: Object {
        @Persisted var name = ""
        @Persisted var good = false
    }

    /// A shelter (id 1) with Rex and Fido, every collection filled.
    static func sample() -> DCShelter {
        let rex = DCDog(value: ["name": "Rex"]), fido = DCDog(value: ["name": "Fido"])
        return DCShelter(value: ["id": 1, "dogs": [rex, fido], "favourites": [fido], "byName": ["rex": rex, "gone": nil] as [String: Any?],
                               "sizes": [3, 5], "notes": ["a", nil] as [String?], "fees": [Decimal128(12)], "tags": ["x", "y"], "scores": ["k": 1.5],
                               "budget": Decimal128(250)])
    }
}

enum ShelterV1 {
    /// V0 plus `dogCount`, which the migration computes.
    final class DCShelter: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var dogs: List<DCDog>
        @Persisted var favourites: MutableSet<DCDog>
        @Persisted var byName: Map<String, DCDog?>
        @Persisted var best: DCDog?
        @Persisted var sizes: List<Int8>
        @Persisted var notes: List<String?>
        @Persisted var fees: List<Decimal128>
        @Persisted var tags: MutableSet<String>
        @Persisted var scores: Map<String, Double>
        @Persisted var budget = Decimal128(0)
        @Persisted var dogCount = 0
    }

    final class DCDog: Object {
        @Persisted var name = ""
        @Persisted var good = false
    }
}

/// "DCNote" whose labels change from strings to objects between versions (same property name).
enum LabelsV0 {
    final class DCNote: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var labels: List<String>
    }
}

enum LabelsV1 {
    final class DCNote: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var labels: List<DCLabel>
    }

    final class DCLabel: Object {
        @Persisted var name = ""
    }
}

@Suite("Dynamic collections")
struct DynamicCollectionTests {
    @Test("a DynamicObject's collections are live and typed by the stored property, as in Realm; writes reach the typed objects", arguments: StorageMode.writable)
    func managed(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("dynamic-collections")
        let vault = try Vault(configuration: mode.configuration(directory, types: [ShelterV0.DCShelter.self, ShelterV0.DCDog.self]))
        try vault.write { vault.add(ShelterV0.sample()) }
        let shelter = try #require(vault.dynamicObject(ofType: "DCShelter", forPrimaryKey: 1))

        let dogs = try #require(shelter["dogs"] as? List<DynamicObject>)
        #expect(dogs.map { $0["name"] as? String } == ["Rex", "Fido"])
        #expect((shelter["sizes"] as? List<Int>).map(Array.init) == [3, 5], "integers of every width are List<Int>")
        #expect((shelter["notes"] as? List<String?>).map(Array.init) == ["a", nil])
        #expect((shelter["fees"] as? List<Decimal128>).map(Array.init) == [Decimal128(12)])
        #expect((shelter["tags"] as? MutableSet<String>).map { Set($0) } == ["x", "y"])
        #expect((shelter["scores"] as? Map<String, Double>)?["k"] == 1.5)
        let byName = try #require(shelter["byName"] as? Map<String, DynamicObject?>)
        #expect(byName.count == 2 && byName["rex"]??["name"] as? String == "Rex" && byName["gone"] == .some(nil))
        #expect((shelter["favourites"] as? MutableSet<DynamicObject>)?.first?["name"] as? String == "Fido")
        #expect(shelter.dynamicList("dogs").count == 2 && shelter.dynamicMutableSet("favourites").count == 1)

        // A typed object's dynamic collections (Realm's dynamicList/dynamicMutableSet/dynamicMap).
        let typed = try #require(vault.object(ofType: ShelterV0.DCShelter.self, forPrimaryKey: 1))
        #expect(typed.dynamicList("dogs").map { $0["name"] as? String } == ["Rex", "Fido"])
        #expect(typed.dynamicMutableSet("favourites").map { $0["name"] as? String } == ["Fido"])
        let typedMap: Map<String, DynamicObject?> = typed.dynamicMap("byName")
        #expect(typedMap["rex"]??.className == "DCDog")

        try vault.write {
            dogs.append(vault.dynamicCreate("DCDog", value: ["name": "Buddy"]))
            dogs.move(from: 0, to: 2)
            dogs[0]["good"] = true
            (shelter["tags"] as? MutableSet<String>)?.insert("z")
            (shelter["scores"] as? Map<String, Double>)?["n"] = 3
            (shelter["sizes"] as? List<Int>)?.append(7)
            byName["buddy"] = dogs[1]
            shelter["notes"] = ["only"]
            shelter["favourites"] = dogs
        }
        #expect(typed.dogs.map(\.name) == ["Fido", "Buddy", "Rex"])
        #expect(dogs.map { $0["name"] as? String } == ["Fido", "Buddy", "Rex"], "the dynamic list is live")
        #expect(typed.dogs[0].good && !typed.dogs[2].good)
        #expect(Set(typed.tags) == ["x", "y", "z"] && typed.scores["n"] == 3 && Array(typed.sizes) == [3, 5, 7])
        #expect(typed.byName["buddy"]??.name == "Buddy" && Array(typed.notes) == ["only"])
        #expect(Set(typed.favourites.map(\.name)) == ["Fido", "Buddy", "Rex"])
        #expect(vault.objects(ShelterV0.DCDog.self).count == 3, "Buddy was added once")
    }

    @Test("a migration's objects give their collections as List<MigrationObject> and typed lists; the new object's are written in place, set from arrays, and take unmanaged objects")
    func migration() throws {
        let directory = try TemporaryDirectory("dynamic-collections-migration")
        let url = directory.file("shelter.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ShelterV0.DCShelter.self, ShelterV0.DCDog.self]))
            try vault.write { vault.add(ShelterV0.sample()) }
        }
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [ShelterV1.DCShelter.self, ShelterV1.DCDog.self])
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "DCShelter") { old, new in
                guard let old, let new, let oldDogs = old["dogs"] as? List<MigrationObject>, let dogs = new["dogs"] as? List<MigrationObject> else {
                    Issue.record("the shelter's old and new objects and their List<MigrationObject>")
                    return
                }
                #expect(oldDogs.map { $0["name"] as? String } == ["Rex", "Fido"])
                #expect((old["sizes"] as? List<Int>).map(Array.init) == [3, 5])
                #expect((old["notes"] as? List<String?>).map(Array.init) == ["a", nil])
                #expect((old["fees"] as? List<Decimal128>)?.first == Decimal128(12))
                #expect((old["tags"] as? MutableSet<String>).map { Set($0) } == ["x", "y"])
                #expect((old["scores"] as? Map<String, Double>)?["k"] == 1.5)
                #expect((old["byName"] as? Map<String, MigrationObject?>)?["rex"]??["name"] as? String == "Rex")
                #expect((old["favourites"] as? MutableSet<MigrationObject>)?.first?["name"] as? String == "Fido")
                #expect(old["budget"] as? Decimal128 == Decimal128(250) && new["budget"] as? Decimal128 == Decimal128(250), "decimals are Decimal128, as in Realm")
                new["dogCount"] = oldDogs.count

                dogs[0]["good"] = true
                dogs.append(migration.create("DCDog", value: ["name": "Created"]))
                dogs.remove(at: 1)
                #expect(new.dynamicList("dogs").map { $0["name"] as? String } == ["Rex", "Created"])
                let favourites = new.dynamicMutableSet("favourites")
                favourites.insert(dogs[0])
                favourites.insert(dogs[0])
                #expect(favourites.count == 2, "a set holds a migration object once")
                (new["sizes"] as? List<Int>)?.append(7)
                new["tags"] = ["z"]
                new["scores"] = ["m": 2.0]
                let solo = ShelterV1.DCDog(value: ["name": "Solo"])
                new["byName"] = ["solo": solo]
                new["best"] = ShelterV1.DCDog(value: ["name": "Best", "good": true])
                new["dogs"] = dogs.map { $0 as Any } + [solo]
                #expect((dogs.last?["name"] as? String) == "Solo", "an unmanaged object linked twice is one object")
                new["notes"] = nil
            }
        }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            let shelter = try #require(vault.object(ofType: ShelterV1.DCShelter.self, forPrimaryKey: 1))
            #expect(shelter.dogCount == 2)
            #expect(shelter.dogs.map(\.name) == ["Rex", "Created", "Solo"] && shelter.dogs[0].good)
            #expect(shelter.dogs[2].isSameObject(as: shelter.byName["solo"] ?? nil))
            #expect(Set(shelter.favourites.map(\.name)) == ["Fido", "Rex"])
            #expect(Array(shelter.sizes) == [3, 5, 7] && Set(shelter.tags) == ["z"])
            #expect(Array(shelter.scores.keys) == ["m"] && shelter.scores["m"] == 2)
            #expect(Array(shelter.byName.keys) == ["solo"] && shelter.byName["solo"]??.name == "Solo")
            #expect(shelter.best?.name == "Best" && shelter.best?.good == true)
            #expect(shelter.notes.isEmpty && Array(shelter.fees) == [Decimal128(12)])
            #expect(Set(vault.objects(ShelterV1.DCDog.self).map(\.name)) == ["Rex", "Fido", "Created", "Solo", "Best"])
        }
    }

    @Test("a migration setting a collection to values of the wrong type fails with the property named; the file keeps its version and data")
    func migrationRefusesWrongElements() throws {
        let directory = try TemporaryDirectory("dynamic-collections-refused")
        let url = directory.file("shelter.vault")
        let v0 = Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ShelterV0.DCShelter.self, ShelterV0.DCDog.self])
        try onNewThread { let vault = try Vault(configuration: v0); try vault.write { vault.add(ShelterV0.sample()) } }
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [ShelterV1.DCShelter.self, ShelterV1.DCDog.self])
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "DCShelter") { _, new in
                new?["sizes"] = ["three"]
            }
        }
        let message = try onNewThread { [configuration] () -> String in
            do {
                _ = try Vault(configuration: configuration)
                return "opened"
            } catch { return "\(error)" }
        }
        #expect(message.contains("DCShelter") && message.contains("sizes") && !message.contains("three"), "\(message)")
        try onNewThread {
            let vault = try Vault(configuration: v0)
            #expect(vault.configuration.schemaVersion == 0)
            #expect(Array(try #require(vault.object(ofType: ShelterV0.DCShelter.self, forPrimaryKey: 1)).sizes) == [3, 5])
        }
    }

    @Test("a list whose element type changes keeps its old entries for the migration block, which converts them; the copy is gone afterwards")
    func elementTypeChange() throws {
        let directory = try TemporaryDirectory("dynamic-collections-element-change")
        let url = directory.file("notes.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [LabelsV0.DCNote.self]))
            try vault.write { vault.add(LabelsV0.DCNote(value: ["id": 1, "labels": ["home", "urgent"]])) }
        }
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [LabelsV1.DCNote.self, LabelsV1.DCLabel.self])
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "DCNote") { old, new in
                let names = (old?["labels"] as? List<String>).map(Array.init) ?? []
                #expect(names == ["home", "urgent"], "the old strings, although the new list holds objects")
                guard let labels = new?["labels"] as? List<MigrationObject> else {
                    Issue.record("the new labels as List<MigrationObject>")
                    return
                }
                #expect(labels.isEmpty)
                for name in names { labels.append(migration.create("DCLabel", value: ["name": name])) }
            }
        }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            let note = try #require(vault.object(ofType: LabelsV1.DCNote.self, forPrimaryKey: 1))
            #expect(note.labels.map(\.name) == ["home", "urgent"])
            let leftovers = try vault.withDatabase { db in try db.fetchAll("SELECT name FROM sqlite_schema WHERE name LIKE '_vk_old_%'") }
            #expect(leftovers.isEmpty, "the copies of old entries are dropped with the old tables")
        }
    }
}
