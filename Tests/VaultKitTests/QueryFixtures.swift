import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Models and a fixed data set for the query tests. Every property kind a
// query can reach: values of each type (required and optional), enums, an
// embedded object, to-one and to-many links, value lists and sets, a map,
// backlinks, and a remapped property.

enum Mood: String, PersistableEnum { case calm, happy, grumpy }
enum Level: Int, PersistableEnum { case low = 1, mid = 2, high = 3 }

final class QAddress: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var country = ""
    @Persisted var zip: String?
}

final class QPet: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var species = ""
    @Persisted var age = 0
    @Persisted(originProperty: "pets") var owners: LinkingObjects<QPerson>
}

final class QPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var height: Double?
    @Persisted var score: Float = 0
    @Persisted var isActive = true
    @Persisted var nickname: String?
    @Persisted var born = Date(timeIntervalSince1970: 0)
    @Persisted var balance: Decimal = 0
    @Persisted var token = UUID()
    @Persisted var ref = ObjectId()
    @Persisted var avatar: Data?
    @Persisted var mood = Mood.calm
    @Persisted var level: Level?
    @Persisted var address: QAddress?
    @Persisted var pet: QPet?
    @Persisted var pets: List<QPet>
    @Persisted var friends: List<QPerson>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: List<Int>
    @Persisted var metadata: Map<String, String>
    @Persisted var pastAddresses: List<QAddress>
    @Persisted(originProperty: "friends") var friendOf: LinkingObjects<QPerson>
    /// Not stored: a computed property that reads a stored one.
    var shoutedName: String { name.uppercased() }
    override class func propertiesMapping() -> [String: String] { ["name": "full_name"] }
}

/// The data set, as plain values (the tests' independent oracle reads these).
struct PersonRow {
    var id: Int
    var name: String
    var age: Int
    var height: Double?
    var score: Float
    var isActive: Bool
    var nickname: String?
    var born: Date
    var balance: Decimal
    var avatar: Data?
    var mood: Mood
    var level: Level?
    var city: String?
    var country: String?
    var zip: String?
    var pet: Int?
    var pets: [Int]
    var friends: [Int]
    var tags: [String]
    var scores: [Int]
    var metadata: [String: String]
}

struct PetRow {
    var id: Int
    var name: String
    var species: String
    var age: Int
}

enum QueryFixture {
    static let day = 86_400.0
    static let pets: [PetRow] = [
        PetRow(id: 1, name: "Rex", species: "dog", age: 3),
        PetRow(id: 2, name: "Tom", species: "cat", age: 7),
        PetRow(id: 3, name: "Polly", species: "parrot", age: 30),
        PetRow(id: 4, name: "Fido", species: "dog", age: 1),
        PetRow(id: 5, name: "Éclair", species: "cat", age: 2),
    ]

    static let people: [PersonRow] = [
        PersonRow(id: 1, name: "Ada Lovelace", age: 36, height: 165.5, score: 9.5, isActive: true, nickname: "Countess",
                  born: Date(timeIntervalSince1970: -4_875_000_000), balance: Decimal(string: "1200.50")!, avatar: Data([1, 2, 3]),
                  mood: .happy, level: .high, city: "London", country: "UK", zip: "W1", pet: 1, pets: [1, 2], friends: [2, 3],
                  tags: ["math", "poetry"], scores: [10, 20, 30], metadata: ["lang": "en", "role": "author"]),
        PersonRow(id: 2, name: "Grace Hopper", age: 85, height: 160, score: 8.25, isActive: false, nickname: nil,
                  born: Date(timeIntervalSince1970: -2_000_000_000), balance: Decimal(string: "99.99")!, avatar: nil,
                  mood: .grumpy, level: .mid, city: "New York", country: "US", zip: nil, pet: nil, pets: [3], friends: [1],
                  tags: ["navy", "cobol", "math"], scores: [5], metadata: ["lang": "en"]),
        PersonRow(id: 3, name: "Émile Zola", age: 62, height: nil, score: 7, isActive: true, nickname: "Le Maître",
                  born: Date(timeIntervalSince1970: -4_000_000_000), balance: Decimal(string: "-15")!, avatar: Data([9]),
                  mood: .calm, level: nil, city: "Paris", country: "FR", zip: "75001", pet: 3, pets: [], friends: [1, 2, 4],
                  tags: [], scores: [], metadata: [:]),
        PersonRow(id: 4, name: "ada byron", age: 17, height: 150.25, score: 6.5, isActive: true, nickname: "ADA",
                  born: Date(timeIntervalSince1970: 1_000_000_000), balance: Decimal(string: "0.001")!, avatar: Data(),
                  mood: .happy, level: .low, city: "london", country: "UK", zip: "SW1", pet: 4, pets: [4, 5, 1], friends: [],
                  tags: ["poetry"], scores: [1, 1, 2], metadata: ["lang": "fr", "note": "x.y"]),
        PersonRow(id: 5, name: "Ägir Straße", age: 40, height: 190, score: 5, isActive: false, nickname: "",
                  born: Date(timeIntervalSince1970: 500_000_000), balance: Decimal(string: "12345678901234567890.123")!, avatar: nil,
                  mood: .calm, level: .high, city: nil, country: nil, zip: nil, pet: 2, pets: [2], friends: [5],
                  tags: ["sea"], scores: [100, -3], metadata: ["lang": "de"]),
        PersonRow(id: 6, name: "Bob?*[x]", age: 0, height: 0, score: -1.5, isActive: true, nickname: "b*b",
                  born: Date(timeIntervalSince1970: 1_700_000_000), balance: Decimal(string: "1200.5")!, avatar: Data([1, 2]),
                  mood: .grumpy, level: .low, city: "Zürich", country: "CH", zip: "8000", pet: nil, pets: [], friends: [1, 1],
                  tags: ["math"], scores: [7], metadata: ["Lang": "EN"]),
    ]

    /// Fills a vault with the data set.
    static func populate(_ vault: Vault) throws {
        try vault.write {
            var petObjects: [Int: QPet] = [:]
            for row in pets {
                let pet = QPet()
                pet.id = row.id
                pet.name = row.name
                pet.species = row.species
                pet.age = row.age
                vault.add(pet)
                petObjects[row.id] = pet
            }
            var personObjects: [Int: QPerson] = [:]
            for row in people {
                let person = QPerson()
                person.id = row.id
                person.name = row.name
                person.age = row.age
                person.height = row.height
                person.score = row.score
                person.isActive = row.isActive
                person.nickname = row.nickname
                person.born = row.born
                person.balance = row.balance
                person.avatar = row.avatar
                person.mood = row.mood
                person.level = row.level
                if let city = row.city {
                    let address = QAddress()
                    address.city = city
                    address.country = row.country ?? ""
                    address.zip = row.zip
                    person.address = address
                }
                person.pet = row.pet.flatMap { petObjects[$0] }
                for id in row.pets { if let pet = petObjects[id] { person.pets.append(pet) } }
                for tag in row.tags { person.tags.insert(tag) }
                for score in row.scores { person.scores.append(score) }
                for (key, value) in row.metadata { person.metadata[key] = value }
                vault.add(person)
                personObjects[row.id] = person
            }
            for row in people {
                guard let person = personObjects[row.id] else { continue }
                for id in row.friends { if let friend = personObjects[id] { person.friends.append(friend) } }
            }
        }
    }

    static func person(_ id: Int) -> PersonRow? { people.first { $0.id == id } }
    static func pet(_ id: Int) -> PetRow? { pets.first { $0.id == id } }
}

/// A temporary directory removed when the value is released.
extension StorageMode {
    /// A vault of this storage holding the query data set.
    func openQueryFixture(_ directory: TemporaryDirectory) throws -> Vault {
        try open(directory, types: [QPerson.self, QPet.self, QAddress.self], file: "query.vault", populate: QueryFixture.populate)
    }
}
