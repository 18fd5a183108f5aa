import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

/// One body run over every collection kind, as realm-swift's collection-type
/// tests run one body over Results, List, LinkingObjects and AnyRealmCollection.
/// `collection` holds items 1, 2 and 3 ("item 1"…), scores 0.
private func exercise<C: VaultCollection & SendableMetatype>(_ collection: C, in vault: Vault, configuration: Vault.Configuration) throws -> [String] where C.Element == TItem {
    var failures: [String] = []
    func check(_ condition: Bool, _ what: String) { if !condition { failures.append("\(C.self): \(what)") } }

    check(collection.count == 3 && collection.vault == vault && !collection.description.isEmpty, "count, vault, description")
    check(Set(collection.map(\.id)) == [1, 2, 3], "iteration")
    let two = try #require(collection.first { $0.id == 2 })
    check(collection.index(of: two).map { collection[$0].id } == 2, "index(of:)")
    check(collection.index(matching: "name == %@", "item 3").map { collection[$0].id } == 3, "index(matching:)")
    check(collection.objects(at: IndexSet([0, 2])).count == 2, "objects(at:)")
    check(collection.filter("id >= %d", 2).count == 2, "filter")
    check(collection.sorted(byKeyPath: "id", ascending: false).map(\.id) == [3, 2, 1], "sorted")
    check(collection.distinct(by: ["score"]).count == 1, "distinct")
    check(collection.min(ofProperty: "id") as Int? == 1 && collection.max(ofProperty: "id") as Int? == 3, "min/max")
    check(collection.sum(ofProperty: "id") as Int == 6 && collection.average(ofProperty: "id") as Double? == 2, "sum/average")
    check((collection.value(forKey: "name") as? [Any])?.compactMap { $0 as? String }.sorted() == ["item 1", "item 2", "item 3"], "value(forKey:)")
    check(!collection.isInvalidated && !collection.isFrozen, "live")

    var heard: [String] = []
    let token = collection.observe(keyPaths: nil) { change in
        switch change {
        case .initial(let initial): heard.append("initial \(initial.count)")
        case .update(_, _, _, let modifications): heard.append("update ~\(modifications.count)")
        case .error(let error): heard.append("error \(error)")
        }
    }
    vault.refresh()
    try vault.write { collection.setValue(7, forKey: "score") }
    vault.refresh()
    token.invalidate()
    check(heard == ["initial 3", "update ~3"], "observe: \(heard)")
    check(collection.allSatisfy { $0.score == 7 }, "setValue(_:forKey:)")

    let frozen = collection.freeze()
    try vault.write { for item in collection { item.score = 0 } }
    check(frozen.isFrozen && frozen.count == 3 && frozen.allSatisfy { $0.score == 7 }, "freeze")
    check(frozen.thaw().map { $0.allSatisfy { $0.score == 0 } && !$0.isFrozen } == true, "thaw")

    let reference = ThreadSafeReference(to: collection)
    let resolved = try onNewThread { () -> [Int] in
        try Vault(configuration: configuration).resolve(reference).map { $0.map(\.id).sorted() } ?? []
    }
    check(resolved == [1, 2, 3], "ThreadSafeReference: \(resolved)")
    return failures
}

@Suite("VaultCollection: one generic body over every collection kind")
struct VaultCollectionTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("collections") }

    @Test("Results, List, MutableSet, LinkingObjects and AnyVaultCollection of each pass the same generic body")
    func everyKind() throws {
        let configuration = threadingConfiguration(directory)
        let vault = try Vault(configuration: configuration)
        try seedBox(vault)
        let box = try #require(vault.object(ofType: TBox.self, forPrimaryKey: 1))
        var failures: [String] = []
        failures += try exercise(vault.objects(TItem.self), in: vault, configuration: configuration)
        failures += try exercise(box.items, in: vault, configuration: configuration)
        failures += try exercise(box.itemSet, in: vault, configuration: configuration)
        failures += try exercise(box.boxed, in: vault, configuration: configuration)
        failures += try exercise(AnyVaultCollection(vault.objects(TItem.self)), in: vault, configuration: configuration)
        failures += try exercise(AnyVaultCollection(box.items), in: vault, configuration: configuration)
        failures += try exercise(AnyVaultCollection(box.itemSet), in: vault, configuration: configuration)
        failures += try exercise(AnyVaultCollection(box.boxed), in: vault, configuration: configuration)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("collections of values: index(of:), value(forKey: \"self\"), positions in a set, erased and frozen")
    func valueCollections() throws {
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try seedBox(vault)
        let box = try #require(vault.object(ofType: TBox.self, forPrimaryKey: 1))
        try vault.write { box.items.first?.name = "first" }
        let tags = AnyVaultCollection(box.tags)
        #expect(tags.count == 2 && Set(tags) == ["red", "blue"])
        #expect(tags.index(of: "blue").map { tags[$0] } == "blue" && tags.index(of: "green") == nil)
        #expect((tags.value(forKey: "self") as? [Any])?.compactMap { $0 as? String }.sorted() == ["blue", "red"])
        #expect(box.tags[0] == Array(box.tags)[0])
        let frozen = tags.freeze()
        try vault.write { box.tags.insert("green") }
        #expect(frozen.count == 2 && tags.count == 3 && frozen.isFrozen)
        let unmanaged = AnyVaultCollection(List<String>())
        #expect(unmanaged.vault == nil && unmanaged.isEmpty && !unmanaged.isFrozen)
    }

    @Test("equality as Realm's collections compare, and where { } on every collection of objects")
    func equalityAndTypedQueries() throws {
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try seedBox(vault)
        let box = try #require(vault.object(ofType: TBox.self, forPrimaryKey: 1))
        let again = try #require(vault.object(ofType: TBox.self, forPrimaryKey: 1))
        #expect(box.items == again.items && box.itemSet == again.itemSet && box.boxed == again.boxed)
        // Results compare as Realm's (ResultsEquatabilityTests): one value and its copies, not the query.
        let results = vault.objects(TItem.self).filter("id > 1"), copy = results
        #expect(results == copy && results == results)
        #expect(vault.objects(TItem.self) != vault.objects(TItem.self))
        #expect(results != vault.objects(TItem.self).filter("id > 1"))
        #expect(AnyVaultCollection(box.items) == AnyVaultCollection(again.items) && AnyVaultCollection(box.items) != AnyVaultCollection(vault.objects(TItem.self)))
        #expect(List<String>() == List<String>(), "unmanaged lists compare by contents, as Realm's do")
        func matching<C: VaultCollection>(_ collection: C) -> [Int] where C.Element == TItem {
            guard collection.max(of: \.id) == 3, collection.sum(of: \.id) == 6, collection.distinct(by: [\TItem.score]).count == 1 else { return [] }
            return collection.where { $0.id >= 2 }.sorted(by: \.id, ascending: true).map(\.id)
        }
        #expect(matching(box.items) == [2, 3] && matching(box.boxed) == [2, 3] && matching(AnyVaultCollection(box.itemSet)) == [2, 3])
    }
}
