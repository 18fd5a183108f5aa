import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

final class TItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0
    @Persisted var box: TBox?
    convenience init(_ id: Int, _ name: String) {
        self.init()
        self.id = id
        self.name = name
    }
}

final class TBox: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var items: List<TItem>
    @Persisted var tags: MutableSet<String>
    @Persisted var labels: Map<String, String>
    @Persisted var itemSet: MutableSet<TItem>
    @Persisted(originProperty: "box") var boxed: LinkingObjects<TItem>
}

func threadingConfiguration(_ directory: TemporaryDirectory) -> Vault.Configuration {
    Vault.Configuration(fileURL: directory.file("threads.vault"), encryptionKey: testKey, objectTypes: [TItem.self, TBox.self])
}

/// A box with items 1…3 in its list (and linking to it), two tags and a label.
func seedBox(_ vault: Vault) throws {
    try vault.write {
        let box = TBox()
        box.id = 1
        box.tags.insert(objectsIn: ["red", "blue"])
        box.labels["size"] = "large"
        vault.add(box)
        for id in 1...3 {
            let item = TItem(id, "item \(id)")
            item.box = box
            box.items.append(item)
            box.itemSet.insert(item)
        }
    }
}

@Suite("Threads: thread-safe references and confinement")
struct ThreadSafeReferenceTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("threads") }

    @Test("a reference passed to another thread resolves and writes there; the first thread sees the write after refresh(); deleted resolves to nil")
    func referenceAcrossThreads() throws {
        let configuration = threadingConfiguration(directory)
        let vault = try Vault(configuration: configuration)
        try seedBox(vault)
        let item = try #require(vault.object(ofType: TItem.self, forPrimaryKey: 2))
        let reference = ThreadSafeReference(to: item)
        let box = try #require(vault.object(ofType: TBox.self, forPrimaryKey: 1))
        let results = ThreadSafeReference(to: vault.objects(TItem.self).filter("id >= 2").sorted(byKeyPath: "id", ascending: false))
        let list = ThreadSafeReference(to: box.items)
        let tags = ThreadSafeReference(to: box.tags)
        let labels = ThreadSafeReference(to: box.labels)
        let boxed = ThreadSafeReference(to: box.boxed)

        let seen = try onNewThread { () -> [String] in
            let other = try Vault(configuration: configuration)
            guard let resolved = other.resolve(reference), let again = other.resolve(reference) else { return ["not resolved"] }
            try other.write { resolved.name = "renamed on another thread" }
            var seen = [again.name]
            seen.append(other.resolve(results).map { $0.map(\.id).description } ?? "nil")
            seen.append(other.resolve(list).map { $0.map(\.id).description } ?? "nil")
            seen.append(other.resolve(tags).map { $0.sorted().description } ?? "nil")
            seen.append(other.resolve(labels).map { $0["size"] ?? "none" } ?? "nil")
            seen.append(other.resolve(boxed).map { $0.map(\.id).sorted().description } ?? "nil")
            return seen
        }
        #expect(seen == ["renamed on another thread", "[3, 2]", "[1, 2, 3]", "[\"blue\", \"red\"]", "large", "[1, 2, 3]"])
        #expect(item.name == "item 2", "the first thread keeps its version until it advances")
        vault.refresh()
        #expect(item.name == "renamed on another thread")

        try vault.write { vault.delete(item) }
        let stale = ThreadSafeReference(to: try #require(vault.object(ofType: TItem.self, forPrimaryKey: 3)))
        try vault.write { vault.delete(try #require(vault.object(ofType: TItem.self, forPrimaryKey: 3))) }
        let afterDelete = try onNewThread { () -> [Bool] in
            let other = try Vault(configuration: configuration)
            return [other.resolve(reference) == nil, other.resolve(stale) == nil, other.resolve(list)?.count == 1]
        }
        #expect(afterDelete == [true, true, true])
    }

    @Test("a reference handed to another actor resolves there and writes; the vault there is the actor's", .timeLimit(.minutes(5)))
    func referenceAcrossActors() async throws {
        let configuration = threadingConfiguration(directory)
        let reference = try onNewThread { () -> ThreadSafeReference<TItem> in
            let vault = try Vault(configuration: configuration)
            try seedBox(vault)
            return ThreadSafeReference(to: try #require(vault.object(ofType: TItem.self, forPrimaryKey: 1)))
        }
        let worker = ItemWorker()
        let name = try await worker.rename(reference, configuration: configuration, to: "renamed on an actor")
        #expect(name == "renamed on an actor")
        let stored = try onNewThread { () -> String? in
            try Vault(configuration: configuration).object(ofType: TItem.self, forPrimaryKey: 1)?.name
        }
        #expect(stored == "renamed on an actor")
    }

    @Test("using a live object on the wrong thread, queue or actor, writing a frozen object, observing frozen results and misusing references are refused with Realm's messages")
    func misuseIsRefused() throws {
        let expectations = [
            ("wrong-thread", "Vault accessed from incorrect thread: a managed TItem"),
            ("wrong-actor", "Vault accessed from incorrect thread: a managed TItem"),
            ("frozen-write", "Cannot modify the frozen object NItem.name"),
            ("frozen-observe", "Frozen vaults do not change and do not have change notifications"),
            ("wrong-queue", "Vault accessed from incorrect thread: a managed TItem"),
            ("unmanaged-reference", "Cannot make a thread-safe reference to an unmanaged NItem object"),
            ("foreign-reference", "Cannot resolve a ThreadSafeReference in the vault at"),
        ]
        for (index, (misuse, message)) in expectations.enumerated() {
            // The runtime's message is printed before the trap.
            let run = try runBuiltExecutable("VaultTestHelper", ["misuse", directory.file("misuse-\(index).vault").path, misuse],
                                             input: testKey.map { String(format: "%02x", $0) }.joined())
            #expect(run.reason == .uncaughtSignal, "\(misuse) must stop the process")
            let expected = message.replacingOccurrences(of: "TItem", with: "NItem")
            #expect(run.errors.contains(expected), "\(misuse): \(run.errors.prefix(400))")
        }
    }
}

@Suite("Threads: @ThreadSafe, actors named explicitly, frozen collections")
struct ThreadingExtrasTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("threads-extra") }

    @Test("a @ThreadSafe property resolves on whichever thread reads it, and reads nil once the object is deleted")
    func threadSafeWrapper() throws {
        let configuration = threadingConfiguration(directory)
        let vault = try Vault(configuration: configuration)
        try seedBox(vault)
        let holder = ItemHolder()
        holder.item = vault.object(ofType: TItem.self, forPrimaryKey: 3)
        #expect(holder.item?.name == "item 3")
        // The wrapper itself is Sendable: hand it to another thread and read there.
        let wrapper = holder.wrapper
        let name = try onNewThread { () -> String? in wrapper.wrappedValue?.name }
        #expect(name == "item 3")
        try vault.write { vault.delete(try #require(vault.object(ofType: TItem.self, forPrimaryKey: 3))) }
        #expect(try onNewThread { wrapper.wrappedValue == nil })
    }

    @Test("a @ThreadSafe read keeps the version it resolved at: another thread's write through it is seen here without refresh() (Realm's testThreadSafeWrapper*)")
    func threadSafeWrapperFollowsReads() throws {
        let configuration = threadingConfiguration(directory)
        let vault = try Vault(configuration: configuration)
        try seedBox(vault)
        let holder = ItemHolder()
        holder.item = vault.object(ofType: TItem.self, forPrimaryKey: 2)
        let wrapper = holder.wrapper
        try onNewThread {
            let other = try Vault(configuration: configuration)
            try other.write { wrapper.wrappedValue?.name = "renamed through the wrapper" }
        }
        #expect(vault.object(ofType: TItem.self, forPrimaryKey: 2)?.name == "item 2", "this thread's vault is still at its version")
        #expect(wrapper.wrappedValue?.name == "renamed through the wrapper", "the wrapper's read advances it")
        try vault.write { vault.delete(try #require(vault.object(ofType: TItem.self, forPrimaryKey: 2))) }
        #expect(wrapper.wrappedValue == nil)
        try vault.write { vault.add(TItem(2, "a new item 2")) }
        #expect(wrapper.wrappedValue == nil, "a reference that resolved to nil is dropped")
    }

    @Test("Vault(configuration:actor:) confines the vault to the actor named", .timeLimit(.minutes(5)))
    func explicitActor() async throws {
        let configuration = threadingConfiguration(directory)
        try onNewThread { try seedBox(try Vault(configuration: configuration)) }
        #expect(try await BoxCounter().count(configuration) == 3)
    }

    @Test("sets, maps and backlinks freeze and thaw; a frozen vault reads the version frozen")
    func frozenCollections() throws {
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try seedBox(vault)
        let box = try #require(vault.object(ofType: TBox.self, forPrimaryKey: 1))
        let tags = Frozen(box.tags), labels = Frozen(box.labels), boxed = Frozen(box.boxed)
        let frozenVault = vault.freeze()
        try vault.write {
            box.tags.insert("green")
            box.labels["size"] = "small"
            let four = TItem(4, "four")
            four.box = box
            vault.add(four)
        }
        let seen = try onNewThread { () -> [String] in
            [tags.value.sorted().description, labels.value["size"] ?? "none", boxed.value.map(\.id).sorted().description]
        }
        #expect(seen == ["[\"blue\", \"red\"]", "large", "[1, 2, 3]"])
        #expect(frozenVault.objects(TItem.self).count == 3 && vault.objects(TItem.self).count == 4)
        #expect(try #require(tags.thaw()).count == 3 && labels.thaw()?["size"] == "small" && boxed.thaw()?.count == 4)
        #expect(frozenVault.thaw() == vault)
    }
}

/// Keeps an item in a @ThreadSafe property, as a view model would.
struct ItemHolder {
    @ThreadSafe var item: TItem? = nil
    var wrapper: ThreadSafe<TItem> { _item }
}

actor BoxCounter {
    func count(_ configuration: Vault.Configuration) async throws -> Int {
        let vault = try await Vault(configuration: configuration, actor: self)
        await _Concurrency.Task.yield()
        return vault.objects(TItem.self).count
    }
}

/// An actor with a vault of its own: references come in, and the vault is used across awaits.
actor ItemWorker {
    func rename(_ reference: ThreadSafeReference<TItem>, configuration: Vault.Configuration, to name: String) async throws -> String {
        let vault = try await Vault.open(configuration: configuration)
        guard let item = vault.resolve(reference) else { return "not resolved" }
        await _Concurrency.Task.yield()
        try await vault.asyncWrite { item.name = name }
        try await _Concurrency.Task.sleep(for: .milliseconds(5))
        return item.name
    }
}
