import Foundation
import Observation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

private func trackingConfiguration(_ directory: TemporaryDirectory) -> Vault.Configuration {
    var configuration = threadingConfiguration(directory)
    configuration.observationTracking = true
    return configuration
}

/// Writes in a vault of a new thread (another instance, its own connections).
private func writeElsewhere(_ configuration: Vault.Configuration, _ body: @escaping @Sendable (Vault) -> Void) throws {
    try onNewThread {
        let other = try Vault(configuration: configuration)
        try other.write { body(other) }
    }
}

@Suite("Observation: managed objects in withObservationTracking")
struct ObservationTrackingTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("observation") }

    @Test("a property read inside withObservationTracking reports another thread's write of it at the next delivery; other properties do not")
    func tracksReadProperties() throws {
        let configuration = trackingConfiguration(directory)
        let vault = try Vault(configuration: configuration)
        try seedBox(vault)
        let item = try #require(vault.object(ofType: TItem.self, forPrimaryKey: 1))
        let changed = Locked(0)
        let name = withObservationTracking { item.name } onChange: { changed.withLock { $0 += 1 } }
        #expect(name == "item 1")

        try writeElsewhere(configuration) { $0.object(ofType: TItem.self, forPrimaryKey: 1)?.score = 5 }
        vault.refresh()
        #expect(changed.withLock { $0 } == 0, "score was not read in the tracking scope")

        try writeElsewhere(configuration) { $0.object(ofType: TItem.self, forPrimaryKey: 1)?.name = "item 1" }
        #expect(changed.withLock { $0 } == 0, "nothing before the vault advances")
        vault.refresh()
        #expect(changed.withLock { $0 } == 1, "a write of the same value counts, as in Realm")
        #expect(item.name == "item 1" && item.score == 5)
    }

    @Test("deleting a tracked object and writing its list report a change; an untouched object does not")
    func deletionsAndCollections() throws {
        let configuration = trackingConfiguration(directory)
        let vault = try Vault(configuration: configuration)
        try seedBox(vault)
        let box = try #require(vault.object(ofType: TBox.self, forPrimaryKey: 1))
        let two = try #require(vault.object(ofType: TItem.self, forPrimaryKey: 2))
        let three = try #require(vault.object(ofType: TItem.self, forPrimaryKey: 3))
        let boxChanged = Locked(false), twoChanged = Locked(false), threeChanged = Locked(false)
        _ = withObservationTracking { box.items.count } onChange: { boxChanged.withLock { $0 = true } }
        _ = withObservationTracking { two.name } onChange: { twoChanged.withLock { $0 = true } }
        _ = withObservationTracking { three.name } onChange: { threeChanged.withLock { $0 = true } }
        try writeElsewhere(configuration) { other in
            other.object(ofType: TBox.self, forPrimaryKey: 1)?.items.append(TItem(9, "nine"))
            if let two = other.object(ofType: TItem.self, forPrimaryKey: 2) { other.delete(two) }
        }
        vault.refresh()
        #expect(boxChanged.withLock { $0 } && twoChanged.withLock { $0 })
        #expect(!threeChanged.withLock { $0 })
        #expect(box.items.map(\.id) == [1, 3, 9] && two.isInvalidated, "9 appended; 2 deleted, and so gone from the list")
    }

    @Test("on an actor-isolated vault the change arrives by itself, with no refresh()", .timeLimit(.minutes(5)))
    func actorDelivery() async throws {
        let configuration = trackingConfiguration(directory)
        try onNewThread { try seedBox(try Vault(configuration: configuration)) }
        #expect(try await TrackingReader().waitForRename(configuration) == "renamed")
    }

    @Test("with observationTracking off (the default on Linux) objects do not take part")
    func offByConfiguration() throws {
        var configuration = threadingConfiguration(directory)
        configuration.observationTracking = false
        let vault = try Vault(configuration: configuration)
        try seedBox(vault)
        let item = try #require(vault.object(ofType: TItem.self, forPrimaryKey: 1))
        let changed = Locked(false)
        _ = withObservationTracking { item.name } onChange: { changed.withLock { $0 = true } }
        try writeElsewhere(configuration) { $0.object(ofType: TItem.self, forPrimaryKey: 1)?.name = "x" }
        vault.refresh()
        #expect(!changed.withLock { $0 } && item.name == "x")
        #expect(vault.session.observing.tracking == nil)
    }
}

actor TrackingReader {
    func waitForRename(_ configuration: Vault.Configuration) async throws -> String {
        let vault = try await Vault.open(configuration: configuration)
        let item = try #require(vault.object(ofType: TItem.self, forPrimaryKey: 1))
        let changes = AsyncStream<Void>.makeStream()
        _ = withObservationTracking { item.name } onChange: { changes.continuation.yield() }
        try await _Concurrency.Task.detached {
            let other = try Vault(configuration: configuration)
            try other.write { other.object(ofType: TItem.self, forPrimaryKey: 1)?.name = "renamed" }
        }.value
        var iterator = changes.stream.makeAsyncIterator()
        _ = await iterator.next(isolation: self)
        return item.name
    }
}
