import Foundation
import Testing
import VaultCore
@testable import VaultKit
import VaultTestSupport

// `create` copies what another vault manages, as realm-swift's create does
// (ObjectCreationTests, "copy" policy): the object, every object it links to,
// cycles once; `add` of another vault's object is refused, as Realm's
// "Object is already managed by another Realm. Use create instead".
// A managed embedded object given to `create` is copied too (it has one owner).

final class CAVAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class CAVPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var address: CAVAddress?
    @Persisted var pets: List<CAVPet>
    @Persisted var best: CAVPet?
}

final class CAVPet: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var owner: CAVPerson?
}

@Suite("create copies another vault's objects")
struct CopyingAcrossVaultsTests {
    let directory: TemporaryDirectory
    let source: Vault
    let target: Vault

    init() throws {
        directory = try TemporaryDirectory("copy-across-vaults")
        let types: [ObjectBase.Type] = [CAVPerson.self, CAVPet.self, CAVAddress.self]
        source = try Vault(configuration: Vault.Configuration(fileURL: directory.file("source.vault"), encryptionKey: testKey, objectTypes: types))
        target = try Vault(configuration: Vault.Configuration(fileURL: directory.file("target.vault"), encryptionKey: testKey, objectTypes: types))
        try source.write {
            let ann = source.create(CAVPerson.self, value: ["id": 1, "name": "Ann", "address": ["city": "Oslo"]])
            let rex = source.create(CAVPet.self, value: ["id": 10, "name": "Rex"])
            let tom = source.create(CAVPet.self, value: ["id": 11, "name": "Tom"])
            rex.owner = ann
            tom.owner = ann
            ann.pets.append(objectsIn: [rex, tom])
            ann.best = rex
        }
    }

    @Test("the object, what it links to and the cycles back are copied once each; the source keeps its own")
    func copiesTheGraph() throws {
        let ann = try #require(source.object(ofType: CAVPerson.self, forPrimaryKey: 1))
        try target.write { target.create(CAVPerson.self, value: ann) }
        let copy = try #require(target.object(ofType: CAVPerson.self, forPrimaryKey: 1))
        #expect(copy.name == "Ann" && copy.address?.city == "Oslo")
        #expect(copy.pets.map(\.name) == ["Rex", "Tom"])
        #expect(target.objects(CAVPerson.self).count == 1, "the pets' owner is the copied person, not a second copy")
        #expect(target.objects(CAVPet.self).count == 2, "Rex is copied once, though the list and `best` both lead to it")
        #expect(copy.best?.id == 10 && copy.pets.first?.owner?.id == 1)
        #expect(copy.best?.vault === target && copy.pets.first?.owner?.vault === target)
        #expect(source.objects(CAVPet.self).count == 2 && source.object(ofType: CAVPerson.self, forPrimaryKey: 1)?.address?.city == "Oslo")
        // The copies are the target's own: changing one leaves the source alone.
        try target.write { copy.address?.city = "Bergen" }
        #expect(source.object(ofType: CAVPerson.self, forPrimaryKey: 1)?.address?.city == "Oslo")
    }

    @Test("update policies apply to the copies: .error refuses an existing key, .modified overwrites it")
    func policiesApply() throws {
        let ann = try #require(source.object(ofType: CAVPerson.self, forPrimaryKey: 1))
        try target.write { target.create(CAVPet.self, value: ["id": 10, "name": "Old Rex"]) }
        #expect(throws: VaultObjectError.self) { try target.write { target.create(CAVPerson.self, value: ann) } }
        #expect(target.objects(CAVPerson.self).isEmpty)
        try target.write { target.create(CAVPerson.self, value: ann, update: .modified) }
        #expect(target.object(ofType: CAVPet.self, forPrimaryKey: 10)?.name == "Rex")
        #expect(target.objects(CAVPet.self).count == 2)
    }

    @Test("add of another vault's object, or of an object linking to one, is refused and stores nothing")
    func addRefused() throws {
        let ann = try #require(source.object(ofType: CAVPerson.self, forPrimaryKey: 1))
        let error = #expect(throws: VaultObjectError.self) { try target.write { target.add(ann) } }
        guard case .wrongVault? = error else { Issue.record("expected wrongVault, got \(String(describing: error))"); return }
        let rex = try #require(source.object(ofType: CAVPet.self, forPrimaryKey: 10))
        #expect(throws: VaultObjectError.self) {
            try target.write { target.add(CAVPerson(value: ["id": 2, "name": "Bo", "best": rex])) }
        }
        #expect(target.objects(CAVPerson.self).isEmpty && target.objects(CAVPet.self).isEmpty)
    }

    @Test("a managed embedded object given to create is copied: both owners keep an address of their own")
    func embeddedCopied() throws {
        let ann = try #require(source.object(ofType: CAVPerson.self, forPrimaryKey: 1))
        try source.write { source.create(CAVPerson.self, value: ["id": 2, "name": "Bo", "address": ann.address as Any]) }
        let bo = try #require(source.object(ofType: CAVPerson.self, forPrimaryKey: 2))
        #expect(bo.address?.city == "Oslo")
        try source.write { bo.address?.city = "Bergen" }
        #expect(ann.address?.city == "Oslo" && bo.address?.city == "Bergen")
    }

    @Test("the caller's unmanaged objects are copied by create and stay unmanaged, once each; add manages them")
    func unmanagedObjectsCopiedByCreate() throws {
        let solo = CAVPet(value: ["id": 20, "name": "Solo"])
        try target.write { target.create(CAVPerson.self, value: ["id": 3, "name": "Cy", "best": solo, "pets": [solo]]) }
        #expect(solo.vault == nil && !solo.isInvalidated, "create copies an object it was given; the caller's stays unmanaged")
        let cy = try #require(target.object(ofType: CAVPerson.self, forPrimaryKey: 3))
        #expect(cy.best?.id == 20 && cy.pets.map(\.id) == [20] && target.objects(CAVPet.self).count == 1)
        // A cycle of unmanaged objects, given as create's value: each copied once, the links between the copies.
        let dee = CAVPerson(value: ["id": 4, "name": "Dee"])
        let fido = CAVPet(value: ["id": 21, "name": "Fido"])
        fido.owner = dee
        dee.best = fido
        dee.pets.append(fido)
        try target.write { target.create(CAVPerson.self, value: dee) }
        #expect(dee.vault == nil && fido.vault == nil)
        let stored = try #require(target.object(ofType: CAVPerson.self, forPrimaryKey: 4))
        #expect(stored.best?.owner?.id == 4 && stored.pets.first?.id == 21)
        #expect(target.objects(CAVPerson.self).count == 2 && target.objects(CAVPet.self).count == 2)
        // add, by contrast, makes the whole graph managed (Realm's add).
        let eve = CAVPerson(value: ["id": 5, "name": "Eve", "best": ["id": 22, "name": "Rover"]])
        try target.write { target.add(eve) }
        #expect(eve.vault === target && eve.best?.vault === target)
    }
}
