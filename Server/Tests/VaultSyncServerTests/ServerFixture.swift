import Foundation
import SyncServerHarness
import VaultKit
import VaultSync

/// PostgreSQL, one or more server processes, and tokens: what each test starts and stops.
final class ServerFixture: @unchecked Sendable {
    let postgres: PostgresInstance
    var servers: [SyncServerProcess] = []
    let folder: URL
    let space: String
    let syncKey = randomBytes(32)

    init(servers count: Int = 1, space: String = "space-\(UUID().uuidString.prefix(8))") throws {
        postgres = try PostgresInstance()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("vault-sync-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.space = space
        for _ in 0..<count { servers.append(try SyncServerProcess(databaseURL: postgres.databaseURL, logLevel: "debug")) }
    }

    deinit {
        for server in servers { server.terminate() }
        postgres.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    func token(_ device: String) throws -> String {
        try SyncServerProcess.issueToken(databaseURL: postgres.databaseURL, space: space, device: device)
    }

    /// A new signing device with its own token and a new identity kept in its folder's key
    /// store; `withSyncKey` false for a device that joins by invitation.
    func signedDevice(_ name: String, withSyncKey: Bool, server: Int = 0) throws -> (DeviceSetup, DeviceIdentity) {
        let keys = try FileKeyStore(directory: identityFolder(name))
        let identity = try DeviceIdentity.create(in: keys, identifier: "sync-identity")
        let setup = try DeviceSetup(parent: folder, name: name, server: servers[server].url, space: space, token: try token(name),
                                    syncKey: withSyncKey ? syncKey : Data(), identity: identity)
        return (setup, identity)
    }

    /// Where ``signedDevice(_:withSyncKey:server:)`` keeps the identity of `name`.
    func identityFolder(_ name: String) -> URL { folder.appendingPathComponent("\(name)-keys") }

    /// A new device on server `server`, with its own token.
    func device(_ name: String, server: Int = 0, clockOffset: Int64 = 0) throws -> DeviceSetup {
        try DeviceSetup(parent: folder, name: name, server: servers[server].url, space: space, token: try token(name), syncKey: syncKey,
                        clockOffset: clockOffset)
    }
}

/// A device kept open for a whole test.
typealias OpenDevice = QueueDevice
