import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// The cross-process change log (Notifications/ChangeLog.swift): modifications
// made by another process reach this one's observers, the log is written only
// while someone listens, and a damaged entry never yields wrong changes.

@Suite("Change log")
struct ChangeLogTests {
    private var hexKey: String { testKey.map { String(format: "%02x", $0) }.joined() }

    @Test("another process's write is delivered as a modification, to collection and object observers, with old and new values")
    func otherProcessModification() throws {
        let directory = try TemporaryDirectory("changelog-process")
        let url = directory.file("p.vault")
        let configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self])
        let writer = try Vault(configuration: configuration)
        try writer.write { writer.add(NItem(1, "a", score: 3)); writer.add(NItem(2, "b", score: 1)) }

        let queue = DispatchQueue(label: "vaultkit.tests.changelog-observer")
        let heard = Locked<[String]>([])
        let delivered = DispatchSemaphore(value: 0)
        var tokens: [NotificationToken] = []
        try queue.sync {
            let vault = try Vault(configuration: configuration, queue: queue)
            let sorted = vault.objects(NItem.self).sorted(byKeyPath: "score")
            tokens.append(sorted.observe { change in
                switch change {
                case .initial(let items): heard.withLock { $0.append("initial \(items.map(\.id))") }
                case .update(let items, let deletions, let insertions, let modifications):
                    heard.withLock { $0.append("update \(items.map(\.id)) \(deletions) \(insertions) \(modifications)") }
                case .error(let error): heard.withLock { $0.append("error \(error)") }
                }
                delivered.signal()
            })
            guard let first = vault.object(ofType: NItem.self, forPrimaryKey: 1) else { return }
            tokens.append(first.observe { change in
                if case .change(_, let properties) = change {
                    let described = properties.map { "\($0.name): \($0.oldValue as? String ?? "?") -> \($0.newValue as? String ?? "?")" }
                    heard.withLock { $0.append("object \(described)") }
                }
            })
        }
        #expect(delivered.wait(timeout: .now() + 10) == .success)   // .initial

        let output = try runHelper(["write-item", url.path, "1", "renamed"], input: hexKey)
        #expect(output.contains("committed"), "the child process committed: \(output)")
        #expect(delivered.wait(timeout: .now() + 10) == .success, "woken by the commit pipe")
        queue.sync {}
        #expect(heard.withLock { $0 } == ["initial [2, 1]", "update [2, 1] [] [] [1]", "object [\"name: a -> renamed\"]"],
                "the write from the other process is a modification of item 1 (index 1 by score)")
        queue.sync { tokens.forEach { $0.invalidate() } }
    }

    @Test("the log is written only while someone listens: no observer, no entry; a listener in another process, one per commit")
    func writtenOnlyWhileObserved() throws {
        let directory = try TemporaryDirectory("changelog-listener")
        let url = directory.file("l.vault")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self]))
        func loggedCount() throws -> Int64 {
            try vault.session.database.read { db in try db.fetchOne("SELECT count(*) FROM _vaultkit_changes")?[0].int64 ?? -1 }
        }
        let atOpen = try loggedCount()   // the schema's creation: an empty entry
        try vault.write { vault.add(NItem(1, "a")) }
        #expect(try loggedCount() == atOpen, "nobody observes: nothing is captured or logged")

        // What another process's observer does: listen on the commit pipe.
        let listener = try #require(CommitSignal.Listener(vaultPath: url.path) {})
        try vault.write { vault.add(NItem(2, "b")) }
        try vault.write { vault.object(ofType: NItem.self, forPrimaryKey: 1)?.score = 7 }
        #expect(try loggedCount() == atOpen + 2)
        let entries = try vault.session.database.read { db in
            try ChangeLog.entries(after: vault.commitSequence - 2, through: vault.commitSequence, on: db, schemas: vault.schema(named:))
        }
        let decoded = try #require(entries)
        #expect(decoded.map { $0.1.tables["NItem"]?.inserted ?? [] } == [[2], []])
        let scoreIndex = try #require(vault.schema(named: "NItem")?.index(ofProperty: "score"))
        #expect(decoded[1].1.written(className: "NItem", rowID: 1)?.indexes == [scoreIndex])
        listener.cancel()
    }

    @Test("entries round-trip by property name, and every truncation or corruption of one decodes to nil or to changes of real rows")
    func encodingIsRobust() throws {
        let directory = try TemporaryDirectory("changelog-encoding")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("e.vault"), encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self]))
        let schema = try #require(vault.schema(named: "NItem"))
        let name = try #require(schema.index(ofProperty: "name")), score = try #require(schema.index(ofProperty: "score"))
        var changes = TransactionChanges()
        changes.tables["NItem"] = TableChanges(inserted: [5, 900_000_000_000, -3], deleted: [2],
                                               written: [1: WrittenProperties(indexes: [name, score]), 7: WrittenProperties(indexes: [], linkColumns: true)])
        changes.tables["_vk_list_NOwner_items"] = TableChanges(inserted: [1], deleted: [], written: [:])
        let bytes = ChangeLog.encode(changes, schemas: vault.schema(named:))
        #expect(ChangeLog.decode(bytes, schemas: vault.schema(named:)) == changes)

        // A process whose NItem has other properties (NOwner's stand in: "name" elsewhere, no "score") keeps what it knows.
        let other = try #require(vault.schema(named: "NOwner"))
        let partial = ChangeLog.decode(bytes) { className in className == "NItem" ? other : nil }
        #expect(partial?.tables["NItem"]?.written[1]?.indexes == [try #require(other.index(ofProperty: "name"))])

        for length in 0..<bytes.count {
            #expect(ChangeLog.decode(Array(bytes[..<length]), schemas: vault.schema(named:)) == nil, "a truncated entry is refused")
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var damaged = bytes
            damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            _ = ChangeLog.decode(damaged, schemas: vault.schema(named:))   // must not trap
        }
    }
}
