import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

final class PIItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted(indexed: true) var email = ""
    @Persisted var score = 0.0
    @Persisted var note: String?
}

final class PIOther: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
}

/// Links to an item: its own insert runs at once (it has a link to store).
final class PIOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var item: PIItem?
}

/// Keyed by a String: SQLite numbers its rows, each inserted at once.
final class PIByName: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var value = 0
}

/// No primary key: inserted at once, too.
final class PINoKey: Object {
    @Persisted var text = ""
}

/// An optional String key.
final class PIOptionalKey: Object {
    @Persisted(primaryKey: true) var code: String?
    @Persisted var value = 0
}

/// 101 columns: more than 62, so fewer than sixteen rows fit in one INSERT's parameters.
final class PIWide: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var c0 = 0
    @Persisted var c1 = 0
    @Persisted var c2 = 0
    @Persisted var c3 = 0
    @Persisted var c4 = 0
    @Persisted var c5 = 0
    @Persisted var c6 = 0
    @Persisted var c7 = 0
    @Persisted var c8 = 0
    @Persisted var c9 = 0
    @Persisted var c10 = 0
    @Persisted var c11 = 0
    @Persisted var c12 = 0
    @Persisted var c13 = 0
    @Persisted var c14 = 0
    @Persisted var c15 = 0
    @Persisted var c16 = 0
    @Persisted var c17 = 0
    @Persisted var c18 = 0
    @Persisted var c19 = 0
    @Persisted var c20 = 0
    @Persisted var c21 = 0
    @Persisted var c22 = 0
    @Persisted var c23 = 0
    @Persisted var c24 = 0
    @Persisted var c25 = 0
    @Persisted var c26 = 0
    @Persisted var c27 = 0
    @Persisted var c28 = 0
    @Persisted var c29 = 0
    @Persisted var c30 = 0
    @Persisted var c31 = 0
    @Persisted var c32 = 0
    @Persisted var c33 = 0
    @Persisted var c34 = 0
    @Persisted var c35 = 0
    @Persisted var c36 = 0
    @Persisted var c37 = 0
    @Persisted var c38 = 0
    @Persisted var c39 = 0
    @Persisted var c40 = 0
    @Persisted var c41 = 0
    @Persisted var c42 = 0
    @Persisted var c43 = 0
    @Persisted var c44 = 0
    @Persisted var c45 = 0
    @Persisted var c46 = 0
    @Persisted var c47 = 0
    @Persisted var c48 = 0
    @Persisted var c49 = 0
    @Persisted var c50 = 0
    @Persisted var c51 = 0
    @Persisted var c52 = 0
    @Persisted var c53 = 0
    @Persisted var c54 = 0
    @Persisted var c55 = 0
    @Persisted var c56 = 0
    @Persisted var c57 = 0
    @Persisted var c58 = 0
    @Persisted var c59 = 0
    @Persisted var c60 = 0
    @Persisted var c61 = 0
    @Persisted var c62 = 0
    @Persisted var c63 = 0
    @Persisted var c64 = 0
    @Persisted var c65 = 0
    @Persisted var c66 = 0
    @Persisted var c67 = 0
    @Persisted var c68 = 0
    @Persisted var c69 = 0
    @Persisted var c70 = 0
    @Persisted var c71 = 0
    @Persisted var c72 = 0
    @Persisted var c73 = 0
    @Persisted var c74 = 0
    @Persisted var c75 = 0
    @Persisted var c76 = 0
    @Persisted var c77 = 0
    @Persisted var c78 = 0
    @Persisted var c79 = 0
    @Persisted var c80 = 0
    @Persisted var c81 = 0
    @Persisted var c82 = 0
    @Persisted var c83 = 0
    @Persisted var c84 = 0
    @Persisted var c85 = 0
    @Persisted var c86 = 0
    @Persisted var c87 = 0
    @Persisted var c88 = 0
    @Persisted var c89 = 0
    @Persisted var c90 = 0
    @Persisted var c91 = 0
    @Persisted var c92 = 0
    @Persisted var c93 = 0
    @Persisted var c94 = 0
    @Persisted var c95 = 0
    @Persisted var c96 = 0
    @Persisted var c97 = 0
    @Persisted var c98 = 0
    @Persisted var c99 = 0
}

@Suite("New rows: up to sixteen an INSERT, and SQL inside the write always sees them")
struct PendingInsertTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("pending-inserts") }

    private func openVault() throws -> Vault {
        try Vault(configuration: Vault.Configuration(fileURL: directory.file("i.vault"), encryptionKey: testKey,
                                                     objectTypes: [PIItem.self, PIOther.self, PIOwner.self, PIWide.self,
                                                                   PIByName.self, PINoKey.self, PIOptionalKey.self]))
    }

    private func item(_ id: Int) -> PIItem {
        PIItem(value: ["id": id, "title": "t\(id)", "email": "u\(id)@x.org", "score": Double(id) / 4, "note": id % 3 == 0 ? nil : "n\(id)"])
    }

    /// Rows SQLite changed on the writer, read without sending what waits.
    private func rowsSentSoFar(_ vault: Vault) -> Int { vault.session.transaction.writer?.totalChangesCount ?? -1 }

    @Test("rows wait until sixteen, a query or the commit, and are stored exactly, whatever the count", arguments: [1, 15, 16, 17, 37, 100])
    func storedExactly(count: Int) throws {
        do {
            let vault = try openVault()
            try vault.write {
                let before = rowsSentSoFar(vault)
                for id in 1...count {
                    vault.add(item(id))
                    // Sent sixteen at a time; the rest wait.
                    #expect(rowsSentSoFar(vault) - before == id / 16 * 16)
                }
                #expect(vault.objects(PIItem.self).count == count, "a query sends the waiting rows first")
                #expect(rowsSentSoFar(vault) - before == count)
                vault.add(item(count + 1))
            }
        }
        let reopened = try openVault()
        let stored = reopened.objects(PIItem.self).sorted(byKeyPath: "id")
        #expect(stored.map(\.id) == Array(1...(count + 1)))
        for object in stored {
            let expected = item(object.id)
            #expect(object.title == expected.title && object.email == expected.email && object.score == expected.score && object.note == expected.note)
        }
        #expect(reopened.objects(PIItem.self).filter("email == %@", "u\(count)@x.org").first?.id == count, "the index has every row")
    }

    @Test("a waiting row is a managed object: set, looked up, linked, deleted and re-added inside the write")
    func waitingRowsAreObjects() throws {
        let vault = try openVault()
        try vault.write {
            let first = item(1)
            vault.add(first)
            #expect(first.vault === vault && first.isInvalidated == false)
            first.title = "set after add"
            vault.add(item(2))
            #expect(vault.object(ofType: PIItem.self, forPrimaryKey: 2)?.title == "t2", "a lookup sends the waiting rows")
            vault.add(item(3))
            // Rows of two classes in turn: a run holds one class.
            vault.add(PIOther(value: ["id": 1, "label": "a"]))
            vault.add(item(4))
            vault.add(PIOther(value: ["id": 2, "label": "b"]))
            // A linking object is inserted at once, after the row it links to.
            let owner = PIOwner(value: ["id": 1])
            owner.item = first
            vault.add(owner)
            let fifth = item(5)
            vault.add(fifth)
            vault.delete(fifth)
            vault.add(item(5))
        }
        #expect(vault.objects(PIItem.self).sorted(byKeyPath: "id").map(\.title) == ["set after add", "t2", "t3", "t4", "t5"])
        #expect(vault.objects(PIOther.self).sorted(byKeyPath: "id").map(\.label) == ["a", "b"])
        #expect(vault.object(ofType: PIOwner.self, forPrimaryKey: 1)?.item?.title == "set after add")
    }

    @Test("a key added twice among waiting rows fails the write; the refused object stays unmanaged with its values")
    func duplicateAmongWaitingRows() throws {
        let vault = try openVault()
        let earlier = item(1)
        let refused = PIItem(value: ["id": 3, "title": "second three"])
        let later = item(9)
        let error = #expect(throws: VaultObjectError.self) {
            try vault.write {
                vault.add(earlier)
                for id in 2...5 { vault.add(item(id)) }
                vault.add(refused)
                vault.add(later)
            }
        }
        guard case .duplicatePrimaryKey(let className, let value)? = error else { Issue.record("expected duplicatePrimaryKey, got \(String(describing: error))"); return }
        #expect(className == "PIItem" && value == "id", "the property is named, never the stored value")
        #expect(vault.objects(PIItem.self).isEmpty, "the whole write rolled back")
        #expect(refused.vault == nil && refused.title == "second three")
        #expect(earlier.isInvalidated, "an object whose insert rolled back is invalidated")
        #expect(later.isInvalidated)
        // The refused object can be added again.
        try vault.write { vault.add(refused) }
        #expect(vault.object(ofType: PIItem.self, forPrimaryKey: 3)?.title == "second three")
    }

    @Test("a key already stored, in a later sixteen-row statement, fails the write and stores nothing of it")
    func duplicateOfAStoredRow() throws {
        let vault = try openVault()
        try vault.write { vault.add(item(20)) }
        let error = #expect(throws: VaultObjectError.self) {
            try vault.write { for id in 1...40 { vault.add(item(id)) } }
        }
        guard case .duplicatePrimaryKey? = error else { Issue.record("expected duplicatePrimaryKey, got \(String(describing: error))"); return }
        #expect(vault.objects(PIItem.self).map(\.id) == [20])
        #expect(vault.object(ofType: PIItem.self, forPrimaryKey: 20)?.title == "t20")
    }

    @Test("cancelWrite drops waiting rows; a vault released with rows waiting rolls back and frees the writer")
    func cancelledAndAbandoned() throws {
        let vault = try openVault()
        vault.beginWrite()
        let dropped = item(1)
        vault.add(dropped)
        vault.cancelWrite()
        #expect(vault.objects(PIItem.self).isEmpty)
        #expect(dropped.isInvalidated)
        let url = directory.file("i.vault")
        try onNewThread {
            let abandoned = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [PIItem.self, PIOther.self, PIOwner.self]))
            abandoned.beginWrite()
            for id in 1...5 { abandoned.add(PIItem(value: ["id": id])) }
        }
        try vault.write { vault.add(item(7)) }
        #expect(vault.objects(PIItem.self).map(\.id) == [7])
    }

    @Test("observers hear of rows that went in together as insertions")
    func observersHearInsertions() throws {
        let vault = try openVault()
        let received = Received<Results<PIItem>>()
        let token = vault.objects(PIItem.self).sorted(byKeyPath: "id").observe { received.changes.append($0) }
        defer { token.invalidate() }
        vault.refresh()
        try vault.write {
            for id in 1...20 { vault.add(item(id)) }
            vault.object(ofType: PIItem.self, forPrimaryKey: 20)?.title = "set in the same write"
        }
        vault.refresh()
        let update = try #require(received.updates.last)
        #expect(update.insertions == Array(0..<20) && update.deletions.isEmpty && update.modifications.isEmpty)
    }

    @Test("a wide class sends fewer rows a statement, within SQLite's limit on parameters")
    func wideRows() throws {
        #expect(Vault.insertRows(width: 6) == 16 && Vault.insertRows(width: 62) == 16)
        #expect(Vault.insertRows(width: 63) == 8 && Vault.insertRows(width: 101) == 8 && Vault.insertRows(width: 125) == 4)
        #expect(Vault.insertRows(width: 500) == 1 && Vault.insertRows(width: 2_000) == 1)
        let vault = try openVault()
        try vault.write {
            let before = rowsSentSoFar(vault)
            for id in 1...21 {
                let wide = PIWide()
                wide.id = id
                wide.c0 = id
                wide.c99 = -id
                vault.add(wide)
                #expect(rowsSentSoFar(vault) - before == id / 8 * 8)
            }
        }
        let stored = vault.objects(PIWide.self).sorted(byKeyPath: "id")
        #expect(stored.map(\.id) == Array(1...21))
        #expect(stored.allSatisfy { $0.c0 == $0.id && $0.c99 == -$0.id && $0.c50 == 0 })
    }

    @Test("rows SQLite numbers, between runs of waiting rows: distinct ids, each object on its own row, deleted ids not given again")
    func numberedRows() throws {
        let vault = try openVault()
        var named: [PIByName] = []
        var plain: [PINoKey] = []
        try vault.write {
            for index in 0..<37 {
                let object = PIByName(value: ["name": "k\(index)", "value": index])
                vault.add(object)
                named.append(object)
                if index % 3 == 0 {
                    // Int-keyed rows waiting in between.
                    vault.add(item(1_000 + index))
                    let other = PINoKey(value: ["text": "p\(index)"])
                    vault.add(other)
                    plain.append(other)
                }
            }
            for index in 37..<60 {
                let other = PINoKey(value: ["text": "p\(index)"])
                vault.add(other)
                plain.append(other)
            }
        }
        let namedIDs = named.compactMap { $0.manager?.rowID }
        let plainIDs = plain.compactMap { $0.manager?.rowID }
        #expect(namedIDs == Array(1...37), "one above the largest")
        #expect(plainIDs == Array(1...Int64(plain.count)))
        for (index, object) in named.enumerated() {
            let stored = vault.object(ofType: PIByName.self, forPrimaryKey: "k\(index)")
            #expect(stored?.isSameObject(as: object) == true && stored?.value == index)
        }
        for object in plain {
            #expect(vault.objects(PINoKey.self).filter("text == %@", object.text).first?.isSameObject(as: object) == true)
        }
        // Ids of deleted rows are not given again while the process holds objects (RowIDHighWater).
        let deleted = Array(plain.suffix(2))
        try vault.write { vault.delete(deleted) }
        var added: [PINoKey] = []
        try vault.write {
            for index in 0..<3 {
                let object = PINoKey(value: ["text": "new\(index)"])
                vault.add(object)
                added.append(object)
            }
        }
        let largestBefore = Int64(plain.count)
        #expect(added.compactMap { $0.manager?.rowID } == [largestBefore + 1, largestBefore + 2, largestBefore + 3])
        #expect(deleted.allSatisfy { $0.isInvalidated })
        #expect(vault.objects(PINoKey.self).count == plain.count - 2 + 3)
    }

    @Test("rows of a nil optional key and of SQL that bypasses the object layer, inserted in between, keep every id distinct")
    func numberedAroundAnImmediateInsert() throws {
        let vault = try openVault()
        try vault.write {
            vault.add(PIOptionalKey(value: ["code": "a", "value": 1]))
            vault.add(PIOptionalKey(value: ["code": NSNull(), "value": 2]))
            vault.add(PIOptionalKey(value: ["code": "b", "value": 3]))
            vault.add(PIOptionalKey(value: ["code": "c", "value": 4]))
        }
        // A row added by SQL that bypasses the object layer (as a sync apply or an import does).
        try vault.write {
            vault.add(PINoKey(value: ["text": "first"]))
            try vault.withDatabase { db in try db.execute("INSERT INTO \"PINoKey\" (\"text\") VALUES ('raw')") }
            vault.add(PINoKey(value: ["text": "after"]))
        }
        #expect(vault.objects(PINoKey.self).map(\.text).sorted() == ["after", "first", "raw"])
        let stored = vault.objects(PIOptionalKey.self).sorted(byKeyPath: "value")
        #expect(stored.map(\.code) == ["a", nil, "b", "c"])
        #expect(Set(stored.compactMap { $0.manager?.rowID }).count == 4)
        #expect(vault.object(ofType: PIOptionalKey.self, forPrimaryKey: nil as String?)?.value == 2)
    }

    @Test("a String key added twice in one write fails it; the refused object stays unmanaged")
    func duplicateStringKey() throws {
        let vault = try openVault()
        try vault.write { vault.add(PIByName(value: ["name": "stored", "value": 0])) }
        let refused = PIByName(value: ["name": "stored", "value": 99])
        let error = #expect(throws: VaultObjectError.self) {
            try vault.write {
                for index in 0..<20 { vault.add(PIByName(value: ["name": "n\(index)", "value": index])) }
                vault.add(refused)
            }
        }
        guard case .duplicatePrimaryKey(let className, let value)? = error else { Issue.record("expected duplicatePrimaryKey, got \(String(describing: error))"); return }
        #expect(className == "PIByName" && value == "name")
        #expect(refused.vault == nil && refused.value == 99)
        #expect(vault.objects(PIByName.self).map(\.name) == ["stored"])
        try vault.write { vault.add(PIByName(value: ["name": "after", "value": 1])) }
        #expect(vault.objects(PIByName.self).count == 2)
    }
}
