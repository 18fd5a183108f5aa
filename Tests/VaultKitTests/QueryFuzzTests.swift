import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

/// Random and mutated query strings: every outcome must be results or a
/// `QueryError`, never a crash or an SQLite error. Bounded in time, seeded so
/// a failure can be replayed.
@Suite("Query parser fuzzing")
struct QueryFuzzTests {
    /// SplitMix64 (VaultTestSupport): the seed is printed on failure.
    typealias Generator = SplitMix64

    static let seeds = [
        "age > 30 AND isActive == true", "name BEGINSWITH[cd] %@", "ANY pets.species == 'dog'",
        "SUBQUERY(pets, $p, $p.age > 1 AND $p.name CONTAINS[c] 'o').@count > 0", "metadata['lang'] ==[c] %@",
        "NOT (height == nil OR score < -1.5e2)", "tags.@count >= 2 || %K IN {1, 2, 3}", "born > T0:0 AND balance BETWEEN {0, 100}",
        "ALL friends.address.city == 'London'", "NONE scores > 5", "ref == oid(507f1f77bcf86cd799439011)", "avatar == B64\"AQID\"",
        "pets.@avg.age < 5 AND friends.@max.age > age", "name LIKE '?da*' AND nickname != nil", "$0 IN tags",
        "token == uuid(6C7D1E5A-0F1B-4C8E-9A2B-3D4E5F607182)", "TRUEPREDICATE", "metadata.@allKeys == 'x'",
    ]
    static let fragments = [
        " ", "(", ")", "{", "}", "[", "]", "'", "\"", "\\", ",", ".", "$", "%", "%@", "%K", "%d", "@", "@count", "@sum", "@min",
        "==", "!=", "<", ">=", "=<", "&&", "||", "!", "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN",
        "BEGINSWITH", "CONTAINS", "LIKE", "[c]", "[cd]", "[x]", "nil", "true", "NULL", "SUBQUERY(", "$x", "$x.", "oid(", "uuid(",
        "T1:2", "B64\"", "0x", "1e", "-", "1.5", "99999999999999999999999", "age", "name", "pets", "friends", "metadata",
        "address.city", "tags", "scores", "friendOf", "pet.owners", "é", "ß", "\u{0}", "\u{FFFF}", "🙂", "'x'", "{1,2}",
    ]

    @Test("Random and mutated queries give results or a QueryError", arguments: StorageMode.allCases)
    func fuzz(storage: StorageMode) throws {
        let directory = try TemporaryDirectory()
        let vault = try storage.openQueryFixture(directory)
        let people = vault.objects(QPerson.self)
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = Generator(seed: seed)
        let deadline = Date().addingTimeInterval(4)
        let argumentPool: [Any?] = [
            "x", 3, 2.5, true, nil, Date(timeIntervalSince1970: 5), Data([1]), Decimal(1), ["a", "b"], [1, 2], UUID(),
            ObjectId(), "age", "pets.@count", Mood.calm, Level.high,
        ]
        var outcomes = (results: 0, errors: 0)
        var iteration = 0
        while Date() < deadline || iteration < 300 {
            iteration += 1
            var query: String
            switch generator.next() % 3 {
            case 0:
                // Random fragments.
                query = (0..<Int(generator.next() % 12 + 1)).map { _ in Self.fragments[Int(generator.next() % UInt64(Self.fragments.count))] }.joined(separator: generator.next() % 2 == 0 ? " " : "")
            case 1:
                // A valid query with bytes deleted, duplicated or replaced.
                var bytes = Array(Self.seeds[Int(generator.next() % UInt64(Self.seeds.count))].utf8)
                for _ in 0..<Int(generator.next() % 4 + 1) where !bytes.isEmpty {
                    let index = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 3 {
                    case 0: bytes.remove(at: index)
                    case 1: bytes.insert(bytes[index], at: index)
                    default: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                    }
                }
                query = String(decoding: bytes, as: UTF8.self)
            default:
                // Two valid queries spliced at random points.
                let a = Self.seeds[Int(generator.next() % UInt64(Self.seeds.count))]
                let b = Self.seeds[Int(generator.next() % UInt64(Self.seeds.count))]
                query = String(a.prefix(Int(generator.next() % UInt64(a.count + 1)))) + String(b.suffix(Int(generator.next() % UInt64(b.count + 1))))
            }
            let arguments = (0..<Int(generator.next() % 4)).map { _ in argumentPool[Int(generator.next() % UInt64(argumentPool.count))] }
            do {
                let results = try people.filter(query, arguments: arguments)
                // Running it must not fail either: count, ids, and a sorted page.
                let count = results.count
                #expect(results.map(\.id).count == count, "seed \(seed): \(query)")
                _ = results.first
                outcomes.results += 1
            } catch {
                #expect(!error.reason.isEmpty, "seed \(seed): \(query)")
                // The compiler must never produce SQL that SQLite refuses.
                #expect(!error.reason.hasPrefix("SQLite could not prepare"), "seed \(seed): \(query): \(error.reason)")
                outcomes.errors += 1
            }
        }
        // Deeply nested input is refused, not a stack overflow.
        let deep = String(repeating: "(", count: 5000) + "age > 1" + String(repeating: ")", count: 5000)
        #expect(throws: QueryError.self) { _ = try people.filter(deep, arguments: []) }
        let notChain = String(repeating: "NOT ", count: 5000) + "age > 1"
        #expect(throws: QueryError.self) { _ = try people.filter(notChain, arguments: []) }
        #expect(outcomes.results > 0 && outcomes.errors > 0, "seed \(seed): \(outcomes)")
    }
}
