import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

final class PAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class PPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var address: PAddress?
    @Persisted var friends: List<PPerson>
    @Persisted var mentor: PPerson?
}

final class PersonCard: Projection<PPerson> {
    @Projected(\PPerson.firstName) var name
    @Projected(\PPerson.address?.city) var homeCity
    @Projected(\PPerson.mentor?.firstName) var mentorName
    @Projected(\PPerson.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>
}

@Suite("Class projections")
struct ProjectionTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("projections") }

    private func peopleVault() throws -> Vault {
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("p.vault"), encryptionKey: testKey, objectTypes: [PPerson.self, PAddress.self]))
        try vault.write {
            let ada = PPerson(value: ["id": 1, "firstName": "Ada", "lastName": "Lovelace", "address": ["city": "London"]])
            let grace = PPerson(value: ["id": 2, "firstName": "Grace", "lastName": "Hopper", "address": ["city": "New York"]])
            let alan = PPerson(value: ["id": 3, "firstName": "Alan", "lastName": "Turing"])
            ada.friends.append(objectsIn: [grace, alan])
            alan.mentor = ada
            vault.add([ada, grace, alan])
        }
        return vault
    }

    @Test("renamed, embedded, linked and projectTo properties read through the root; writable key paths write through")
    func projectedProperties() throws {
        let vault = try peopleVault()
        let cards = vault.objects(PersonCard.self).sorted(byKeyPath: "id")
        #expect(cards.map(\.name) == ["Ada", "Grace", "Alan"])
        #expect(cards.map(\.homeCity) == ["London", "New York", nil])
        #expect(cards[2].mentorName == "Ada" && cards[0].mentorName == nil)
        #expect(Array(cards[0].friendNames) == ["Grace", "Alan"])
        try vault.write { cards[0].name = "Augusta Ada" }
        #expect(vault.object(ofType: PPerson.self, forPrimaryKey: 1)?.firstName == "Augusta Ada")
        let ada = try #require(vault.object(ofType: PPerson.self, forPrimaryKey: 1))
        #expect(cards[0].friendNames.count == 2 && cards[0] == PersonCard(projecting: ada))
        #expect(cards[0].id.id == 1)
    }

    @Test("queries use the root's property names; results are live, observable and freezable")
    func projectedResults() throws {
        let vault = try peopleVault()
        let aCards = vault.objects(PersonCard.self).filter("firstName BEGINSWITH %@", "A").sorted(byKeyPath: "firstName")
        #expect(aCards.map(\.name) == ["Ada", "Alan"])
        var heard: [String] = []
        let token = aCards.observe { change in
            switch change {
            case .initial(let cards): heard.append("initial \(cards.map(\.name))")
            case .update(let cards, _, let insertions, _): heard.append("update \(cards.map(\.name)) +\(insertions)")
            case .error(let error): heard.append("\(error)")
            }
        }
        vault.refresh()
        let frozen = aCards.freeze()
        try vault.write { vault.add(PPerson(value: ["id": 4, "firstName": "Anita"])) }
        vault.refresh()
        token.invalidate()
        #expect(heard == ["initial [\"Ada\", \"Alan\"]", "update [\"Ada\", \"Alan\", \"Anita\"] +[2]"])
        #expect(frozen.count == 2 && frozen.isFrozen && frozen[0].isFrozen && aCards.count == 3)
        #expect(frozen.thaw()?.count == 3)
    }

    @Test("observing one projection reports the projected names of the written root properties, with the projection's own class")
    func observeProjection() throws {
        let vault = try peopleVault()
        let ada = PersonCard(projecting: try #require(vault.object(ofType: PPerson.self, forPrimaryKey: 1)))
        var heard: [String] = []
        var names: [String] = []
        let token = ada.observe { (change: ObjectChange<PersonCard>) in
            switch change {
            case .change(let card, let properties):
                names.append(card.name)   // PersonCard's own projected property (Realm's ObjectChange<Self>)
                heard.append(properties.map { "\($0.name) \($0.newValue.map { "\($0)" } ?? "-")" }.sorted().joined(separator: ", "))
            case .deleted: heard.append("deleted")
            case .error(let error): heard.append("\(error)")
            }
        }
        vault.refresh()
        try vault.write { ada.rootObject.firstName = "Ada L."; ada.rootObject.lastName = "King" }
        vault.refresh()
        try vault.write { ada.rootObject.address?.city = "Marylebone" }
        vault.refresh()
        try vault.write { vault.delete(ada.rootObject) }
        vault.refresh()
        token.invalidate()
        #expect(heard == ["name Ada L.", "homeCity -", "deleted"], "lastName is not projected; the city is written through the embedded address")
        #expect(names == ["Ada L.", "Ada L."])
    }

    @Test("observing a projection by typed key paths of the projection hears only those projected properties")
    func observeProjectionByKeyPaths() throws {
        let vault = try peopleVault()
        let ada = PersonCard(projecting: try #require(vault.object(ofType: PPerson.self, forPrimaryKey: 1)))
        var heard: [String] = []
        let token = ada.observe(keyPaths: [\PersonCard.homeCity]) { (change: ObjectChange<PersonCard>) in
            if case .change(_, let properties) = change { heard.append(properties.map(\.name).joined(separator: ",")) }
        }
        vault.refresh()
        try vault.write { ada.rootObject.firstName = "Ada L." }                 // name: not observed
        vault.refresh()
        try vault.write { ada.rootObject.address?.city = "Marylebone" }
        vault.refresh()
        token.invalidate()
        #expect(heard == ["homeCity"])
        #expect(PersonCard.projectedNames(of: [\PersonCard.name, \PersonCard.mentorName]) == ["name", "mentorName"])
    }
}
