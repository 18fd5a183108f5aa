import Foundation
import VaultKit

final class Entry: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    convenience init(_ id: Int, _ text: String) {
        self.init()
        self.id = id
        self.text = text
    }
}

/// Step 10: a vault isolated to an actor — valid across its awaits, written
/// with asyncWrite, observed with an AsyncSequence whose changes arrive on the
/// actor by themselves — and a frozen snapshot read by another task.
actor Journal {
    func run(configuration: Vault.Configuration) async throws -> [String] {
        let vault = try await Vault.open(configuration: configuration)      // confined to this actor
        let entries = vault.objects(Entry.self).sorted(byKeyPath: "id")
        var changes = entries.changes().makeAsyncIterator()
        var lines: [String] = []
        func describe(_ change: VaultCollectionChange<Results<Entry>>?) -> String {
            switch change {
            case .initial(let results)?: return "initial \(results.map(\.text))"
            case .update(let results, let deletions, let insertions, let modifications)?:
                return "update \(results.map(\.text)): deletions \(deletions), insertions \(insertions), modifications \(modifications)"
            case .error(let error)?: return "error \(error)"
            case nil: return "ended"
            }
        }
        lines.append(describe(await changes.next(isolation: self)))
        try await vault.asyncWrite { vault.add(Entry(1, "written on the actor")) }   // suspends, never blocks, for the lock
        lines.append(describe(await changes.next(isolation: self)))

        let frozen = Frozen(entries)                                              // Sendable: the version of now, forever
        let configuration = vault.configuration
        let background = try await Task.detached { () -> [String] in
            let other = try Vault(configuration: configuration)                   // a vault of this thread
            try other.write { other.add(Entry(2, "from a background task")) }
            return frozen.value.map(\.text)                                       // read there, unchanged by the write
        }.value
        lines.append(describe(await changes.next(isolation: self)))               // no refresh(): delivered on the actor
        lines.append("a detached task read the frozen snapshot: \(background)")
        return lines
    }
}

func journalOnAnActor(in directory: URL, key: Data) async throws {
    let url = directory.appendingPathComponent("journal.vault")
    for suffix in ["", "-wal", "-shm", ".notify"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    let lines = try await Journal().run(configuration: Vault.Configuration(fileURL: url, encryptionKey: key, objectTypes: [Entry.self]))
    print(" 10. a vault isolated to an actor, written with asyncWrite; its observer (an AsyncSequence) heard, on the actor:")
    for line in lines { print("       \(line)") }
}
