import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

private func ids(_ results: Results<QPerson>) -> [Int] { results.map(\.id) }

@Suite("Query results: typed queries, sorting, distinct, aggregates, pagination, errors")
struct QueryResultsTests {
    @Test("Typed queries give the same results as the equivalent strings", arguments: StorageMode.allCases)
    func typedMatchesString(storage: StorageMode) throws {
        let directory = try TemporaryDirectory()
        let vault = try storage.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        let pairs: [(String, [Any?], Results<QPerson>)] = [
            ("age > 30", [], people.where { $0.age > 30 }),
            ("age >= 17 AND isActive == true", [], people.where { $0.age >= 17 && $0.isActive == true }),
            ("isActive == true", [], people.where { $0.isActive }),
            ("NOT isActive == true", [], people.where { !$0.isActive }),
            ("age < 20 OR age > 80", [], people.where { $0.age < 20 || $0.age > 80 }),
            ("name CONTAINS[c] 'ada'", [], people.where { $0.name.contains("ada", options: .caseInsensitive) }),
            ("name BEGINSWITH[cd] 'e'", [], people.where { $0.name.starts(with: "e", options: [.caseInsensitive, .diacriticInsensitive]) }),
            ("name ENDSWITH 'Zola'", [], people.where { $0.name.ends(with: "Zola") }),
            ("name LIKE[c] 'ada*'", [], people.where { $0.name.like("ada*", caseInsensitive: true) }),
            ("name ==[c] 'ADA BYRON'", [], people.where { $0.name.equals("ADA BYRON", options: .caseInsensitive) }),
            ("nickname == nil", [], people.where { $0.nickname == nil }),
            ("nickname != nil", [], people.where { $0.nickname != nil }),
            ("nickname CONTAINS 'a'", [], people.where { $0.nickname.contains("a") }),
            ("height > 160", [], people.where { $0.height > 160 }),
            ("age BETWEEN {17, 40}", [], people.where { $0.age.contains(17...40) }),
            ("age >= 17 AND age < 40", [], people.where { $0.age.contains(17..<40) }),
            ("age IN {0, 17, 85}", [], people.where { $0.age.in([0, 17, 85]) }),
            ("mood == %@", [Mood.happy], people.where { $0.mood == .happy }),
            ("level == %@", [Level.high], people.where { $0.level == .high }),
            ("level == nil", [], people.where { $0.level == nil }),
            ("balance > 100", [], people.where { $0.balance > Decimal(100) }),
            ("born < %@", [Date(timeIntervalSince1970: 0)], people.where { $0.born < Date(timeIntervalSince1970: 0) }),
            ("address.city == 'London'", [], people.where { $0.address.city == "London" }),
            ("address == nil", [], people.where { $0.address == nil }),
            ("pet.species == 'dog'", [], people.where { $0.pet.species == "dog" }),
            ("ANY pets.species == 'cat'", [], people.where { $0.pets.species == "cat" }),
            ("ANY pets.age > 5", [], people.where { $0.pets.age > 5 }),
            ("pets.@count == 1", [], people.where { $0.pets.count == 1 }),
            ("friends.@count >= 2", [], people.where { $0.friends.count >= 2 }),
            ("ANY friends.address.city == 'London'", [], people.where { $0.friends.address.city == "London" }),
            ("pets.@max.age >= 7", [], people.where { $0.pets.age.max >= 7 }),
            ("pets.@sum.age > 10", [], people.where { $0.pets.age.sum > 10 }),
            ("scores.@sum > 50", [], people.where { $0.scores.sum > 50 }),
            ("scores.@min < 0", [], people.where { $0.scores.min < 0 }),
            ("'math' IN tags", [], people.where { $0.tags.contains("math") }),
            ("ANY tags IN {'navy', 'sea'}", [], people.where { $0.tags.containsAny(in: ["navy", "sea"]) }),
            ("ALL tags IN {'math'}", [], people.where { $0.tags.allIn(["math"]) }),
            ("metadata['lang'] == 'en'", [], people.where { $0.metadata["lang"] == "en" }),
            ("ANY metadata.@allKeys == 'note'", [], people.where { $0.metadata.keys == "note" }),
            ("ANY metadata.@allValues == 'de'", [], people.where { $0.metadata.values == "de" }),
            ("metadata.@count >= 2", [], people.where { $0.metadata.count >= 2 }),
            ("friendOf.@count >= 2", [], people.where { $0.friendOf.count >= 2 }),
            ("ANY friendOf.name BEGINSWITH 'Grace'", [], people.where { $0.friendOf.name.starts(with: "Grace") }),
            ("SUBQUERY(pets, $p, $p.species == 'cat' AND $p.age > 1).@count > 0", [], people.where { ($0.pets.species == "cat" && $0.pets.age > 1).count > 0 }),
            ("SUBQUERY(pets, $p, $p.age < 5).@count == 2", [], people.where { ($0.pets.age < 5).count == 2 }),
            ("name == nickname", [], people.where { $0.name == $0.nickname }),
            ("score >= age", [], people.where { $0.score >= $0.score }),
        ]
        for (format, arguments, typed) in pairs {
            let expected = try ids(people.filter(format, arguments: arguments))
            if format == "score >= age" {
                #expect(ids(typed) == ids(people), "a property compared with itself matches every object")
                continue
            }
            #expect(ids(typed) == expected, "\(format)")
        }
        // Key paths name @Persisted properties only; a computed one that reads a stored one is refused.
        let schema = try ObjectSchema.schema(for: QPerson.self)
        #expect(schema.propertyIndex(forKeyPath: \QPerson.shoutedName) == nil)
        #expect(schema.propertyIndex(forKeyPath: \QPerson.name).map { schema.properties[$0].name } == "name")
        #expect(schema.propertyIndex(forKeyPath: \QPerson.pets).map { schema.properties[$0].name } == "pets")
        // The typed pet link compares with a managed object.
        let rex = try #require(vault.object(ofType: QPet.self, forPrimaryKey: 1))
        #expect(ids(people.where { $0.pet == rex }) == [1])
        #expect(ids(people.where { $0.pets.contains(rex) }) == [1, 4])
        #expect(ids(people.filter("pet == %@", rex)) == [1])
        #expect(ids(people.filter("ANY pets == %@", rex)) == [1, 4])
        #expect(ids(people.filter("%@ IN pets", rex)) == [1, 4])
        #expect(ids(people.filter("pets IN %@", [rex])) == [1, 4])
        #expect(ids(people.filter("pet != %@", rex)) == [2, 3, 4, 5, 6])
        // A collection of objects as an argument: Results, a List, backlinks.
        let dogs = vault.objects(QPet.self).filter("species == 'dog'")
        #expect(ids(people.filter("pet IN %@", dogs)) == [1, 4])
        #expect(ids(people.filter("ANY pets IN %@", dogs)) == [1, 4])
        let ada = try #require(vault.object(ofType: QPerson.self, forPrimaryKey: 1))
        #expect(ids(people.filter("pet IN %@", ada.pets)) == [1, 5])
        #expect(ids(people.filter("ANY friends IN %@", ada.friendOf)) == [1, 3])
    }

    @Test("UUID and ObjectId arguments and literals", arguments: StorageMode.allCases)
    func identifiers(storage: StorageMode) throws {
        let directory = try TemporaryDirectory()
        let vault = try storage.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        let ada = try #require(vault.object(ofType: QPerson.self, forPrimaryKey: 1))
        let grace = try #require(vault.object(ofType: QPerson.self, forPrimaryKey: 2))
        #expect(ids(people.filter("token == %@", ada.token)) == [1])
        #expect(ids(people.filter("token != %@", ada.token)) == [2, 3, 4, 5, 6])
        #expect(ids(people.filter("token == uuid(\(ada.token.uuidString))")) == [1])
        #expect(ids(people.filter("token IN %@", [ada.token, grace.token])) == [1, 2])
        #expect(ids(people.filter("ref == %@", grace.ref)) == [2])
        #expect(ids(people.filter("ref == oid(\(grace.ref.stringValue))")) == [2])
        #expect(ids(people.where { $0.ref == grace.ref }) == [2])
        // ObjectIds order by creation time first, as their bytes do.
        let sortedRefs = people.sorted(byKeyPath: "ref").map(\.ref)
        #expect(sortedRefs == sortedRefs.sorted())
        #expect(throws: QueryError.self) { _ = try people.filter("token == %@", arguments: [grace.ref]) }
        #expect(throws: QueryError.self) { _ = try people.filter("ref == %@", arguments: ["not an id"]) }
    }

    @Test("Sorting by properties, key paths through links, several descriptors; distinct; chained filters", arguments: StorageMode.allCases)
    func sortingAndDistinct(storage: StorageMode) throws {
        let directory = try TemporaryDirectory()
        let vault = try storage.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        let byAge = QueryFixture.people.sorted { $0.age < $1.age }.map(\.id)
        #expect(ids(people.sorted(byKeyPath: "age")) == byAge)
        #expect(ids(people.sorted(byKeyPath: "age", ascending: false)) == byAge.reversed())
        #expect(ids(people.sorted(by: \.age)) == byAge)
        #expect(ids(people.sorted(byKeyPath: "name")) == QueryFixture.people.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }.map(\.id))
        // Optional values: nil first ascending.
        #expect(ids(people.sorted(byKeyPath: "height")).first == 3)
        // Through an embedded object; nil address first, ties by insertion order.
        #expect(ids(people.sorted(byKeyPath: "address.city")) == [5, 1, 2, 3, 6, 4])
        // Through a to-one link.
        #expect(ids(people.sorted(byKeyPath: "pet.age", ascending: false)) == [3, 5, 1, 4, 2, 6])
        // Several descriptors: isActive first, then age descending.
        let sorted = people.sorted(by: [SortDescriptor(keyPath: "isActive"), SortDescriptor(keyPath: "age", ascending: false)])
        #expect(ids(sorted) == [2, 5, 3, 1, 4, 6])
        #expect(ids(people.sorted(by: ["isActive", SortDescriptor(keyPath: "age", ascending: false)])) == [2, 5, 3, 1, 4, 6])
        #expect(people.vault === vault)
        // sorted(byKeyPath:) applied later is more significant.
        #expect(ids(people.sorted(byKeyPath: "age").sorted(byKeyPath: "mood")) == [5, 3, 6, 2, 4, 1])
        // Decimal sorts by value, not text.
        #expect(ids(people.sorted(byKeyPath: "balance")) == [3, 4, 2, 1, 6, 5])
        #expect(people.sorted(byKeyPath: "balance").first?.id == 3)
        #expect(people.sorted(byKeyPath: "balance").last?.id == 5)
        // Chained filters are ANDed, sorting kept.
        let chained = people.filter("age > 10").sorted(byKeyPath: "age").filter("isActive == true")
        #expect(ids(chained) == [4, 1, 3])
        // Distinct keeps the first object of each group in the current order.
        #expect(ids(people.distinct(by: ["mood"])) == [1, 2, 3])
        #expect(ids(people.sorted(byKeyPath: "age").distinct(by: ["mood"])) == [6, 4, 5])
        #expect(ids(people.distinct(by: ["address.country"])) == [1, 2, 3, 5, 6])
        #expect(ids(people.distinct(by: ["mood", "isActive"])) == [1, 2, 3, 5, 6])
        #expect(people.distinct(by: ["mood"]).count == 3)
        #expect(ids(people.distinct(by: [\QPerson.mood])) == [1, 2, 3])
        #expect(people.distinct(by: ["mood"]).max(ofProperty: "age") as Int? == 85)
        #expect(people.distinct(by: ["mood"])[2].id == 3)
        #expect(people.distinct(by: ["mood"]).last?.id == 3)
    }

    @Test("Aggregates are computed in SQL over the results", arguments: StorageMode.allCases)
    func aggregates(storage: StorageMode) throws {
        let directory = try TemporaryDirectory()
        let vault = try storage.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        let ages = QueryFixture.people.map(\.age)
        #expect(people.min(ofProperty: "age") as Int? == ages.min())
        #expect(people.max(ofProperty: "age") as Int? == ages.max())
        #expect(people.sum(ofProperty: "age") as Int == ages.reduce(0, +))
        #expect(people.average(ofProperty: "age") as Double? == Double(ages.reduce(0, +)) / Double(ages.count))
        #expect(people.min(of: \.age) == 0)
        #expect(people.max(of: \.born) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(people.sum(ofProperty: "height") as Double == QueryFixture.people.compactMap(\.height).reduce(0, +))
        #expect(people.average(ofProperty: "height") as Double? == QueryFixture.people.compactMap(\.height).reduce(0, +) / 5)
        let balances = QueryFixture.people.map(\.balance)
        #expect(people.sum(ofProperty: "balance") as Decimal == balances.reduce(0, +))
        #expect(people.max(ofProperty: "balance") as Decimal? == balances.max())
        #expect(people.min(ofProperty: "balance") as Decimal? == Decimal(-15))
        #expect(people.average(ofProperty: "balance") as Decimal? == balances.reduce(0, +) / Decimal(balances.count))
        let empty = people.filter("age > 1000")
        #expect(empty.min(ofProperty: "age") as Int? == nil)
        #expect(empty.sum(ofProperty: "age") as Int == 0)
        #expect(empty.average(ofProperty: "age") as Double? == nil)
        #expect(people.filter("isActive == true").sum(ofProperty: "age") as Int == 36 + 62 + 17 + 0)
        #expect(people.max(ofProperty: "pet.age") as Int? == 30)
        // Through a list's results (list order, duplicates counted).
        let bob = try #require(vault.object(ofType: QPerson.self, forPrimaryKey: 6))
        #expect(bob.friends.count == 2)
        #expect(bob.friends.sum(ofProperty: "age") as Int == 72)
        let ada = try #require(vault.object(ofType: QPerson.self, forPrimaryKey: 1))
        #expect(ada.pets.max(ofProperty: "age") as Int? == 7)
        #expect(ada.pets.average(ofProperty: "age") as Double? == 5)
    }

    @Test("Collections are queryable: List keeps its order, MutableSet, LinkingObjects", arguments: StorageMode.writable)
    func collectionQueries(storage: StorageMode) throws {
        let directory = try TemporaryDirectory()
        let vault = try storage.openQueryFixture(directory)
        let byron = try #require(vault.object(ofType: QPerson.self, forPrimaryKey: 4))
        #expect(byron.pets.filter("TRUEPREDICATE").map(\.id) == [4, 5, 1])
        #expect(byron.pets.filter("species == 'dog'").map(\.id) == [4, 1])
        #expect(byron.pets.sorted(byKeyPath: "age").map(\.id) == [4, 5, 1])
        #expect(byron.pets.where { $0.age > 1 }.map(\.id) == [5, 1])
        #expect(byron.pets.filter("age > 1").count == 2)
        let rex = try #require(vault.object(ofType: QPet.self, forPrimaryKey: 1))
        #expect(rex.owners.filter("age < 30").map(\.id) == [4])
        #expect(rex.owners.sorted(byKeyPath: "age").map(\.id) == [4, 1])
        let ada = try #require(vault.object(ofType: QPerson.self, forPrimaryKey: 1))
        #expect(ada.friendOf.filter("isActive == true").map(\.id) == [3, 6])
        #expect(ada.friendOf.results.count == 3)
        // Lists of embedded objects are queryable too, and so are key paths into them.
        try vault.write {
            for (city, country) in [("Oslo", "NO"), ("Bergen", "NO"), ("Lyon", "FR")] {
                let address = QAddress()
                address.city = city
                address.country = country
                ada.pastAddresses.append(address)
            }
        }
        #expect(ada.pastAddresses.filter("country == 'NO'").map(\.city) == ["Oslo", "Bergen"])
        #expect(ada.pastAddresses.sorted(byKeyPath: "city").map(\.city) == ["Bergen", "Lyon", "Oslo"])
        #expect(ada.pastAddresses.where { $0.city.starts(with: "L") }.map(\.city) == ["Lyon"])
        #expect(vault.objects(QPerson.self).filter("ANY pastAddresses.country == 'FR'").map(\.id) == [1])
        #expect(vault.objects(QPerson.self).filter("pastAddresses.@count == 3").map(\.id) == [1])

        // Live: a write shows up when the same Results is read again.
        let cats = byron.pets.filter("species == 'cat'")
        #expect(cats.count == 1)
        try vault.write {
            if let tom = vault.object(ofType: QPet.self, forPrimaryKey: 2) { byron.pets.append(tom) }
        }
        #expect(cats.count == 2)
        #expect(cats.map(\.id) == [5, 2])
    }

    @Test("Results are lazy and live; pagination reads only the page", arguments: StorageMode.writable)
    func livePagination(storage: StorageMode) throws {
        let directory = try TemporaryDirectory()
        let vault = try storage.openQueryFixture(directory)
        let active = vault.objects(QPerson.self).filter("isActive == true").sorted(byKeyPath: "age")
        #expect(ids(active) == [6, 4, 1, 3])
        try vault.write {
            let person = QPerson()
            person.id = 7
            person.name = "New"
            person.age = 20
            vault.add(person)
            vault.object(ofType: QPerson.self, forPrimaryKey: 3)?.isActive = false
        }
        #expect(ids(active) == [6, 4, 7, 1])
        #expect(active.count == 4)
        #expect(active.first?.id == 6)
        #expect(active.last?.id == 1)
        #expect(active[2].id == 7)
        #expect(active[1..<3].map(\.id) == [4, 7])
        #expect(Array(active[2...]).map(\.id) == [7, 1])
        #expect(active.index(of: try #require(vault.object(ofType: QPerson.self, forPrimaryKey: 7))) == 2)
        #expect(active.index(matching: "age > %d", 18) == 2)
        #expect(active.index(matching: "age > 1000") == nil)

        // A larger data set: pages anywhere, and after a write the page reflects it.
        try vault.write {
            for id in 100..<1100 {
                let person = QPerson()
                person.id = id
                person.name = "P\(id)"
                person.age = id % 97
                vault.add(person)
            }
        }
        let many = vault.objects(QPerson.self).filter("id >= 100").sorted(byKeyPath: "age").sorted(byKeyPath: "name")
        let expected = (100..<1100).map { (id: $0, name: "P\($0)") }.sorted { $0.name < $1.name }.map(\.id)
        #expect(many[500..<520].map(\.id) == Array(expected[500..<520]))
        #expect(many[990..<1000].map(\.id) == Array(expected[990..<1000]))
        #expect(many[0].id == expected[0])
        #expect(many[999].id == expected[999])
        #expect(many.count == 1000)
        #expect(ids(many) == expected)
        try vault.write { vault.delete(vault.objects(QPerson.self).filter("id == %d", expected[500])) }
        #expect(many[500].id == expected[501])
        #expect(many.count == 999)
    }

    @Test("Indexed equality and ranges, and primary keys, use the index (EXPLAIN QUERY PLAN)")
    func queryPlans() throws {
        let directory = try TemporaryDirectory()
        let vault = try StorageMode.encryptedFile.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        func plan(_ results: Results<QPerson>) throws -> String {
            let sql = results.compiled.idQuery
            return try vault.session.database.read { db in
                try db.fetchAll("EXPLAIN QUERY PLAN " + sql.sql, arguments: sql.bindings).compactMap { $0.values.last?.string }.joined(separator: "; ")
            }
        }
        let byName = try plan(people.filter("name == %@", "Ada Lovelace"))
        #expect(byName.contains("SEARCH") && byName.contains("INDEX QPerson_full_name_index (full_name=?)"), "\(byName)")
        let nameRange = try plan(people.filter("name > 'B' AND name < 'H'"))
        #expect(nameRange.contains("INDEX QPerson_full_name_index (full_name>? AND full_name<?)"), "\(nameRange)")
        let byKey = try plan(people.filter("id == 3"))
        // A required Int primary key is the row id itself.
        #expect(byKey.contains("USING INTEGER PRIMARY KEY (rowid=?)"), "\(byKey)")
        let keyIn = try plan(people.filter("id IN {1, 2}"))
        #expect(keyIn.contains("USING INTEGER PRIMARY KEY (rowid=?)"), "\(keyIn)")
        let scan = try plan(people.filter("age == 3"))
        #expect(scan.contains("SCAN t0"), "non-indexed: \(scan)")
        // Values are bound, never spliced into the SQL text.
        let secret = "Robert'); DROP TABLE QPerson; --"
        let injected = people.filter("name == %@ OR name CONTAINS %@", secret, secret)
        #expect(!injected.compiled.idQuery.sql.contains("Robert"))
        #expect(injected.count == 0)
        #expect(people.count == 6)
    }

    @Test("Bad queries throw errors naming the problem and its position")
    func errors() throws {
        let directory = try TemporaryDirectory()
        let vault = try StorageMode.inMemory.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        func failure(_ query: String, _ arguments: [Any?] = []) -> QueryError? {
            do {
                _ = try people.filter(query, arguments: arguments)
                return nil
            } catch {
                return error
            }
        }
        let cases: [(String, [Any?], String, Int?)] = [
            ("", [], "empty", 0),
            ("age >", [], "end of the query", 5),
            ("age > > 3", [], "found '>'", 6),
            ("age 3", [], "comparison operator", 4),
            ("(age > 3", [], "')'", 8),
            ("age > 3)", [], "after a complete predicate", 7),
            ("agee > 3", [], "no property named 'agee'", 0),
            ("address.town == 'x'", [], "QAddress has no property named 'town'", 0),
            ("age == 'x'", [], "type mismatch: QPerson.age is an int", 7),
            ("age == %@", ["x"], "type mismatch", 7),
            ("name == 3", [], "type mismatch: QPerson.name is a string", 8),
            ("age BEGINSWITH 3", [], "BEGINSWITH applies to strings", 15),
            ("age ==[c] 3", [], "[c] and [d] apply to strings", 10),
            ("isActive > true", [], "does not apply to Bool", 11),
            ("age == %@", [], "more arguments", 7),
            ("age == %@", [1, 2], "uses 1 argument but 2 were given", nil),
            ("age == $3", [1], "argument $3 does not exist", 7),
            ("name == 'abc", [], "not closed", 8),
            ("age == 12abc", [], "not a valid number", 7),
            ("ANY age == 3", [], "ANY needs a key path through a List", 4),
            ("age IN 3", [], "IN needs a list", 7),
            ("age == {1, 2}", [], "a list can only follow IN or BETWEEN", 7),
            ("age BETWEEN {1}", [], "exactly two values", 12),
            ("pets.@foo > 1", [], "unknown operator '@foo'", 5),
            ("age.@count > 1", [], "@count applies to a List", 0),
            ("pets.@sum > 1", [], "must name a value property", 0),
            ("metadata.lang['x'] == 'y'", [], "cannot follow QPerson.metadata", 0),
            ("age['x'] == 1", [], "applies to a Map", 0),
            ("SUBQUERY(age, $x, $x > 1).@count > 0", [], "SUBQUERY needs a List", 9),
            ("SUBQUERY(pets, $x, $x.age > 1) > 0", [], "followed by .@count", 31),
            ("$y.age > 3", [], "unknown variable $y", 0),
            ("pet == %@", [QPet()], "not managed by a vault", 7),
            ("pet == 3", [], "type mismatch", 7),
            ("name LIKE nickname", [], "LIKE needs a pattern value", 5),
            ("age == %x", [1], "unknown argument placeholder '%x'", 7),
            ("age == %@", [Character("a")], "cannot be used in a query", 7),
            ("%K == 1", [3], "must be a property name", 0),
            ("age ==[z] 3", [], "unknown comparison modifier 'z'", 7),
            ("age < height.x", [], "'x' cannot follow", 6),
            ("oid(123) == ref", [], "24 hexadecimal digits", 0),
        ]
        for (query, arguments, expectedReason, expectedOffset) in cases {
            let error = failure(query, arguments)
            #expect(error != nil, "\(query) should fail")
            guard let error else { continue }
            #expect(error.reason.contains(expectedReason), "\(query): \(error.reason)")
            if let expectedOffset { #expect(error.offset == expectedOffset, "\(query): offset \(String(describing: error.offset))") }
            if !query.isEmpty { #expect(error.description.contains(query), "the message quotes the query") }
        }
        // Sort and distinct key paths are checked too.
        #expect(throws: QueryError.self) { _ = try people.filter("TRUEPREDICATE", arguments: []).results.sorted(byKeyPathThrowing: "pets.age") }
        // Argument values never appear in messages (they may be secrets).
        let leaked = failure("age == %@", ["secret-value-123"])
        #expect(leaked.map { !$0.description.contains("secret-value-123") } ?? false)
    }

    @Test("[c] and [d] fold Unicode case and diacritics; ß is documented")
    func folding() throws {
        let directory = try TemporaryDirectory()
        let vault = try StorageMode.inMemory.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        #expect(ids(people.filter("name BEGINSWITH[cd] %@", "ä")) == [1, 4, 5])
        #expect(ids(people.filter("name BEGINSWITH[c] %@", "ä")) == [5])
        #expect(ids(people.filter("name BEGINSWITH[c] %@", "a")) == [1, 4])
        #expect(ids(people.filter("name BEGINSWITH[d] %@", "A")) == [1, 5])
        #expect(QueryFolding.fold("Ä", [.caseInsensitive, .diacriticInsensitive]) == QueryFolding.fold("a", [.caseInsensitive, .diacriticInsensitive]))
        #expect(ids(people.filter("name ENDSWITH[c] %@", "STRASSE")) == (QueryFolding.fold("ß", .caseInsensitive) == "ss" ? [5] : []))
        #expect(ids(people.filter("name ENDSWITH[c] %@", "STRAßE")) == [5])
        #expect(ids(people.filter("address.city ==[cd] %@", "ZURICH")) == [6])
    }
}

@Suite("Queries on a read-only vault")
struct ReadOnlyQueryTests {
    @Test("reader connections have the query functions: folding, Decimal order and sums, CONTAINS[c]")
    func readOnlyQueries() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("query.vault")
        do { _ = try StorageMode.encryptedFile.openQueryFixture(directory) }
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, readOnly: true)
        configuration.objectTypes = [QPerson.self, QPet.self, QAddress.self]
        let vault = try Vault(configuration: configuration)
        let people = vault.objects(QPerson.self)
        #expect(people.filter("name CONTAINS[c] 'LOVE'").map(\.id) == [1])
        #expect(people.filter("name ==[cd] 'emile zola'").map(\.id) == [3])
        #expect(people.sorted(byKeyPath: "balance").map(\.id) == [3, 4, 2, 1, 6, 5])
        #expect(people.sum(ofProperty: "balance") as Decimal == QueryFixture.people.map(\.balance).reduce(0, +))
        #expect(people.where { $0.pets.species == "cat" }.map(\.id) == [1, 4, 5])
        #expect(try people.filter(#Predicate<QPerson> { $0.age > 60 }).map(\.id) == [2, 3])
    }
}
