import Foundation
import OpenCombineShim
import VaultKit

/// A to-do item, as the seeds' apps declare them.
final class TodoItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var isDone = false
}

/// The seeds' view model, unchanged but for the rename: a Combine pipeline
/// from a live query to plain values, delivered on a serial queue.
final class TodoListViewModel: @unchecked Sendable {
    // @unchecked: `titles` is written only on `queue` and read after it drained.
    private(set) var titles: [[String]] = []
    private var cancellables = Set<AnyCancellable>()

    init(vault: Vault, queue: DispatchQueue, delivered: @escaping @Sendable () -> Void) {
        vault.objects(TodoItem.self).filter("isDone == false").sorted(byKeyPath: "title").collectionPublisher
            .map { $0.map(\.title) }
            .receive(on: queue)
            .sink(receiveCompletion: { _ in }, receiveValue: { [weak self] titles in
                self?.titles.append(titles)
                delivered()
            })
            .store(in: &cancellables)
    }
}

/// Step 12: Combine — the seeds' view model on an encrypted vault.
func todoListWithCombine(in directory: URL, key: Data) throws {
    let url = directory.appendingPathComponent("todos.vault")
    for suffix in ["", "-wal", "-shm", ".notify"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: key, objectTypes: [TodoItem.self]))
    try vault.write { vault.add(TodoItem(value: ["id": 1, "title": "Water the plants"])) }
    let queue = DispatchQueue(label: "vaultkit-demo.view-model")
    let delivered = DispatchSemaphore(value: 0)
    let model = TodoListViewModel(vault: vault, queue: queue) { delivered.signal() }
    vault.refresh()                                   // an advance point: the first value
    try vault.write {
        vault.add(TodoItem(value: ["id": 2, "title": "Buy milk"]))
        vault.object(ofType: TodoItem.self, forPrimaryKey: 1)?.isDone = true
    }
    vault.refresh()                                   // delivers the change
    for _ in 0..<2 { _ = delivered.wait(timeout: .now() + 10) }
    let shown = queue.sync { model.titles }
    print(" 12. Combine: the seeds' view model (collectionPublisher → map → receive(on:) → sink) showed \(shown)")
}
