import Foundation
import VaultKit
import VaultSync

/// A to-do item: the model the sync tests, the demo and the benchmark sync.
public final class SyncedTask: Object {
    @Persisted(primaryKey: true) public var id = ""
    @Persisted public var title = ""
    @Persisted public var done = false
    @Persisted public var rank = 0
    @Persisted public var tags: List<String>
}

/// A device for tests, the demo and the benchmark: a vault of its own folder,
/// syncing through a server.
public struct DeviceSetup: Sendable {
    /// The folder the vault file is in.
    public let folder: URL
    /// The vault's key (64 bytes).
    public let vaultKey: Data
    /// The sync section.
    public let sync: SyncConfiguration

    /// A device in a new folder under `parent`.
    /// `clockOffset` (milliseconds) sets the device's clock that far from the system's.
    /// With `identity`, the device signs (an empty `syncKey`: it joins by invitation).
    public init(parent: URL, name: String, server: URL, space: String, token: String, syncKey: Data, identity: DeviceIdentity? = nil,
                clockOffset: Int64 = 0) throws {
        folder = parent.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        vaultKey = randomBytes(64)
        sync = SyncConfiguration(serverURL: server, space: space, token: token, syncKey: syncKey, identity: identity,
                                 reconnectDelay: .milliseconds(50) ... .seconds(2),
                                 clock: { UInt64(clamping: Int64(clamping: HybridLogicalClock.wallClockMilliseconds()) + clockOffset) })
    }

    /// A setup for an existing folder and key (a child process reopening a device).
    public init(folder: URL, vaultKey: Data, sync: SyncConfiguration) {
        self.folder = folder
        self.vaultKey = vaultKey
        self.sync = sync
    }

    /// The vault configuration, with sync.
    public var configuration: Vault.Configuration {
        var configuration = Vault.Configuration(fileURL: folder.appendingPathComponent("device.vault"), encryptionKey: vaultKey,
                                                objectTypes: [SyncedTask.self])
        configuration.sync = sync
        return configuration
    }
}

/// `count` bytes from the system's secure random source.
public func randomBytes(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
}
