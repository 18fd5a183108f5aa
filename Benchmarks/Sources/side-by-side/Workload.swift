import Foundation

/// One object of the benchmark: the six properties.
struct Item: Sendable {
    var id: Int
    var name: String
    var email: String
    var age: Int
    var score: Double
    var created: Date

    /// The item with key `id`, the same in every run (a seeded generator).
    static func make(_ id: Int) -> Item {
        var state = UInt64(truncatingIfNeeded: id) &* 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return Item(id: id, name: "Name \(next() % 100_000)", email: "user\(id)@example.org", age: Int(next() % 90),
                    score: Double(next() % 10_000) / 100, created: Date(timeIntervalSinceReferenceDate: Double(700_000_000 + next() % 10_000_000)))
    }
}

/// What each library does, as its users would write it.
protocol Contender {
    static var name: String { get }
    /// Opens (creating if needed) the store in `directory`; `fullSync`: synchronous = FULL.
    init(directory: URL, fullSync: Bool) throws
    /// Inserts every item in one transaction.
    func bulkInsert(_ items: [Item]) throws
    /// Inserts each item in a transaction of its own.
    func singleCommits(_ items: [Item]) throws
    /// Fetches each key, reading every property; returns a checksum.
    func fetch(_ keys: [Int]) throws -> Int
    /// The library's fastest documented way to fetch by key (GRDB: a cached statement).
    func fetchFast(_ keys: [Int]) throws -> Int
    /// Iterates every object, reading every property.
    func iterateAll() throws -> Int
    /// Iterates the first `count` objects, reading every property, and stops (a loop that breaks early).
    func iteratePrefix(_ count: Int) throws -> Int
    /// `age >= 30 AND age < 40`, reading every property of the matches.
    func filtered() throws -> Int
    /// Changes the score of each key's object, in one transaction.
    func update(_ keys: [Int]) throws
}

/// A checksum of every property, so that no read can be skipped.
@inline(__always)
func checksum(_ id: Int, _ name: String, _ email: String, _ age: Int, _ score: Double, _ created: Date) -> Int {
    id &+ name.utf8.count &+ email.utf8.count &+ age &+ Int(score) &+ Int(created.timeIntervalSinceReferenceDate) & 0xFF
}
