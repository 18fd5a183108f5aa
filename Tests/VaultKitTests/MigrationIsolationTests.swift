import Foundation
import Testing
import VaultCore
@testable import VaultKit
import VaultTestSupport

// A migration's old objects are the file as it was: whatever the block does to
// the new objects, reading an old object gives the values it had, as in Realm
// (where the old objects live in a separate, read-only copy of the file).

@Suite("Migration isolation")
struct MigrationIsolationTests {
    /// The two ways a class meets a migration: rebuilt (its definition changed) or kept as it is (only the version moved).
    enum Shape: String, CaseIterable, CustomTestStringConvertible {
        case rebuilt, unchanged
        var testDescription: String { rawValue }
        var objectTypes: [ObjectBase.Type] {
            switch self {
            case .rebuilt: [ShelterV1.DCShelter.self, ShelterV1.DCDog.self]
            case .unchanged: [ShelterV0.DCShelter.self, ShelterV0.DCDog.self]
            }
        }
    }

    /// A vault at version 0 holding `ShelterV0.sample()` (in `directory`, which the caller keeps), and the
    /// configuration opening it at version 1 with `block` as the migration block.
    private func migration(_ name: String, _ shape: Shape, block: @escaping MigrationBlock) throws -> (directory: TemporaryDirectory, configuration: Vault.Configuration) {
        let directory = try TemporaryDirectory(name)
        let url = directory.file("shelter.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ShelterV0.DCShelter.self, ShelterV0.DCDog.self]))
            try vault.write { vault.add(ShelterV0.sample()) }
        }
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: shape.objectTypes)
        configuration.migrationBlock = block
        return (directory, configuration)
    }

    @Test("an old object's collections keep their entries while the block empties and refills the new object's", arguments: Shape.allCases)
    func collectionsStayOld(shape: Shape) throws {
        let (directory, configuration) = try migration("migration-isolation-collections", shape) { migration, _ in
            migration.enumerateObjects(ofType: "DCShelter") { old, new in
                guard let old, let new, let oldTags = old["tags"] as? MutableSet<String>, let newTags = new["tags"] as? MutableSet<String>,
                      let oldSizes = old["sizes"] as? List<Int>, let newSizes = new["sizes"] as? List<Int>,
                      let oldDogs = old["dogs"] as? List<MigrationObject>, let newDogs = new["dogs"] as? List<MigrationObject> else {
                    Issue.record("the shelter's old and new collections")
                    return
                }
                // Each new collection is emptied first, then refilled from the old one (read after the change).
                newTags.removeAll()
                newTags.insert(objectsIn: oldTags.map { $0.uppercased() })
                newSizes.removeAll()
                newSizes.append(objectsIn: oldSizes.map { $0 * 2 })
                new["scores"] = [String: Double]()
                let oldScores = (old["scores"] as? Map<String, Double>).map { Dictionary(uniqueKeysWithValues: $0.map { ($0.key, $0.value) }) } ?? [:]
                new["scores"] = Dictionary(uniqueKeysWithValues: oldScores.map { ($0.key.uppercased(), $0.value) })
                let oldNames = oldDogs.map { $0["name"] as? String }
                newDogs.removeAll()
                #expect(oldDogs.map { $0["name"] as? String } == ["Rex", "Fido"], "the old list, read after the new one was emptied")
                #expect(oldNames == ["Rex", "Fido"])
                #expect(Set(oldTags) == ["x", "y"] && Array(oldSizes) == [3, 5] && oldScores == ["k": 1.5])
                new["notes"] = ["rewritten"]
                #expect((old["notes"] as? List<String?>).map(Array.init) == ["a", nil], "an old collection first read after the change")
            }
        }
        defer { withExtendedLifetime(directory) {} }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            let shelter = try #require(vault.dynamicObject(ofType: "DCShelter", forPrimaryKey: 1))
            #expect(Set(try #require(shelter["tags"] as? MutableSet<String>)) == ["X", "Y"])
            #expect(Array(try #require(shelter["sizes"] as? List<Int>)) == [6, 10])
            #expect(try #require(shelter["scores"] as? Map<String, Double>)["K"] == 1.5)
            #expect(try #require(shelter["dogs"] as? List<DynamicObject>).isEmpty)
            #expect(Array(try #require(shelter["notes"] as? List<String?>)) == ["rewritten"])
            let leftovers = try vault.withDatabase { db in try db.fetchAll("SELECT name FROM sqlite_schema WHERE name LIKE '\\_vk\\_old\\_%' ESCAPE '\\'") }
            #expect(leftovers.isEmpty, "the copies of old entries are dropped before the migration commits")
        }
    }

    @Test("only a side table the block changes is copied; a collection it never changes is read in place", arguments: Shape.allCases)
    func untouchedCollectionsAreNotCopied(shape: Shape) throws {
        let (directory, configuration) = try migration("migration-isolation-untouched", shape) { migration, _ in
            migration.enumerateObjects(ofType: "DCShelter") { old, new in
                #expect((old?["sizes"] as? List<Int>).map(Array.init) == [3, 5])
                (new?["tags"] as? MutableSet<String>)?.insert("z")
                #expect((old?["tags"] as? MutableSet<String>).map { Set($0) } == ["x", "y"])
            }
            let copies = migration.keptOldEntryTables
            #expect(copies.count == 1 && copies.allSatisfy { $0.hasSuffix("tags") }, "only the side table the block wrote was copied: \(copies)")
            let indexes = copies.first.flatMap { copy in
                try? migration.database.fetchAll("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?", arguments: [.text(copy)])
            }
            #expect(indexes?.count == 1, "the copy is indexed by owner: each old object reads its own entries")
        }
        defer { withExtendedLifetime(directory) {} }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            let shelter = try #require(vault.dynamicObject(ofType: "DCShelter", forPrimaryKey: 1))
            #expect(Set(try #require(shelter["tags"] as? MutableSet<String>)) == ["x", "y", "z"])
            #expect(Array(try #require(shelter["sizes"] as? List<Int>)) == [3, 5])
        }
    }

    @Test("enumerating a class gives the objects the file had, not those the block creates (before or during), rebuilt or not", arguments: Shape.allCases)
    func createdObjectsAreNotOld(shape: Shape) throws {
        let (directory, configuration) = try migration("migration-isolation-created", shape) { migration, _ in
            migration.create("DCShelter", value: ["id": 50])
            var visited: [Int] = []
            migration.enumerateObjects(ofType: "DCShelter") { old, new in
                guard let old, new != nil, visited.count < 10 else {   // the bound keeps a regression from looping forever
                    Issue.record("an enumerated shelter without an old object, or more than ten: \(visited)")
                    return
                }
                let id = old["id"] as? Int ?? -1
                visited.append(id)
                migration.create("DCShelter", value: ["id": id + 100])
            }
            #expect(visited == [1], "only the shelter the file had, once")
            var dogs = 0
            migration.enumerateObjects(ofType: "DCDog") { _, _ in
                dogs += 1
                if dogs < 10 { migration.create("DCDog", value: ["name": "Junior"]) }
            }
            #expect(dogs == 2, "a class the block creates objects of while enumerating it (never rebuilt here)")
        }
        defer { withExtendedLifetime(directory) {} }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            #expect(vault.dynamicObjects("DCShelter").compactMap { $0["id"] as? Int }.sorted() == [1, 50, 101])
            #expect(vault.dynamicObjects("DCDog").count == 4)
        }
    }

    @Test("a class the migration did not rebuild keeps its old values once the block changes its objects (through links, in another enumeration)",
          arguments: Shape.allCases)
    func unchangedClassKeepsOldValues(shape: Shape) throws {
        let (directory, configuration) = try migration("migration-isolation-rows", shape) { migration, _ in
            migration.enumerateObjects(ofType: "DCShelter") { _, new in
                guard let dogs = new?["dogs"] as? List<MigrationObject> else { return }
                for dog in dogs { dog["name"] = "Renamed" }   // DCDog is never rebuilt: its rows are copied first
            }
            var oldNames: [String] = [], newNames: [String] = []
            migration.enumerateObjects(ofType: "DCDog") { old, new in
                oldNames.append(old?["name"] as? String ?? "?")
                newNames.append(new?["name"] as? String ?? "?")
                if old?["name"] as? String == "Fido", let new { migration.delete(new) }
            }
            #expect(oldNames == ["Rex", "Fido"] && newNames == ["Renamed", "Renamed"], "old values as the file had them")
            var again: [String] = []
            migration.enumerateObjects(ofType: "DCDog") { old, _ in again.append(old?["name"] as? String ?? "?") }
            #expect(again == ["Rex"], "the deleted dog is not enumerated again")
            migration.enumerateObjects(ofType: "DCShelter") { old, _ in
                let linked = (old?["dogs"] as? List<MigrationObject>)?.map { $0["name"] as? String ?? "?" }
                #expect(linked == ["Rex", "Fido"], "an old object's links reach old values")
            }
        }
        defer { withExtendedLifetime(directory) {} }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            #expect(vault.dynamicObjects("DCDog").compactMap { $0["name"] as? String } == ["Renamed"])
            let leftovers = try vault.withDatabase { db in try db.fetchAll("SELECT name FROM sqlite_schema WHERE name LIKE '\\_vk\\_old\\_%' ESCAPE '\\'") }
            #expect(leftovers.isEmpty)
        }
    }
}
