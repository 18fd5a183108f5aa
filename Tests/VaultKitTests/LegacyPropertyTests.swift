import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Models written before @Persisted: `let x = VaultProperty<T>()` and
// `let x = VaultOptional<T>()` (Realm's RealmProperty and RealmOptional).

final class LegacyPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    let age = VaultOptional<Int>()
    let height = VaultProperty<Double?>(1.5)
    let nickname = VaultOptional<String>()
    let extra = VaultProperty<AnyVaultValue>()
    let visits = VaultProperty<Int>()
}

/// The same properties declared with @Persisted: the schemas must agree.
final class ModernPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age: Int?
    @Persisted var height: Double? = 1.5
    @Persisted var nickname: String?
    @Persisted var extra: AnyVaultValue
    @Persisted var visits = 0
}

final class LegacyListHolder: Object {
    @Persisted var id = 0
    let numbers = VaultProperty<List<Int>>()
}

@Suite("Legacy VaultProperty / VaultOptional declarations")
struct LegacyPropertyTests {
    @Test("a VaultProperty declaration gives the schema of the @Persisted one")
    func sameSchemaAsPersisted() throws {
        let legacy = try #require(LegacyPerson.sharedSchema())
        let modern = try #require(ModernPerson.sharedSchema())
        #expect(legacy.properties == modern.properties)
        #expect(legacy.properties.map(\.description).contains("age: int?"))
    }

    @Test("unmanaged wrappers hold their values; init(value:) and KVC set them")
    func unmanaged() throws {
        let person = LegacyPerson()
        #expect(person.age.value == nil)
        #expect(person.height.value == 1.5)
        #expect(person.visits.value == 0)
        person.age.value = 7
        #expect(person.age.value == 7)
        let other = LegacyPerson(value: ["id": 2, "age": 30, "nickname": "Al", "extra": "x"])
        #expect(other.age.value == 30)
        #expect(other.nickname.value == "Al")
        #expect(other.extra.value == .string("x"))
        #expect(other.value(forKey: "age") as? Int == 30)
        // Numbers of another width convert, as for @Persisted (realm-swift's RealmOptional<Double> given 5).
        let converted = LegacyPerson(value: ["id": 3, "height": 5, "visits": Int64(4)])
        #expect(converted.height.value == 5.0 && converted.visits.value == 4)
        other.setValue(nil, forKey: "age")
        #expect(other.age.value == nil)
        // Each object has its own wrappers.
        #expect(person.age.value == 7)
    }

    @Test("added objects store, read, update, query and reopen through the wrappers", arguments: StorageMode.writable)
    func managed(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("legacy-managed")
        let configuration = mode.configuration(directory, types: [LegacyPerson.self])
        do {
            let vault = try Vault(configuration: configuration)
            let a = LegacyPerson(value: ["id": 1, "name": "a", "age": 41])
            let b = LegacyPerson(value: ["id": 2, "name": "b"])
            b.extra.value = .int(5)
            try vault.write { vault.add([a, b]) }
            #expect(a.age.value == 41)
            #expect(b.age.value == nil)
            #expect(b.extra.value == .int(5))
            try vault.write {
                b.age.value = 12
                b.visits.value += 3
                a.nickname.value = "Ada"
            }
            #expect(b.age.value == 12)
            #expect(b.visits.value == 3)
            let fetched = try #require(vault.object(ofType: LegacyPerson.self, forPrimaryKey: 1))
            #expect(fetched.nickname.value == "Ada")
            #expect(vault.objects(LegacyPerson.self).filter("age > 20").map(\.id) == [1])
            #expect(vault.objects(LegacyPerson.self).sorted(byKeyPath: "age").map(\.id) == [2, 1])
            #expect(vault.objects(LegacyPerson.self).max(ofProperty: "age") as Int? == 41)
            // A second object for the same row sees writes made through the first.
            try vault.write { a.age.value = nil }
            #expect(fetched.age.value == nil)
        }
        guard mode != .inMemory else { return }
        let reopened = try Vault(configuration: configuration)
        let b = try #require(reopened.object(ofType: LegacyPerson.self, forPrimaryKey: 2))
        #expect(b.age.value == 12)
        #expect(b.visits.value == 3)
        #expect(b.height.value == 1.5)
    }

    @Test("changes through a wrapper notify observers of that property; frozen objects keep their values")
    func observeAndFreeze() throws {
        let directory = try TemporaryDirectory("legacy-observe")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [LegacyPerson.self]))
        let person = LegacyPerson(value: ["id": 1, "age": 1])
        try vault.write { vault.add(person) }
        var changed: [String] = []
        let token = person.observe { change in
            if case .change(_, let properties) = change { changed += properties.map(\.name) }
        }
        defer { token.invalidate() }
        let frozen = person.freeze()
        try vault.write { person.age.value = 2 }
        vault.refresh()
        #expect(changed == ["age"])
        #expect(frozen.age.value == 1)
        #expect(person.age.value == 2)
    }

    @Test("a write through the wrapper of an object no longer referenced (vault.object(…)?.age.value = 5) reaches the vault, and key-path observers hear it")
    func writeThroughReleasedObject() throws {
        let directory = try TemporaryDirectory("legacy-released")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [LegacyPerson.self]))
        try vault.write { vault.add(LegacyPerson(value: ["id": 1])) }
        var seen: [String] = []
        let results = vault.objects(LegacyPerson.self)
        let keyed = results.observe(keyPaths: ["age"]) { change in if case .update(_, _, _, let modified) = change { seen.append("age \(modified)") } }
        let other = results.observe(keyPaths: ["name"]) { change in if case .update = change { seen.append("name") } }
        defer { keyed.invalidate(); other.invalidate() }
        vault.refresh()
        try vault.write { vault.object(ofType: LegacyPerson.self, forPrimaryKey: 1)?.age.value = 5 }
        vault.refresh()
        #expect(vault.object(ofType: LegacyPerson.self, forPrimaryKey: 1)?.age.value == 5)
        #expect(seen == ["age [0]"])
        // A wrapper kept after its object is gone still reads the row.
        let wrapper = try #require(vault.object(ofType: LegacyPerson.self, forPrimaryKey: 1)).age
        #expect(wrapper.value == 5)
    }

    @Test("a VaultProperty of a collection is refused with a message naming it")
    func collectionsRefused() throws {
        let directory = try TemporaryDirectory("legacy-refused")
        #expect {
            _ = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [LegacyListHolder.self]))
        } throws: { error in
            "\(error)".contains("numbers") && "\(error)".contains("@Persisted")
        }
    }
}
