import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

@Suite("Frozen data: freeze(), thaw(), isFrozen")
struct FreezingTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("frozen") }

    @Test("frozen results, objects and lists read from 8 threads at once while writers commit keep the values of the freeze")
    func concurrentFrozenReads() throws {
        let configuration = threadingConfiguration(directory)
        let vault = try Vault(configuration: configuration)
        try seedBox(vault)
        try vault.write { for id in 4...200 { vault.add(TItem(id, "item \(id)")) } }
        try vault.write { for item in vault.objects(TItem.self) { item.score = item.id } }

        let results = Frozen(vault.objects(TItem.self).sorted(byKeyPath: "id"))
        let first = Frozen(try #require(vault.object(ofType: TItem.self, forPrimaryKey: 1)))
        let list = Frozen(try #require(vault.object(ofType: TBox.self, forPrimaryKey: 1)).items)
        let frozenVault = vault.freeze()
        #expect(results.isFrozen && first.isFrozen && list.isFrozen && frozenVault.isFrozen && !vault.isFrozen)
        #expect(frozenVault.commitSequence == vault.commitSequence)

        let writing = Locked(true)
        let writer = Thread {
            guard let live = try? Vault(configuration: configuration) else { return }
            for round in 1...30 {
                try? live.write {
                    for item in live.objects(TItem.self).filter("id <= 50") { item.score += 1000; item.name = "round \(round)" }
                    live.add(TItem(1000 + round, "new"))
                    if let doomed = live.object(ofType: TItem.self, forPrimaryKey: 200 - round) { live.delete(doomed) }
                }
            }
            writing.withLock { $0 = false }
        }
        writer.start()

        let expectedSum = (1...200).reduce(0, +)
        let mismatches = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var rounds = 0
            while rounds < 10 || writing.withLock({ $0 }) && rounds < 400 {
                rounds += 1
                var sum = 0
                var count = 0
                for item in results.value { sum += item.score; count += 1 }
                let problems = [
                    count == 200 ? nil : "count \(count)",
                    sum == expectedSum ? nil : "sum \(sum)",
                    results.value[worker * 10].name == "item \(worker * 10 + 1)" ? nil : "name at \(worker * 10)",
                    first.score == 1 && first.name == "item 1" ? nil : "first \(first.score)",
                    list.value.map(\.id) == [1, 2, 3] ? nil : "list",
                    results.value.filter("score > 100").count == 100 ? nil : "filter",
                ].compactMap { $0 }
                if !problems.isEmpty { mismatches.withLock { $0 += problems } }
            }
        }
        while writing.withLock({ $0 }) { usleep(1000) }
        #expect(mismatches.withLock { $0 }.isEmpty, "\(mismatches.withLock { $0 }.prefix(5))")

        vault.refresh()
        #expect(vault.objects(TItem.self).count == 200, "30 added, 30 deleted")
        #expect(try #require(vault.object(ofType: TItem.self, forPrimaryKey: 1)).score == 30_001)
        #expect(results.value.count == 200 && first.score == 1, "still the version frozen")
    }

    @Test("filter on one frozen results from 8 threads at once: the query templates they share stay consistent")
    func concurrentFrozenFilters() throws {
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try vault.write { for id in 1...200 { vault.add(TItem(id, "item \(id)")) } }
        let items = Frozen(vault.objects(TItem.self))
        let mismatches = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<300 {
                let id = (worker * 37 + round) % 200 + 1
                // Many shapes, so that threads store templates (and the cache fills and clears) while others look them up.
                let extra = 1000 + (worker * 300 + round) % 300
                let checks: [(String, [Any?], Int)] = [
                    ("id == %@", [id], 1),
                    ("id == %@ OR id == \(extra)", [id], 1),
                    ("name == %@ AND id >= %@", ["item \(id)", id], 1),
                    ("id >= %@ AND id < %@", [id, id + 10], min(10, 201 - id)),
                ]
                for (format, arguments, expected) in checks {
                    let count = (try? items.value.filter(format, arguments: arguments).count) ?? -1
                    if count != expected { mismatches.withLock { $0.append("\(format) \(arguments): \(count)") } }
                }
                // The other reads of a fresh frozen Results, each building its SQL on first use.
                let matches = items.value.filter("id >= %@", id)
                let problems = [
                    matches.first?.id == id ? nil : "first",
                    matches.last?.id == 200 ? nil : "last",
                    matches.max(ofProperty: "id") as Int? == 200 ? nil : "max",
                    matches.map(\.id).first == id ? nil : "iteration",
                    matches.sorted(byKeyPath: "id", ascending: false).first?.id == 200 ? nil : "sorted",
                    items.value.vault?.object(ofType: TItem.self, forPrimaryKey: id)?.name == "item \(id)" ? nil : "object(ofType:forPrimaryKey:)",
                ].compactMap { $0 }
                if !problems.isEmpty { mismatches.withLock { $0 += problems } }
            }
        }
        #expect(mismatches.withLock { $0 }.isEmpty, "\(mismatches.withLock { $0 }.prefix(5))")
    }

    @Test("key lookups and dynamic objects of one frozen vault from 8 threads at once, each thread other keys: the caches they share hold")
    func concurrentFrozenKeyLookups() throws {
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try vault.write { for id in 1...4_000 { vault.add(TItem(id, "item \(id)")) } }
        let frozen = Frozen(vault.objects(TItem.self))
        let mismatches = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            guard let frozenVault = frozen.value.vault else { return mismatches.withLock { $0.append("no vault") } }
            // Each thread its own keys (and misses): the cache grows and rehashes while others read it.
            for id in stride(from: worker + 1, through: 4_400, by: 8) {
                let name = frozenVault.object(ofType: TItem.self, forPrimaryKey: id)?.name
                if name != (id <= 4_000 ? "item \(id)" : nil) { mismatches.withLock { $0.append("key \(id): \(name ?? "nil")") } }
                if id % 97 == 0, frozenVault.dynamicObject(ofType: "TItem", forPrimaryKey: id)?["name"] as? String != (id <= 4_000 ? "item \(id)" : nil) {
                    mismatches.withLock { $0.append("dynamic \(id)") }
                }
            }
        }
        #expect(mismatches.withLock { $0 }.isEmpty, "\(mismatches.withLock { $0 }.prefix(5))")
    }

    @Test("a frozen object's list, sets, map and backlinks, and frozen results, read from 8 threads at once: every read agrees")
    func concurrentFrozenCollections() throws {
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try seedBox(vault)
        try vault.write { for id in 4...100 { vault.add(TItem(id, "item \(id)")) } }
        let box = Frozen(try #require(vault.object(ofType: TBox.self, forPrimaryKey: 1)))
        let items = Frozen(vault.objects(TItem.self))
        let mismatches = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<200 {
                let b = box.value
                var p: [String?] = []   // nil for each read that agrees
                p.append(b.items.map(\.id) == [1, 2, 3] ? nil : "items")
                p.append(b.items.filter("id >= %@", 2).count == 2 ? nil : "items.filter")
                p.append(b.items.first?.id == 1 && b.items.last?.id == 3 ? nil : "items first/last")
                p.append(b.tags.count == 2 && b.tags.contains("red") ? nil : "tags")
                p.append(b.labels["size"] == "large" ? nil : "labels")
                p.append(b.itemSet.count == 3 ? nil : "itemSet")
                p.append(b.boxed.count == 3 && b.boxed.filter("id == %@", 2).count == 1 ? nil : "boxed")
                p.append(b.boxed.sorted(byKeyPath: "id").first?.id == 1 ? nil : "boxed sorted")
                let all = items.value
                p.append(all.distinct(by: ["name"]).count == 100 ? nil : "distinct")
                p.append(all.sorted(byKeyPath: "name")[round % 100].name.hasPrefix("item") ? nil : "sorted index")
                p.append(all.sum(ofProperty: "id") as Int == 5050 ? nil : "sum")
                p.append(all.filter("name BEGINSWITH %@", "item 1").count == 12 ? nil : "beginswith")
                p.append(all.description.isEmpty ? "description" : nil)
                p.append(all[(worker + round) % 100].id == (worker + round) % 100 + 1 ? nil : "subscript")
                let problems = p.compactMap { $0 }
                if !problems.isEmpty { mismatches.withLock { $0 += problems } }
            }
        }
        #expect(mismatches.withLock { $0 }.isEmpty, "\(Set(mismatches.withLock { $0 }))")
    }

    @Test("a frozen object outlives its vault; thaw() gives the live object at the latest version, or nil once deleted")
    func outlivesAndThaws() throws {
        let configuration = threadingConfiguration(directory)
        let frozen: Frozen<TItem> = try {
            let vault = try Vault(configuration: configuration)
            try seedBox(vault)
            return Frozen(try #require(vault.object(ofType: TItem.self, forPrimaryKey: 2)))
        }()
        // The vault that made it is gone; the frozen object still reads its version.
        #expect(VaultSession.cached(for: configuration) == nil)
        #expect(frozen.name == "item 2" && frozen.box?.id == 1 && frozen.box?.isFrozen == true)

        let other = try onNewThread { () -> String in
            let vault = try Vault(configuration: configuration)
            try vault.write { vault.object(ofType: TItem.self, forPrimaryKey: 2)?.name = "changed" }
            return frozen.name
        }
        #expect(other == "item 2")
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && thawed.name == "changed")
        let vault = try #require(thawed.vault)
        try vault.write { thawed.score = 7 }
        #expect(frozen.score == 0)
        try vault.write { vault.delete(thawed) }
        #expect(frozen.thaw() == nil)
        #expect(frozen.name == "item 2", "a frozen object never changes, not even when its row is deleted")
    }

    @Test("a list's frozen snapshot: deleting the object behind row i while the UI iterates the frozen results never crashes")
    func swiftUIDeleteScenario() throws {
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try seedBox(vault)
        try vault.write { for id in 4...20 { vault.add(TItem(id, "item \(id)")) } }
        let rows = vault.objects(TItem.self).sorted(byKeyPath: "id").freeze()
        var shown: [String] = []
        for (index, row) in rows.enumerated() {
            // onDelete(at: index): the live object behind the frozen row is deleted while iterating.
            if index % 3 == 0, let live = row.thaw() { try vault.write { vault.delete(live) } }
            shown.append(row.name)
        }
        #expect(shown == (1...20).map { "item \($0)" })
        #expect(rows.count == 20 && rows[0].name == "item 1" && rows[0].isFrozen)
        #expect(vault.objects(TItem.self).count == 13)
        let thawed = try #require(rows.thaw())
        #expect(thawed.count == 13 && !thawed.isFrozen)
    }

    @Test("freezing inside a write freezes the version the write started from, without the write's changes")
    func freezeInsideWrite() throws {
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try seedBox(vault)
        try vault.write {
            vault.object(ofType: TItem.self, forPrimaryKey: 1)?.name = "uncommitted"
            let frozen = vault.freeze()
            #expect(frozen.object(ofType: TItem.self, forPrimaryKey: 1)?.name == "item 1")
            #expect(frozen.objects(TItem.self).count == 3)
        }
    }

    @Test("in-memory vaults freeze too: the frozen copy keeps its version while the vault changes")
    func inMemoryFreeze() throws {
        let vault = try Vault(configuration: Vault.Configuration(inMemoryIdentifier: "frozen-\(UUID())", encryptionKey: testKey, objectTypes: [TItem.self, TBox.self]))
        try seedBox(vault)
        let frozen = Frozen(vault.objects(TItem.self))
        try vault.write { vault.add(TItem(9, "nine")); vault.object(ofType: TItem.self, forPrimaryKey: 1)?.name = "changed" }
        let seen = try onNewThread { () -> [String] in frozen.value.map(\.name) }
        #expect(seen == ["item 1", "item 2", "item 3"])
        #expect(vault.objects(TItem.self).count == 4)
    }

    @Test("maximumNumberOfActiveVersions counts frozen versions: a write beyond the limit throws; releasing the frozen data frees it")
    func frozenVersionsAreCounted() throws {
        var configuration = threadingConfiguration(directory)
        configuration.maximumNumberOfActiveVersions = 2
        let vault = try Vault(configuration: configuration)
        try seedBox(vault)
        var frozen: [Results<TItem>] = []
        frozen.append(vault.objects(TItem.self).freeze())          // version A
        try vault.write { vault.add(TItem(10, "ten")) }
        frozen.append(vault.objects(TItem.self).freeze())          // version B
        try vault.write { vault.add(TItem(11, "eleven")) }          // A and B alive: at the limit, allowed
        #expect(vault.objects(TItem.self).count == 5)              // the vault now reads C: three versions alive
        #expect(frozen.map(\.count) == [3, 4])
        #expect(throws: VaultObjectError.self) { try vault.write { vault.add(TItem(12, "twelve")) } }
        frozen.removeAll()
        try vault.write { vault.add(TItem(12, "twelve")) }
        #expect(vault.objects(TItem.self).count == 6)
    }
}
