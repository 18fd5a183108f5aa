import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

/// Collects what observation blocks report, isolated to itself.
actor ChangeRecorder {
    private(set) var entries: [String] = []
    func record(_ entry: String) { entries.append(entry) }
}

/// Polls `condition` until it holds (deliveries are asynchronous), for at most five seconds.
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<500 {
        if await condition() { return true }
        try? await _Concurrency.Task.sleep(nanoseconds: 10_000_000)
    }
    return await condition()
}

/// Runs `body` with a vault confined to the calling thread, opened for it alone
/// (the test's async code may resume on another thread after each await).
func withThreadVault<T>(_ configuration: Vault.Configuration, _ body: (Vault) throws -> T) throws -> T {
    try body(Vault(configuration: configuration, isolation: nil))
}

@Suite("Observing on an actor (Realm's observe(keyPaths:on: actor))")
struct ActorObservationTests {
    @Test("results, lists, maps and objects deliver on the given actor, isolated to it, with Realm's changes")
    func deliversOnActor() async throws {
        let directory = try TemporaryDirectory("actor-observe")
        let configuration = StorageMode.encryptedFile.configuration(directory, types: [SpellingItem.self])
        try withThreadVault(configuration) { vault in try vault.write { vault.add(SpellingItem(value: ["id": 1, "name": "owner"])) } }
        let recorder = ChangeRecorder()
        func owner() throws -> SpellingItem {
            try withThreadVault(configuration) { vault in
                guard let owner = vault.object(ofType: SpellingItem.self, forPrimaryKey: 1) else { throw VaultObjectError.invalidatedObject(className: "SpellingItem") }
                return owner
            }
        }

        let resultsToken = await (try withThreadVault(configuration) { $0.objects(SpellingItem.self).sorted(byKeyPath: "id") }).observe(on: recorder) { recorder, change in
            switch change {
            case .initial(let results): recorder.record("results initial \(results.count)")
            case .update(let results, let deletions, let insertions, _): recorder.record("results update \(results.count) -\(deletions) +\(insertions)")
            case .error(let error): recorder.record("results error \(error)")
            }
        }
        let listToken = await (try owner().items).observe(keyPaths: [\SpellingItem.name], on: recorder) { recorder, change in
            if case .update(let list, _, let insertions, let modifications) = change {
                recorder.record("list \(list.count) +\(insertions) ~\(modifications)")
            }
        }
        let mapToken = await (try owner().labels).observe(on: recorder) { recorder, change in
            if case .update(_, _, let insertions, _) = change { recorder.record("map +\(insertions)") }
        }
        let objectToken = await (try owner()).observe(keyPaths: [\SpellingItem.name], on: recorder) { recorder, change in
            if case .change(let object, let properties) = change { recorder.record("object \(object.name) \(properties.map(\.name))") }
        }
        #expect(await eventually { await recorder.entries.contains("results initial 1") })

        try withThreadVault(configuration) { vault in
            try vault.write {
                guard let owner = vault.object(ofType: SpellingItem.self, forPrimaryKey: 1) else { return }
                owner.items.append(SpellingItem(value: ["id": 2, "name": "child"]))
                owner.labels["k"] = "v"
                owner.name = "renamed"
            }
        }
        let expected = ["results update 2 -[] +[1]", "list 1 +[0] ~[]", "map +[\"k\"]", "object renamed [\"name\"]"]
        #expect(await eventually { Set(expected).isSubset(of: await recorder.entries) })
        for token in [resultsToken, listToken, mapToken, objectToken] { token.invalidate() }

        // After invalidation nothing more arrives.
        let count = await recorder.entries.count
        try withThreadVault(configuration) { vault in
            try vault.write { vault.object(ofType: SpellingItem.self, forPrimaryKey: 1)?.name = "again" }
        }
        try await _Concurrency.Task.sleep(nanoseconds: 200_000_000)
        #expect(await recorder.entries.count == count)
    }
}
