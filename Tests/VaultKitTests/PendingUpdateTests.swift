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

@Suite("Property writes: one UPDATE per object, and SQL inside the write always sees them")
struct PendingUpdateTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("pending-updates") }

    private func openVault() throws -> Vault {
        try Vault(configuration: Vault.Configuration(fileURL: directory.file("p.vault"), encryptionKey: testKey, objectTypes: [PUContact.self]))
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
}
