import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

enum CodableMood: String, PersistableEnum, Codable { case calm, excited }

final class CodablePet: Object, Codable {
    @Persisted var name = ""
}

final class CodableOwner: Object, Codable {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var born: Date?
    @Persisted var status = CodableMood.calm
    @Persisted var pet: CodablePet?
    @Persisted var tags: List<String>
    @Persisted var lucky: MutableSet<Int>
    @Persisted var scores: Map<String, Double>
}

@Suite("Codable models")
struct CodableTests {
    let json = Data("""
        {"id": 7, "name": "Ada", "status": "excited", "pet": {"name": "Rex"},
         "tags": ["a", "b"], "lucky": [3], "scores": {"math": 9.5}}
        """.utf8)

    @Test("JSON decodes into an unmanaged object (missing optionals are nil) that a vault stores")
    func decodeAndStore() throws {
        let owner = try JSONDecoder().decode(CodableOwner.self, from: json)
        #expect(owner.vault == nil)
        #expect(owner.id == 7 && owner.name == "Ada" && owner.status == .excited)
        #expect(owner.nickname == nil && owner.born == nil)
        #expect(owner.pet?.name == "Rex")
        #expect(Array(owner.tags) == ["a", "b"] && Array(owner.lucky) == [3] && owner.scores["math"] == 9.5)

        let directory = try TemporaryDirectory("codable")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [CodableOwner.self, CodablePet.self]))
        try vault.write { vault.add(owner) }
        let stored = try #require(vault.object(ofType: CodableOwner.self, forPrimaryKey: 7))
        #expect(stored.pet?.name == "Rex")
        #expect(Array(stored.tags) == ["a", "b"])
        #expect(stored.scores["math"] == 9.5)
    }

    @Test("unmanaged objects encode; managed ones throw, and a copy of one encodes")
    func encode() throws {
        let owner = try JSONDecoder().decode(CodableOwner.self, from: json)
        let encoded = try JSONEncoder().encode(owner)
        let again = try JSONDecoder().decode(CodableOwner.self, from: encoded)
        #expect(again.name == "Ada" && Array(again.tags) == ["a", "b"] && again.pet?.name == "Rex")

        let directory = try TemporaryDirectory("codable-managed")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [CodableOwner.self, CodablePet.self]))
        try vault.write { vault.add(owner) }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(owner) }
        let fetched = try #require(vault.objects(CodableOwner.self).first)
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(fetched) }
        // Managed collections encode their current contents.
        #expect(try JSONDecoder().decode([String].self, from: JSONEncoder().encode(fetched.tags)) == ["a", "b"])
        #expect(try JSONDecoder().decode([String: Double].self, from: JSONEncoder().encode(fetched.scores)) == ["math": 9.5])
        #expect(try JSONDecoder().decode([CodablePetName].self, from: JSONEncoder().encode(vault.objects(CodablePet.self).map { CodablePet(value: $0) })).map(\.name) == ["Rex"])
    }

    @Test("a VaultProperty encodes its value, managed or not")
    func legacyWrapper() throws {
        let property = VaultOptional<Int>(4)
        #expect(String(decoding: try JSONEncoder().encode(property), as: UTF8.self) == "4")
        #expect(try JSONDecoder().decode(VaultOptional<Int>.self, from: Data("null".utf8)).value == nil)
        #expect(VaultOptional<Int>(4) == VaultOptional<Int>(4))
    }
}

/// What a pet encodes as.
struct CodablePetName: Decodable { let name: String }
