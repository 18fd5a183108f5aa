import Foundation
import Testing
import VaultKit
import VaultTestSupport

// List as Realm's MutableCollection: in-place reordering, range assignment,
// and a list assigned back to its own property.

final class ReorderStop: EmbeddedObject {
    @Persisted var name = ""
}

final class ReorderRoute: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var scores: List<Int>
    @Persisted var stops: List<ReorderStop>
}

/// A generator with a fixed sequence, so a shuffle can be checked.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state
    }
}

@Suite("List reordering (MutableCollection)")
struct ListReorderingTests {
    @Test("reverse, sort, shuffle, partition, swapAt and a range assignment reorder a managed list in a write", arguments: StorageMode.writable)
    func managed(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("list-reordering")
        let vault = try Vault(configuration: mode.configuration(directory, types: [ReorderRoute.self, ReorderStop.self]))
        let route = ReorderRoute(value: ["id": 1, "scores": [5, 3, 9, 1, 7]])
        try vault.write { vault.add(route) }
        let scores = route.scores
        try vault.write { route.scores.reverse() }
        #expect(Array(scores) == [7, 1, 9, 3, 5])
        try vault.write { route.scores.sort() }
        #expect(Array(scores) == [1, 3, 5, 7, 9])
        try vault.write { route.scores.sort(by: >) }
        #expect(Array(scores) == [9, 7, 5, 3, 1])
        var generator = SeededGenerator(state: 42)
        var expected = SeededGenerator(state: 42)
        try vault.write { route.scores.shuffle(using: &generator) }
        #expect(Array(scores) == Array(0..<5).shuffled(using: &expected).map { [9, 7, 5, 3, 1][$0] })
        // Swift's generic algorithms, through the property's setter.
        try vault.write {
            route.scores.sort()
            let pivot = route.scores.partition { $0 > 4 }
            #expect(pivot == 2)
            route.scores.swapAt(0, 1)
        }
        #expect(Array(scores.prefix(2)).sorted() == [1, 3] && Set(scores.suffix(3)) == [5, 7, 9] && scores[0] == 3)
        try vault.write { route.scores[0..<2] = route.scores[3..<5] }
        #expect(scores.count == 5 && Array(scores[0..<2]) == Array(scores[3..<5]))
        let typed = try #require(vault.object(ofType: ReorderRoute.self, forPrimaryKey: 1))
        #expect(Array(typed.scores) == Array(scores), "what another read of the object sees")
    }

    @Test("an embedded list reordered or assigned to its own property keeps its objects; the write succeeds")
    func embedded() throws {
        let directory = try TemporaryDirectory("list-reordering-embedded")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [ReorderRoute.self, ReorderStop.self]))
        let route = ReorderRoute(value: ["id": 1, "stops": [["name": "a"], ["name": "b"], ["name": "c"]]])
        try vault.write { vault.add(route) }
        try vault.write { route.stops.reverse() }
        #expect(route.stops.map(\.name) == ["c", "b", "a"])
        try vault.write {
            route.stops = route.stops
            route["stops"] = route["stops"]
            _ = route.stops.partition { $0.name == "c" }
        }
        #expect(route.stops.map(\.name) == ["a", "b", "c"] || route.stops.map(\.name) == ["b", "a", "c"])
        #expect(route.stops.count == 3 && vault.objects(ReorderRoute.self).count == 1)
        var changes: [String] = []
        let token = route.stops.observe { change in
            if case .update(_, let deletions, let insertions, _) = change { changes.append("\(deletions)/\(insertions)") }
        }
        try vault.write { route.stops = route.stops }
        vault.refresh()
        #expect(changes.isEmpty, "assigning a list to itself changes nothing")
        token.invalidate()
    }

    @Test("an unmanaged list sorts and reverses in memory")
    func unmanaged() {
        let list = List<String>()
        list.append(objectsIn: ["b", "c", "a"])
        list.sort()
        #expect(Array(list) == ["a", "b", "c"])
        list.reverse()
        #expect(Array(list) == ["c", "b", "a"])
    }
}
