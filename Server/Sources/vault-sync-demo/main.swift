// vault-sync-demo (`make sync-demo`): PostgreSQL, a sync server and devices on
// this machine, in a signed space. A change made on Ana's phone appears on her
// laptop; the laptop goes offline and catches up; Ben joins by invitation; the
// phone is lost and removed, and reads nothing written after; the server holds
// no plaintext.
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

    print("3. A token and an identity per device; the phone creates the space, the laptop joins it")
    let space = "ana"
    var devices: [QueueDevice] = []
    defer { for device in devices { device.close() } }
    /// A device with its own token and an identity in its own key store; only the first has a sync key.
    func device(_ name: String, syncKey: Data) throws -> (QueueDevice, DeviceIdentity) {
        let token = try SyncServerProcess.issueToken(databaseURL: postgres.databaseURL, space: space, device: name)
        let identity = try DeviceIdentity.create(in: try FileKeyStore(directory: folder.appendingPathComponent("\(name)-keys")), identifier: "sync-identity")
        print("   \(name): token \(token.prefix(9))… (redacted), fingerprint \(identity.publicKeys.fingerprint)")
        let setup = try DeviceSetup(parent: folder, name: name, server: server.url, space: space, token: token, syncKey: syncKey, identity: identity)
        let opened = try QueueDevice(setup)
        devices.append(opened)
        return (opened, identity)
    }
    let (phone, phoneIdentity) = try device("phone", syncKey: randomBytes(32))
    try phone.session.space.create()
    let (laptop, _) = try device("laptop", syncKey: Data())
    try phone.session.space.add(try laptop.session.space.joinRequest(), role: .owner, samePersonAs: phoneIdentity.publicKeys.deviceID)
    try await phone.session.wait(for: .upload)
    guard try await waitForMembership(laptop) else { throw HarnessError("the laptop was not added") }

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

    print("7. Ben joins by invitation: his device shows a request, Ana's laptop adds him as a writer")
    let (ben, _) = try device("ben", syncKey: Data())
    let request = try JoinRequest(try ben.session.space.joinRequest().text)
    print("   request \(request.text.prefix(16))…, fingerprint \(request.fingerprint) (read aloud on both screens)")
    try laptop.session.space.add(request, role: .writer)
    try await laptop.session.wait(for: .upload)
    guard try await waitForMembership(ben), waitUntil(20, { (try? ben.titles().count) == (try? laptop.titles().count) }) else {
        throw HarnessError("Ben did not receive the space")
    }
    try ben.add(UUID().uuidString, title: "Ben's first task")
    guard waitUntil(10, { (try? laptop.titles().contains("Ben's first task")) == true }) else { throw HarnessError("Ben's task did not arrive") }
    print("   Ben reads the \(try ben.titles().count - 1) earlier tasks; his own reached Ana's laptop; members: \(try laptop.session.space.members().count)")

    print("8. Ana's phone is lost: her laptop removes it, which rotates the space key")
    let phoneErrors = Shared<[SyncSessionError]>([])
    try phone.session.errorHandler = { error in phoneErrors.update { $0.append(error) } }
    try laptop.session.space.remove(device: phoneIdentity.publicKeys.deviceID)
    try await laptop.session.wait(for: .upload)
    try laptop.add(UUID().uuidString, title: "After the phone was lost")
    try await laptop.session.wait(for: .upload)
    guard waitUntil(20, { phoneErrors.value.contains(.removedFromSpace) }),
          waitUntil(10, { (try? ben.titles().contains("After the phone was lost")) == true }) else { throw HarnessError("the removal did not complete") }
    let phoneHasIt = try phone.titles().contains("After the phone was lost")
    print("   the phone: \(SyncSessionError.removedFromSpace); the new task on it: \(phoneHasIt ? "YES (bug)" : "no"); on Ben's device: yes")
    print("   key epoch now \(try laptop.session.space.epoch()); the server keeps per device: \(try postgres.psql("SELECT count(*) FROM vault_sync_devices WHERE signing_key IS NOT NULL").trimmingCharacters(in: .whitespacesAndNewlines)) pairs of public keys")
    guard !phoneHasIt else { throw HarnessError("the removed phone read a later task") }
    print("Done: Ana's laptop holds \(try laptop.titles().count) tasks.")
}

/// Waits until `device` is a member of its space.
func waitForMembership(_ device: QueueDevice) async throws -> Bool {
    waitUntil(20) { ((try? device.session.space.role()) ?? nil) != nil }
}

do {
    try await main()
} catch {
    FileHandle.standardError.write(Data("vault-sync-demo: \(error)\n".utf8))
    exit(1)
}
