import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Queries on AnyVaultValue properties, hand-written from the spec (Realm's
// Mixed comparison rules). The generated cases are in MixedQueryOracleTests.swift.

final class MxQ: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyVaultValue
    @Persisted var list: List<AnyVaultValue>
    @Persisted var map: Map<String, AnyVaultValue>
    @Persisted var set: MutableSet<AnyVaultValue>
}

/// The value of `value` of each object of the hand-written fixture, by id.
private func mixedFixture(objectId: ObjectId, uuid: UUID, target: MxTarget) -> [Int: AnyVaultValue] {
    [
        1: .int(42), 2: .double(42), 3: .float(42), 4: .decimal128(42), 5: .string("42"), 6: .bool(true), 7: .int(1),
        8: .none, 9: .string("Hello World"), 10: .string("héllo"), 11: .data(Data([1, 2])),
        12: .date(Date(timeIntervalSince1970: 1000)), 13: .objectId(objectId), 14: .uuid(uuid), 15: .object(target),
        16: .fromArray([.int(1), .string("two"), .fromDictionary(["x": .int(3)])]),
        17: .fromDictionary(["k": .string("v"), "n": .int(5), "inner": .fromArray([.int(2), .int(3)])]),
        18: .double(-3.5), 19: .bool(false), 20: .int(0), 21: .fromArray([]),
    ]
}

/// Realm's Mixed sort order of a value's type: nil < bool < numbers < string < data < date < objectId < uuid < link < list < dictionary.
private func sortCategory(_ value: AnyVaultValue) -> Int {
    switch value {
    case .none: 0
    case .bool: 1
    case .int, .float, .double, .decimal128: 2
    case .string: 3
    case .data: 4
    case .date: 5
    case .objectId: 6
    case .uuid: 7
    case .object: 8
    case .list: 9
    case .dictionary: 10
    }
}

/// A numeric value as a Double (nil for other types).
func mxNumeric(_ value: AnyVaultValue) -> Double? {
    switch value {
    case .int(let v): Double(v)
    case .float(let v): Double(v)
    case .double(let v): v
    case .decimal128(let v): v.doubleValue
    default: nil
    }
}

@Suite("AnyVaultValue queries")
struct MixedQueryTests {
    let directory: TemporaryDirectory
    let objectId = ObjectId.generate()
    let uuid = UUID()
    init() throws { directory = try TemporaryDirectory("mixed-queries") }

    /// A vault holding the fixture; the target of object 15 has id 1.
    private func openFixture() throws -> Vault {
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("mixed-queries.vault"), encryptionKey: testKey,
                                                                 objectTypes: [MxQ.self, MxTarget.self]))
        try vault.write {
            for (id, value) in mixedFixture(objectId: objectId, uuid: uuid, target: mxTarget(1, "target")) {
                let object = MxQ()
                object.id = id
                object.value = value
                switch id {
                case 1:
                    object.list.append(objectsIn: [.int(3), .string("x")])
                    object.map["k"] = .string("x")
                    object.set.insert(objectsIn: [.int(7), .string("s")])
                case 2:
                    object.list.append(.double(3))
                    object.map["k"] = .int(1)
                case 5:
                    object.list.append(.string("3"))
                    object.map["other"] = .string("x")
                default: break
                }
                vault.add(object)
            }
        }
        return vault
    }

    /// Checks that `query` with `arguments` matches exactly the objects `expected`.
    private func expectIDs(_ vault: Vault, _ query: String, _ arguments: Any?..., are expected: Set<Int>,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let ids = try vault.objects(MxQ.self).filter(query, arguments: arguments).map(\.id)
            #expect(Set(ids) == expected, "\(query)", sourceLocation: sourceLocation)
            #expect(ids.count == Set(ids).count, "each object once: \(query)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(query): \(error)", sourceLocation: sourceLocation)
        }
    }

    private static let all = Set(1...21)
    private static let fortyTwo: Set<Int> = [1, 2, 3, 4]

    @Test("equality: numbers equal across int, float, double and decimal; never a string, a bool or nil")
    func equality() throws {
        let vault = try openFixture()
        expectIDs(vault, "value == 42", are: Self.fortyTwo)
        expectIDs(vault, "value = 42.0", are: Self.fortyTwo)
        let fortyTwos: [Any] = [42, 42.0, Float(42), Decimal128(42), AnyVaultValue.float(42), AnyVaultValue.int(42), AnyVaultValue.decimal128(42)]
        for argument in fortyTwos {
            expectIDs(vault, "value == %@", argument, are: Self.fortyTwo)
        }
        expectIDs(vault, "value == '42'", are: [5])
        expectIDs(vault, "value == \"42\"", are: [5])
        expectIDs(vault, "value == %@", "42", are: [5])
        expectIDs(vault, "value == %@", AnyVaultValue.string("42"), are: [5])
        expectIDs(vault, "value == true", are: [6])
        expectIDs(vault, "value == %@", true, are: [6])
        expectIDs(vault, "value == false", are: [19])
        expectIDs(vault, "value == 1", are: [7])
        expectIDs(vault, "value == 0", are: [20])
        expectIDs(vault, "value == -3.5", are: [18])
        expectIDs(vault, "value IN {1, 42, 'nope'}", are: Self.fortyTwo.union([7]))
        expectIDs(vault, "value != 42", are: Self.all.subtracting(Self.fortyTwo))
        expectIDs(vault, "value != '42'", are: Self.all.subtracting([5]))
        expectIDs(vault, "value != true", are: Self.all.subtracting([6]))
        // nil.
        expectIDs(vault, "value == nil", are: [8])
        expectIDs(vault, "value == NULL", are: [8])
        expectIDs(vault, "value == %@", nil, are: [8])
        expectIDs(vault, "value == %@", AnyVaultValue.none, are: [8])
        expectIDs(vault, "value != nil", are: Self.all.subtracting([8]))
        // Other types, each only with its own type.
        expectIDs(vault, "value == %@", Data([1, 2]), are: [11])
        expectIDs(vault, "value == %@", Date(timeIntervalSince1970: 1000), are: [12])
        expectIDs(vault, "value == %@", objectId, are: [13])
        expectIDs(vault, "value == %@", uuid, are: [14])
        expectIDs(vault, "value == %@", AnyVaultValue.uuid(uuid), are: [14])
        let target = try #require(vault.object(ofType: MxTarget.self, forPrimaryKey: 1))
        expectIDs(vault, "value == %@", target, are: [15])
        expectIDs(vault, "value == %@", AnyVaultValue.object(target), are: [15])
        expectIDs(vault, "value != %@", target, are: Self.all.subtracting([15]))
        // Collections by contents.
        expectIDs(vault, "value == %@", AnyVaultValue.fromArray([.int(1), .string("two"), .fromDictionary(["x": .int(3)])]), are: [16])
        expectIDs(vault, "value == %@", AnyVaultValue.fromArray([]), are: [21])
        expectIDs(vault, "value == %@", AnyVaultValue.fromArray([.int(1)]), are: [])
    }

    @Test("ordering and BETWEEN match only values of a comparable type: numbers with numbers, strings with strings, dates with dates")
    func ordering() throws {
        let vault = try openFixture()
        expectIDs(vault, "value > 41", are: Self.fortyTwo)
        expectIDs(vault, "value > 0.5", are: Self.fortyTwo.union([7]))
        expectIDs(vault, "value >= 0", are: Self.fortyTwo.union([7, 20]))
        expectIDs(vault, "value > -10", are: Self.fortyTwo.union([7, 18, 20]))
        expectIDs(vault, "value < 0", are: [18])
        expectIDs(vault, "value <= 1", are: [7, 18, 20])
        expectIDs(vault, "value < %@", Decimal128("42.5"), are: Self.fortyTwo.union([7, 18, 20]))
        expectIDs(vault, "value >= %@", AnyVaultValue.float(42), are: Self.fortyTwo)
        expectIDs(vault, "value BETWEEN {40, 43}", are: Self.fortyTwo)
        expectIDs(vault, "value BETWEEN {-4, 0}", are: [18, 20])
        expectIDs(vault, "value < 'A'", are: [5])
        expectIDs(vault, "value > '5'", are: [9, 10])
        expectIDs(vault, "value > %@", Date(timeIntervalSince1970: 500), are: [12])
        expectIDs(vault, "value < %@", Date(timeIntervalSince1970: 500), are: [])
        expectIDs(vault, "value < 100 AND value > 'A'", are: [])
    }

    @Test("string operators with [c], [d] and [cd] apply to string values only")
    func stringOperators() throws {
        let vault = try openFixture()
        expectIDs(vault, "value BEGINSWITH 'h'", are: [10])
        expectIDs(vault, "value BEGINSWITH[c] 'HEL'", are: [9])
        expectIDs(vault, "value BEGINSWITH[cd] 'HEL'", are: [9, 10])
        expectIDs(vault, "value CONTAINS 'e'", are: [9])
        expectIDs(vault, "value CONTAINS[d] 'e'", are: [9, 10])
        expectIDs(vault, "value CONTAINS[c] 'WORLD'", are: [9])
        expectIDs(vault, "value CONTAINS '4'", are: [5])
        expectIDs(vault, "value ENDSWITH '2'", are: [5])
        expectIDs(vault, "value ENDSWITH[c] %@", "LLO", are: [10])
        expectIDs(vault, "value ENDSWITH 'ello'", are: [])
        expectIDs(vault, "value ENDSWITH[d] 'ello'", are: [10])
        expectIDs(vault, "value ENDSWITH[cd] 'ÉLLO'", are: [10])
        expectIDs(vault, "value LIKE '*llo'", are: [10])
        expectIDs(vault, "value LIKE[c] 'h*'", are: [9, 10])
        expectIDs(vault, "value LIKE '?2'", are: [5])
        expectIDs(vault, "NOT value CONTAINS 'o'", are: Self.all.subtracting([9, 10]))
    }

    @Test("@type matches every type name (case-insensitive, aliases, numeric, collection); an unknown name is a query error")
    func typeNames() throws {
        let vault = try openFixture()
        let expected: [(String, Set<Int>)] = [
            ("null", [8]), ("int", [1, 7, 20]), ("bool", [6, 19]), ("float", [3]), ("double", [2, 18]), ("string", [5, 9, 10]),
            ("binary", [11]), ("data", [11]), ("date", [12]), ("timestamp", [12]), ("objectid", [13]), ("decimal", [4]),
            ("decimal128", [4]), ("uuid", [14]), ("link", [15]), ("objectlink", [15]), ("list", [16, 21]), ("array", [16, 21]),
            ("dictionary", [17]), ("object", [17]), ("numeric", [1, 2, 3, 4, 7, 18, 20]), ("collection", [16, 17, 21]),
            ("INT", [1, 7, 20]), ("String", [5, 9, 10]), ("ObjectId", [13]), ("UUID", [14]),
        ]
        for (name, ids) in expected {
            expectIDs(vault, "value.@type == '\(name)'", are: ids)
            expectIDs(vault, "value.@type != '\(name)'", are: Self.all.subtracting(ids))
        }
        expectIDs(vault, "value.@type == %@", "double", are: [2, 18])
        expectIDs(vault, "value.@type IN {'int', 'string'}", are: [1, 5, 7, 9, 10, 20])
        expectIDs(vault, "value.@type == 'numeric' AND value > 0", are: Self.fortyTwo.union([7]))
        for unknown in ["mystery", "", "number", "int int"] {
            #expect(throws: QueryError.self, "\(unknown)") {
                _ = try vault.objects(MxQ.self).filter("value.@type == '\(unknown)'", arguments: [])
            }
        }
    }

    @Test("subscripts read nested values: [0], [FIRST], [LAST], ['k'], [*], [%@], [%K] = #any, chained; missing reads as nil")
    func subscripts() throws {
        let vault = try openFixture()
        expectIDs(vault, "value[0] == 1", are: [16])
        expectIDs(vault, "value[1] == 'two'", are: [16])
        expectIDs(vault, "value[2]['x'] == 3", are: [16])
        expectIDs(vault, "value[FIRST] == 1", are: [16])
        expectIDs(vault, "value[LAST]['x'] == 3", are: [16])
        expectIDs(vault, "value[LAST] == 3", are: [])
        expectIDs(vault, "value['k'] == 'v'", are: [17])
        expectIDs(vault, "value['n'] == 5.0", are: [17])
        expectIDs(vault, "value['inner'][1] == 3", are: [17])
        expectIDs(vault, "value['inner'][LAST] >= 3", are: [17])
        expectIDs(vault, "value[*] == 'two'", are: [16])
        expectIDs(vault, "value[*] == 'v'", are: [17])
        expectIDs(vault, "value[*] == 3", are: [])
        expectIDs(vault, "value[*][*] == 3", are: [16, 17])
        expectIDs(vault, "value[*] > 4", are: [17])
        expectIDs(vault, "value[*].@type == 'dictionary'", are: [16])
        expectIDs(vault, "value[%@] == %@", "n", 5, are: [17])
        expectIDs(vault, "value[%@] == %@", 0, 1, are: [16])
        expectIDs(vault, "value[%@][%@] == %@", "inner", 0, AnyVaultValue.int(2), are: [17])
        expectIDs(vault, "value[%K] == %@", "#any", "v", are: [17])
        expectIDs(vault, "value[%@][%K] == %@", "inner", "#any", 3, are: [17])
        expectIDs(vault, "value[%@] == %@", "#any", "v", are: [])   // a %@ argument is a key, never the wildcard
        expectIDs(vault, "value['#any'] == 'v'", are: [])
        // A missing key or index reads as nil (restricted to the collections; see the oracle test for scalars).
        expectIDs(vault, "value['missing'] == nil AND value.@type == 'dictionary'", are: [17])
        expectIDs(vault, "value['missing'] != 3 AND value.@type == 'dictionary'", are: [17])
        expectIDs(vault, "value['k'] != 3 AND value.@type == 'collection'", are: [16, 17, 21])
        expectIDs(vault, "value[7] == nil AND value.@type == 'list'", are: [16, 21])
        expectIDs(vault, "value[0] == nil AND value.@type == 'list'", are: [21])
        expectIDs(vault, "value[FIRST] == nil AND value.@type == 'list'", are: [21])
        // @type after subscripts.
        expectIDs(vault, "value['k'].@type == 'string'", are: [17])
        expectIDs(vault, "value[2].@type == 'dictionary'", are: [16])
        expectIDs(vault, "value['inner'].@type == 'list'", are: [17])
        expectIDs(vault, "value['inner'][0].@type == 'int' AND value['n'].@type == 'numeric'", are: [17])
    }

    @Test("@size, @count and [SIZE] count a list's or dictionary's elements; other values have no size")
    func sizes() throws {
        let vault = try openFixture()
        expectIDs(vault, "value.@size == 3", are: [16, 17])
        expectIDs(vault, "value.@count == 3", are: [16, 17])
        expectIDs(vault, "value[SIZE] == 3", are: [16, 17])
        expectIDs(vault, "value.@size == 0", are: [21])
        expectIDs(vault, "value.@size > 0", are: [16, 17])
        expectIDs(vault, "value.@size >= 0", are: [16, 17, 21])
        expectIDs(vault, "value['inner'].@size == 2", are: [17])
        expectIDs(vault, "value[2].@count == 1", are: [16])
        expectIDs(vault, "value.@size == 11", are: [])   // "Hello World" has 11 characters but no size
    }

    @Test("ANY on a List<AnyVaultValue>, a Map<String, AnyVaultValue> subscript and a MutableSet<AnyVaultValue> use the same rules")
    func collectionsOfMixed() throws {
        let vault = try openFixture()
        expectIDs(vault, "ANY list == 3", are: [1, 2])
        expectIDs(vault, "ANY list == '3'", are: [5])
        expectIDs(vault, "ANY list == %@", AnyVaultValue.double(3), are: [1, 2])
        expectIDs(vault, "ANY list.@type == 'string'", are: [1, 5])
        expectIDs(vault, "list.@count == 2", are: [1])
        expectIDs(vault, "NONE list == 3", are: Self.all.subtracting([1, 2]))
        expectIDs(vault, "map['k'] == 'x'", are: [1])
        expectIDs(vault, "map['k'] == 1", are: [2])
        expectIDs(vault, "map['k'] == true", are: [])
        expectIDs(vault, "ANY map == 'x'", are: [1, 5])
        expectIDs(vault, "set == %@", 7, are: [1])
        expectIDs(vault, "ANY set == %@", "s", are: [1])
        expectIDs(vault, "ANY set == %@", 7.0, are: [1])
    }

    @Test("sorting orders by type (nil < bool < numbers < string < data < date < objectId < uuid < link < list < dictionary), numbers by value")
    func sorting() throws {
        let vault = try openFixture()
        let fixture = mixedFixture(objectId: objectId, uuid: uuid, target: MxTarget())
        for ascending in [true, false] {
            let sorted = vault.objects(MxQ.self).sorted(byKeyPath: "value", ascending: ascending).map(\.id)
            #expect(Set(sorted) == Self.all && sorted.count == Self.all.count)
            let values = try sorted.map { try #require(fixture[$0]) }
            let ordered = ascending ? values : values.reversed()
            for (earlier, later) in zip(ordered, ordered.dropFirst()) {
                #expect(sortCategory(earlier) <= sortCategory(later), "\(earlier) before \(later), ascending: \(ascending)")
                if let a = mxNumeric(earlier), let b = mxNumeric(later) { #expect(a <= b, "\(earlier) before \(later)") }
                if case .bool(let a) = earlier, case .bool(let b) = later { #expect(!a || b, "false before true") }
            }
        }
        let ascending = Array(vault.objects(MxQ.self).sorted(byKeyPath: "value").map(\.id))
        try #require(ascending.count == Self.all.count)
        #expect(ascending.first == 8 && ascending.last == 17)
        #expect(Set(ascending.prefix(5)) == [8, 19, 6, 18, 20] && ascending[1] == 19 && ascending[2] == 6 && ascending[3] == 18)
    }

    @Test("min and max of a mixed property take every value in Realm's mixed order (realm-core's Mixed aggregates); sum and average add the numbers and ignore the rest")
    func aggregates() throws {
        let vault = try openFixture()
        let all = vault.objects(MxQ.self)
        // Numbers: 42 (int, double, float, decimal), 1, -3.5, 0.
        let minimum: AnyVaultValue? = all.min(ofProperty: "value")
        let maximum: AnyVaultValue? = all.max(ofProperty: "value")
        // realm-core's MinMaxAggregateOperator<Mixed>: any non-nil value, by Mixed's order (type rank, then value).
        #expect(minimum == .bool(false))
        #expect(maximum?.dictionaryValue?["k"] == .string("v"))
        let sum: AnyVaultValue = all.sum(ofProperty: "value")
        #expect(mxNumeric(sum) == 165.5)
        let average: AnyVaultValue? = all.average(ofProperty: "value")
        #expect(abs((average.flatMap(mxNumeric) ?? .nan) - 165.5 / 7) < 1e-9)

        let numbers = all.filter("value.@type == 'numeric' AND value > 0")
        #expect((numbers.min(ofProperty: "value") as AnyVaultValue?).flatMap(mxNumeric) == 1)
        #expect((numbers.max(ofProperty: "value") as AnyVaultValue?).flatMap(mxNumeric) == 42)
        #expect(mxNumeric(numbers.sum(ofProperty: "value") as AnyVaultValue) == 169)

        let strings = all.filter("value.@type == 'string'")
        #expect(strings.min(ofProperty: "value") as AnyVaultValue? == .string("42"))
        #expect(strings.max(ofProperty: "value") as AnyVaultValue? == .string("héllo"))
        #expect(all.filter("value == nil").min(ofProperty: "value") as AnyVaultValue? == nil)
        #expect(strings.average(ofProperty: "value") as AnyVaultValue? == nil)
        #expect(mxNumeric(strings.sum(ofProperty: "value") as AnyVaultValue) ?? 0 == 0)
    }

    @Test("typed queries: ==, subscripts, .any, ordering and contains on an AnyVaultValue property")
    func typedQueries() throws {
        let vault = try openFixture()
        let objects = vault.objects(MxQ.self)
        #expect(Set(objects.where { $0.value == .int(42) }.map(\.id)) == Self.fortyTwo)
        #expect(Set(objects.where { $0.value == .string("42") }.map(\.id)) == [5])
        #expect(Set(objects.where { $0.value == AnyVaultValue.none }.map(\.id)) == [8])
        #expect(Set(objects.where { $0.value[1] == .string("two") }.map(\.id)) == [16])
        #expect(Set(objects.where { $0.value[2]["x"] == .int(3) }.map(\.id)) == [16])
        #expect(Set(objects.where { $0.value["k"] == .string("v") }.map(\.id)) == [17])
        #expect(Set(objects.where { $0.value["inner"][1] == .float(3) }.map(\.id)) == [17])
        #expect(Set(objects.where { $0.value.any == .int(5) }.map(\.id)) == [17])
        #expect(Set(objects.where { $0.value["inner"].any == .int(2) }.map(\.id)) == [17])
        #expect(Set(objects.where { $0.value >= .int(42) }.map(\.id)) == Self.fortyTwo)
        #expect(Set(objects.where { $0.value < .double(0) }.map(\.id)) == [18])
        #expect(Set(objects.where { $0.value.contains("World") }.map(\.id)) == [9])
        #expect(Set(objects.where { $0.value == .int(1) || $0.value[0] == .int(1) }.map(\.id)) == [7, 16])
    }
}
