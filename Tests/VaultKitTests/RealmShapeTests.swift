import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Realm's shapes that ported code uses as they are: List's range and offset
// edits (SwiftUI's onDelete/onMove), key-value coding on collections, an
// object's description, Vault equality.

@Suite("Realm's shapes")
struct RealmShapeTests {
    @Test("List: replaceSubrange, removeSubrange, insert(contentsOf:at:), remove(atOffsets:), move(fromOffsets:toOffset:) — managed and unmanaged agree with Array")
    func listEdits() throws {
        let directory = try TemporaryDirectory("shapes-list")
        let vault = try itemVault(directory)
        let owner = NOwner(value: ["id": 1, "name": "o"])
        try vault.write { vault.add(owner) }
        let unmanaged = List<String>()
        var array = ["a", "b", "c", "d", "e", "f"]
        let managedList = try #require(vault.object(ofType: NOwner.self, forPrimaryKey: 1))
        // The managed side: a list of objects whose names follow the same edits.
        try vault.write { for (index, name) in array.enumerated() { managedList.items.append(NItem(index + 1, name)) } }
        unmanaged.append(objectsIn: array)

        func check(_ what: String, _ edit: (inout [String]) -> Void, _ listEdit: (List<String>) -> Void, _ managedEdit: (List<NItem>) -> Void) throws {
            edit(&array)
            listEdit(unmanaged)
            try vault.write { managedEdit(managedList.items) }
            #expect(Array(unmanaged) == array, "\(what) unmanaged")
            #expect(managedList.items.map(\.name) == array, "\(what) managed")
        }
        var nextID = 100
        func items(_ names: [String]) -> [NItem] { names.map { name in nextID += 1; return NItem(nextID, name) } }
        try check("replaceSubrange", { $0.replaceSubrange(1..<3, with: ["X", "Y", "Z"]) },
                  { $0.replaceSubrange(1..<3, with: ["X", "Y", "Z"]) }, { $0.replaceSubrange(1..<3, with: items(["X", "Y", "Z"])) })
        try check("removeSubrange", { $0.removeSubrange(0..<2) }, { $0.removeSubrange(0..<2) }, { $0.removeSubrange(0..<2) })
        try check("insert(contentsOf:at:)", { $0.insert(contentsOf: ["p", "q"], at: 1) },
                  { $0.insert(contentsOf: ["p", "q"], at: 1) }, { $0.insert(contentsOf: items(["p", "q"]), at: 1) })
        try check("remove(atOffsets:)", { array in for i in [0, 3].reversed() { array.remove(at: i) } },
                  { $0.remove(atOffsets: IndexSet([0, 3])) }, { $0.remove(atOffsets: IndexSet([0, 3])) })
        // onMove: [1, 2] to 0, and [0] to the end (Array.move(fromOffsets:toOffset:) semantics).
        try check("move to the front", { array in let moved = [array[1], array[2]]; array.removeSubrange(1...2); array.insert(contentsOf: moved, at: 0) },
                  { $0.move(fromOffsets: IndexSet([1, 2]), toOffset: 0) }, { $0.move(fromOffsets: IndexSet([1, 2]), toOffset: 0) })
        try check("move to the end", { array in let first = array.removeFirst(); array.append(first) },
                  { $0.move(fromOffsets: IndexSet([0]), toOffset: $0.count) }, { $0.move(fromOffsets: IndexSet([0]), toOffset: $0.count) })
    }

    @Test("value(forKey:) and setValue(_:forKey:) on Results and lists of objects; an object's description; vault equality")
    func keyValueAndDescription() throws {
        let directory = try TemporaryDirectory("shapes-kvc")
        let vault = try itemVault(directory)
        try vault.write { for id in 1...3 { vault.add(NItem(id, "n\(id)", score: id * 10)) } }
        let items = vault.objects(NItem.self).sorted(byKeyPath: "id")
        #expect(items.value(forKey: "name") as? [String] == ["n1", "n2", "n3"])
        #expect(items.value(forKey: "score") as? [Int] == [10, 20, 30])
        try vault.write { items.setValue(7, forKey: "score") }
        #expect(items.map(\.score) == [7, 7, 7])

        let first = try #require(items.first)
        #expect(first.description == "NItem {\n\tid = 1;\n\tname = n1;\n\tscore = 7;\n\towner = nil;\n}")
        #expect(NItem(9, "unmanaged").description.contains("name = unmanaged;"))

        let again = try itemVault(directory)
        #expect(vault == again, "the same file on the same thread is the same instance")
        let elsewhere = try onNewThread { () -> Bool in
            let other = try Vault(configuration: Vault.Configuration(fileURL: directory.file("notify.vault"), encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self]))
            return other.objects(NItem.self).count == 3
        }
        #expect(elsewhere)
    }
}

@Suite("beginWrite as in Realm")
struct BeginWriteTests {
    @Test("beginWrite() does not throw; a failure to begin is thrown by commitWrite(), the operations in between skipped; a nested write {} throws")
    func failureDeferredToCommit() throws {
        let directory = try TemporaryDirectory("begin-write")
        var configuration = Vault.Configuration(fileURL: directory.file("b.vault"), encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self])
        configuration.maximumNumberOfActiveVersions = 1
        let vault = try Vault(configuration: configuration)
        vault.beginWrite()
        vault.add(NItem(1, "a"))
        try vault.commitWrite()

        // A vault on another queue keeps the first version alive: beginning the next write fails (too many versions).
        let queue = DispatchQueue(label: "vaultkit.tests.begin-write")
        var idle: Vault?
        try queue.sync {
            idle = try Vault(configuration: configuration, queue: queue)
            _ = idle?.objects(NItem.self).count
        }
        try vault.write { vault.add(NItem(2, "b")) }   // the idle vault's version and this one: at the limit from here on
        vault.beginWrite()
        #expect(vault.isInWriteTransaction)
        vault.add(NItem(3, "c"))                        // skipped
        #expect(throws: VaultObjectError.self) { try vault.commitWrite() }
        #expect(!vault.isInWriteTransaction)
        #expect(vault.objects(NItem.self).count == 2, "the skipped add left nothing")

        queue.sync { idle = nil }
        #expect(throws: VaultObjectError.alreadyInWriteTransaction) {
            try vault.write { try vault.write {} }
        }
    }
}

@Suite("Adding cycles of new objects")
struct CycleTests {
    @Test("a graph of new objects that links back (lists and to-one links) is added once per object, every link in place")
    func cycles() throws {
        let directory = try TemporaryDirectory("cycles")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("c.vault"), encryptionKey: testKey, objectTypes: [PPerson.self, PAddress.self]))
        let ada = PPerson(value: ["id": 1, "firstName": "Ada"])
        let grace = PPerson(value: ["id": 2, "firstName": "Grace"])
        let alan = PPerson(value: ["id": 3, "firstName": "Alan"])
        ada.friends.append(objectsIn: [grace, alan])
        grace.friends.append(ada)
        ada.mentor = alan
        alan.mentor = grace
        grace.mentor = ada
        alan.friends.append(alan)
        try vault.write { vault.add(ada) }
        #expect(vault.objects(PPerson.self).count == 3)
        let stored = try #require(vault.object(ofType: PPerson.self, forPrimaryKey: 1))
        #expect(stored.friends.map(\.id) == [2, 3] && stored.mentor?.id == 3)
        #expect(stored.mentor?.mentor?.id == 2 && stored.mentor?.mentor?.mentor?.id == 1)
        #expect(stored.friends[0].friends.map(\.id) == [1] && stored.friends[1].friends.map(\.id) == [3])
        #expect(ada.isSameObject(as: stored) && alan.vault != nil)
    }
}
