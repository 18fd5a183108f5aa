import Foundation
import Testing
import VaultCore
@testable import VaultKit
import VaultTestSupport

// Creating and updating objects from values as realm-swift's ObjectCreationTests
// define it: JSON-shaped payloads (extra keys, NSNull, numbers of another type,
// enums by raw value), nested dictionaries that update only what they give,
// the caller's policy for nested objects, and the class passed at run time.

enum CRMood: Int, PersistableEnum { case calm, busy }

final class CROwner: Object {
    @Persisted(originProperty: "owner") var pets: LinkingObjects<CRPet>
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var score = 0.0
    @Persisted var weight: Float = 0
    @Persisted var mood = CRMood.calm
    @Persisted var nickname: String?
    @Persisted var tags: List<String>
    @Persisted var byName: Map<String, CRPet?>
    @Persisted var walked: List<CRPet>
    @Persisted var favourites: MutableSet<CRPet>
    @Persisted var badge: CRBadge? = CRBadge()
}

final class CRPet: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var owner: CROwner?
}

final class CRBadge: Object {
    @Persisted var label = "new"
}

@Suite("Creating objects as Realm's tests define it")
struct CreationAsRealmTests {
    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory("creation-as-realm")
        vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("c.vault"), encryptionKey: testKey,
                                                             objectTypes: [CROwner.self, CRPet.self, CRBadge.self]))
    }

    @Test("a JSON-shaped payload: extra keys ignored, NSNull for nil and empty collections, Ints for Doubles and Floats, enums by raw value")
    func jsonShapedPayload() throws {
        let payload: [String: Any] = ["id": 1, "name": "Ann", "unknownField": "ignored", "score": 5, "weight": 1.5, "mood": 1,
                                      "nickname": NSNull(), "tags": NSNull(), "byName": ["rex": ["id": 10, "name": "Rex"], "none": NSNull()]]
        try vault.write { vault.create(CROwner.self, value: payload, update: .modified) }
        let owner = try #require(vault.object(ofType: CROwner.self, forPrimaryKey: 1))
        #expect(owner.name == "Ann" && owner.score == 5 && owner.weight == 1.5 && owner.mood == .busy && owner.nickname == nil && owner.tags.isEmpty)
        #expect(owner.byName["rex"]??.name == "Rex" && owner.byName.keys.contains("none") && owner.byName["none"] == .some(nil))
        let unmanaged = CROwner(value: [7, "Bo", 3])   // in stored-property order: the linking objects declared first take no value
        #expect(unmanaged.id == 7 && unmanaged.name == "Bo" && unmanaged.age == 3)
    }

    @Test("a nested dictionary updates only the properties it gives, at any depth; a default-valued link adds nothing on update")
    func nestedPartialUpdate() throws {
        try vault.write {
            vault.create(CROwner.self, value: ["id": 7, "name": "Ann", "age": 40, "score": 2.5])
            vault.create(CRPet.self, value: ["id": 1, "name": "Rex"])
        }
        let badges = vault.objects(CRBadge.self).count
        try vault.write {
            vault.create(CRPet.self, value: ["id": 1, "owner": ["id": 7, "name": "Annie"]], update: .modified)
            vault.create(CROwner.self, value: ["id": 7, "score": 3.5], update: .modified)
        }
        let owner = try #require(vault.object(ofType: CROwner.self, forPrimaryKey: 7))
        #expect(owner.name == "Annie" && owner.age == 40 && owner.score == 3.5, "properties the values left out kept their values")
        #expect(vault.object(ofType: CRPet.self, forPrimaryKey: 1)?.name == "Rex")
        #expect(vault.objects(CRBadge.self).count == badges, "no stray default-valued badge")
    }

    @Test("under .error a nested object whose primary key exists is a duplicate-key error, as the top level's; nothing changes")
    func nestedPolicyIsTheCallers() throws {
        try vault.write { vault.create(CROwner.self, value: ["id": 7, "name": "Ann"]) }
        #expect(throws: VaultObjectError.self) {
            try vault.write { vault.create(CRPet.self, value: ["id": 2, "name": "Fido", "owner": ["id": 7, "name": "Overwritten"]]) }
        }
        #expect(vault.object(ofType: CROwner.self, forPrimaryKey: 7)?.name == "Ann" && vault.objects(CRPet.self).isEmpty)
        try vault.write { vault.create(CRPet.self, value: ["id": 2, "name": "Fido", "owner": ["id": 7, "name": "Updated"]], update: .modified) }
        #expect(vault.object(ofType: CROwner.self, forPrimaryKey: 7)?.name == "Updated")
    }

    @Test("create(type(of: object), value: object) makes the object's class when the static type is Object")
    func runtimeClass() throws {
        let object: Object = CROwner(value: ["id": 3, "name": "Cy"])
        let created = try vault.write { vault.create(type(of: object), value: object) }
        #expect(created is CROwner && (created as? CROwner)?.name == "Cy")
        #expect(vault.object(ofType: CROwner.self, forPrimaryKey: 3)?.name == "Cy")
    }

    @Test("for-in over a list visits the elements it had when the loop began: appending or deleting inside the loop ends and misses none")
    func listIterationIsASnapshot() throws {
        let unmanaged = List<String>()
        unmanaged.append(objectsIn: ["a", "b"])
        for element in unmanaged { unmanaged.append(element + "!") }
        unmanaged.append(objectsIn: unmanaged)
        #expect(Array(unmanaged) == ["a", "b", "a!", "b!", "a", "b", "a!", "b!"])
        try vault.write {
            let owner = vault.create(CROwner.self, value: ["id": 1, "walked": (1...5).map { ["id": $0, "name": "pet \($0)"] }])
            var visited = 0
            for pet in owner.walked {
                visited += 1
                vault.delete(pet)
            }
            #expect(visited == 5 && owner.walked.isEmpty && vault.objects(CRPet.self).isEmpty)
            owner.tags.append(objectsIn: ["x", "y"])
            for tag in owner.tags { owner.tags.append(tag) }
            #expect(Array(owner.tags) == ["x", "y", "x", "y"])
        }
    }

    @Test("objects added in a write that rolled back are invalidated: adding one again is an error, never a silent no-op; a copy can be added")
    func rolledBackAddsAreInvalidated() throws {
        try vault.write { vault.add(CROwner(value: ["id": 1, "name": "Existing"])) }
        let fresh = CROwner(value: ["id": 2, "name": "New"])
        #expect(throws: VaultObjectError.self) {
            try vault.write {
                vault.add(fresh)
                vault.add(CROwner(value: ["id": 1]))   // a duplicate key: the write fails and rolls back
            }
        }
        #expect(fresh.isInvalidated && vault.object(ofType: CROwner.self, forPrimaryKey: 2) == nil)
        #expect(throws: VaultObjectError.self) { try vault.write { vault.add(fresh) } }
        let cancelled = CROwner(value: ["id": 3, "name": "Cancelled"])
        vault.beginWrite()
        vault.add(cancelled)
        vault.cancelWrite()
        #expect(cancelled.isInvalidated)
        try vault.write {
            vault.add(CROwner(value: ["id": 2, "name": fresh.name]))
            vault.add(CROwner(value: ["id": 4]))   // may take the row id the rolled-back objects had
        }
        #expect(vault.object(ofType: CROwner.self, forPrimaryKey: 2)?.name == "New" && fresh.isInvalidated && cancelled.isInvalidated)
    }

    @Test("removing an unmanaged object from a managed set removes nothing and stores nothing")
    func removingAnUnmanagedObjectFromASet() throws {
        try vault.write {
            let owner = vault.create(CROwner.self, value: ["id": 1, "favourites": [["id": 1, "name": "Rex"]]])
            owner.favourites.remove(CRPet(value: ["id": 99, "name": "Ghost"]))
            owner.favourites.subtract([CRPet(value: ["id": 1, "name": "Overwritten"])])
            #expect(owner.favourites.map(\.name) == ["Rex"])
        }
        #expect(vault.objects(CRPet.self).map(\.name) == ["Rex"], "no stray pet, and pet 1 kept its name")
    }

    @Test("an update policy for a class without a primary key is refused, as Realm refuses it; .error adds")
    func updatePolicyNeedsAPrimaryKey() throws {
        for policy in [UpdatePolicy.modified, .all] {
            let added = #expect(throws: VaultObjectError.self) { try vault.write { vault.add(CRBadge(value: ["label": "a"]), update: policy) } }
            #expect(added == .noPrimaryKey(className: "CRBadge"))
            let created = #expect(throws: VaultObjectError.self) { try vault.write { vault.create(CRBadge.self, value: ["label": "c"], update: policy) } }
            #expect(created == .noPrimaryKey(className: "CRBadge"))
        }
        #expect(vault.objects(CRBadge.self).isEmpty)
        try vault.write { vault.add(CRBadge(value: ["label": "kept"])) }
        #expect(vault.objects(CRBadge.self).map(\.label) == ["kept"])
        // Nested objects without a key take the caller's policy as a plain insert (Realm's rule too).
        try vault.write { vault.create(CROwner.self, value: ["id": 9, "badge": ["label": "nested"]], update: .modified) }
        #expect(vault.objects(CRBadge.self).count == 2)
    }
}
