import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// How Realm ends the transactions its blocks open (realm-swift's RealmTests):
// `write { }` commits only a transaction that is still open, so `cancelWrite()`
// inside it rolls back and `write` returns normally; a `beginAsyncWrite` block
// that neither commits nor cancels is cancelled; `invalidate()` cancels an
// open write transaction.

final class WBNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
}

@Suite("Ending write transactions from inside their blocks, as Realm does")
struct WriteBlockEndingTests {
    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory("write-block-ending")
        vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("notes.vault"), encryptionKey: testKey, objectTypes: [WBNote.self]))
    }

    @Test("cancelWrite() inside write { } rolls back, and write returns normally")
    func cancelInsideWrite() throws {
        var created: WBNote?
        let value = try vault.write { () -> Int in
            created = vault.create(WBNote.self, value: ["id": 1, "text": "draft"])
            vault.cancelWrite()
            return 7
        }
        #expect(value == 7)
        #expect(!vault.isInWriteTransaction)
        #expect(created?.isInvalidated == true)
        #expect(vault.objects(WBNote.self).isEmpty)
        // The vault writes normally afterwards.
        try vault.write { vault.create(WBNote.self, value: ["id": 2]) }
        #expect(vault.objects(WBNote.self).count == 1)
    }

    @Test("commitWrite() inside write { } commits once; what follows is outside the transaction")
    func commitInsideWrite() throws {
        try vault.write {
            vault.create(WBNote.self, value: ["id": 3])
            try vault.commitWrite()
        }
        #expect(!vault.isInWriteTransaction && vault.objects(WBNote.self).count == 1)
    }

    @Test("a beginAsyncWrite block that neither commits nor cancels is cancelled")
    func asyncBlockWithoutCommit() throws {
        var ran = false
        vault.beginAsyncWrite {
            vault.create(WBNote.self, value: ["id": 4])
            ran = true
        }
        // This thread has no run loop: the block runs at once.
        #expect(ran)
        #expect(!vault.isInWriteTransaction)
        #expect(vault.objects(WBNote.self).isEmpty)
        vault.beginAsyncWrite {
            vault.create(WBNote.self, value: ["id": 5])
            vault.commitAsyncWrite()
        }
        #expect(vault.objects(WBNote.self).map(\.id) == [5])
    }

    @Test("invalidate() cancels an open write transaction")
    func invalidateCancels() throws {
        vault.beginWrite()
        vault.create(WBNote.self, value: ["id": 6])
        vault.invalidate()
        #expect(!vault.isInWriteTransaction)
        #expect(vault.objects(WBNote.self).isEmpty)
    }
}

@Suite("NotificationToken as Realm's: invalidate() says whether it was observing")
struct NotificationTokenTests {
    @Test("the first invalidate() of a live token returns true, later ones and a placeholder's false")
    func invalidateReturnsWhetherObserving() throws {
        let directory = try TemporaryDirectory("notification-token")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("notes.vault"), encryptionKey: testKey, objectTypes: [WBNote.self]))
        var calls = 0
        let token = vault.objects(WBNote.self).observe { _ in calls += 1 }
        #expect(token.invalidate())
        #expect(!token.invalidate())
        try vault.write { vault.create(WBNote.self, value: ["id": 1]) }
        vault.refresh()
        #expect(calls <= 1, "no change delivered after invalidate (at most the initial one)")
        #expect(!NotificationToken().invalidate())
    }
}

/// realm-swift's testAsyncWriteBasics and testAsyncWriteCancel, on an actor's vault.
actor AsyncWriteChecker {
    func run(configuration: Vault.Configuration) async throws -> [String] {
        let vault = try await Vault.open(configuration: configuration)
        var log: [String] = []
        let note = try await vault.asyncWrite { () -> WBNote in
            log.append("inside: in write \(vault.isInWriteTransaction), performing \(vault.isPerformingAsynchronousWriteOperations)")
            return vault.create(WBNote.self, value: ["id": 10, "text": "foo"])
        }
        log.append("after: in write \(vault.isInWriteTransaction), performing \(vault.isPerformingAsynchronousWriteOperations), text \(note.text)")
        try await vault.asyncWrite {
            vault.create(WBNote.self, value: ["id": 11])
            vault.cancelWrite()
            log.append("cancelled: in write \(vault.isInWriteTransaction)")
        }
        log.append("stored \(vault.objects(WBNote.self).map(\.id))")
        return log
    }
}

@Suite("Asynchronous writes as Realm's: performing while the block runs, cancellable inside it")
struct AsyncWriteStateTests {
    @Test("isPerformingAsynchronousWriteOperations is true inside the block; cancelWrite() inside asyncWrite rolls back")
    func asyncWriteState() async throws {
        let directory = try TemporaryDirectory("async-write-state")
        let configuration = Vault.Configuration(fileURL: directory.file("notes.vault"), encryptionKey: testKey, objectTypes: [WBNote.self])
        let log = try await AsyncWriteChecker().run(configuration: configuration)
        #expect(log == ["inside: in write true, performing true", "after: in write false, performing false, text foo",
                        "cancelled: in write false", "stored [10]"])
        // On a thread with no run loop the blocks run at once, counted the same way.
        let vault = try Vault(configuration: configuration)
        var inside = false
        vault.writeAsync { inside = vault.isPerformingAsynchronousWriteOperations }
        #expect(inside && !vault.isPerformingAsynchronousWriteOperations)
    }
}
