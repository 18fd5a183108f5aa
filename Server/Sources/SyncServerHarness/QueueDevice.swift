import Foundation
import VaultKit
import VaultSync

/// A device's vault kept open on a serial queue of its own (vaults are
/// confined), so that its sync session lives for as long as the device does.
public final class QueueDevice: @unchecked Sendable {
    /// How the device was set up.
    public let setup: DeviceSetup
    private let queue: DispatchQueue
    private var vault: Vault?
    private var token: NotificationToken?

    /// Opens the device's vault (and so starts its sync session).
    public init(_ setup: DeviceSetup) throws {
        self.setup = setup
        queue = DispatchQueue(label: "device-\(setup.folder.lastPathComponent)")
        try run { _ in }
    }

    /// Runs `body` with the vault, on the device's queue.
    public func run<T>(_ body: (Vault) throws -> T) throws -> T {
        try queue.sync {
            if vault == nil { vault = try Vault(configuration: setup.configuration, queue: queue) }
            guard let vault else { throw HarnessError("the device is closed") }
            return try body(vault)
        }
    }

    /// The vault's sync session.
    public var session: SyncSession {
        get throws {
            guard let session = try run({ $0.syncSession }) else { throw HarnessError("the vault has no sync session") }
            return session
        }
    }

    /// Adds (or updates) a task in its own commit.
    public func add(_ id: String, title: String, rank: Int = 0) throws {
        try run { vault in
            try vault.write { vault.add(SyncedTask(value: ["id": id, "title": title, "rank": rank]), update: .modified) }
        }
    }

    /// The titles of every task, sorted (after moving to the latest version).
    public func titles() throws -> [String] {
        try run { vault in
            vault.refresh()
            return vault.objects(SyncedTask.self).map(\.title).sorted()
        }
    }

    /// Calls `block` on the device's queue with the titles of the tasks each change inserts or modifies.
    public func observeTasks(_ block: @escaping @Sendable (_ inserted: [String], _ modified: [String]) -> Void) throws {
        try run { vault in
            token = vault.objects(SyncedTask.self).observe(on: queue) { change in
                guard case .update(let tasks, _, let insertions, let modifications) = change else { return }
                block(insertions.map { tasks[$0].title }, modifications.map { tasks[$0].title })
            }
        }
    }

    /// Closes the vault (the session stops once nothing else holds it).
    public func close() {
        queue.sync {
            token = nil
            vault = nil
        }
    }
}

/// A device as one JSON line on a child's standard input (keys never on a command line).
public struct DeviceDescription: Codable, Sendable {
    /// The folder of the device's vault.
    public var folder: String
    /// The vault's 64-byte key.
    public var vaultKey: Data
    /// The server's base URL.
    public var server: String
    /// The space.
    public var space: String
    /// The device token.
    public var token: String
    /// The space's 32-byte sync key (empty for a device that joined by invitation).
    public var syncKey: Data
    /// The folder of the key store holding the device's identity ("sync-identity"), for a signing device.
    public var identityFolder: String?

    /// The description of `setup`; `identityFolder` for a signing device.
    public init(_ setup: DeviceSetup, identityFolder: URL? = nil) {
        self.identityFolder = identityFolder?.path
        folder = setup.folder.path
        vaultKey = setup.vaultKey
        server = setup.sync.serverURL.absoluteString
        space = setup.sync.space
        token = setup.sync.token
        syncKey = setup.sync.syncKey
    }

    /// The setup it describes.
    public func setup() throws -> DeviceSetup {
        guard let url = URL(string: server) else { throw HarnessError("not a server URL: \(server)") }
        let identity = try identityFolder.map { try DeviceIdentity(keyStore: try FileKeyStore(directory: URL(fileURLWithPath: $0)), identifier: "sync-identity") }
        return DeviceSetup(folder: URL(fileURLWithPath: folder), vaultKey: vaultKey,
                           sync: SyncConfiguration(serverURL: url, space: space, token: token, syncKey: syncKey, identity: identity,
                                                   reconnectDelay: .milliseconds(50) ... .seconds(1)))
    }
}

/// Polls `condition` every `poll` seconds until it holds or `seconds` pass; returns whether it held.
public func waitUntil(_ seconds: Double, poll: Double = 0.001, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(useconds_t(poll * 1_000_000))
    }
    return try condition()
}

/// A duration in milliseconds.
public func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

/// A value shared between threads under a lock.
public final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    /// Holds `value`.
    public init(_ value: Value) { stored = value }
    /// The value now.
    public var value: Value { lock.withLock { stored } }
    /// Changes the value under the lock.
    @discardableResult
    public func update<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}
