import Foundation
import OpenCombineShim
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Combine publishers (OpenCombine on Linux, Combine on Apple): initial values,
// updates with Realm's indices, completion on deletion, cancellation, demand,
// subscribe(on:) / receive(on:) with dispatch queues, freeze() and
// threadSafeReference(). Vaults confined to the test's thread deliver at
// refresh(); queue-confined ones by themselves.

final class CProject: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var tasks: List<CTask>
    @Persisted var tags: MutableSet<String>
    @Persisted var settings: Map<String, String>
}

final class CTask: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var done = false
    @Persisted(originProperty: "tasks") var projects: LinkingObjects<CProject>
}

final class CTaskCard: Projection<CTask> {
    @Projected(\CTask.title) var heading: String
}

/// Values and completions a sink received, readable from any thread.
final class Sunk<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var storedValues: [Value] = []
    private var storedCompletions = 0
    private let signal = DispatchSemaphore(value: 0)

    var values: [Value] { lock.withLock { storedValues } }
    var completions: Int { lock.withLock { storedCompletions } }

    func append(_ value: Value) {
        lock.withLock { storedValues.append(value) }
        signal.signal()
    }

    func complete() {
        lock.withLock { storedCompletions += 1 }
        signal.signal()
    }

    /// Waits for the next value or completion (queue-delivered publishers).
    func wait(seconds: Double = 10) -> Bool { signal.wait(timeout: .now() + seconds) == .success }
}

func combineVault(_ mode: StorageMode, _ directory: TemporaryDirectory) throws -> Vault {
    try Vault(configuration: mode.configuration(directory, types: [CProject.self, CTask.self]))
}

func seedProject(_ vault: Vault) throws -> CProject {
    let project = CProject(value: ["id": 1, "name": "p"])
    try vault.write {
        vault.add(project)
        project.tasks.append(CTask(value: ["id": 1, "title": "one"]))
        project.tags.insert("a")
        project.settings["k"] = "v"
    }
    return project
}

@Suite("Combine publishers")
struct CombineTests {
    @Test("collectionPublisher emits the results at the first delivery and after each write; nothing after cancel, no observer left",
          arguments: StorageMode.writable)
    func collectionPublisher(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("combine-results")
        let vault = try combineVault(mode, directory)
        _ = try seedProject(vault)
        let received = Sunk<[String]>()
        let cancellable = vault.objects(CTask.self).sorted(byKeyPath: "id").collectionPublisher
            .map { $0.map(\.title) }
            .sink(receiveCompletion: { _ in received.complete() }, receiveValue: received.append)
        vault.refresh()
        #expect(received.values == [["one"]])
        try vault.write { vault.add(CTask(value: ["id": 2, "title": "two"])) }
        vault.refresh()
        #expect(received.values == [["one"], ["one", "two"]])
        cancellable.cancel()
        try vault.write { vault.add(CTask(value: ["id": 3, "title": "three"])) }
        vault.refresh()
        #expect(received.values.count == 2, "no value after cancel")
        #expect(vault.session.observing.observations.allSatisfy { !$0.isActive } || vault.session.observing.observations.isEmpty)
    }

    @Test("changesetPublisher gives Realm's indices for insertions, modifications and deletions", arguments: StorageMode.writable)
    func changesetIndices(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("combine-changeset")
        let vault = try combineVault(mode, directory)
        _ = try seedProject(vault)
        var changes: [String] = []
        let cancellable = vault.objects(CTask.self).sorted(byKeyPath: "id").changesetPublisher.sink { change in
            switch change {
            case .initial(let tasks): changes.append("initial \(tasks.count)")
            case .update(_, let deletions, let insertions, let modifications): changes.append("-\(deletions) +\(insertions) ~\(modifications)")
            case .error(let error): changes.append("error \(error)")
            }
        }
        vault.refresh()
        try vault.write { vault.add(CTask(value: ["id": 0, "title": "zero"])) }
        vault.refresh()
        try vault.write { vault.object(ofType: CTask.self, forPrimaryKey: 1)?.done = true }
        vault.refresh()
        try vault.write { vault.delete(vault.objects(CTask.self).filter("id == 0")) }
        vault.refresh()
        #expect(changes == ["initial 1", "-[] +[0] ~[]", "-[] +[] ~[1]", "-[0] +[] ~[]"])
        withExtendedLifetime(cancellable) {}
    }

    @Test("every collection kind publishes its value and its changes: List, MutableSet, Map, LinkingObjects, AnyVaultCollection, sections, projections")
    func everyCollection() throws {
        let directory = try TemporaryDirectory("combine-collections")
        let vault = try combineVault(.inMemory, directory)
        let project = try seedProject(vault)
        let task = try #require(vault.object(ofType: CTask.self, forPrimaryKey: 1))
        var log: [String] = []
        var cancellables = Set<AnyCancellable>()
        project.tasks.collectionPublisher.assertNoFailure().sink { log.append("list \($0.count)") }.store(in: &cancellables)
        project.tasks.changesetPublisher.sink { if case .update(_, _, let i, _) = $0 { log.append("list +\(i)") } }.store(in: &cancellables)
        project.tags.collectionPublisher.assertNoFailure().sink { log.append("set \($0.count)") }.store(in: &cancellables)
        project.tags.changesetPublisher.sink { if case .update(_, _, let i, _) = $0 { log.append("set +\(i)") } }.store(in: &cancellables)
        project.settings.collectionPublisher.assertNoFailure().sink { log.append("map \($0.count)") }.store(in: &cancellables)
        project.settings.changesetPublisher.sink { if case .update(_, _, let i, _) = $0 { log.append("map +\(i)") } }.store(in: &cancellables)
        task.projects.collectionPublisher.assertNoFailure().sink { log.append("backlinks \($0.count)") }.store(in: &cancellables)
        AnyVaultCollection(project.tasks).collectionPublisher.assertNoFailure().sink { log.append("any \($0.count)") }.store(in: &cancellables)
        vault.objects(CTask.self).sectioned(by: \.done).collectionPublisher.assertNoFailure()
            .sink { log.append("sections \($0.count)") }.store(in: &cancellables)
        vault.objects(CTaskCard.self).collectionPublisher.assertNoFailure()
            .sink { log.append("cards \($0.map(\.heading))") }.store(in: &cancellables)
        // One section: the open tasks (done == false); the task added below is done, so it is not heard here.
        let openTasks = vault.objects(CTask.self).sectioned(by: \.done)[0]
        openTasks.collectionPublisher.assertNoFailure().sink { log.append("open section \($0.key) \($0.count)") }.store(in: &cancellables)
        openTasks.changesetPublisher.sink { if case .update = $0 { log.append("open section changed") } }.store(in: &cancellables)
        vault.refresh()
        #expect(Set(log) == ["list 1", "set 1", "map 1", "backlinks 1", "any 1", "sections 1", "cards [\"one\"]", "open section false 1"])
        log = []
        try vault.write {
            project.tasks.append(CTask(value: ["id": 2, "title": "two", "done": true]))
            project.tags.insert("b")
            project.settings["k2"] = "v2"
            let other = CProject(value: ["id": 2])
            vault.add(other)
            other.tasks.append(task)
        }
        vault.refresh()
        #expect(Set(log) == ["list 2", "list +[1]", "set 2", "set +[1]", "map 2", "map +[\"k2\"]", "backlinks 2", "any 2",
                             "sections 2", "cards [\"one\", \"two\"]"])
    }

    @Test("an object's valuePublisher emits after each change (no initial value) and finishes when it is deleted; its changesetPublisher names properties and finishes too", arguments: StorageMode.writable)
    func objectPublishers(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("combine-object")
        let vault = try combineVault(mode, directory)
        _ = try seedProject(vault)
        let task = try #require(vault.object(ofType: CTask.self, forPrimaryKey: 1))
        let values = Sunk<String>()
        let changes = Sunk<String>()
        let value = valuePublisher(task).sink(receiveCompletion: { _ in values.complete() }, receiveValue: { values.append($0.title) })
        let changeset = changesetPublisher(task, keyPaths: ["title"]).sink(receiveCompletion: { _ in changes.complete() }) { change in
            switch change {
            case .change(_, let properties):
                changes.append(properties.map { "\($0.name) \($0.oldValue as? String ?? "nil")→\($0.newValue as? String ?? "nil")" }.joined())
            case .deleted: changes.append("deleted")
            case .error(let error): changes.append("error \(error)")
            }
        }
        vault.refresh()
        #expect(values.values.isEmpty, "no value at subscription, as in Realm")
        try vault.write { task.title = "renamed" }
        vault.refresh()
        try vault.write { task.done = true }
        vault.refresh()
        #expect(values.values == ["renamed", "renamed"])
        #expect(changes.values == ["title one→renamed"], "keyPaths: [\"title\"] leaves out done")
        try vault.write { vault.delete(task) }
        vault.refresh()
        #expect(values.completions == 1)
        #expect(changes.values == ["title one→renamed"], "deletion finishes the changeset without a .deleted, as Realm's")
        #expect(changes.completions == 1)
        withExtendedLifetime([value, changeset]) {}
    }

    @Test("objectWillChange of objects, lists, results, projections and the vault emits after each change; tokens store in cancellables")
    func objectWillChangeAndTokens() throws {
        let directory = try TemporaryDirectory("combine-will-change")
        let vault = try combineVault(.encryptedFile, directory)
        let project = try seedProject(vault)
        let task = try #require(vault.object(ofType: CTask.self, forPrimaryKey: 1))
        let card = CTaskCard(projecting: task)
        var counts: [String: Int] = [:]
        var cancellables = Set<AnyCancellable>()
        project.objectWillChange.sink { counts["project", default: 0] += 1 }.store(in: &cancellables)
        project.tasks.objectWillChange.sink { counts["list", default: 0] += 1 }.store(in: &cancellables)
        vault.objects(CTask.self).objectWillChange.sink { counts["results", default: 0] += 1 }.store(in: &cancellables)
        card.objectWillChange.sink { counts["card", default: 0] += 1 }.store(in: &cancellables)
        // Realm's projection publishers emit the projection's own class.
        var headings: [String] = []
        valuePublisher(card).assertNoFailure().sink { (emitted: CTaskCard) in headings.append(emitted.heading) }.store(in: &cancellables)
        vault.objectWillChange.sink { counts["vault", default: 0] += 1 }.store(in: &cancellables)
        var tokenCalls = 0
        vault.objects(CTask.self).observe { _ in tokenCalls += 1 }.store(in: &cancellables)
        vault.refresh()
        try vault.write { project.name = "renamed"; task.title = "t" }
        vault.refresh()
        #expect(counts["project"] == 1)
        #expect(counts["list"] == 2, "the first delivery and the change")
        #expect(counts["results"] == 2)
        #expect(counts["card"] == 1)
        #expect(headings == ["t"])
        #expect((counts["vault"] ?? 0) >= 1)
        #expect(tokenCalls == 2)
        cancellables.removeAll()
        let before = (counts, tokenCalls)
        try vault.write { task.title = "again" }
        vault.refresh()
        #expect(counts == before.0 && tokenCalls == before.1, "nothing after the cancellables are released")
    }

    @Test("subscribe(on:) observes on a serial queue: values arrive there by themselves", arguments: StorageMode.writable)
    func subscribeOn(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("combine-subscribe-on")
        let vault = try combineVault(mode, directory)
        _ = try seedProject(vault)
        let queue = DispatchQueue(label: "vaultkit.tests.subscribe-on")
        let received = Sunk<Int>()
        let cancellable = vault.objects(CTask.self).collectionPublisher
            .subscribe(on: queue)
            .assertNoFailure()
            .sink { tasks in
                dispatchPrecondition(condition: .onQueue(queue))
                received.append(tasks.count)
            }
        #expect(received.wait())
        try vault.write { vault.add(CTask(value: ["id": 2, "title": "two"])) }
        #expect(received.wait())
        #expect(received.values == [1, 2])

        let task = try #require(vault.object(ofType: CTask.self, forPrimaryKey: 1))
        let changes = Sunk<String>()
        let changeset = changesetPublisher(task).subscribe(on: queue).sink(receiveCompletion: { _ in changes.complete() }) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .change(let object, let properties) = change { changes.append("\(object.title) \(properties.map(\.name))") }
            if case .deleted = change { changes.append("deleted") }
        }
        Thread.sleep(forTimeInterval: 0.1)
        try vault.write { task.title = "first change after subscribing" }
        #expect(changes.wait())
        try vault.write { vault.delete(task) }
        #expect(changes.wait())
        #expect(changes.values == ["first change after subscribing [\"title\"]"], "finished on deletion, nothing sent")
        #expect(changes.completions == 1)
        withExtendedLifetime([cancellable, changeset]) {}
    }

    @Test("receive(on:) hands live results and changes over to the queue's vault; freeze() and threadSafeReference() cross threads")
    func receiveOn() throws {
        let directory = try TemporaryDirectory("combine-receive-on")
        let vault = try combineVault(.encryptedFile, directory)
        _ = try seedProject(vault)
        let queue = DispatchQueue(label: "vaultkit.tests.receive-on")
        let handedOver = Sunk<String>()
        let frozen = Sunk<String>()
        let mapped = Sunk<[String]>()
        let changes = Sunk<String>()
        var cancellables = Set<AnyCancellable>()
        let tasks = vault.objects(CTask.self).sorted(byKeyPath: "id")
        tasks.collectionPublisher.receive(on: queue).assertNoFailure().sink { results in
            dispatchPrecondition(condition: .onQueue(queue))
            handedOver.append("\(results.map(\.title)) frozen=\(results.isFrozen)")
        }.store(in: &cancellables)
        tasks.collectionPublisher.freeze().receive(on: DispatchQueue.global()).assertNoFailure().sink { results in
            frozen.append("\(results.map(\.title)) frozen=\(results.isFrozen)")
        }.store(in: &cancellables)
        // The seeds' view model: map to plain values, then receive on a queue.
        tasks.collectionPublisher.map { $0.map(\.title) }.receive(on: queue).assertNoFailure()
            .sink { mapped.append($0) }.store(in: &cancellables)
        tasks.changesetPublisher.map { $0 }.threadSafeReference().receive(on: queue).sink { change in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .initial(let results) = change { changes.append("initial \(results.count)") }
            if case .update(let results, _, let insertions, _) = change { changes.append("update \(results.count) +\(insertions)") }
        }.store(in: &cancellables)
        // One section's changes, handed over to the queue: found again there by its key.
        let sectionChanges = Sunk<String>()
        vault.objects(CTask.self).sectioned(by: \.done)[0].changesetPublisher.receive(on: queue).sink { change in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .initial(let section) = change { sectionChanges.append("initial \(section.key) \(section.map(\.title))") }
            if case .update(let section, _, let insertions, _, _, _) = change {
                sectionChanges.append("update \(section.key) \(section.map(\.title)) +\(insertions.map { "\($0[0]).\($0[1])" })")
            }
        }.store(in: &cancellables)
        vault.refresh()
        #expect(handedOver.wait() && frozen.wait() && mapped.wait() && changes.wait() && sectionChanges.wait())
        try vault.write { vault.add(CTask(value: ["id": 2, "title": "two"])) }
        vault.refresh()
        #expect(handedOver.wait() && frozen.wait() && mapped.wait() && changes.wait() && sectionChanges.wait())
        #expect(sectionChanges.values == ["initial false [\"one\"]", "update false [\"one\", \"two\"] +[\"0.1\"]"])
        #expect(handedOver.values == ["[\"one\"] frozen=false", "[\"one\", \"two\"] frozen=false"])
        #expect(frozen.values == ["[\"one\"] frozen=true", "[\"one\", \"two\"] frozen=true"])
        #expect(mapped.values == [["one"], ["one", "two"]])
        #expect(changes.values == ["initial 1", "update 2 +[1]"])
    }

    @Test("demand is honoured: a changeset publisher keeps every change in order, a value publisher only the newest")
    func demand() throws {
        let directory = try TemporaryDirectory("combine-demand")
        let vault = try combineVault(.inMemory, directory)
        _ = try seedProject(vault)
        let results = vault.objects(CTask.self)
        let changes = DemandSubscriber<VaultCollectionChange<Results<CTask>>, Never>()
        let values = DemandSubscriber<Results<CTask>, Error>()
        results.changesetPublisher.subscribe(changes)
        results.collectionPublisher.subscribe(values)
        changes.subscription?.request(.max(1))
        values.subscription?.request(.max(1))
        vault.refresh()
        for id in 2...4 {
            try vault.write { vault.add(CTask(value: ["id": id, "title": "t\(id)"])) }
            vault.refresh()
        }
        #expect(changes.received.count == 1, "only the demanded initial")
        #expect(values.received.count == 1)
        changes.subscription?.request(.max(2))
        values.subscription?.request(.unlimited)
        #expect(changes.received.count == 3)
        let inserted = changes.received.compactMap { change -> [Int]? in
            if case .update(_, _, let insertions, _) = change { return insertions }
            return nil
        }
        #expect(inserted == [[1], [2]], "the changes in the order they happened")
        #expect(values.received.count == 2, "waiting values collapse into the newest")
        #expect(values.received.last?.count == 4)
        weak var released: DemandSubscriber<Results<CTask>, Error>?
        do {
            let transient = DemandSubscriber<Results<CTask>, Error>()
            released = transient
            results.collectionPublisher.subscribe(transient)
            transient.subscription?.cancel()
            transient.subscription = nil
        }
        #expect(released == nil, "a cancelled subscription keeps no subscriber alive")
    }
}

@Suite("Combine publishers of objects that cannot change")
struct CombineUnchangingTests {
    @Test("objectWillChange of unmanaged, frozen and deleted objects and collections never emits and never stops the program")
    func unchanging() throws {
        let directory = try TemporaryDirectory("combine-unchanging")
        let vault = try combineVault(.inMemory, directory)
        let project = try seedProject(vault)
        let frozen = project.freeze()
        let unmanaged = CProject(value: ["id": 9])
        var emitted = 0
        var cancellables = Set<AnyCancellable>()
        unmanaged.objectWillChange.sink { emitted += 1 }.store(in: &cancellables)
        unmanaged.tasks.objectWillChange.sink { emitted += 1 }.store(in: &cancellables)
        frozen.objectWillChange.sink { emitted += 1 }.store(in: &cancellables)
        frozen.tasks.objectWillChange.sink { emitted += 1 }.store(in: &cancellables)
        vault.freeze().objectWillChange.sink { emitted += 1 }.store(in: &cancellables)
        CTaskCard(projecting: CTask()).objectWillChange.sink { emitted += 1 }.store(in: &cancellables)
        try vault.write { project.name = "changed"; unmanaged.name = "changed too" }
        vault.refresh()
        #expect(emitted == 0)
    }
}

/// A subscriber that requests values only when told.
final class DemandSubscriber<Input, Failure: Error>: Subscriber {
    var subscription: Subscription?
    var received: [Input] = []

    func receive(subscription: Subscription) { self.subscription = subscription }
    func receive(_ input: Input) -> Subscribers.Demand {
        received.append(input)
        return .none
    }
    func receive(completion: Subscribers.Completion<Failure>) {}
}

extension CombineTests {
    @Test("threadSafeReference() passes unmanaged objects and lists through as they are (Realm's testUnmanagedMakeThreadSafe)")
    func unmanagedPassThrough() throws {
        let queue = DispatchQueue(label: "vaultkit.tests.unmanaged-handover")
        let task = CTask(value: ["id": 7, "title": "unmanaged"])
        let project = CProject(value: ["id": 1, "tags": ["a"]])
        let received = Sunk<String>()
        var cancellables = Set<AnyCancellable>()
        Just(task).threadSafeReference().receive(on: queue).sink { value in
            received.append("\(value === task) \(value.title)")
        }.store(in: &cancellables)
        Just(project.tasks).threadSafeReference().receive(on: queue).sink { list in
            received.append("list \(list === project.tasks)")
        }.store(in: &cancellables)
        #expect(received.wait() && received.wait())
        #expect(Set(received.values) == ["true unmanaged", "list true"])
    }
}
