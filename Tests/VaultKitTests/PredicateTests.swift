import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

@Suite("Foundation #Predicate translated to the same queries as strings")
struct PredicateTests {
    @Test("Each #Predicate gives the same results as its string form", arguments: StorageMode.allCases)
    func sameResults(storage: StorageMode) throws {
        let directory = try TemporaryDirectory()
        let vault = try storage.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        let limit = 30
        let pairs: [(String, [Any?], Predicate<QPerson>)] = [
            ("age > 30", [], #Predicate<QPerson> { $0.age > 30 }),
            ("age > %d", [limit], #Predicate<QPerson> { $0.age > limit }),
            ("age >= 17 AND isActive == true", [], #Predicate<QPerson> { $0.age >= 17 && $0.isActive == true }),
            ("isActive == true", [], #Predicate<QPerson> { $0.isActive }),
            ("NOT isActive == true", [], #Predicate<QPerson> { !$0.isActive }),
            ("age < 20 OR age > 80", [], #Predicate<QPerson> { $0.age < 20 || $0.age > 80 }),
            ("age != 36", [], #Predicate<QPerson> { $0.age != 36 }),
            ("age <= 36", [], #Predicate<QPerson> { $0.age <= 36 }),
            ("name CONTAINS 'ace'", [], #Predicate<QPerson> { $0.name.contains("ace") }),
            ("name BEGINSWITH 'Ada'", [], #Predicate<QPerson> { $0.name.starts(with: "Ada") }),
            ("nickname == nil", [], #Predicate<QPerson> { $0.nickname == nil }),
            ("nickname != nil", [], #Predicate<QPerson> { $0.nickname != nil }),
            ("height > 160", [], #Predicate<QPerson> { $0.height ?? 0 > 160 }),
            ("height > 100 OR height == nil", [], #Predicate<QPerson> { $0.height ?? 200 > 100 }),
            ("nickname == 'ADA' OR nickname == nil", [], #Predicate<QPerson> { ($0.nickname ?? "ADA") == "ADA" }),
            ("age BETWEEN {17, 40}", [], #Predicate<QPerson> { (17...40).contains($0.age) }),
            ("age >= 17 AND age < 40", [], #Predicate<QPerson> { (17..<40).contains($0.age) }),
            ("age IN {0, 17, 85}", [], #Predicate<QPerson> { [0, 17, 85].contains($0.age) }),
            ("mood == 'happy'", [], #Predicate<QPerson> { $0.mood.rawValue == "happy" }),
            ("address.city == 'London'", [], #Predicate<QPerson> { $0.address?.city == "London" }),
            ("pet.age > 5", [], #Predicate<QPerson> { ($0.pet?.age ?? 0) > 5 }),
            ("'math' IN tags", [], #Predicate<QPerson> { $0.tags.contains("math") }),
            ("ANY pets.species == 'cat'", [], #Predicate<QPerson> { $0.pets.contains { $0.species == "cat" } }),
            ("ALL pets.age < 10", [], #Predicate<QPerson> { $0.pets.allSatisfy { $0.age < 10 } }),
            ("ANY scores > 25", [], #Predicate<QPerson> { $0.scores.contains { $0 > 25 } }),
            ("pets.@count == 1", [], #Predicate<QPerson> { $0.pets.count == 1 }),
            ("friends.@count == 0", [], #Predicate<QPerson> { $0.friends.isEmpty }),
            ("name.@count > 10", [], #Predicate<QPerson> { $0.name.count > 10 }),
            ("ANY friends.pets.species == 'parrot'", [], #Predicate<QPerson> { $0.friends.contains { $0.pets.contains { $0.species == "parrot" } } }),
        ]
        for (format, arguments, predicate) in pairs {
            let expected = try people.filter(format, arguments: arguments).map(\.id)
            do {
                let actual = try people.filter(predicate).map(\.id)
                #expect(actual == expected, "\(format)")
            } catch {
                Issue.record("\(format): \(error)")
            }
        }
        // A List's results accept #Predicate too.
        let byron = try #require(vault.object(ofType: QPerson.self, forPrimaryKey: 4))
        #expect(try byron.pets.filter(#Predicate<QPet> { $0.species == "dog" }).map(\.id) == [4, 1])
    }

    @Test("What #Predicate can say but a query cannot is a clear error")
    func unsupported() throws {
        let directory = try TemporaryDirectory()
        let vault = try StorageMode.inMemory.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        #expect(throws: QueryError.self) { _ = try people.filter(#Predicate<QPerson> { $0.age + 1 > 3 }) }
        #expect(throws: QueryError.self) { _ = try people.filter(#Predicate<QPerson> { $0.scores.first == 1 }) }
        #expect(throws: QueryError.self) { _ = try people.filter(#Predicate<QPerson> { $0.age % 2 == 0 }) }
        do {
            _ = try people.filter(#Predicate<QPerson> { $0.age * 2 > 3 })
        } catch {
            #expect(error.reason.contains("no query equivalent"), "\(error.reason)")
        }
    }
}
