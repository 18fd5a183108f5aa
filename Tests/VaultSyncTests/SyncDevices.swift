import Foundation
import VaultCore
import VaultKit
import VaultSync
import VaultTestSupport

let syncTestKey = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

/// A device of a test: its own vault file, its synced vault, a synchronizer on a shared relay.
final class SyncTestDevice: @unchecked Sendable {
    let configuration: Vault.Configuration
    let synced: SyncedVault
    let synchronizer: VaultSynchronizer

    init(_ directory: TemporaryDirectory, _ name: String, relay: any SyncTransport,
         types: [ObjectBase.Type]? = syncTestTypes,
         now: @escaping @Sendable () -> UInt64 = HybridLogicalClock.wallClockMilliseconds) throws {
        configuration = Vault.Configuration(fileURL: directory.file("\(name).vault"), encryptionKey: syncTestKey, objectTypes: types)
        synced = try SyncedVault(configuration: configuration, now: now)
        guard let space = SyncSpaceID(bytes: Array(repeating: 9, count: 16)) else { throw SyncError.invalidKey("space") }
        let sealer = try ChangeSetSealer(space: space,
                                         keys: [1: try SyncKey(bytes: Data(repeating: 0x42, count: 32))], currentKeyID: 1)
        synchronizer = VaultSynchronizer(vault: synced, sealer: sealer, transport: relay)
    }

    /// A device of a signed space: it signs as `identity`, holds `syncKey` as epoch 0's key
    /// (nil: it joins by invitation), and judges every entry it reads by the space's membership.
    init(_ directory: TemporaryDirectory, _ name: String, relay: any SyncTransport, identity: DeviceIdentity, syncKey: SyncKey?,
         types: [ObjectBase.Type]? = syncTestTypes) throws {
        configuration = Vault.Configuration(fileURL: directory.file("\(name).vault"), encryptionKey: syncTestKey, objectTypes: types)
        guard let space = SyncSpaceID(bytes: Array(repeating: 9, count: 16)) else { throw SyncError.invalidKey("space") }
        synced = try SyncedVault(configuration: configuration, access: try SpaceAccess(space: space, syncKey: syncKey, identity: identity))
        synchronizer = try VaultSynchronizer(vault: synced, transport: relay)
    }

    /// A vault of this device, confined to the calling thread.
    func vault() throws -> Vault { try Vault(configuration: configuration) }

    /// Writes on a fresh vault of this device.
    func write(_ block: (Vault) throws -> Void) throws {
        let vault = try vault()
        try vault.write { try block(vault) }
    }

    func note(_ id: String) throws -> SyncNote? { try vault().object(ofType: SyncNote.self, forPrimaryKey: id) }

    func sync() async throws { try await synchronizer.synchronize() }
}

/// Two devices on one relay, in a temporary directory.
struct SyncTestPair {
    let directory: TemporaryDirectory
    let relay = InProcessRelay()
    let a: SyncTestDevice
    let b: SyncTestDevice

    init(_ label: String) throws {
        directory = try TemporaryDirectory(label)
        a = try SyncTestDevice(directory, "a", relay: relay)
        b = try SyncTestDevice(directory, "b", relay: relay)
    }
}
