import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

final class PUContact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var email = ""
    @Persisted var age = 0
    @Persisted var nickname: String?
}

final class PUTag: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
    @Persisted var owner: PUContact?
}

@Suite("Property writes: one UPDATE per object, and SQL inside the write always sees them")
struct PendingUpdateTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("pending-updates") }

    private func openVault() throws -> Vault {
        try Vault(configuration: Vault.Configuration(fileURL: directory.file("p.vault"), encryptionKey: testKey, objectTypes: [PUContact.self, PUTag.self]))
    }

    private func seed(_ vault: Vault) throws {
        try vault.write {
            for id in 1...3 { vault.add(PUContact(value: ["id": id, "name": "n\(id)", "email": "e\(id)@x.org", "age": 20 + id])) }
        }
    }

    /// Rows SQLite changed so far on the writer (reading it sends pending writes first).
    private func rowsChanged(_ vault: Vault) throws -> Int {
        try vault.withDatabase { $0.totalChangesCount }
    }

    @Test("several properties of one object set in a row reach SQLite as one row change, and are stored")
    func oneStatementPerObject() throws {
        do {
            let vault = try openVault()
            try seed(vault)
            let contact = try #require(vault.object(ofType: PUContact.self, forPrimaryKey: 1))
            try vault.write {
                let before = try rowsChanged(vault)
                contact.name = "Ada"
                contact.age = 36
                contact.email = "ada@example.org"
                contact.nickname = "A"
                contact.age = 37   // set twice: the last value wins
                contact.name = "Ada L."   // the first property set, set again after others
                #expect(try rowsChanged(vault) - before == 1)
                // A second object, then the first again: one row change each time the row moves on.
                let other = try #require(vault.object(ofType: PUContact.self, forPrimaryKey: 2))
                let middle = try rowsChanged(vault)
                other.age = 50
                contact.nickname = nil
                other.name = "Bea"
                #expect(try rowsChanged(vault) - middle == 3)
            }
        }
        let reopened = try openVault()
        let ada = try #require(reopened.object(ofType: PUContact.self, forPrimaryKey: 1))
        #expect(ada.name == "Ada L." && ada.age == 37 && ada.email == "ada@example.org" && ada.nickname == nil)
        let bea = try #require(reopened.object(ofType: PUContact.self, forPrimaryKey: 2))
        #expect(bea.name == "Bea" && bea.age == 50)
        #expect(reopened.objects(PUContact.self).filter("email == %@", "ada@example.org").map(\.id) == [1])
    }

    @Test("queries, counts, lookups and other instances inside the write see property writes at once")
    func sqlSeesPendingWrites() throws {
        let vault = try openVault()
        try seed(vault)
        let contact = try #require(vault.object(ofType: PUContact.self, forPrimaryKey: 3))
        let results = vault.objects(PUContact.self).filter("age > 40")
        #expect(results.isEmpty)
        try vault.write {
            contact.age = 41
            #expect(results.count == 1)
            #expect(results.first?.id == 3)
            contact.email = "new@x.org"
            // The indexed column, through a query that uses the index.
            #expect(vault.objects(PUContact.self).filter("email == 'new@x.org'").count == 1)
            contact.name = "Cy"
            // Another instance of the same row, fetched now.
            #expect(vault.object(ofType: PUContact.self, forPrimaryKey: 3)?.name == "Cy")
            contact.age = 42
            #expect(vault.objects(PUContact.self).max(ofProperty: "age") as Int? == 42)
            contact.name = "Di"
            vault.delete(contact)
            #expect(vault.objects(PUContact.self).count == 2)
        }
        #expect(contact.isInvalidated)
        #expect(vault.objects(PUContact.self).map(\.id) == [1, 2])
    }

    @Test("a cancelled write drops property writes not yet sent, and the object reads the stored values again")
    func cancelDropsPendingWrites() throws {
        let vault = try openVault()
        try seed(vault)
        let contact = try #require(vault.object(ofType: PUContact.self, forPrimaryKey: 1))
        vault.beginWrite()
        contact.name = "Changed"
        contact.age = 99
        vault.cancelWrite()
        #expect(contact.name == "n1" && contact.age == 21)
        try vault.write { contact.age = 5 }
        #expect(try openVault().object(ofType: PUContact.self, forPrimaryKey: 1).map { ($0.name, $0.age) } ?? ("", 0) == ("n1", 5))
    }

    @Test("a property write that SQLite refuses fails the commit and stores nothing of the write")
    func refusedWriteFailsTheCommit() throws {
        let vault = try openVault()
        try seed(vault)
        let contact = try #require(vault.object(ofType: PUContact.self, forPrimaryKey: 1))
        // A trigger on the writer refuses one value, as a constraint would.
        try vault.write {
            try vault.withDatabase { db in
                try db.execute("CREATE TRIGGER refuse_age BEFORE UPDATE OF age ON PUContact WHEN NEW.age = 13 BEGIN SELECT RAISE(ABORT, 'unlucky'); END")
            }
        }
        #expect(throws: (any Error).self) {
            try vault.write {
                contact.name = "kept only if the commit succeeds"
                contact.age = 13
            }
        }
        #expect(contact.name == "n1" && contact.age == 21)
        let reopened = try openVault()
        #expect(reopened.object(ofType: PUContact.self, forPrimaryKey: 1)?.name == "n1")
    }

    @Test("many rows set in any order, one set again after others, rows of two classes with equal ids: stored as set, observers told exactly which properties")
    func manyRowsInAnyOrder() throws {
        let ids = Array(1...400)
        var generator = SplitMix64(seed: 26)
        let order = ids.shuffled(using: &generator)
        do {
            let vault = try openVault()
            try vault.write {
                for id in ids { vault.add(PUContact(value: ["id": id, "name": "n\(id)", "email": "e\(id)@x.org", "age": id])) }
                for id in 1...20 { vault.add(PUTag(value: ["id": id, "label": "t\(id)"])) }
            }
            let contacts = vault.objects(PUContact.self)
            var ageChanges: [[Int]] = [], nameChanges: [[Int]] = [], tagChanges: [[Int]] = []
            var objectChanges: [[String]] = []
            var linkUpdates = 0
            let five = try #require(vault.object(ofType: PUContact.self, forPrimaryKey: 5))
            let tokens = [
                contacts.observe(keyPaths: ["age"]) { if case .update(_, _, _, let modified) = $0 { ageChanges.append(modified) } },
                contacts.observe(keyPaths: ["name"]) { if case .update(_, _, _, let modified) = $0 { nameChanges.append(modified) } },
                vault.objects(PUTag.self).observe { if case .update(_, _, _, let modified) = $0 { tagChanges.append(modified) } },
                // No link is set: an UPDATE the change capture did not expect would count as one.
                vault.objects(PUTag.self).observe(keyPaths: ["owner"]) { if case .update = $0 { linkUpdates += 1 } },
                five.observe { if case .change(_, let properties) = $0 { objectChanges.append(properties.map(\.name).sorted()) } },
            ]
            vault.refresh()
            // Looked up once before the write: the lookups inside it are then answered by
            // the key cache (which property sets keep current), so nothing inside the
            // write reaches SQLite until the rows are counted.
            for id in ids { _ = vault.object(ofType: PUContact.self, forPrimaryKey: id) }
            for id in 1...20 { _ = vault.object(ofType: PUTag.self, forPrimaryKey: id) }
            try vault.write {
                let before = try rowsChanged(vault)
                for (step, id) in order.enumerated() {
                    guard let contact = vault.object(ofType: PUContact.self, forPrimaryKey: id) else { continue }
                    contact.age = 1_000 + id
                    if id == 5 { contact.name = "five" }
                    // Tags share ids with contacts: their rows are sent among the contacts'.
                    if step % 20 == 0 { vault.object(ofType: PUTag.self, forPrimaryKey: step / 20 + 1)?.label = "set \(step)" }
                }
                // Row 5 again, long after: its last value is the one kept.
                vault.object(ofType: PUContact.self, forPrimaryKey: 5)?.age = 5_555
                // One UPDATE per row set, the twice-set row twice (reading the count sends them).
                #expect(try rowsChanged(vault) - before == ids.count + 20 + 1)
            }
            vault.refresh()
            #expect(ageChanges == [ids.map { $0 - 1 }])
            #expect(nameChanges == [[4]])
            #expect(tagChanges == [Array(0..<20)])
            #expect(objectChanges == [["age", "name"]])
            #expect(linkUpdates == 0)
            withExtendedLifetime(tokens) {}
        }
        let reopened = try openVault()
        for contact in reopened.objects(PUContact.self) {
            #expect(contact.age == (contact.id == 5 ? 5_555 : 1_000 + contact.id))
            #expect(contact.name == (contact.id == 5 ? "five" : "n\(contact.id)"))
        }
        #expect(reopened.objects(PUTag.self).sorted(byKeyPath: "id").map(\.label) == (0..<20).map { "set \($0 * 20)" })
    }

    @Test("pending rows are sent by row id, equal ids in the order set, whatever the ids (negative, from 2⁴⁷ up)")
    func sendingOrder() throws {
        let schema = try openVault().schema(for: PUContact.self)
        func order(_ ids: [Int64]) -> [Int] {
            let rows = ids.map { PendingRowUpdate(schema: schema, rowID: $0, property: 1, value: .null) }
            return rows.withUnsafeBufferPointer { Vault.rowOrder($0) }
        }
        #expect(order([]) == [])
        #expect(order([1, 2, 3]) == [0, 1, 2])
        #expect(order([5, 3, 5, 1, 3]) == [3, 1, 4, 0, 2])
        #expect(order([5, -2, 5, Int64.max, -2]) == [1, 4, 0, 2, 3])
        #expect(order([1 << 47, 7, 1 << 47, 6]) == [3, 1, 0, 2])
        var generator = SplitMix64(seed: 3)
        let ids = (0..<5_000).map { _ in Int64.random(in: 0..<500, using: &generator) }
        #expect(order(ids) == ids.indices.sorted { (ids[$0], $0) < (ids[$1], $1) })
    }
}
