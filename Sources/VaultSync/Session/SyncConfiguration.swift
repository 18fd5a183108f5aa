import Foundation
@_spi(VaultSync) import VaultKit

/// Where and how a vault syncs: Realm's `SyncConfiguration`, for a VaultKit
/// sync server. Set it on a configuration and every `Vault` opened with it
/// syncs, from its first commit:
///
/// ```swift
/// var configuration = Vault.Configuration(fileURL: url, encryptionKey: vaultKey)
/// configuration.sync = SyncConfiguration(serverURL: URL(string: "http://127.0.0.1:8080")!,
///                                        space: "ana", token: token,
///                                        syncKey: try SyncKey.derivedBytes(keyStore: keys, identifier: "sync"))
/// let vault = try Vault(configuration: configuration)
/// try vault.write { vault.add(Task(title: "Call Ana")) }
/// try await vault.syncSession?.wait(for: .upload)
/// ```
///
/// The server sees the space name, the device token and sealed change sets;
/// the sync key never leaves the device (see the VaultSync article's threat model).
public struct SyncConfiguration: Sendable, CustomStringConvertible {
    /// The server's base URL (`http://` or `https://`); devices connect to its `/v1/sync` WebSocket.
    public var serverURL: URL
    /// The space: the user's (or shared data set's) name the server issued the token for.
    public var space: String
    /// This device's token (`vault-sync-server issue-token`).
    public var token: String
    /// The 32-byte key change sets are sealed with, the same on every device of the space;
    /// empty for a device that joins by invitation (``identity`` set), which receives the
    /// space's keys from the member that adds it.
    public var syncKey: Data
    /// This device's identity (``DeviceIdentity``): set it and the device signs everything
    /// it uploads, checks every signature it reads, and takes part in the space's membership
    /// (``SyncSession/space``). Nil: an unsigned device of a space without members.
    public var identity: DeviceIdentity?
    /// Called on the sync session's queue when sync fails: transient errors
    /// (the session retries) and final ones (the session stops).
    public var errorHandler: (@Sendable (SyncSessionError) -> Void)?
    /// The shortest and longest wait before reconnecting (doubled after each
    /// failed attempt, with ±50 % jitter).
    public var reconnectDelay: ClosedRange<Duration>
    /// The wall clock change sets are stamped from, in milliseconds since 1970
    /// (the system's by default). Stamps never go backwards and always rise
    /// above every stamp received (a hybrid logical clock), so a device whose
    /// clock is wrong still orders its edits after what it has seen.
    public var clock: @Sendable () -> UInt64

    /// A sync section for `space` on the server at `serverURL`, as device `token`, sealing with `syncKey`.
    public init(serverURL: URL, space: String, token: String, syncKey: Data, identity: DeviceIdentity? = nil,
                errorHandler: (@Sendable (SyncSessionError) -> Void)? = nil,
                reconnectDelay: ClosedRange<Duration> = .milliseconds(250) ... .seconds(30),
                clock: @escaping @Sendable () -> UInt64 = HybridLogicalClock.wallClockMilliseconds) {
        self.serverURL = serverURL
        self.space = space
        self.token = token
        self.syncKey = syncKey
        self.identity = identity
        self.errorHandler = errorHandler
        self.reconnectDelay = reconnectDelay
        self.clock = clock
    }

    /// The server, space and whether a token and key are set — never the token or the key.
    public var description: String {
        "SyncConfiguration(serverURL: \(serverURL.absoluteString), space: \(space), token: \(token.isEmpty ? "none" : "set (redacted)"), syncKey: \(syncKey.count) bytes (redacted), identity: \(identity.map { $0.publicKeys.fingerprint } ?? "none"))"
    }
}

/// A sync section as VaultKit's configuration holds it.
struct SyncSettings: VaultSyncSettings {
    let configuration: SyncConfiguration

    /// The same server, space, token and key (the key and token compared in constant time).
    func isSame(as other: any VaultSyncSettings) -> Bool {
        guard let other = (other as? SyncSettings)?.configuration else { return false }
        return configuration.serverURL == other.serverURL && configuration.space == other.space
            && Self.constantTimeEqual(Data(configuration.token.utf8), Data(other.token.utf8))
            && Self.constantTimeEqual(configuration.syncKey, other.syncKey)
            && configuration.identity?.publicKeys == other.identity?.publicKeys
    }

    private static func constantTimeEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension Vault.Configuration {
    /// The vault's sync section: set it and every `Vault` opened with this
    /// configuration syncs (`vault.syncSession`); nil for a local vault.
    public var sync: SyncConfiguration? {
        get { (syncSettings as? SyncSettings)?.configuration }
        set {
            if newValue != nil { SyncSessionRegistry.installActivator() }
            syncSettings = newValue.map(SyncSettings.init)
        }
    }
}

extension Vault {
    /// The sync session of this vault's file: nil when its configuration has no sync section.
    public var syncSession: SyncSession? {
        guard configuration.sync != nil else { return nil }
        return SyncSessionRegistry.session(forPath: path)
    }
}
