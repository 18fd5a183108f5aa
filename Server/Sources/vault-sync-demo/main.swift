// vault-sync-demo (`make sync-demo`): PostgreSQL, a sync server and two
// devices on this machine. A change made on the phone appears on the laptop;
// the laptop goes offline and catches up; the server holds no plaintext.
import Foundation
import SyncServerHarness
import VaultKit
import VaultSync

func main() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vault-sync-demo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }

    print("1. PostgreSQL, started for the demo in a temporary folder")
    let postgres = try PostgresInstance()
    defer { postgres.stop() }
    print("   \(postgres.databaseURL)")

    print("2. vault-sync-server serve --database-url … --port 0")
    let server = try SyncServerProcess(databaseURL: postgres.databaseURL)
    defer { server.terminate() }
    print("   listening on 127.0.0.1:\(server.port)")

    print("3. A token per device (vault-sync-server issue-token); the server keeps only their SHA-256")
    let space = "ana"
    let syncKey = randomBytes(32)   // the same on both devices, never sent
    var devices: [QueueDevice] = []
    for name in ["phone", "laptop"] {
        let token = try SyncServerProcess.issueToken(databaseURL: postgres.databaseURL, space: space, device: name)
        print("   \(name): \(token.prefix(9))… (redacted)")
        let setup = try DeviceSetup(parent: folder, name: name, server: server.url, space: space, token: token, syncKey: syncKey)
        devices.append(try QueueDevice(setup))
    }
    let (phone, laptop) = (devices[0], devices[1])
    defer { for device in devices { device.close() } }

    print("4. A task added on the phone appears on the laptop")
    let arrived = Shared<Set<String>>([])
    try laptop.observeTasks { inserted, _ in arrived.update { $0.formUnion(inserted) } }
    var latencies: [Double] = []
    for round in 1...20 {
        let title = "Task \(round) from the phone"
        let clock = ContinuousClock()
        let start = clock.now
        try phone.add(UUID().uuidString, title: title)
        guard waitUntil(10, { arrived.value.contains(title) }) else { throw HarnessError("\(title) did not reach the laptop") }
        latencies.append(milliseconds(start.duration(to: clock.now)))
        if round == 1 { print("   \"\(title)\": on the laptop after \(String(format: "%.1f", latencies[0])) ms (commit → laptop's observer)") }
    }
    let sorted = latencies.sorted()
    print("   20 round trips: median \(String(format: "%.1f", sorted[sorted.count / 2])) ms, slowest \(String(format: "%.1f", sorted.last ?? 0)) ms")

    print("5. The laptop goes offline; the phone keeps working; the laptop catches up")
    try laptop.session.pause()
    for index in 1...3 { try phone.add(UUID().uuidString, title: "Offline task \(index)") }
    try await phone.session.wait(for: .upload)
    let before = try laptop.titles().filter { $0.hasPrefix("Offline") }.count
    try laptop.session.resume()
    try await laptop.session.wait(for: .download)
    let after = try laptop.titles().filter { $0.hasPrefix("Offline") }.count
    print("   offline tasks on the laptop: \(before) while paused, \(after) after resume()")

    print("6. What the server stored: sealed change sets only")
    let stored = try postgres.psql("SELECT count(*), coalesce(sum(octet_length(envelope)), 0) FROM vault_sync_log")
    let dump = try postgres.psql("SELECT encode(envelope, 'escape') FROM vault_sync_log")
    let plaintextFound = dump.contains("from the phone") || dump.contains("Offline task")
    let parts = stored.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
    print("   \(parts.first ?? "?") change sets, \(parts.last ?? "?") bytes; task titles found in them: \(plaintextFound ? "YES (bug)" : "none")")
    guard !plaintextFound, after == 3 else { throw HarnessError("the demo's checks failed") }
    print("Done: both devices hold \(try phone.titles().count) tasks.")
}

do {
    try await main()
} catch {
    FileHandle.standardError.write(Data("vault-sync-demo: \(error)\n".utf8))
    exit(1)
}
