import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

/// One sync session per vault file in a process, started by the first `Vault`
/// opened with a sync section (see VaultKit's SyncActivation) and held by the
/// open vaults: when the last one closes, the session stops.
enum SyncSessionRegistry {
    private final class WeakSession: @unchecked Sendable {
        weak var session: SyncSession?
        init(_ session: SyncSession) { self.session = session }
    }

    private static let sessions = Locked<[String: WeakSession]>([:])
    /// Held while a session is made, so two vaults opening at once make one.
    private static let creation = NSLock()

    static func installActivator() {
        VaultSyncActivation.install { vault in try activate(vault) }
        VaultSyncActivation.installDownloadWaiter { vault, completion in
            guard let session = session(forPath: vault.path) else { return completion(nil, nil) }
            session.wait(for: .download, queue: DispatchQueue.global(qos: .userInitiated)) { error in completion(error, session) }
        }
    }

    static func session(forPath path: String) -> SyncSession? {
        sessions.withLock { $0[path]?.session }
    }

    private static func activate(_ vault: Vault) throws -> AnyObject? {
        guard let sync = vault.configuration.sync else { return nil }
        if let existing = session(forPath: vault.path) { return existing }
        creation.lock()
        defer { creation.unlock() }
        if let existing = session(forPath: vault.path) { return existing }
        // Sync's own opens of the file (on its queue) carry no sync section: they must not start another session.
        var local = vault.configuration
        local.syncSettings = nil
        let session = try SyncSession(vaultConfiguration: local, sync: sync)
        sessions.withLock { all in
            all = all.filter { $0.value.session != nil }
            all[vault.path] = WeakSession(session)
        }
        session.start()
        return session
    }
}
