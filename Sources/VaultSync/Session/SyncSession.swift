import Foundation
import VaultKit

/// A vault's link to its sync server: Realm's `SyncSession`. There is one per
/// vault file in a process, from the first `Vault` opened with a sync section
/// until the last one closes (`vault.syncSession`).
///
/// It uploads every local commit and downloads and merges what the space's
/// other devices commit, whenever it is connected; it reconnects by itself
/// (with backoff and jitter) and catches up after being offline. Remote
/// changes reach the vault's observers like local ones.
///
/// ```swift
/// try vault.write { vault.add(task) }
/// try await vault.syncSession?.wait(for: .upload)      // on the server
/// try await other.syncSession?.wait(for: .download)    // merged on the other device
/// ```
public final class SyncSession: Sendable {
    /// Whether the session works, with Realm's three states: `.active`,
    /// `.inactive` when paused, `.invalid` when stopped by a final error.
    public enum State: Sendable, Equatable {
        /// Syncing (connected, or trying to connect: see ``ConnectionState``).
        case active
        /// Paused by ``pause()``: commits are recorded and upload at ``resume()``.
        case inactive
        /// Stopped by a final error (``SyncSession/lastError``): nothing syncs until
        /// the app fixes the cause. Realm's sessions in this state are to be
        /// discarded; a VaultKit session can also be started again with
        /// ``SyncSession/resume()`` once the cause is fixed (a new token, a
        /// server that accepts the change set).
        case invalid
    }

    /// The connection to the server.
    public enum ConnectionState: Sendable, Equatable {
        /// Not connected (offline, paused, or waiting before the next attempt).
        case disconnected
        /// Connecting or handshaking.
        case connecting
        /// Connected: local commits upload and remote ones arrive within moments.
        case connected
    }

    /// Which way data moves.
    public enum ProgressDirection: Sendable, Equatable {
        /// Local commits to the server.
        case upload
        /// Other devices' commits from the server.
        case download
    }

    /// How long a progress notification reports.
    public enum ProgressMode: Sendable, Equatable {
        /// Every transfer, for as long as the token lives.
        case reportIndefinitely
        /// The work outstanding when registered, then stops (its last report is complete).
        case forCurrentlyOutstandingWork
    }

    /// How far a transfer has come, in bytes of sealed change sets.
    public struct Progress: Sendable, Equatable {
        /// Bytes moved.
        public let transferredBytes: Int
        /// Bytes to move in all (moved and still to move).
        public let transferrableBytes: Int
        /// Whether nothing is left to move.
        public var isTransferComplete: Bool { transferredBytes >= transferrableBytes }
        /// transferred / transferrable, 1 when there is nothing to move.
        public var progressEstimate: Double {
            transferrableBytes == 0 ? 1 : min(1, Double(transferredBytes) / Double(transferrableBytes))
        }
        /// Realm's earlier name for ``progressEstimate``.
        @available(*, deprecated, renamed: "progressEstimate")
        public var fractionTransferred: Double { progressEstimate }
    }

    /// Realm's `SyncSession.ProgressNotificationToken`: VaultKit's
    /// `NotificationToken`, so it can be kept where an app keeps its other
    /// tokens. It keeps the notification registered until `invalidate()` (or
    /// until released).
    public typealias ProgressNotificationToken = VaultKit.NotificationToken
    /// The token ``observeConnectionState(_:)`` returns: VaultKit's `NotificationToken`.
    public typealias NotificationToken = VaultKit.NotificationToken

    /// The sync section the session was started with.
    public let configuration: SyncConfiguration
    /// The vault's sync bookkeeping (device id, outbox, merge).
    public let syncedVault: SyncedVault
    let status: SessionStatus
    private let engine: SyncEngine

    init(vaultConfiguration: Vault.Configuration, sync: SyncConfiguration) throws {
        configuration = sync
        guard sync.syncKey.count == SyncKey.byteCount || (sync.syncKey.isEmpty && sync.identity != nil) else {
            throw SyncSessionError.invalidConfiguration("syncKey must be \(SyncKey.byteCount) bytes, not \(sync.syncKey.count) (or empty, for a device with an identity that joins by invitation)")
        }
        guard !sync.space.isEmpty, !sync.token.isEmpty else { throw SyncSessionError.invalidConfiguration("space and token must not be empty") }
        _ = try SyncSocketConnector.webSocketURL(for: sync.serverURL)
        let key = sync.syncKey.isEmpty ? nil : try SyncKey(bytes: sync.syncKey)
        let access = try SpaceAccess(space: SyncSpaceID(name: sync.space), syncKey: key, identity: sync.identity)
        syncedVault = try SyncedVault(configuration: vaultConfiguration, access: access, now: sync.clock)
        status = SessionStatus(errorHandler: sync.errorHandler)
        engine = SyncEngine(synced: syncedVault, configuration: sync, status: status)
        syncedVault.setLocalCommitHandler { [status, engine] in
            status.localCommitNoted()
            engine.wake()
        }
    }

    func start() { engine.start() }

    /// The space's members and their changes: add a device or a person, remove a lost
    /// device, rotate the key (needs ``SyncConfiguration/identity``). Changes upload at once.
    public var space: SyncSpace { syncedVault.space }

    deinit { engine.stop() }

    /// `.active` while the session syncs; `.inactive` when paused; `.invalid` when stopped by a final error.
    public var state: State { status.state }
    /// The connection's state now.
    public var connectionState: ConnectionState { status.connectionState }
    /// The final error that stopped the session, if one did.
    public var lastError: SyncSessionError? { status.finalError }

    /// Called (on a queue of the session's) with every error; replaces the configuration's handler.
    public var errorHandler: (@Sendable (SyncSessionError) -> Void)? {
        get { status.errorHandler }
        set { status.errorHandler = newValue }
    }

    /// Stops syncing and disconnects; commits are still recorded, and upload at ``resume()``.
    public func pause() {
        status.setPaused(true)
        engine.disconnect()
    }

    /// Realm's name for ``pause()``: stops syncing and disconnects until ``resume()``.
    public func suspend() { pause() }

    /// Syncs again after ``pause()`` (or after a final error, once its cause is fixed).
    public func resume() {
        status.setPaused(false)
        engine.wake()
    }

    /// Connects now if the session is waiting before its next attempt (Realm's
    /// `reconnect()`: call it when the app learns the network is back, so the
    /// backoff does not delay the catch-up). Does nothing to a connected or
    /// paused session.
    public func reconnect() {
        engine.reconnectNow()
    }

    /// Returns once every commit made before the call is on the server
    /// (`.upload`), or once everything the server held at the call is merged
    /// here (`.download`). Waits through disconnections; throws the final
    /// error if the session stops, and `CancellationError` if the task is cancelled.
    public func wait(for direction: ProgressDirection) async throws {
        let ticket = status.ticket(for: direction)
        engine.wake()
        try await status.wait(for: direction, ticket: ticket)
    }

    /// Realm's callback form of ``wait(for:)``: calls `block` on `queue` (the
    /// main queue when nil) with `nil` once the wait is over, or with the final
    /// error that stopped the session. The point waited for is fixed when this
    /// is called, as with ``wait(for:)``.
    public func wait(for direction: ProgressDirection, queue: DispatchQueue? = nil, block: @escaping @Sendable ((any Error)?) -> Void) {
        let ticket = status.ticket(for: direction)
        engine.wake()
        Task { [status] in
            var failure: (any Error)?
            do {
                try await status.wait(for: direction, ticket: ticket)
            } catch {
                failure = error
            }
            (queue ?? .main).async { [failure] in block(failure) }
        }
    }

    /// Calls `block` (on a queue of the session's) with the progress of
    /// `direction`: at once with what is known, then as change sets move.
    /// Keep the token: releasing it stops the notifications.
    ///
    /// Optional as Realm's is (Realm returns nil for a session that is no
    /// longer valid); a VaultKit session always returns a token, and one
    /// registered on an `.invalid` session reports again once it resumes.
    public func addProgressNotification(for direction: ProgressDirection, mode: ProgressMode,
                                        block: @escaping @Sendable (Progress) -> Void) -> ProgressNotificationToken? {
        let id = status.addProgressObserver(direction: direction, mode: mode, block: block)
        return ProgressNotificationToken(onInvalidate: { [status] in status.removeProgressObserver(id) })
    }

    /// Calls `block` (on a queue of the session's) with every change of ``connectionState``, starting with the current one.
    public func observeConnectionState(_ block: @escaping @Sendable (ConnectionState) -> Void) -> NotificationToken {
        let id = status.addConnectionObserver(block)
        return NotificationToken(onInvalidate: { [status] in status.removeConnectionObserver(id) })
    }
}
