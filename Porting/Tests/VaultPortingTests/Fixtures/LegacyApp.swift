/// A realistic RealmSwift app file in the legacy model syntax, and what `vault-port` makes of it.
enum LegacyApp {
    static let source = #"""
    import Foundation
    import RealmSwift

    // MARK: - Models

    @objc enum Breed: Int, RealmEnum {
        case mixed
        case beagle
        case collie
    }

    /// An owner's address, embedded in the owner.
    class Address: EmbeddedObject {
        @objc dynamic var street = ""
        @objc dynamic var city: String = ""
        @objc dynamic var postcode: String? = nil
    }

    class Person: Object {
        @objc dynamic var id = UUID().uuidString
        @objc dynamic var name = ""
        @objc dynamic var email: String = ""
        @objc dynamic var address: Address?
        @objc dynamic var cachedSummary = "" // never stored
        let dogs = List<Dog>()
        let nicknames = MutableSet<String>()
        let scores = Map<String, Int>()
        let age = RealmOptional<Int>()

        override static func primaryKey() -> String? {
            return "id"
        }

        override static func indexedProperties() -> [String] {
            return ["email"]
        }

        override static func ignoredProperties() -> [String] { ["cachedSummary"] }

        func haveBirthday() {
            age.value = (age.value ?? 0) + 1
        }
    }

    class Dog: Object {
        @objc dynamic var id = 0
        @objc dynamic var name = ""
        @objc dynamic var breed = Breed.mixed
        @objc dynamic var birthdate: Date? = nil
        let weight = RealmProperty<Double?>()
        let extra = RealmProperty<AnyRealmValue>()
        let owners = LinkingObjects(fromType: Person.self, property: "dogs")

        override static func primaryKey() -> String? { "id" }
    }

    /// Kept for the old sync server, which keys on a legacy table name.
    class LegacyTag: Object {
        @objc dynamic var label = ""

        override class func className() -> String {
            return "Tag"
        }
    }

    // MARK: - Storage

    final class Store {
        let realm: Realm
        private var token: NotificationToken?

        init(key: Data) throws {
            var config = Realm.Configuration(encryptionKey: key, schemaVersion: 2, migrationBlock: { migration, oldVersion in
                if oldVersion < 2 {
                    migration.enumerateObjects(ofType: Dog.className()) { _, newObject in
                        newObject?["breed"] = Breed.mixed.rawValue
                    }
                }
            })
            config.objectTypes = [Person.self, Dog.self, Address.self, LegacyTag.self]
            realm = try Realm(configuration: config)
        }

        func adopt(name: String, id: Int) throws -> Dog {
            var dog: Dog!
            try realm.write {
                dog = realm.create(Dog.self, value: ["id": id, "name": name], update: .modified)
                dog.weight.value = 12.5
            }
            return dog
        }

        func olderDogs() -> Results<Dog> {
            realm.objects(Dog.self).filter("age > 2").sorted(byKeyPath: "name")
        }

        func watch(_ dogs: Results<Dog>, onChange: @escaping (RealmCollectionChange<Results<Dog>>) -> Void) {
            token = dogs.observe(onChange)
        }

        func totalAge(of people: AnyRealmCollection<Person>) -> Int {
            var total = 0
            for person in people {
                total += person.age.value ?? 0
            }
            return total
        }

        func rename(_ person: Person, to name: String) throws {
            try realm.write {
                person.name = name
                person.age.value = nil
            }
        }
    }

    // MARK: - Generic helpers, constrained by the library's protocols

    func firstTwo<T: RealmCollectionValue>(_ list: List<T>) -> [T] { Array(list.prefix(2)) }
    func everything<T: RealmFetchable>(_ type: T.Type, in realm: Realm) -> Results<T> { realm.objects(type) }
    func sectionCount<S: RealmSectionedResult>(_ sections: S) -> Int { sections.isFrozen ? 0 : sections.count }
    func summary<C: RealmCollectionBase>(_ collection: C) -> String { collection.description }
    func hasValue<T: RealmOptionalType>(_ property: RealmProperty<T?>) -> Bool { property.value != nil }
    func stored<T: RealmPropertyType>(_ value: T) -> T { value }
    func subscribe<S: RealmSubscribable>(_ subject: S) -> S { subject }
    typealias DogSectionChange = RealmSectionedResultsChange<SectionedResults<String, Dog>>
    """#

    static let expected = #"""
    import Foundation
    import VaultKit

    // MARK: - Models

    enum Breed: Int, PersistableEnum {
        case mixed
        case beagle
        case collie
    }

    /// An owner's address, embedded in the owner.
    class Address: EmbeddedObject {
        @Persisted var street = ""
        @Persisted var city: String = ""
        @Persisted var postcode: String?
    }

    class Person: Object {
        @Persisted(primaryKey: true) var id = UUID().uuidString
        @Persisted var name = ""
        @Persisted(indexed: true) var email: String = ""
        @Persisted var address: Address?
        var cachedSummary = "" // never stored
        @Persisted var dogs: List<Dog>
        @Persisted var nicknames: MutableSet<String>
        @Persisted var scores: Map<String, Int>
        @Persisted var age: Int?

        func haveBirthday() {
            age = (age ?? 0) + 1
        }
    }

    class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var breed = Breed.mixed
        @Persisted var birthdate: Date?
        @Persisted var weight: Double?
        @Persisted var extra: AnyVaultValue
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    }

    /// Kept for the old sync server, which keys on a legacy table name.
    class LegacyTag: Object {
        @Persisted var label = ""

        // vault port: `className()` renames the class to "Tag"; VaultKit names a class after its Swift name
        override class func className() -> String {
            return "Tag"
        }
    }

    // MARK: - Storage

    final class Store {
        let realm: Vault
        private var token: NotificationToken?

        init(key: Data) throws {
            var config = Vault.Configuration(encryptionKey: key, schemaVersion: 2, migrationBlock: { migration, oldVersion in
                if oldVersion < 2 {
                    migration.enumerateObjects(ofType: String(describing: Dog.self)) { _, newObject in
                        newObject?["breed"] = Breed.mixed.rawValue
                    }
                }
            })
            config.objectTypes = [Person.self, Dog.self, Address.self, LegacyTag.self]
            realm = try Vault(configuration: config)
        }

        func adopt(name: String, id: Int) throws -> Dog {
            var dog: Dog!
            try realm.write {
                dog = realm.create(Dog.self, value: ["id": id, "name": name], update: .modified)
                dog.weight = 12.5
            }
            return dog
        }

        func olderDogs() -> Results<Dog> {
            realm.objects(Dog.self).filter("age > 2").sorted(byKeyPath: "name")
        }

        func watch(_ dogs: Results<Dog>, onChange: @escaping (VaultCollectionChange<Results<Dog>>) -> Void) {
            token = dogs.observe(onChange)
        }

        func totalAge(of people: AnyVaultCollection<Person>) -> Int {
            var total = 0
            for person in people {
                // vault port: cannot prove that `person.age` is a ported RealmOptional/RealmProperty; remove `.value` by hand if it is
                total += person.age.value ?? 0
            }
            return total
        }

        func rename(_ person: Person, to name: String) throws {
            try realm.write {
                person.name = name
                person.age = nil
            }
        }
    }

    // MARK: - Generic helpers, constrained by the library's protocols

    func firstTwo<T: VaultCollectionValue>(_ list: List<T>) -> [T] { Array(list.prefix(2)) }
    func everything<T: VaultFetchable>(_ type: T.Type, in realm: Vault) -> Results<T> { realm.objects(type) }
    func sectionCount<S: VaultSectionedResult>(_ sections: S) -> Int { sections.isFrozen ? 0 : sections.count }
    func summary<C: VaultCollectionBase>(_ collection: C) -> String { collection.description }
    func hasValue<T: VaultOptionalType>(_ property: VaultProperty<T?>) -> Bool { property.value != nil }
    func stored<T: VaultPropertyType>(_ value: T) -> T { value }
    func subscribe<S: VaultSubscribable>(_ subject: S) -> S { subject }
    typealias DogSectionChange = SectionedResultsChange<SectionedResults<String, Dog>>
    """#
}
