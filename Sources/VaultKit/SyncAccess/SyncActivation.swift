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
