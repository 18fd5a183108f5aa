import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// The collection instances an unmanaged object holds become managed when it is
// added, as Realm's do (realm-swift's ModernObjectTests "collection objects are
// reused", ListNewlyAddedTests): a reference taken before `add` writes to the
// vault afterwards, and a managed object hands out the same instance each time.

final class CADog: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<CAPerson>
}

final class CAPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var dogs: List<CADog>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
}

@Suite("Collections held before add become the object's managed ones")
struct CollectionAdoptionTests {
    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory("collection-adoption")
        vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("people.vault"), encryptionKey: testKey,
                                                             objectTypes: [CADog.self, CAPerson.self]))
    }

    @Test("instances taken before add are the managed ones after it, and writes through them are stored")
    func adoptedOnAdd() throws {
        let person = CAPerson()
        person.id = 1
        let dogs = person.dogs, tags = person.tags, scores = person.scores
        dogs.append(CADog(value: ["name": "Rex"]))
        tags.insert("a")
        scores["x"] = 1
        #expect(dogs.vault == nil && tags.vault == nil && scores.vault == nil)
        #expect(dogs === person.dogs && tags === person.tags && scores === person.scores)
        try vault.write { vault.add(person) }
        #expect(dogs.vault === vault && tags.vault === vault && scores.vault === vault)
        #expect(dogs === person.dogs && tags === person.tags && scores === person.scores, "the same instances, as Realm's")
        #expect(dogs.map(\.name) == ["Rex"] && Array(tags) == ["a"] && scores["x"] == 1)
        try vault.write {
            dogs.append(CADog(value: ["name": "Bo"]))
            tags.insert("b")
            scores["y"] = 2
        }
        // Read back through a fresh accessor: the writes reached the vault.
        let stored = try #require(vault.object(ofType: CAPerson.self, forPrimaryKey: 1))
        #expect(stored.dogs.map(\.name) == ["Rex", "Bo"])
        #expect(Set(stored.tags) == ["a", "b"])
        #expect(stored.scores.asKeyValueSequence().map { "\($0.key)=\($0.value)" } == ["x=1", "y=2"])
        let rex = try #require(vault.object(ofType: CADog.self, forPrimaryKey: "Rex"))
        #expect(rex.owners.map(\.id) == [1])
    }

    @Test("an update policy makes the added object's instances the existing row's collections")
    func adoptedOnUpdate() throws {
        try vault.write { vault.create(CAPerson.self, value: ["id": 2, "tags": ["old"]]) }
        let person = CAPerson()
        person.id = 2
        let tags = person.tags
        tags.insert("new")
        try vault.write { vault.add(person, update: .all) }
        #expect(tags.vault === vault && tags === person.tags)
        #expect(Array(tags) == ["new"])
        try vault.write { tags.insert("later") }
        #expect(Set(try #require(vault.object(ofType: CAPerson.self, forPrimaryKey: 2)).tags) == ["new", "later"])
    }

    @Test("a managed object hands out one instance per collection property; a frozen one need not")
    func sameInstance() throws {
        try vault.write { vault.create(CAPerson.self, value: ["id": 3]) }
        let person = try #require(vault.object(ofType: CAPerson.self, forPrimaryKey: 3))
        #expect(person.dogs === person.dogs && person.scores === person.scores)
        let frozen = person.freeze()
        #expect(frozen.dogs.isFrozen && frozen.dogs.isEmpty)
    }

    @Test("create copies: the value's own collections stay unmanaged")
    func createCopies() throws {
        let source = CAPerson()
        source.id = 4
        let tags = source.tags
        tags.insert("t")
        let created = try vault.write { vault.create(CAPerson.self, value: source) }
        #expect(tags.vault == nil && source.tags === tags && source.realmIsNil)
        #expect(Array(created.tags) == ["t"] && created.tags.vault === vault)
    }
}

private extension CAPerson {
    var realmIsNil: Bool { vault == nil }
}
