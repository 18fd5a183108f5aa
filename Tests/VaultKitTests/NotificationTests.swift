import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

final class NItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0
    @Persisted var owner: NOwner?
    convenience init(_ id: Int, _ name: String, score: Int = 10) {
        self.init()
        self.id = id
        self.name = name
        self.score = score
    }
}

final class NOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var items: List<NItem>
    @Persisted var tags: MutableSet<String>
}

/// What one observer received, in order.
final class Received<C> {
    var changes: [VaultCollectionChange<C>] = []
    var updates: [(deletions: [Int], insertions: [Int], modifications: [Int])] {
        changes.compactMap { change in
            if case .update(_, let deletions, let insertions, let modifications) = change { return (deletions, insertions, modifications) }
            return nil
        }
    }
    var initialCount: Int { changes.filter { if case .initial = $0 { true } else { false } }.count }
}

/// Replays a change on the old array as UIKit does: deletions (old indices,
/// from the end), then insertions (new indices, ascending).
func replay<T>(_ old: [T], deletions: [Int], insertions: [Int], new: [T]) -> [T] {
    var result = old
    for index in deletions.sorted(by: >) { result.remove(at: index) }
    for index in insertions.sorted() { result.insert(new[index], at: index) }
    return result
}

/// Adds owner `id` with items `ids`, each linking back to it (inside a write).
func addOwner(_ id: Int, items ids: ClosedRange<Int>, to vault: Vault) {
    let owner = NOwner(value: ["id": id, "name": "o"])
    vault.add(owner)
    for itemID in ids {
        let item = NItem(itemID, "i\(itemID)")
        item.owner = owner
        vault.add(item)
        owner.items.append(item)
    }
}

func itemVault(_ directory: TemporaryDirectory) throws -> Vault {
    try Vault(configuration: Vault.Configuration(fileURL: directory.file("notify.vault"), encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self]))
}

@Suite("Notifications: Realm's change sets, delivered at the vault's advance points")
struct NotificationTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("notify") }

    @Test("a sorted, filtered Results: insertions, deletions, modifications and reorders in one commit follow Realm's index conventions")
    func indexConventions() throws {
        let vault = try itemVault(directory)
        try vault.write { for (id, name) in ["a", "b", "c", "d", "e", "f"].enumerated() { vault.add(NItem(id, name)) } }
        let results = vault.objects(NItem.self).filter("score >= 10").sorted(byKeyPath: "name")
        let received = Received<Results<NItem>>()
        let token = results.observe { received.changes.append($0) }
        vault.refresh()
        #expect(received.initialCount == 1)
        let old = results.map(\.name)
        #expect(old == ["a", "b", "c", "d", "e", "f"])

        try vault.write {
            vault.add(NItem(10, "g", score: 20))                                      // inserted
            vault.delete(try #require(vault.object(ofType: NItem.self, forPrimaryKey: 2)))  // c deleted
            vault.object(ofType: NItem.self, forPrimaryKey: 3)?.score = 11            // d modified in place
            vault.object(ofType: NItem.self, forPrimaryKey: 1)?.name = "zz"           // b moved to the end
            vault.object(ofType: NItem.self, forPrimaryKey: 4)?.score = 5             // e leaves the filter
            if let f = vault.object(ofType: NItem.self, forPrimaryKey: 5) { f.name = f.name }  // f: same value written
        }
        vault.refresh()
        let new = results.map(\.name)
        #expect(new == ["a", "d", "f", "g", "zz"])
        let update = try #require(received.updates.last)
        #expect(update.deletions == [1, 2, 4])
        #expect(update.insertions == [3, 4])
        #expect(update.modifications == [3, 5], "d and f, by old index; a self-assignment counts")
        #expect(replay(old, deletions: update.deletions, insertions: update.insertions, new: new) == new)
        token.invalidate()
    }

    @Test("a commit that writes only columns the query does not read keeps the ids (no re-run) and reports modifications; one it reads re-runs it")
    func queryDependencies() throws {
        let vault = try itemVault(directory)
        try vault.write {
            vault.add(NOwner(value: ["id": 1, "name": "o"]))
            for (id, name) in ["c", "a", "b"].enumerated() { vault.add(NItem(id, name)) }
        }
        let results = vault.objects(NItem.self).filter("score >= 10").sorted(byKeyPath: "name")
        let received = Received<Results<NItem>>()
        let token = results.observe { received.changes.append($0) }
        vault.refresh()
        try vault.write { vault.object(ofType: NItem.self, forPrimaryKey: 2)?.owner = vault.object(ofType: NOwner.self, forPrimaryKey: 1) }
        vault.refresh()
        #expect(received.updates.last?.modifications == [1], "b (index 1 by name) was written; the order cannot have changed")
        #expect(received.updates.last?.insertions == [] && received.updates.last?.deletions == [])
        try vault.write { vault.object(ofType: NItem.self, forPrimaryKey: 1)?.score = 3 }
        vault.refresh()
        #expect(received.updates.last?.deletions == [0], "a left the filter: the query re-ran")
        #expect(results.map(\.name) == ["b", "c"])
        withExtendedLifetime(token) {}
    }

    @Test("several commits merge into one update; an object inserted then deleted in between is never mentioned; no empty updates")
    func coalescing() throws {
        let vault = try itemVault(directory)
        try vault.write { vault.add(NItem(1, "a")); vault.add(NItem(2, "b")) }
        let results = vault.objects(NItem.self)
        let received = Received<Results<NItem>>()
        let token = results.observe { received.changes.append($0) }
        vault.refresh()
        try vault.write { vault.add(NItem(3, "x")); vault.object(ofType: NItem.self, forPrimaryKey: 1)?.score = 99 }
        try vault.write { vault.delete(try #require(vault.object(ofType: NItem.self, forPrimaryKey: 3))); vault.add(NItem(4, "y")) }
        vault.refresh()
        #expect(received.updates.count == 1)
        #expect(received.updates.first?.deletions == [])
        #expect(received.updates.first?.insertions == [2])
        #expect(received.updates.first?.modifications == [0])

        // Inserted and deleted between two deliveries, and a commit to another class: nothing to say.
        try vault.write { vault.add(NItem(5, "gone")) }
        try vault.write {
            vault.delete(try #require(vault.object(ofType: NItem.self, forPrimaryKey: 5)))
            vault.add(NOwner(value: ["id": 1, "name": "o"]))
        }
        vault.refresh()
        #expect(received.updates.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test("key paths: only writes to the listed properties count as modifications; insertions and deletions always do")
    func keyPathFiltering() throws {
        let vault = try itemVault(directory)
        try vault.write { vault.add(NItem(1, "a")); vault.add(NItem(2, "b")) }
        let results = vault.objects(NItem.self)
        let byScore = Received<Results<NItem>>(), byName = Received<Results<NItem>>(), all = Received<Results<NItem>>()
        let tokens = [results.observe(keyPaths: ["score"]) { byScore.changes.append($0) },
                      results.observe(keyPaths: ["name"]) { byName.changes.append($0) },
                      results.observe { all.changes.append($0) }]
        vault.refresh()
        try vault.write { vault.object(ofType: NItem.self, forPrimaryKey: 1)?.name = "renamed" }
        vault.refresh()
        #expect(byScore.updates.isEmpty)
        #expect(byName.updates.map(\.modifications) == [[0]])
        #expect(all.updates.map(\.modifications) == [[0]])
        try vault.write { vault.add(NItem(3, "c")) }
        vault.refresh()
        #expect(byScore.updates.map(\.insertions) == [[2]])
        withExtendedLifetime(tokens) {}
    }

    @Test("deleting an object removes it from observed lists (a cascade) and nils links to it (a link modification)")
    func cascadesAndSetNull() throws {
        let vault = try itemVault(directory)
        try vault.write { addOwner(1, items: 1...3, to: vault) }
        let owner = try #require(vault.object(ofType: NOwner.self, forPrimaryKey: 1))
        let listChanges = Received<List<NItem>>()
        let listToken = owner.items.observe { listChanges.changes.append($0) }
        let items = vault.objects(NItem.self)
        let linkChanges = Received<Results<NItem>>()
        let linkToken = items.observe(keyPaths: ["owner"]) { linkChanges.changes.append($0) }
        vault.refresh()

        try vault.write { vault.delete(try #require(vault.object(ofType: NItem.self, forPrimaryKey: 2))) }
        vault.refresh()
        #expect(listChanges.updates.map(\.deletions) == [[1]])
        #expect(owner.items.map(\.id) == [1, 3])

        try vault.write { vault.delete(owner) }
        vault.refresh()
        let update = try #require(linkChanges.updates.last)
        #expect(update.modifications == [0, 1], "ON DELETE SET NULL wrote the owner link of both items left")
        #expect(items.allSatisfy { $0.owner == nil })
        withExtendedLifetime((listToken, linkToken)) {}
    }

    @Test("an object observer gets each written property with old and new values, then .deleted; no initial call")
    func objectObservation() throws {
        let vault = try itemVault(directory)
        try vault.write { vault.add(NItem(1, "a", score: 1)) }
        let item = try #require(vault.object(ofType: NItem.self, forPrimaryKey: 1))
        var changes: [ObjectChange<NItem>] = []
        let token = item.observe { changes.append($0) }
        vault.refresh()
        #expect(changes.isEmpty)
        try vault.write { item.score = 2; item.name = "a" }
        vault.refresh()
        guard case .change(let object, let properties)? = changes.last else { Issue.record("expected a change, got \(changes)"); return }
        #expect(object === item)
        #expect(properties.map(\.name) == ["name", "score"])
        #expect(properties.last?.oldValue as? Int == 1 && properties.last?.newValue as? Int == 2)
        #expect(properties.first?.oldValue as? String == "a" && properties.first?.newValue as? String == "a")
        try vault.write { vault.delete(item) }
        vault.refresh()
        guard case .deleted? = changes.last else { Issue.record("expected .deleted"); return }
        #expect(changes.count == 2)
        withExtendedLifetime(token) {}
    }

    @Test("commits from another thread (another Vault instance) and another process reach observers at refresh()")
    func otherThreadsAndProcesses() throws {
        let vault = try itemVault(directory)
        try vault.write { vault.add(NItem(1, "a")) }
        let results = vault.objects(NItem.self)
        let received = Received<Results<NItem>>()
        let token = results.observe { received.changes.append($0) }
        vault.refresh()
        let url = directory.file("notify.vault")
        try onNewThread {
            let other = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self]))
            try other.write {
                other.add(NItem(2, "b"))
                other.object(ofType: NItem.self, forPrimaryKey: 1)?.score = 50
            }
        }
        #expect(received.updates.isEmpty, "nothing is delivered before the vault advances")
        #expect(vault.refresh())
        #expect(received.updates.count == 1)
        #expect(received.updates.first?.insertions == [1])
        #expect(received.updates.first?.modifications == [0], "captured on the other thread's writer, in this process")

        let hex = testKey.map { String(format: "%02x", $0) }.joined()
        let output = try runHelper(["execute", url.path, """
            INSERT INTO "NItem"("_vk_id", "name", "score") VALUES (3, 'from another process', 1);
            UPDATE _vaultkit_metadata SET value = value + 1 WHERE key = 'commitSequence';
            """], input: hex)
        #expect(output.contains("committed"))
        #expect(vault.refresh())
        #expect(received.updates.count == 2)
        #expect(received.updates.last?.insertions == [2])
        withExtendedLifetime(token) {}
    }

    @Test("no delivery after invalidate() or after the token is released; write(withoutNotifying:) skips one commit")
    func tokensAndSkipping() throws {
        let vault = try itemVault(directory)
        try vault.write { vault.add(NItem(1, "a")) }
        let results = vault.objects(NItem.self)
        let invalidated = Received<Results<NItem>>(), released = Received<Results<NItem>>(), skipping = Received<Results<NItem>>()
        let first = results.observe { invalidated.changes.append($0) }
        var second: NotificationToken? = results.observe { released.changes.append($0) }
        let third = results.observe { skipping.changes.append($0) }
        vault.refresh()
        #expect(second != nil)
        first.invalidate()
        second = nil
        try vault.write(withoutNotifying: [third]) { vault.add(NItem(2, "b")) }
        vault.refresh()
        #expect(invalidated.changes.count == 1 && released.changes.count == 1, "only .initial")
        #expect(skipping.updates.isEmpty, "the skipped commit is not delivered")
        try vault.write { vault.add(NItem(3, "c")) }
        vault.refresh()
        #expect(skipping.updates.map(\.insertions) == [[2]], "later commits are, from the state after the skipped one")
        #expect(invalidated.changes.count == 1 && released.changes.count == 1)
        withExtendedLifetime(third) {}
    }

    @Test("Vault.observe hears .didChange after each commit through the vault and at a refresh that moves it")
    func vaultObservation() throws {
        let vault = try itemVault(directory)
        var heard: [VaultNotification] = []
        let token = vault.observe { notification, observed in
            heard.append(notification)
            #expect(observed.session === vault.session)
        }
        try vault.write { vault.add(NItem(1, "a")) }
        #expect(heard == [.didChange])
        #expect(!vault.refresh())
        #expect(heard == [.didChange])

        // write(withoutNotifying:) silences the listed vault observation for that commit only
        // (realm-swift's testWillChangeLocalWriteWithoutNotifying); others still hear it.
        var otherHeard = 0
        let other = vault.observe { _, _ in otherHeard += 1 }
        try vault.write(withoutNotifying: [token]) { vault.add(NItem(2, "b")) }
        #expect(heard == [.didChange] && otherHeard == 1)
        vault.beginWrite()
        vault.add(NItem(3, "c"))
        try vault.commitWrite(withoutNotifying: [token])
        #expect(heard == [.didChange] && otherHeard == 2)
        try vault.write { vault.add(NItem(4, "d")) }
        #expect(heard == [.didChange, .didChange] && otherHeard == 3)
        withExtendedLifetime([token, other]) {}
    }
}
