import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Notifications beyond the basics of NotificationTests.swift: changes through
// links, queue-confined vaults, other processes, streams, maps, observe(on:).

@Suite("Changes through links")
struct DeepChangeTests {
    @Test("the key-path matrix: without key paths writes reached through links count (depth 4); with them only the listed paths")
    func keyPathMatrix() throws {
        let directory = try TemporaryDirectory("notify-deep")
        let vault = try itemVault(directory)
        try vault.write {
            addOwner(1, items: 1...2, to: vault)
            vault.add(NItem(3, "lonely"))
        }
        let items = vault.objects(NItem.self)
        let owners = vault.objects(NOwner.self)
        let deep = Received<Results<NItem>>(), ownerName = Received<Results<NItem>>(), ownerLink = Received<Results<NItem>>(),
            scoreOnly = Received<Results<NItem>>(), ownersDeep = Received<Results<NOwner>>(), ownersItemScore = Received<Results<NOwner>>()
        var objectChanges: [ObjectChange<NItem>] = []
        let item1 = try #require(vault.object(ofType: NItem.self, forPrimaryKey: 1))
        let tokens = [items.observe { deep.changes.append($0) },
                      items.observe(keyPaths: ["owner.name"]) { ownerName.changes.append($0) },
                      items.observe(keyPaths: ["owner"]) { ownerLink.changes.append($0) },
                      items.observe(keyPaths: ["score"]) { scoreOnly.changes.append($0) },
                      owners.observe { ownersDeep.changes.append($0) },
                      owners.observe(keyPaths: ["items.score"]) { ownersItemScore.changes.append($0) },
                      item1.observe(keyPaths: ["owner.name"]) { objectChanges.append($0) }]
        vault.refresh()

        // The owner is renamed: items linking to it changed through `owner`.
        try vault.write { vault.object(ofType: NOwner.self, forPrimaryKey: 1)?.name = "renamed" }
        vault.refresh()
        #expect(deep.updates.last?.modifications == [0, 1], "deep by default: both items link to the owner")
        #expect(ownerName.updates.last?.modifications == [0, 1])
        #expect(ownerLink.updates.isEmpty, "[\"owner\"]: the link itself did not change")
        #expect(scoreOnly.updates.isEmpty)
        #expect(ownersDeep.updates.last?.modifications == [0], "its own row")
        guard case .change(_, let properties)? = objectChanges.last else { Issue.record("expected an object change through owner.name"); return }
        #expect(properties.map(\.name) == ["owner"])

        // An item's score: its owner changed through `items`.
        try vault.write { item1.score = 42 }
        vault.refresh()
        #expect(ownersDeep.updates.count == 2 && ownersDeep.updates.last?.modifications == [0])
        #expect(ownersItemScore.updates.last?.modifications == [0])
        #expect(ownerName.updates.count == 1, "a score write is not owner.name")
        #expect(objectChanges.count == 1)

        // The owner's tags: deep observers of items see it (a write of the owner row), owner.name does not.
        try vault.write { vault.object(ofType: NOwner.self, forPrimaryKey: 1)?.tags.insert("t") }
        vault.refresh()
        #expect(deep.updates.count == 3 && deep.updates.last?.modifications == [0, 1])
        #expect(ownerName.updates.count == 1)
        #expect(ownersItemScore.updates.count == 1)
        withExtendedLifetime(tokens) {}
    }
}

@Suite("Notifications on a queue-confined vault")
struct QueueNotificationTests {
    @Test("a vault confined to a serial queue is shared by its blocks and gets its notifications there, with no refresh() call")
    func queueDelivery() throws {
        let directory = try TemporaryDirectory("notify-queue")
        let configuration = Vault.Configuration(fileURL: directory.file("q.vault"), encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self])
        let writer = try Vault(configuration: configuration)
        try writer.write { writer.add(NItem(1, "a")) }

        let queue = DispatchQueue(label: "vaultkit.tests.observer")
        let heard = Locked<[String]>([])
        let delivered = DispatchSemaphore(value: 0)
        var queueVault: Vault?
        var token: NotificationToken?
        try queue.sync {
            let vault = try Vault(configuration: configuration, queue: queue)
            token = vault.objects(NItem.self).observe { change in
                dispatchPrecondition(condition: .onQueue(queue))
                switch change {
                case .initial(let items): heard.withLock { $0.append("initial \(items.count)") }
                case .update(let items, let deletions, let insertions, let modifications):
                    heard.withLock { $0.append("update \(items.count) \(deletions) \(insertions) \(modifications)") }
                case .error(let error): heard.withLock { $0.append("error \(error)") }
                }
                delivered.signal()
            }
            queueVault = vault
        }
        #expect(delivered.wait(timeout: .now() + 10) == .success, "the initial delivery comes on the queue by itself")
        #expect(try queue.sync { try Vault(configuration: configuration, queue: queue).session === queueVault?.session },
                "another block on the queue shares the instance")

        try writer.write { writer.add(NItem(2, "b")); writer.object(ofType: NItem.self, forPrimaryKey: 1)?.name = "A" }
        #expect(delivered.wait(timeout: .now() + 10) == .success, "a commit on another thread wakes the queue")
        #expect(heard.withLock { $0 } == ["initial 1", "update 2 [] [1] [0]"])
        queue.sync { _ = token?.invalidate() }
        withExtendedLifetime((queueVault, token)) {}
    }

    @Test("another process's commit wakes a queue-confined observer by itself (the commit signal), with exact insertions")
    func otherProcessWakesQueue() throws {
        let directory = try TemporaryDirectory("notify-process")
        let url = directory.file("p.vault")
        let configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self])
        let writer = try Vault(configuration: configuration)
        try writer.write { writer.add(NItem(1, "a")) }

        let queue = DispatchQueue(label: "vaultkit.tests.process-observer")
        let heard = Locked<[[Int]]>([])
        let delivered = DispatchSemaphore(value: 0)
        var token: NotificationToken?
        try queue.sync {
            let vault = try Vault(configuration: configuration, queue: queue)
            token = vault.objects(NItem.self).observe { change in
                if case .update(_, _, let insertions, _) = change { heard.withLock { $0.append(insertions) } }
                delivered.signal()
            }
        }
        #expect(delivered.wait(timeout: .now() + 10) == .success)   // .initial
        let hex = testKey.map { String(format: "%02x", $0) }.joined()
        let output = try runHelper(["execute", url.path, """
            INSERT INTO "NItem"("_vk_id", "name", "score") VALUES (2, 'from another process', 1);
            UPDATE _vaultkit_metadata SET value = value + 1 WHERE key = 'commitSequence';
            """], input: hex)
        #expect(output.contains("committed"))
        #expect(delivered.wait(timeout: .now() + 10) == .success, "woken without any refresh() call")
        #expect(heard.withLock { $0 } == [[1]])
        #expect(FileManager.default.fileExists(atPath: url.path + ".notify"))
        queue.sync { _ = token?.invalidate() }
        withExtendedLifetime(token) {}
    }

    @Test("a change stream merges pending changes (never drops one) and ends when its task is cancelled", .timeLimit(.minutes(5)))
    func changeStream() async throws {
        // Consumed across awaits, so the vault lives on an actor (a thread-confined one would be refused after a hop).
        try await ChangeStreamConsumer().run()
    }
}

/// Runs the change-stream test isolated to one actor: its vault is confined there and valid across awaits.
actor ChangeStreamConsumer {
    func run() async throws {
        let directory = try TemporaryDirectory("notify-stream")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("s.vault"), encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self]))
        try vault.write { vault.add(NItem(1, "a")); vault.add(NItem(2, "b")) }
        let results = vault.objects(NItem.self)
        var iterator = results.changes().makeAsyncIterator()
        vault.refresh()
        try vault.write { vault.add(NItem(3, "c")) }
        vault.refresh()
        guard case .initial(let initial)? = await iterator.next(isolation: self) else { Issue.record("expected .initial first"); return }
        #expect(initial.map(\.id) == [1, 2, 3], "an update not yet read folds into the initial element")

        // Two deliveries before the consumer reads: one merged update.
        try vault.write { vault.add(NItem(4, "d")); vault.object(ofType: NItem.self, forPrimaryKey: 1)?.score = 5 }
        vault.refresh()
        try vault.write { vault.delete(try #require(vault.object(ofType: NItem.self, forPrimaryKey: 4))); vault.add(NItem(5, "e")) }
        vault.refresh()
        guard case .update(let items, let deletions, let insertions, let modifications)? = await iterator.next(isolation: self) else {
            Issue.record("expected one merged update"); return
        }
        #expect(items.map(\.id) == [1, 2, 3, 5])
        #expect(deletions == [] && insertions == [3] && modifications == [0], "d came and went; a was written")

        // Cancelling the consuming task ends the sequence.
        let objectChanges = try #require(vault.object(ofType: NItem.self, forPrimaryKey: 2)).changes()
        let consumer = _Concurrency.Task { () -> Int in
            // Capturing the actor keeps the task on it, where the vault lives.
            self.assertIsolated()
            var count = 0
            for await _ in objectChanges { count += 1 }
            return count
        }
        try await _Concurrency.Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(await consumer.value == 0)
    }
}

final class NProfile: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var settings: Map<String, String>
}

@Suite("Map notifications")
struct MapNotificationTests {
    @Test("a Map reports deleted, inserted and modified keys (a value set again counts); nothing when nothing changed")
    func mapChanges() throws {
        let directory = try TemporaryDirectory("notify-map")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("m.vault"), encryptionKey: testKey, objectTypes: [NProfile.self]))
        try vault.write {
            let profile = NProfile(value: ["id": 1])
            profile.settings["theme"] = "dark"
            profile.settings["font"] = "serif"
            profile.settings["lang"] = "en"
            vault.add(profile)
        }
        let profile = try #require(vault.object(ofType: NProfile.self, forPrimaryKey: 1))
        var changes: [VaultMapChange<Map<String, String>>] = []
        let token = profile.settings.observe { changes.append($0) }
        vault.refresh()
        guard case .initial? = changes.first else { Issue.record("expected .initial"); return }
        try vault.write {
            profile.settings["theme"] = "light"
            profile.settings["lang"] = "en"
            profile.settings.removeObject(for: "font")
            profile.settings["size"] = "12"
        }
        vault.refresh()
        guard case .update(let map, let deletions, let insertions, let modifications)? = changes.last else { Issue.record("expected an update"); return }
        #expect(deletions == ["font"] && insertions == ["size"] && modifications == ["lang", "theme"])
        #expect(map["theme"] == "light")
        try vault.write { vault.add(NProfile(value: ["id": 2])) }
        vault.refresh()
        #expect(changes.count == 2, "a commit that leaves the map alone says nothing")
        withExtendedLifetime(token) {}
    }
}

@Suite("observe(keyPaths:on:) with a queue")
struct ObserveOnQueueTests {
    @Test("Results and objects observed on a queue get their changes there, with values read there")
    func observeOnQueue() throws {
        let directory = try TemporaryDirectory("notify-on-queue")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("o.vault"), encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self]))
        try vault.write { vault.add(NItem(1, "a")) }
        let queue = DispatchQueue(label: "vaultkit.tests.on-queue")
        let heard = Locked<[String]>([])
        let signal = DispatchSemaphore(value: 0)
        let resultsToken = vault.objects(NItem.self).sorted(byKeyPath: "name").observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let items): heard.withLock { $0.append("initial \(items.map(\.name))") }
            case .update(let items, let deletions, let insertions, let modifications):
                heard.withLock { $0.append("update \(items.map(\.name)) \(deletions) \(insertions) \(modifications)") }
            case .error(let error): heard.withLock { $0.append("error \(error)") }
            }
            signal.signal()
        }
        let item = try #require(vault.object(ofType: NItem.self, forPrimaryKey: 1))
        let objectToken = item.observe(keyPaths: ["score"], on: queue) { change in
            if case .change(let object, let properties) = change {
                heard.withLock { $0.append("object \(object.name) \(properties.map(\.name))") }
            }
            signal.signal()
        }
        #expect(signal.wait(timeout: .now() + 10) == .success)
        try vault.write { vault.add(NItem(2, "b")); item.score = 7 }
        #expect(signal.wait(timeout: .now() + 10) == .success)
        #expect(signal.wait(timeout: .now() + 10) == .success)
        let lines = heard.withLock { $0 }
        #expect(lines.contains("initial [\"a\"]"))
        #expect(lines.contains("update [\"a\", \"b\"] [] [1] [0]"))
        #expect(lines.contains("object a [\"score\"]"))
        resultsToken.invalidate()
        objectToken.invalidate()
    }
}


@Suite("Typed key paths in observe")
struct TypedKeyPathObservationTests {
    @Test("observe(keyPaths: [\\.name]) on results and objects counts writes to those properties only")
    func typedKeyPaths() throws {
        let directory = try TemporaryDirectory("typed-keypaths")
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try seedBox(vault)
        let item = try #require(vault.object(ofType: TItem.self, forPrimaryKey: 1))
        var heard: [String] = []
        let objectToken = item.observe(keyPaths: [\TItem.name]) { change in
            if case .change(_, let properties) = change { heard.append("object \(properties.map(\.name))") }
        }
        let resultsToken = vault.objects(TItem.self).observe(keyPaths: [\TItem.score]) { change in
            if case .update(_, _, _, let modifications) = change { heard.append("results ~\(modifications)") }
        }
        vault.refresh()
        try vault.write { item.score = 3 }
        vault.refresh()
        try vault.write { item.name = "renamed" }
        vault.refresh()
        objectToken.invalidate()
        resultsToken.invalidate()
        #expect(heard == ["results ~[0]", "object [\"name\"]"])
    }
}
