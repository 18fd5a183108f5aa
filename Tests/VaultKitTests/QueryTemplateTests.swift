import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

@Suite("Compiled-query templates: a query shape compiles once, later calls only bind")
struct QueryTemplateTests {
    /// The ids of a query compiled from scratch (no template involved).
    private func reference(_ people: Results<QPerson>, _ format: String, _ arguments: [Any?]) throws -> [Int] {
        try people.filter(predicate: QueryParser.parse(format, arguments: arguments)).map(\.id)
    }

    private func key(_ vault: Vault, _ format: String, _ arguments: [Any?]) throws -> QueryTemplateCache.Key {
        let values = try arguments.map { try #require(QueryValue.from(argument: $0)) }
        let schema = try #require(vault.schema(named: "QPerson"))
        return QueryTemplateCache.Key(schema: ObjectIdentifier(schema), format: format, kinds: try #require(QueryTemplateCache.kinds(of: values)))
    }

    @Test("every shape gives what a fresh compilation gives, for every argument, whether it was templated or not", arguments: StorageMode.allCases)
    func templatedResultsMatchFreshCompilation(storage: StorageMode) throws {
        let directory = try TemporaryDirectory("templates")
        let vault = try storage.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        let names = QueryFixture.people.map(\.name) + ["", "Ada", "ada", "ADA LOVELACE", "Zola", "b*b", "Bob?*[x]", "\\*", "nobody"]
        let shapes: [(format: String, arguments: [[Any?]])] = [
            ("name == %@", names.map { [$0] }),
            ("name != %@ AND age > %@", names.map { [$0, 30] } + [["Ada Lovelace", 0], ["", 100]]),
            ("age >= %@ AND age < %@", [[0, 40], [30, 40], [17, 18], [-5, 1000], [40, 30]]),
            ("age == %@", [[36], [36.0], [36.5], [0]]),
            ("height > %@", [[160], [160.5], [0], [-1]]),
            ("score > %@", [[6.5], [6], [Float(5)]]),
            ("isActive == %@", [[true], [false]]),
            ("isActive == %@ AND isActive != %@", [[true, false], [true, true], [false, false]]),
            ("name BEGINSWITH %@", names.map { [$0] }),
            ("name ENDSWITH %@", names.map { [$0] }),
            ("name CONTAINS %@", names.map { [$0] }),
            ("name CONTAINS[c] %@", names.map { [$0] }),
            ("name ==[cd] %@", names.map { [$0] }),
            ("name LIKE %@", [["A*"], ["*a*"], ["B*\\*\\[*"], ["?da*"], ["*"]]),
            ("nickname == %@ OR name == %@", [["ADA", "Grace Hopper"], ["", "x"], ["Countess", "Émile Zola"]]),
            ("born < %@", [[Date(timeIntervalSince1970: 0)], [Date(timeIntervalSince1970: -3e9)], [Date.distantFuture]]),
            ("avatar == %@", [[Data([1, 2, 3])], [Data()], [Data([9])]]),
            ("avatar BEGINSWITH %@", [[Data([1])], [Data()], [Data([1, 2, 3, 4])]]),
            ("ANY tags == %@", [["math"], ["poetry"], ["none"]]),
            ("metadata[%@] == %@", [["lang", "en"], ["lang", "fr"], ["role", "author"]]),
            ("%K == %@", [["name", "Ada Lovelace"], ["nickname", "ADA"]]),
            ("$0 == name OR age == $1", [["Ada Lovelace", 85], ["x", 17]]),
        ]
        for shape in shapes {
            for arguments in shape.arguments {
                let ids = try people.filter(shape.format, arguments: arguments).map(\.id)
                #expect(ids == (try reference(people, shape.format, arguments)), "\(shape.format) with \(arguments)")
                // A second time: the template (if one was made) serves it.
                #expect(try people.filter(shape.format, arguments: arguments).map(\.id) == ids, "\(shape.format) again")
                #expect(try people.filter(shape.format, arguments: arguments).count == ids.count)
                // Every other statement of a re-bound Results carries this call's values too.
                let templated = try people.filter(shape.format, arguments: arguments)
                let fresh = try people.filter(predicate: QueryParser.parse(shape.format, arguments: arguments))
                #expect(templated.first?.id == ids.first, "\(shape.format) first")
                #expect(templated.last?.id == ids.last, "\(shape.format) last")
                #expect(templated[0..<min(2, ids.count)].map(\.id) == Array(ids.prefix(2)), "\(shape.format) slice")
                #expect(templated.max(ofProperty: "age") as Int? == fresh.max(ofProperty: "age") as Int?, "\(shape.format) max")
                #expect(templated.sum(ofProperty: "age") as Int == fresh.sum(ofProperty: "age") as Int, "\(shape.format) sum")
                #expect(templated.hasSameQuery(as: try people.filter(shape.format, arguments: arguments)), "\(shape.format): the same call, so the same query")
            }
        }
        // Plain shapes are templated; shapes whose arguments are transformed or shape the SQL are not.
        var templates = vault.session.queryTemplates
        #expect(templates.template(for: try key(vault, "name == %@", ["x"])) != nil)
        #expect(templates.template(for: try key(vault, "age >= %@ AND age < %@", [1, 2])) != nil)
        #expect(templates.template(for: try key(vault, "name BEGINSWITH %@", ["x"])) == nil)
        #expect(templates.template(for: try key(vault, "name CONTAINS[c] %@", ["x"])) == nil)
        #expect(templates.template(for: try key(vault, "name LIKE %@", ["x"])) == nil)
        #expect(templates.template(for: try key(vault, "%K == %@", ["name", "x"])) == nil)
        #expect(templates.template(for: try key(vault, "age == %@", [1.5])) == nil, "a Double compared with an Int property is converted")
    }

    @Test("a templated Results is a full Results: its predicate carries this call's arguments (notifications, freezing, thread handover)")
    func templatedResultsCarryTheirArguments() throws {
        let directory = try TemporaryDirectory("templates-tree")
        let vault = try StorageMode.encryptedFile.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        _ = people.filter("name == %@", "Ada Lovelace").count
        let grace = people.filter("name == %@", "Grace Hopper")
        #expect(grace.map(\.id) == [2])
        #expect(grace.freeze().map(\.id) == [2], "rebuilt from its definition")
        let reference = ThreadSafeReference(to: grace)
        let configuration = vault.configuration
        let resolved = try onNewThread { () -> [Int] in
            let other = try Vault(configuration: configuration)
            return other.resolve(reference).map { Array($0.map(\.id)) } ?? []
        }
        #expect(resolved == [2])
        #expect(grace.filter("age > %@", 80).map(\.id) == [2], "refining a templated Results compiles normally")
        #expect(grace.sorted(byKeyPath: "age").map(\.id) == [2])
    }
}
