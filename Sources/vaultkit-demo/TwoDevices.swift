import Foundation
import VaultKit
import VaultSync

/// A to-do item synced between a user's devices.
final class SharedTask: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var title = ""
    @Persisted var done = false
    @Persisted var steps: List<String>
}

/// Step 15: sync between two devices. A phone and a tablet (two vault files)
/// edit the same task concurrently, offline; they sync through a relay that
/// only ever holds sealed change sets; both end with the same merged task.
func syncBetweenDevices(in directory: URL, key: Data) async throws {
    let relay = InProcessRelay()
    let space = SyncSpaceID.generate()
    let syncKey = try SyncKey.generate()   // shared by the user's devices only (e.g. SyncKey(keyStore:identifier:))
    var devices: [(name: String, configuration: Vault.Configuration, synchronizer: VaultSynchronizer)] = []
    for name in ["phone", "tablet"] {
        let url = directory.appendingPathComponent("\(name).vault")
        for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let configuration = Vault.Configuration(fileURL: url, encryptionKey: key, objectTypes: [SharedTask.self])
        let synced = try SyncedVault(configuration: configuration)
        let sealer = try ChangeSetSealer(space: space, keys: [1: syncKey], currentKeyID: 1)
        devices.append((name, configuration, VaultSynchronizer(vault: synced, sealer: sealer, transport: relay)))
    }
    let (phone, tablet) = (devices[0], devices[1])
    try writeTask(phone.configuration) { vault in vault.create(SharedTask.self, value: ["id": "trip", "title": "Plan the trip", "steps": ["book flights", "pack"]]) }
    try await phone.synchronizer.synchronize()
    try await tablet.synchronizer.synchronize()
    // Both offline: each edits the task.
    try writeTask(phone.configuration) { vault in
        vault.object(ofType: SharedTask.self, forPrimaryKey: "trip")?.steps.insert("renew passport", at: 0)
    }
    try writeTask(tablet.configuration) { vault in
        guard let task = vault.object(ofType: SharedTask.self, forPrimaryKey: "trip") else { return }
        task.title = "Plan the trip to Lisbon"
        task.steps.append("water the plants")
    }
    let start = Date()
    for device in [phone, tablet, phone] { try await device.synchronizer.synchronize() }
    let elapsed = Date().timeIntervalSince(start) * 1000
    let seen = try devices.map { device in try describeTask(device.configuration) }
    print(" 15. two devices edited one task offline and synced through a relay in \(String(format: "%.1f", elapsed)) ms:")
    for (device, text) in zip(devices, seen) { print("       \(device.name): \(text)") }
    let stored = await relay.storedBytes(space: space)
    let leaked = ["Lisbon", "passport", "plants"].filter { stored.firstRange(of: Array($0.utf8)) != nil }
    print("       the relay holds \(stored.count) bytes of sealed change sets; plaintext found in them: \(leaked.isEmpty ? "none" : leaked.joined(separator: ", "))")
    print("       (make sync-demo: the same through vault-sync-server on PostgreSQL, with configuration.sync and vault.syncSession)")
}

/// Writes on a vault opened on the calling thread (async code may resume elsewhere after an await).
private func writeTask(_ configuration: Vault.Configuration, _ block: (Vault) -> Void) throws {
    let vault = try Vault(configuration: configuration, isolation: nil)
    try vault.write { block(vault) }
}

private func describeTask(_ configuration: Vault.Configuration) throws -> String {
    let vault = try Vault(configuration: configuration, isolation: nil)
    guard let task = vault.object(ofType: SharedTask.self, forPrimaryKey: "trip") else { return "(missing)" }
    return "\"\(task.title)\" — \(task.steps.joined(separator: ", "))"
}
