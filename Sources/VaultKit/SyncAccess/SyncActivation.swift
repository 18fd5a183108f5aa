import Foundation
import VaultCore

// MARK: - Starting sync when a vault opens
//
// A configuration with a sync section (VaultSync's `SyncConfiguration`, set
// through `Vault.Configuration.sync`) must sync from its first commit, as a
// Realm opened with a sync configuration does. VaultKit does not know sync;
// VaultSync installs an activator when a sync section is first set (setting
// one runs VaultSync's code), and every `Vault` opened with a sync section
// calls it. The activator returns what must stay alive while the vault is
// open (the sync session), which the vault's session holds: when the last
// `Vault` of the file closes, sync stops.

/// A sync section of a configuration (SPI for `VaultSync`).
@_spi(VaultSync)
public protocol VaultSyncSettings: Sendable {
    /// Whether `other` is the same section (configurations compare it).
    func isSame(as other: any VaultSyncSettings) -> Bool
}

/// Where VaultSync plugs in (SPI for `VaultSync`).
@_spi(VaultSync)
public enum VaultSyncActivation {
    /// Called with every vault opened with a sync section; returns what the vault keeps alive.
    public typealias Activator = @Sendable (Vault) throws -> AnyObject?

    private static let activator = Locked<Activator?>(nil)

    /// Installs the activator (idempotent: VaultSync installs one and the same).
    public static func install(_ newActivator: @escaping Activator) {
        activator.withLock { current in if current == nil { current = newActivator } }
    }

    /// Waits until `vault`'s sync session holds everything its server held when
    /// asked (Realm's `asyncOpen` downloads before it hands the realm out), then calls
    /// `completion` with nil, or with the error that stopped the session. `keepAlive`
    /// (the session) is held by the caller until it has opened the vault it hands out,
    /// so the session is not stopped and restarted in between.
    public typealias DownloadWaiter = @Sendable (Vault, @escaping @Sendable (_ error: (any Swift.Error)?, _ keepAlive: (any Sendable)?) -> Void) -> Void

    private static let downloadWaiter = Locked<DownloadWaiter?>(nil)

    /// Installs the download waiter (idempotent, as ``install(_:)``).
    public static func installDownloadWaiter(_ waiter: @escaping DownloadWaiter) {
        downloadWaiter.withLock { current in if current == nil { current = waiter } }
    }

    /// Starts waiting for `vault`'s first download when it syncs; false (and no call
    /// of `completion`) for a vault without a sync section.
    static func waitForDownload(_ vault: Vault, completion: @escaping @Sendable ((any Swift.Error)?, (any Sendable)?) -> Void) -> Bool {
        guard vault.configuration.syncSettings != nil, let waiter = downloadWaiter.withLock({ $0 }) else { return false }
        waiter(vault, completion)
        return true
    }

    static func activate(_ vault: Vault) throws {
        guard vault.configuration.syncSettings != nil, vault.session.syncAttachment == nil,
              let activate = activator.withLock({ $0 }) else { return }
        do {
            vault.session.syncAttachment = try activate(vault)
        } catch {
            throw Vault.Error.wrapping(error)
        }
    }

    static func same(_ lhs: (any VaultSyncSettings)?, _ rhs: (any VaultSyncSettings)?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case let (left?, right?): return left.isSame(as: right)
        default: return false
        }
    }
}
