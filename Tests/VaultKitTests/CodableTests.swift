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

final class CodableEmbedded: EmbeddedObject, Codable {
    @Persisted var value = 0
}

/// Every kind Realm's Codable models cover, in Realm's JSON forms.
final class CodableEverything: Object, Codable {
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var int8: Int8
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var bool: Bool
    @Persisted var decimal: Decimal128
    @Persisted var decimalNumber: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var intOpt: Int?
    @Persisted var decimalOpt: Decimal128?
    @Persisted var objectOpt: CodablePet?
    @Persisted var embeddedOpt: CodableEmbedded?
    @Persisted var decimalList: List<Decimal128>
    @Persisted var intOptList: List<Int?>
    @Persisted var objectList: List<CodablePet>
    @Persisted var embeddedList: List<CodableEmbedded>
    @Persisted var uuidSet: MutableSet<UUID>
    @Persisted var doubleOptMap: Map<String, Double?>
    var legacy = VaultOptional<Int>()   // `var`, as in Realm's Codable legacy models, so that it decodes
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

    @Test("Realm's JSON forms decode (decimals as strings or numbers, ids as hex, dates as seconds, data as base64) and encode back")
    func realmForms() throws {
        let json = Data("""
            {"string": "abc", "data": "\(Data("def".utf8).base64EncodedString())", "date": 2.5, "int8": 123,
             "float": 2.5, "double": 2.5, "bool": true, "decimal": "1.5e2", "decimalNumber": 2.2,
             "objectId": "1234567890abcdef12345678", "uuid": "00000000-0000-0000-0000-000000000000",
             "intOpt": null, "objectOpt": {"name": "Rex"}, "embeddedOpt": {"value": 5},
             "decimalList": ["1.5e2", 3], "intOptList": [1, null], "objectList": [{"name": "a"}],
             "embeddedList": [{"value": 1}, {"value": 2}], "uuidSet": ["00000000-0000-0000-0000-000000000001"],
             "doubleOptMap": {"k": 1.5, "n": null}, "legacy": 7}
            """.utf8)
        let object = try JSONDecoder().decode(CodableEverything.self, from: json)
        #expect(object.string == "abc" && object.data == Data("def".utf8) && object.date == Date(timeIntervalSinceReferenceDate: 2.5))
        #expect(try object.decimal == Decimal128(150) && object.decimalNumber == Decimal128(string: "2.2"))
        #expect(object.objectId.stringValue == "1234567890abcdef12345678")
        #expect(object.intOpt == nil && object.decimalOpt == nil && object.objectOpt?.name == "Rex" && object.embeddedOpt?.value == 5)
        #expect(Array(object.decimalList) == [Decimal128(150), Decimal128(3)] && Array(object.intOptList) == [1, nil])
        #expect(object.embeddedList.map(\.value) == [1, 2] && object.objectList.first?.name == "a")
        #expect(object.doubleOptMap["k"] == .some(1.5) && object.doubleOptMap["n"] == .some(nil))

        let encoded = try JSONEncoder().encode(object)
        let dictionary = try #require(JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(dictionary["decimal"] is String && dictionary["objectId"] as? String == "1234567890abcdef12345678")
        let again = try JSONDecoder().decode(CodableEverything.self, from: encoded)
        #expect(again.decimal == object.decimal && again.decimalNumber == object.decimalNumber && Array(again.intOptList) == [1, nil] && again.legacy.value == 7)

        let directory = try TemporaryDirectory("codable-everything")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [CodableEverything.self, CodablePet.self, CodableEmbedded.self]))
        try vault.write { vault.add(object) }
        let stored = try #require(vault.objects(CodableEverything.self).first)
        #expect(stored.embeddedList.map(\.value) == [1, 2] && stored.decimal == Decimal128(150))
        #expect(object.legacy.value == 7 && stored.legacy.value == 7)

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

extension CodableTests {
    @Test("AnyVaultCollection encodes as the collection it wraps (Realm's AnyRealmCollection: Encodable)")
    func erasedCollectionEncodes() throws {
        let list = List<Int>()
        list.append(objectsIn: [3, 1, 2])
        let erased = AnyVaultCollection(list)
        #expect(try JSONEncoder().encode(erased) == JSONEncoder().encode([3, 1, 2]))
    }
}
