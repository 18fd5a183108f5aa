import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// What a List observer hears for each kind of edit, as Realm reports it: the
// entries an edit shifts (a removal's or an insertion's neighbours, a move's
// span) are not modified — only a write to an element's object is. A list
// rewrite renumbers the positions of the entries it keeps; those UPDATEs
// are not writes of the elements.

final class LEStop: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

final class LERoute: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var stops: List<LEStop>
    @Persisted var labels: List<String>
}

@Suite("List edits: insertions, deletions and modifications as Realm reports them")
struct ListEditChangeTests {
    let directory: TemporaryDirectory
    let vault: Vault
    let route: LERoute

    init() throws {
        directory = try TemporaryDirectory("list-edit-changes")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("routes.vault"), encryptionKey: testKey,
                                                                 objectTypes: [LEStop.self, LERoute.self]))
        try vault.write {
            vault.create(LERoute.self, value: ["id": 1, "stops": (1...4).map { ["id": $0, "name": "s\($0)"] }, "labels": ["a", "b", "c", "d"]])
        }
        self.vault = vault
        route = try #require(vault.object(ofType: LERoute.self, forPrimaryKey: 1))
    }

    /// Runs `edit` in a write and returns the one update each list's observer heard,
    /// after checking that replaying it on the old contents gives the new ones.
    private func changes(_ edit: () -> Void) throws -> (stops: (deletions: [Int], insertions: [Int], modifications: [Int]),
                                                       labels: (deletions: [Int], insertions: [Int], modifications: [Int])) {
        let stops = Received<List<LEStop>>(), labels = Received<List<String>>()
        let tokens = [route.stops.observe { stops.changes.append($0) }, route.labels.observe { labels.changes.append($0) }]
        defer { tokens.forEach { $0.invalidate() } }
        vault.refresh()
        let oldStops = route.stops.map(\.id), oldLabels = Array(route.labels)
        try vault.write(edit)
        vault.refresh()
        let stopUpdate = try #require(stops.updates.last), labelUpdate = labels.updates.last ?? ([], [], [])
        #expect(replay(oldStops, deletions: stopUpdate.deletions, insertions: stopUpdate.insertions, new: route.stops.map(\.id)) == route.stops.map(\.id))
        #expect(replay(oldLabels, deletions: labelUpdate.deletions, insertions: labelUpdate.insertions, new: Array(route.labels)) == Array(route.labels))
        return (stopUpdate, labelUpdate)
    }

    @Test("append, insert and remove report the entry they add or remove, and no modification of the others")
    func appendInsertRemove() throws {
        var update = try changes { route.stops.append(LEStop(value: [5, "s5"])); route.labels.append("e") }
        #expect(update.stops.insertions == [4] && update.stops.deletions.isEmpty && update.stops.modifications.isEmpty)
        #expect(update.labels.insertions == [4] && update.labels.modifications.isEmpty)
        update = try changes { route.stops.remove(at: 1); route.labels.remove(at: 1) }
        #expect(update.stops.deletions == [1] && update.stops.insertions.isEmpty && update.stops.modifications.isEmpty)
        #expect(update.labels.deletions == [1] && update.labels.modifications.isEmpty)
        update = try changes { route.stops.insert(LEStop(value: [6, "s6"]), at: 0); route.labels.insert("f", at: 0) }
        #expect(update.stops.insertions == [0] && update.stops.deletions.isEmpty && update.stops.modifications.isEmpty)
        #expect(update.labels.insertions == [0] && update.labels.modifications.isEmpty)
    }

    @Test("moves and swaps are deletions and insertions, never modifications")
    func movesAndSwaps() throws {
        var update = try changes { route.stops.move(from: 0, to: 2); route.labels.move(from: 0, to: 2) }
        #expect(update.stops.modifications.isEmpty && update.labels.modifications.isEmpty)
        #expect(route.stops.map(\.id) == [2, 3, 1, 4] && Array(route.labels) == ["b", "c", "a", "d"])
        update = try changes { route.stops.swapAt(0, 3); route.labels.swapAt(0, 3) }
        #expect(update.stops.modifications.isEmpty && update.labels.modifications.isEmpty)
        #expect(route.stops.map(\.id) == [4, 3, 1, 2] && Array(route.labels) == ["d", "c", "a", "b"])
    }

    @Test("writing an element's object modifies its index only; removeAll deletes every index")
    func elementWriteAndRemoveAll() throws {
        var update = try changes { route.stops[2].name = "renamed" }
        #expect(update.stops.modifications == [2] && update.stops.insertions.isEmpty && update.stops.deletions.isEmpty)
        update = try changes { route.stops.removeAll(); route.labels.removeAll() }
        #expect(update.stops.deletions == [0, 1, 2, 3] && update.labels.deletions == [0, 1, 2, 3])
        #expect(update.stops.modifications.isEmpty)
    }
}
