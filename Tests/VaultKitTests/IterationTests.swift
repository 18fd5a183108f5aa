import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

final class IterItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var age = 0
    @Persisted var done = false
}

@Suite("Iterating results: one pass in row-id order, as of when iteration starts")
struct IterationTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("iteration") }

    private func openVault(ids: [Int]) throws -> Vault {
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("i.vault"), encryptionKey: testKey, objectTypes: [IterItem.self]))
        try vault.write {
            for id in ids { vault.add(IterItem(value: ["id": id, "age": abs(id % 100)])) }
        }
        return vault
    }

    @Test("every matching object is visited once, in key order, across many batches and at the extremes of Int")
    func visitsEveryMatchOnce() throws {
        let ids = Array(-700...700) + [Int.min, Int.max, Int.min + 1, Int.max - 1]
        let vault = try openVault(ids: ids)
        let all = vault.objects(IterItem.self)
        #expect(all.map(\.id) == ids.sorted())
        let filtered = all.filter("age >= 30 AND age < 40")
        let expected = ids.filter { (30..<40).contains(abs($0 % 100)) }.sorted()
        #expect(filtered.map(\.id) == expected)
        #expect(Array(filtered).count == filtered.count)
        // Sorted and collection results iterate by row ids, in their own order.
        #expect(filtered.sorted(byKeyPath: "id", ascending: false).map(\.id) == expected.reversed())
    }

    @Test("writing while iterating: objects modified out of the filter, deleted, or added meanwhile behave as Realm's snapshot iteration")
    func writingWhileIterating() throws {
        let vault = try openVault(ids: Array(1...1_000))
        let open = vault.objects(IterItem.self).filter("done == false")
        var visited: [Int] = []
        try vault.write {
            for item in open {
                visited.append(item.id)
                item.done = true                                                     // leaves the filter
                if item.id == 10 { vault.add(IterItem(value: ["id": 5_000])) }       // added after the start
                if item.id == 20, let later = vault.object(ofType: IterItem.self, forPrimaryKey: 900) { vault.delete(later) }
            }
        }
        #expect(visited == Array(1...1_000).filter { $0 != 900 }, "each object once, the deleted one skipped, the new one not visited")
        #expect(open.isEmpty == false && open.map(\.id) == [5_000])
    }
}
