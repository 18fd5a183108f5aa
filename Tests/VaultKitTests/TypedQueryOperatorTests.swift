import Foundation
import Testing
import VaultKit
import VaultTestSupport

// Realm's typed-query operators on collections, maps, enums, two string
// properties and Data, each checked against the same condition computed in
// Swift over the values the objects were made from.

enum TQMood: Int, PersistableEnum { case low = 1, mid = 2, high = 3 }

final class TQItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var nick = ""
    @Persisted var blob = Data()
    @Persisted var optBlob: Data?
    @Persisted var level: Int?
    @Persisted var mood = TQMood.low
    @Persisted var optMood: TQMood?
    @Persisted var scores: List<Int>
    @Persisted var optScores: List<Int?>
    @Persisted var moods: List<TQMood>
    @Persisted var ratings: Map<String, Int>
    @Persisted var optRatings: Map<String, Int?>
    @Persisted var moodByDay: Map<String, TQMood>
}

/// The values one item is made from, which the oracle reads.
struct TQValues {
    var id: Int, name: String, nick: String, blob: [UInt8], optBlob: [UInt8]?, level: Int?
    var mood: TQMood, optMood: TQMood?, scores: [Int], optScores: [Int?], moods: [TQMood]
    var ratings: [String: Int], optRatings: [String: Int?], moodByDay: [String: TQMood]

    /// Deterministic, varied values (empty collections and nils included).
    static func make(_ id: Int) -> TQValues {
        var state = UInt64(id) &* 6364136223846793005 &+ 1442695040888963407
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let words = ["ada", "Ada", "grace", "alan", "da", "race", "lovelace"]
        let moods = TQMood.allCases
        let name = words[next(words.count)] + (next(2) == 0 ? "" : words[next(words.count)])
        return TQValues(
            id: id, name: name, nick: words[next(words.count)],
            blob: (0..<next(5)).map { _ in UInt8(next(4)) }, optBlob: next(3) == 0 ? nil : [UInt8(next(4)), UInt8(next(4))],
            level: next(4) == 0 ? nil : next(10), mood: moods[next(3)], optMood: next(3) == 0 ? nil : moods[next(3)],
            scores: (0..<next(4)).map { _ in next(10) }, optScores: (0..<next(4)).map { _ in next(3) == 0 ? nil : next(10) },
            moods: (0..<next(3)).map { _ in moods[next(3)] },
            ratings: Dictionary(uniqueKeysWithValues: ["a", "b", "c"].prefix(next(4)).map { ($0, next(10)) }),
            optRatings: Dictionary(uniqueKeysWithValues: ["a", "b"].prefix(next(3)).map { ($0, next(3) == 0 ? nil : next(10)) }),
            moodByDay: Dictionary(uniqueKeysWithValues: ["mon", "tue"].prefix(next(3)).map { ($0, moods[next(3)]) }))
    }

    var object: TQItem {
        let item = TQItem(value: ["id": id, "name": name, "nick": nick, "blob": Data(blob), "level": level as Any, "mood": mood])
        item.optBlob = optBlob.map { Data($0) }
        item.optMood = optMood
        item.scores.append(objectsIn: scores)
        item.optScores.append(objectsIn: optScores)
        item.moods.append(objectsIn: moods)
        for (key, value) in ratings { item.ratings[key] = value }
        for (key, value) in optRatings { item.optRatings[key] = value }
        for (key, value) in moodByDay { item.moodByDay[key] = value }
        return item
    }
}

/// Every element (non-nil) in the range, and at least one: Realm's collection `contains(range)`.
private func allIn(_ values: [Int?], _ range: ClosedRange<Int>) -> Bool {
    let present = values.compactMap { $0 }
    return !present.isEmpty && present.allSatisfy(range.contains)
}

private func bytes(_ data: [UInt8], contain part: [UInt8]) -> Bool {
    part.isEmpty || (0...max(0, data.count - part.count)).contains { data.count >= part.count && Array(data[$0..<($0 + part.count)]) == part }
}

@Suite("Typed query operators (Realm's)")
struct TypedQueryOperatorTests {
    struct Case {
        let label: String
        let query: (Query<TQItem>) -> Query<Bool>
        let oracle: (TQValues) -> Bool
        init(_ label: String, _ query: @escaping (Query<TQItem>) -> Query<Bool>, _ oracle: @escaping (TQValues) -> Bool) {
            self.label = label
            self.query = query
            self.oracle = oracle
        }
    }

    static var cases: [Case] { [
        Case("collection == element", { $0.scores == 5 }, { $0.scores.contains(5) }),
        Case("collection != element", { $0.scores != 5 }, { $0.scores.contains { $0 != 5 } }),
        Case("collection > element", { $0.scores > 7 }, { $0.scores.contains { $0 > 7 } }),
        Case("collection <= element", { $0.scores <= 1 }, { $0.scores.contains { $0 <= 1 } }),
        Case("collection min still compares the minimum", { $0.scores.min < 2 }, { ($0.scores.min() ?? 99) < 2 }),
        Case("collection contains closed range", { $0.scores.contains(2...8) }, { allIn($0.scores, 2...8) }),
        Case("collection contains half-open range", { $0.scores.contains(2..<8) }, { allIn($0.scores, 2...7) }),
        Case("optional elements contain range", { $0.optScores.contains(1...6) }, { allIn($0.optScores, 1...6) }),
        Case("map contains value", { $0.ratings.contains(4) }, { $0.ratings.values.contains(4) }),
        Case("map containsAny", { $0.ratings.containsAny(in: [1, 9]) }, { $0.ratings.values.contains { [1, 9].contains($0) } }),
        Case("map contains range", { $0.ratings.contains(3...9) }, { allIn(Array($0.ratings.values), 3...9) }),
        Case("optional map contains range", { $0.optRatings.contains(0...4) }, { allIn(Array($0.optRatings.values), 0...4) }),
        Case("map max", { $0.ratings.max > 6 }, { ($0.ratings.values.max() ?? -1) > 6 }),
        Case("map sum", { $0.ratings.sum >= 10 }, { $0.ratings.values.reduce(0, +) >= 10 }),
        Case("optional value in range", { $0.level.contains(3...6) }, { $0.level.map { (3...6).contains($0) } ?? false }),
        Case("optional value in half-open range", { $0.level.contains(3..<6) }, { $0.level.map { (3..<6).contains($0) } ?? false }),
        Case("enum raw value", { $0.mood.rawValue == 2 }, { $0.mood.rawValue == 2 }),
        Case("enum raw value ordered", { $0.mood.rawValue > 1 }, { $0.mood.rawValue > 1 }),
        Case("optional enum raw value nil", { $0.optMood.rawValue == nil }, { $0.optMood == nil }),
        Case("optional enum raw value", { $0.optMood.rawValue == 3 }, { $0.optMood?.rawValue == 3 }),
        Case("enum collection raw values", { $0.moods.rawValue.contains(3) }, { $0.moods.contains(.high) }),
        Case("enum map raw values", { $0.moodByDay.rawValue.contains(1) }, { $0.moodByDay.values.contains(.low) }),
        Case("string contains another property", { $0.name.contains($0.nick) }, { $0.name.contains($0.nick) }),
        Case("string contains another property, case-insensitive", { $0.name.contains($0.nick, options: .caseInsensitive) },
         { $0.name.lowercased().contains($0.nick.lowercased()) }),
        Case("string starts with another property", { $0.name.starts(with: $0.nick) }, { $0.name.hasPrefix($0.nick) }),
        Case("string ends with another property", { $0.name.ends(with: $0.nick) }, { $0.name.hasSuffix($0.nick) }),
        Case("string equals another property, case-insensitive", { $0.name.equals($0.nick, options: .caseInsensitive) },
         { $0.name.lowercased() == $0.nick.lowercased() }),
        Case("data contains", { $0.blob.contains(Data([1, 2])) }, { bytes($0.blob, contain: [1, 2]) }),
        Case("data starts with", { $0.blob.starts(with: Data([3])) }, { $0.blob.first == 3 }),
        Case("data ends with", { $0.blob.ends(with: Data([0])) }, { $0.blob.last == 0 }),
        Case("optional data contains", { $0.optBlob.contains(Data([2])) }, { $0.optBlob.map { $0.contains(2) } ?? false }),
    ] }

    @Test("each operator selects what the same condition computed in Swift selects", arguments: StorageMode.writable)
    func agreesWithSwift(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("typed-query-operators")
        let values = (1...120).map(TQValues.make)
        let vault = try Vault(configuration: mode.configuration(directory, types: [TQItem.self]))
        try vault.write { vault.add(values.map(\.object)) }
        let all = vault.objects(TQItem.self)
        for test in Self.cases {
            let expected = values.filter(test.oracle).map(\.id)
            #expect(!expected.isEmpty && expected.count < values.count, "\(test.label): the data should separate the objects")
            #expect(all.where(test.query).map(\.id).sorted() == expected, "\(test.label)")
        }
    }
}
