import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

@Suite("SectionedResults: grouped lists")
struct SectionedResultsTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("sectioned") }

    private func namesVault() throws -> Vault {
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try vault.write {
            for (id, name) in ["Grace", "Ada", "Bob", "Alan", "Barbara"].enumerated() {
                let item = TItem(id + 1, name)
                item.score = name.count
                vault.add(item)
            }
        }
        return vault
    }

    @Test("sections follow the sort, by a key of each object or a persisted key path; index paths reach the objects")
    func sections() throws {
        let vault = try namesVault()
        let byLetter = vault.objects(TItem.self).sectioned(sortDescriptors: ["name"]) { String($0.name.prefix(1)) }
        #expect(byLetter.allKeys == ["A", "B", "G"])
        #expect(byLetter.map { $0.map(\.name) } == [["Ada", "Alan"], ["Barbara", "Bob"], ["Grace"]])
        #expect(byLetter[IndexPath(indexes: [1, 1])].name == "Bob" && byLetter[2].key == "G" && byLetter[2].id == "G")
        let byLength = vault.objects(TItem.self).sectioned(by: \.score, ascending: false)
        #expect(byLength.allKeys == [7, 5, 4, 3] && byLength[2].map(\.name) == ["Alan"])
        #expect(vault.objects(TItem.self).filter("score > 10").sectioned(by: \.score).isEmpty)
        let frozen = byLetter.freeze()
        try vault.write { vault.add(TItem(9, "Zed")) }
        #expect(frozen.allKeys == ["A", "B", "G"] && byLetter.allKeys == ["A", "B", "G", "Z"] && frozen.isFrozen)
    }

    @Test("generic code over VaultSectionedResult (Realm's RealmSectionedResult) takes sectioned results and a section")
    func genericSectionedResult() throws {
        let vault = try namesVault()
        let byLetter = vault.objects(TItem.self).sectioned(sortDescriptors: ["name"]) { String($0.name.prefix(1)) }
        func describe<S: VaultSectionedResult>(_ sectioned: S) -> String {
            "\(sectioned.count)\(sectioned.isFrozen ? " frozen" : "")\(sectioned.isInvalidated ? " invalidated" : "")\(sectioned.vault == nil ? " no vault" : "")"
        }
        func frozenCount<S: VaultSectionedResult>(_ sectioned: S) -> Int? { sectioned.freeze().thaw()?.count }
        #expect(describe(byLetter) == "3" && describe(byLetter[0]) == "2")
        #expect(describe(byLetter.freeze()) == "3 frozen" && describe(byLetter[1].freeze()) == "2 frozen")
        try vault.write { vault.add(TItem(9, "Abe")) }
        #expect(frozenCount(byLetter) == 3 && frozenCount(byLetter[0]) == 3, "thawed at the latest version")
    }

    @Test("observing: objects by index path, whole sections inserted and deleted, a renamed object moving sections")
    func observe() throws {
        let vault = try namesVault()
        let byLetter = vault.objects(TItem.self).sectioned(sortDescriptors: ["name"]) { String($0.name.prefix(1)) }
        var heard: [String] = []
        let token = byLetter.observe { change in
            switch change {
            case .initial(let sections):
                heard.append("initial \(sections.allKeys)")
            case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                func paths(_ list: [IndexPath]) -> String { list.map { "\($0[0]).\($0[1])" }.joined(separator: ",") }
                heard.append("update \(sections.allKeys) -[\(paths(deletions))] +[\(paths(insertions))] ~[\(paths(modifications))] "
                             + "sections +\(Array(sectionsToInsert)) -\(Array(sectionsToDelete))")
            }
        }
        vault.refresh()
        try vault.write {
            vault.add(TItem(6, "Brian"))                                                    // into B
            vault.delete(try #require(vault.object(ofType: TItem.self, forPrimaryKey: 1)))   // Grace: G goes
            vault.object(ofType: TItem.self, forPrimaryKey: 4)?.name = "Carl"                // Alan: A → new C
            vault.object(ofType: TItem.self, forPrimaryKey: 2)?.score = 9                    // Ada: modified in place
        }
        vault.refresh()
        token.invalidate()
        #expect(heard == [
            "initial [\"A\", \"B\", \"G\"]",
            "update [\"A\", \"B\", \"C\"] -[0.1] +[1.2] ~[0.0] sections +[2] -[2]",
        ])
    }

    @Test("a section is live: after a change it holds its key's objects, and none once they are gone; freeze and thaw keep the key")
    func liveSection() throws {
        let vault = try namesVault()
        let byLetter = vault.objects(TItem.self).sectioned(sortDescriptors: ["name"]) { String($0.name.prefix(1)) }
        let bSection = byLetter[1]
        let frozen = bSection.freeze()
        try vault.write {
            vault.add(TItem(6, "Abe"))                                                       // before B: moves B's positions
            vault.add(TItem(7, "Bea"))
        }
        #expect(bSection.key == "B" && bSection.map(\.name) == ["Barbara", "Bea", "Bob"])
        #expect(frozen.isFrozen && frozen.map(\.name) == ["Barbara", "Bob"])
        #expect(frozen.thaw()?.map(\.name) == ["Barbara", "Bea", "Bob"] && frozen.thaw()?.isFrozen == false)
        try vault.write { vault.delete(vault.objects(TItem.self).filter("name BEGINSWITH 'B'")) }
        #expect(bSection.isEmpty && bSection.key == "B")
    }

    @Test("observing one section: only its objects, its own index; its deletion and its return as whole-section changes")
    func observeSection() throws {
        let vault = try namesVault()
        let byLetter = vault.objects(TItem.self).sectioned(sortDescriptors: ["name"]) { String($0.name.prefix(1)) }
        var heard: [String] = []
        func paths(_ list: [IndexPath]) -> String { list.map { "\($0[0]).\($0[1])" }.joined(separator: ",") }
        let token = byLetter[1].observe(keyPaths: [\TItem.name]) { change in
            switch change {
            case .initial(let section):
                heard.append("initial \(section.key) \(section.map(\.name))")
            case .update(let section, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                heard.append("\(section.map(\.name)) -[\(paths(deletions))] +[\(paths(insertions))] ~[\(paths(modifications))] "
                             + "sections +\(Array(sectionsToInsert)) -\(Array(sectionsToDelete))")
            }
        }
        vault.refresh()
        try vault.write { vault.add(TItem(6, "Abe")) }                                          // section A only: not heard
        vault.refresh()
        try vault.write { vault.object(ofType: TItem.self, forPrimaryKey: 3)?.score = 1 }       // Bob, a property not observed
        vault.refresh()
        try vault.write {
            vault.add(TItem(7, "Bea"))                                                           // into B
            vault.object(ofType: TItem.self, forPrimaryKey: 3)?.name = "Bobby"                   // B, modified
        }
        vault.refresh()
        try vault.write { vault.delete(vault.objects(TItem.self).filter("name BEGINSWITH 'B'")) }
        vault.refresh()
        try vault.write { vault.add(TItem(8, "Bo")) }
        vault.refresh()
        token.invalidate()
        #expect(heard == [
            "initial B [\"Barbara\", \"Bob\"]",
            "[\"Barbara\", \"Bea\", \"Bobby\"] -[] +[1.1] ~[1.1] sections +[] -[]",
            "[] -[] +[] ~[] sections +[] -[1]",
            "[\"Bo\"] -[] +[1.0] ~[] sections +[1] -[]",
        ])
    }

    @Test("a section observed on a queue is found again there by its key and hears its changes there")
    func observeSectionOnQueue() throws {
        let vault = try namesVault()
        let byLetter = vault.objects(TItem.self).sectioned(sortDescriptors: ["name"]) { String($0.name.prefix(1)) }
        let queue = DispatchQueue(label: "vaultkit.tests.section-on-queue")
        let heard = Locked<[String]>([])
        let signal = DispatchSemaphore(value: 0)
        let token = byLetter[1].observe(keyPaths: [\TItem.name], on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let section): heard.withLock { $0.append("initial \(section.key) \(section.map(\.name))") }
            case .update(let section, _, let insertions, _, _, _):
                heard.withLock { $0.append("update \(section.map(\.name)) \(insertions.map { "\($0[0]).\($0[1])" })") }
            }
            signal.signal()
        }
        #expect(signal.wait(timeout: .now() + 10) == .success)
        try vault.write { vault.add(TItem(6, "Abe")) }
        try vault.write { vault.add(TItem(7, "Bea")) }
        #expect(signal.wait(timeout: .now() + 10) == .success)
        token.invalidate()
        #expect(heard.withLock { $0 } == ["initial B [\"Barbara\", \"Bob\"]", "update [\"Barbara\", \"Bea\", \"Bob\"] [\"1.1\"]"])
    }

    @Test("sectioned results and sections are == to themselves and their copies only (Realm's testEquality); changes have Realm's two cases")
    func equality() throws {
        let vault = try namesVault()
        let results = vault.objects(TItem.self)
        let sections = results.sectioned(by: \.firstLetter)
        let copy = sections
        #expect(sections == copy && sections[0] == copy[0])
        #expect(sections != results.sectioned(by: \.firstLetter), "sectioning again gives other results")
        #expect(sections[0] != sections[1])
        // An exhaustive switch over Realm's two cases compiles (SectionedResultsChange has no third).
        func describe(_ change: SectionedResultsChange<SectionedResults<String, TItem>>) -> String {
            switch change {
            case .initial: "initial"
            case .update: "update"
            }
        }
        #expect(describe(.initial(sections)) == "initial")
    }

    @Test("a computed key path sections by its value and sorts by the property its getter reads (Realm's firstLetter example)")
    func computedKeyPath() throws {
        let vault = try namesVault()
        let byLetter = vault.objects(TItem.self).sectioned(by: \.firstLetter)
        #expect(byLetter.allKeys == ["A", "B", "G"])
        #expect(byLetter.map { $0.map(\.name) } == [["Ada", "Alan"], ["Barbara", "Bob"], ["Grace"]])
        let descending = vault.objects(TItem.self).sectioned(by: \.firstLetter, ascending: false)
        #expect(descending.allKeys == ["G", "B", "A"])
        let fromList = vault.objects(TItem.self).filter("name BEGINSWITH 'B'").sectioned(by: \.firstLetter)
        #expect(fromList.allKeys == ["B"] && fromList[0].count == 2)
    }
}

extension TItem {
    /// A computed property, as Realm's sectioning examples use.
    var firstLetter: String { String(name.prefix(1)) }
}
