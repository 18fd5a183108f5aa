import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Values given in the form they are stored in, as a JSON payload gives them:
// realm-swift's CustomObjectCreationTests (`rawValues` for lists, sets and maps
// of enums and custom types) and ObjectCreationTests (a Decimal128 property
// given `1`, `"2"` or a Decimal128); and the aggregates and sorting of such
// collections (PrimitiveListTests' average for every integer width, sorting
// and distinct for enums).

final class Tagged: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var statuses: List<Status>
    @Persisted var optionalStatuses: List<Status?>
    @Persisted var priorities: MutableSet<Priority>
    @Persisted var rolesByName: Map<String, Role>
    @Persisted var pages: List<Homepage>
    @Persisted var amounts: List<Decimal128>
    @Persisted var price = Decimal128()
    @Persisted var smalls: List<Int8>
    @Persisted var mediums: List<Int32?>
    @Persisted var bigs: MutableSet<Int64>
}

@Suite("Objects created from stored values")
struct CreationFromStoredValuesTests {
    @Test("collections of enums and custom types take raw and persisted values; decimals take numbers and text", arguments: StorageMode.writable)
    func storedForms(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("stored-forms")
        let vault = try Vault(configuration: mode.configuration(directory, types: [Tagged.self]))
        let payload: [String: Any] = [
            "id": 1,
            "statuses": ["archived", "active"],
            "optionalStatuses": ["active", NSNull()],
            "priorities": [2, 1, 2],
            "rolesByName": ["ann": 2, "bob": 0],
            "pages": ["https://a.example/", "https://b.example/"],
            "amounts": [1, "2.5", 3.25, Decimal128(4)],
            "price": 9.99,
        ]
        let unmanaged = Tagged(value: payload)
        #expect(Array(unmanaged.statuses) == [.archived, .active])
        try vault.write { vault.create(Tagged.self, value: payload) }
        let object = try #require(vault.object(ofType: Tagged.self, forPrimaryKey: 1))
        #expect(Array(object.statuses) == [.archived, .active])
        #expect(Array(object.optionalStatuses) == [.active, nil])
        #expect(Set(object.priorities) == [.low, .high])
        #expect(object.rolesByName["ann"] == .admin && object.rolesByName["bob"] == .member)
        #expect(object.pages.map(\.url.absoluteString) == ["https://a.example/", "https://b.example/"])
        #expect(object.amounts.map(\.description) == ["1", "2.5", "3.25", "4"])
        #expect(object.price == Decimal128(stringLiteral: "9.99"))
        try vault.write { object.setValue("12.5", forKey: "price") }
        #expect(object.price == Decimal128(stringLiteral: "12.5"))
        // A raw value that names no case is still refused (a programmer error, as for any value that does not fit).
        #expect(convertedValue("no such case", to: Status.self) == nil)
        #expect(convertedValue("not a number", to: Decimal128.self) == nil)
    }

    @Test("average() of every integer width; enums sort and distinct by raw value", arguments: StorageMode.writable)
    func aggregatesAndSorting(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("stored-forms-aggregates")
        let vault = try Vault(configuration: mode.configuration(directory, types: [Tagged.self]))
        let object = Tagged(value: ["id": 1, "smalls": [1, 2, 4], "mediums": [10, nil, 20], "bigs": [100, 300],
                                    "statuses": ["archived", "active", "archived"], "optionalStatuses": ["archived", NSNull(), "active"]])
        func check(_ label: String) {
            #expect((object.smalls.average() as Int8?) == 2, "\(label): Int8")
            #expect((object.smalls.average() as Double?).map { ($0 * 1_000).rounded() } == 2_333)
            #expect((object.mediums.average() as Int32?) == 15, "\(label): Int32?, nil skipped")
            #expect((object.bigs.average() as Int64?) == 200, "\(label): Int64")
            #expect(object.statuses.sorted(ascending: true) == [.active, .archived, .archived], "\(label)")
            #expect(object.statuses.sorted(ascending: false) == [.archived, .archived, .active])
            #expect(object.statuses.distinct() == [.archived, .active])
            #expect(object.optionalStatuses.sorted() == [nil, .active, .archived], "\(label): nil first")
        }
        check("unmanaged")
        try vault.write { vault.add(object) }
        check("managed")
    }
}
