import Foundation
import Testing
import VaultCore
import VaultKit
@testable import VaultSync
import VaultTestSupport

/// Collects what an observer delivered.
final class DeliveredChanges<Value>: @unchecked Sendable {
    var changes: [VaultCollectionChange<Value>] = []
    var updates: [(deletions: [Int], insertions: [Int], modifications: [Int])] {
        changes.compactMap { if case .update(_, let deletions, let insertions, let modifications) = $0 { (deletions, insertions, modifications) } else { nil } }
    }
}

@Suite("Synced vaults: remote change sets applied exactly once, notified, checked against the models")
struct SyncApplyTests {
    @Test("observers see remote changes like local ones, with Realm's indices")
    func remoteChangesNotify() throws {
        let pair = try SyncTestPair("sync-notify")
        try pair.a.write { vault in
            for id in ["b", "d"] { vault.create(SyncNote.self, value: ["id": id, "title": id, "tags": ["x", "y"]]) }
        }
        try pair.b.synced.apply(try pair.a.synced.pendingChangeSets())
        let vault = try pair.b.vault()
        let results = vault.objects(SyncNote.self).sorted(byKeyPath: "id")
        let received = DeliveredChanges<Results<SyncNote>>()
        let token = results.observe { received.changes.append($0) }
        let tags = try #require(vault.object(ofType: SyncNote.self, forPrimaryKey: "d")).tags
        let receivedTags = DeliveredChanges<List<String>>()
        let tagsToken = tags.observe { receivedTags.changes.append($0) }
        vault.refresh()
        let sent = try pair.a.synced.pendingChangeSets().count
        try pair.a.write { vault in
            vault.create(SyncNote.self, value: ["id": "c", "title": "c"])                       // inserted at 1
            vault.object(ofType: SyncNote.self, forPrimaryKey: "d")?.title = "d2"                // modified (old index 1)
            if let b = vault.object(ofType: SyncNote.self, forPrimaryKey: "b") { vault.delete(b) }  // deleted (old index 0)
            vault.object(ofType: SyncNote.self, forPrimaryKey: "d")?.tags.insert("w", at: 1)      // list insertion at 1
        }
        let applied = try pair.b.synced.apply(Array(try pair.a.synced.pendingChangeSets().dropFirst(sent)))
        #expect(applied == 1)
        vault.refresh()
        #expect(results.map(\.id) == ["c", "d"])
        let update = try #require(received.updates.last)
        #expect(update.deletions == [0] && update.insertions == [0] && update.modifications == [1])
        #expect(Array(tags) == ["x", "w", "y"])
        #expect(receivedTags.updates.last.map { $0.insertions == [1] && $0.deletions.isEmpty } == true)
        withExtendedLifetime((token, tagsToken)) {}
    }

    @Test("a change set delivered twice, out of order or before its dependencies is applied exactly once, in causal order")
    func exactlyOnceInCausalOrder() throws {
        let pair = try SyncTestPair("sync-once")
        try pair.a.write { vault in vault.create(SyncNote.self, value: ["id": "n", "rank": 1]) }
        _ = try pair.a.synced.pendingChangeSets()
        try pair.a.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "n")?.rank = 2 }
        _ = try pair.a.synced.pendingChangeSets()
        try pair.a.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "n")?.tags.append("t") }
        let changeSets = try pair.a.synced.pendingChangeSets()
        #expect(changeSets.count == 3)
        // The last two first: they wait (durably) for the first.
        #expect(try pair.b.synced.apply([changeSets[2], changeSets[1], changeSets[2]]) == 0)
        #expect(try pair.b.note("n") == nil)
        let reopened = try SyncedVault(configuration: pair.b.configuration)
        #expect(try reopened.apply([changeSets[0]]) == 3)
        #expect(try reopened.apply(changeSets + changeSets) == 0)
        let note = try #require(try pair.b.note("n"))
        #expect(note.rank == 2 && Array(note.tags) == ["t"])
        #expect(try pair.b.synced.appliedChangeSets() == [pair.a.synced.device: 3])
        // Applying remote change sets records nothing of its own.
        #expect(try pair.b.synced.pendingChangeSets().isEmpty)
        #expect(try pair.a.synced.dump() == pair.b.synced.dump())
    }

    @Test("a breaking schema change is a typed error and nothing of the call is applied; an additive one is kept in the merge state")
    func schemaChecks() throws {
        let pair = try SyncTestPair("sync-schema")
        let author = SyncDeviceID(rawValue: 77)
        func operation(_ change: SyncOperation.Change, clock: UInt64) -> SyncOperation {
            SyncOperation(object: SyncObjectReference(className: "SyncNote", primaryKey: .string("n"), incarnation: 1),
                          stamp: SyncStamp(clock: clock, device: author), change: change)
        }
        let create = ChangeSet(author: author, sequence: 1, dependencies: [:], operations: [
            operation(.create, clock: 10), operation(.set(property: "rank", value: .int(5)), clock: 11),
            operation(.set(property: "addedInVersion2", value: .string("kept")), clock: 12),
        ])
        #expect(try pair.b.synced.apply([create]) == 1)
        #expect(try pair.b.note("n")?.rank == 5)
        let dumpBefore = try pair.b.synced.dump()
        let breaking: [SyncOperation.Change] = [
            .set(property: "rank", value: .string("five")),
            .set(property: "title", value: .null),
            .set(property: "tags", value: .string("not a list")),
            .listInsert(property: "title", epoch: .initial, before: nil, value: .string("x")),
            .set(property: "author", value: .int(3)),
            .set(property: "author", value: .link(SyncObjectReference(className: "SyncNote", primaryKey: .string("n"), incarnation: 1))),
            .setMember(property: "labels", epoch: .initial, value: .int(1), present: true),
        ]
        for (index, change) in breaking.enumerated() {
            let update = ChangeSet(author: author, sequence: 2, dependencies: [:], operations: [
                operation(.set(property: "rank", value: .int(6)), clock: 20), operation(change, clock: 21 + UInt64(index)),
            ])
            #expect(throws: SyncError.self, "\(change)") { try pair.b.synced.apply([update]) }
            #expect(try pair.b.synced.dump() == dumpBefore)
            #expect(try pair.b.synced.appliedChangeSets() == [author: 1])
        }
        let wrongKey = ChangeSet(author: author, sequence: 2, dependencies: [:], operations: [
            SyncOperation(object: SyncObjectReference(className: "SyncNote", primaryKey: .int(1), incarnation: 1),
                          stamp: SyncStamp(clock: 30, device: author), change: .create),
        ])
        do {
            try pair.b.synced.apply([wrongKey])
            Issue.record("an int key for a String primary key was applied")
        } catch let error as SyncError {
            #expect(error.description.contains("SyncNote.id") && error.description.contains("nothing of it was applied"))
        }
    }

    @Test("asymmetric objects are upload-only: recorded on the device that writes them, never applied elsewhere")
    func asymmetricObjectsUploadOnly() throws {
        let pair = try SyncTestPair("sync-asymmetric")
        try pair.a.write { vault in vault.create(SyncReading.self, value: ["celsius": 21.5]) }
        let changeSets = try pair.a.synced.pendingChangeSets()
        #expect(changeSets.count == 1 && changeSets[0].operations.first?.object.className == "SyncReading")
        #expect(try pair.b.synced.apply(changeSets) == 1)
        #expect(try pair.b.vault().dynamicObjects("SyncReading").isEmpty)
    }

    @Test("vaults that learn their classes as the app uses them (no objectTypes) record and receive objects of classes learned later")
    func classesLearnedLater() async throws {
        let directory = try TemporaryDirectory("sync-discovery")
        let relay = InProcessRelay()
        let a = try SyncTestDevice(directory, "a", relay: relay, types: nil)
        let b = try SyncTestDevice(directory, "b", relay: relay, types: nil)
        try a.write { vault in vault.create(SyncPerson.self, value: ["id": 1, "name": "First use"]) }
        try await a.sync()
        try await b.sync()
        // b has never used SyncPerson: the objects wait in its merge states, then get rows once it does.
        let vault = try b.vault()
        #expect(vault.objects(SyncPerson.self).isEmpty)
        try await b.sync()
        #expect(try b.vault().object(ofType: SyncPerson.self, forPrimaryKey: 1)?.name == "First use")
        try b.write { vault in vault.object(ofType: SyncPerson.self, forPrimaryKey: 1)?.name = "Edited on b" }
        for device in [b, a] { try await device.sync() }
        #expect(try a.vault().object(ofType: SyncPerson.self, forPrimaryKey: 1)?.name == "Edited on b")
        #expect(try a.synced.dump() == b.synced.dump())
    }

    @Test("a model that cannot sync is refused with a reason")
    func unsupportedModels() throws {
        let directory = try TemporaryDirectory("sync-unsupported")
        let configuration = Vault.Configuration(fileURL: directory.file("x.vault"), encryptionKey: syncTestKey, objectTypes: [KeylessThing.self])
        do {
            _ = try SyncedVault(configuration: configuration)
            Issue.record("a class without a primary key was accepted")
        } catch let error as SyncError {
            #expect(error.description.contains("KeylessThing has no primary key"))
        }
    }
}

final class KeylessThing: Object {
    @Persisted var name = ""
}
