import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Every I/O call of a write-heavy workload (writes with lists, a checkpoint, a
// key rotation, a rekey, a migration) made to fail in turn (VFS/FaultInjection.swift):
// each failure must surface as a typed error, and the vault must open again with
// every transaction reported committed — exactly — and pass verify().

@Suite("Fault injection")
struct FaultInjectionTests {
    /// What the vault must hold: item id → name, and the owner's list.
    struct State: Equatable {
        var items: [Int: String] = [:]
        var list: [Int] = []
    }

    /// Runs the workload's transactions, stopping at the first error; returns the
    /// states reported committed (the last is the one the vault must hold, or the
    /// one after it when the failed transaction's commit reached the disk anyway).
    static func runWorkload(_ url: URL) -> (committed: [State], attempted: State?, error: Error?) {
        var state = State()
        var committed = [State()]
        var attempted: State?
        do {
            try runWrites(url, &state, &committed, &attempted)
            // Key maintenance on the closed vault: a master-key rotation, then a rekey (data unchanged).
            attempted = nil
            try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: try MasterKey(bytes: testKey), to: try MasterKey(bytes: Self.rotatedKey))
            try VaultMaintenance.rekey(vaultAt: url, from: try MasterKey(bytes: Self.rotatedKey), to: try MasterKey(bytes: Self.rekeyedKey))
            // The next app version: a migration adding a required property computed from another.
            _ = try Vault(configuration: NotificationModelsV1.configuration(url, key: Self.rekeyedKey))
            return (committed, nil, nil)
        } catch {
            return (committed, attempted, error)
        }
    }

    /// The keys the workload rotates to, then rekeys to (the vault opens under exactly one).
    static let rotatedKey = Data(repeating: 0x22, count: 64)
    static let rekeyedKey = Data(repeating: 0x33, count: 64)

    private static func runWrites(_ url: URL, _ state: inout State, _ committed: inout [State], _ attempted: inout State?) throws {
        do {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self]))
            let steps: [(Vault, inout State) throws -> Void] = [
                { vault, s in for id in 1...20 { vault.add(NItem(id, "item \(id)")); s.items[id] = "item \(id)" } },
                { vault, s in
                    let owner = NOwner(value: ["id": 1, "name": "owner"])
                    vault.add(owner)
                    for item in try vault.objects(NItem.self).filter("id <= 10").sorted(byKeyPath: "id").fetch() { owner.items.append(item); s.list.append(item.id) }
                },
                { vault, s in for item in try vault.objects(NItem.self).filter("id <= 5").fetch() { item.name = "renamed \(item.id)"; s.items[item.id] = "renamed \(item.id)" } },
                { vault, s in
                    for item in try vault.objects(NItem.self).filter("id BETWEEN {6, 8}").fetch() { vault.delete(item); s.items[item.id] = nil }
                    s.list.removeAll { (6...8).contains($0) }
                },
                { vault, s in for id in 21...40 { let name = String(repeating: "n\(id)", count: 200); vault.add(NItem(id, name)); s.items[id] = name } },
                { vault, _ in try vault.session.database.checkpoint() },   // outside a transaction: see below
                { vault, s in for item in try vault.objects(NItem.self).filter("id > 30").fetch() { vault.delete(item); s.items[item.id] = nil } },
            ]
            for (index, body) in steps.enumerated() {
                var next = state
                attempted = nil
                do {
                    if index == 5 {
                        try body(vault, &next)   // the checkpoint: no transaction of its own
                    } else {
                        try vault.write { try body(vault, &next) }
                    }
                } catch {
                    attempted = next
                    throw error
                }
                state = next
                committed.append(state)
            }
        }
    }

    static func read(_ url: URL) throws -> State {
        try onNewThread {
            // The key the vault is under (a rotation or rekey cut short leaves the old or the new one).
            // Opened as the migrated version (migrating here when the run stopped before it did).
            var opened: Vault?
            var lastError: Error?
            for key in [testKey, Self.rotatedKey, Self.rekeyedKey] {
                do {
                    opened = try Vault(configuration: NotificationModelsV1.configuration(url, key: key))
                    break
                } catch let error as Vault.Error where (error.underlyingError as? VaultError).map({ if case .wrongKey = $0 { true } else { false } }) == true {
                    // Realm's code for a wrong key: invalidDatabase; VaultKit's error underneath says which.
                    #expect(error.code == .invalidDatabase)
                    continue
                } catch {
                    lastError = error
                    break
                }
            }
            guard let vault = opened else { throw lastError ?? VaultError.misuse("no key opens the vault") }
            try vault.verify()
            var state = State()
            for item in try vault.objects(NotificationModelsV1.NItem.self).fetch() {
                guard item.label == "label " + item.name else { throw VaultError.misuse("item \(item.id) was migrated incompletely") }
                state.items[item.id] = item.name
            }
            state.list = try vault.objects(NotificationModelsV1.NOwner.self).fetch().first.map { Array($0.items.map(\.id)) } ?? []
            return state
        }
    }

    @Test("every read, write, sync, truncation, size query and lock of the workload fails in turn: typed errors, no lost commit, a vault that opens and verifies")
    func everyFaultPoint() throws {
        let directory = try TemporaryDirectory("faults")
        // Count the workload's I/O calls.
        // Each run in a directory of its own, armed for the whole directory: the
        // vault's creation (under a temporary name) is covered too.
        func runDirectory(_ name: String) throws -> URL {
            let folder = directory.file(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            return folder
        }
        let countingFolder = try runDirectory("count")
        let counting = countingFolder.appendingPathComponent("v.vault")
        FaultInjection.arm(pathPrefix: countingFolder.path + "/", failAt: nil)
        let (clean, cleanState) = try onNewThread { () -> (Int, State?) in
            let run = Self.runWorkload(counting)
            return (run.committed.count, run.error == nil ? run.committed.last : nil)
        }
        let total = FaultInjection.disarm(pathPrefix: countingFolder.path + "/").calls
        #expect(clean == 8 && total > 50, "\(clean) states, \(total) I/O calls")
        #expect(try Self.read(counting) == cleanState, "the clean run ends under the rekeyed key with every object")

        let kinds = Locked<[String: Int]>([:])
        var untyped: [String] = []
        for point in 1...total {
            let folder = try runDirectory("p\(point)")
            let url = folder.appendingPathComponent("v.vault")
            FaultInjection.arm(pathPrefix: folder.path + "/", failAt: point, diskFull: point % 2 == 0)
            let outcome = try onNewThread { () -> String in
                let run = Self.runWorkload(url)
                let fired = FaultInjection.disarm(pathPrefix: folder.path + "/")
                if let failed = fired.failed { kinds.withLock { $0[failed.rawValue, default: 0] += 1 } }
                if let error = run.error, !(error is VaultError || error is VaultObjectError || error is Vault.Error) { return "untyped \(type(of: error)): \(error)" }
                // No stored value in any message (the workload's values: "item 3", "renamed 2", "owner", "n21n21…").
                if let error = run.error, ["item ", "renamed", "owner", "n21n21"].contains(where: { "\(error)".contains($0) }) {
                    return "a stored value in the message: \(error)"
                }
                let state = try Self.read(url)
                let last = run.committed.last ?? State()
                if state == last || (run.attempted != nil && state == run.attempted) { return "ok" }
                return "point \(point) (\(fired.failed?.rawValue ?? "-")): the vault holds \(state.items.count) items, \(last.items.count) reported committed"
            }
            if outcome != "ok" { untyped.append(outcome) }
        }
        #expect(untyped.isEmpty, "\(untyped.prefix(5))")
        print("fault injection: \(total) fault points, by kind \(kinds.withLock { $0 }.sorted { $0.key < $1.key })")
    }
}
