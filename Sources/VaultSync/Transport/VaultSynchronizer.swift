import Foundation

/// Carries a synced vault's change sets through a relay: seals and uploads
/// the outbox, then downloads, opens and applies what other devices sent.
///
/// Each step is durable before the next: the outbox is emptied only up to
/// what the relay acknowledged, and the download position is stored in the
/// same transaction as the change sets it covers, so an interrupted round
/// (a lost reply, a killed process) repeats work but never loses or doubles it.
public struct VaultSynchronizer: Sendable {
    /// The vault.
    public let vault: SyncedVault
    /// Seals and opens change sets (the space and its keys).
    public let sealer: ChangeSetSealer
    /// The relay.
    public let transport: any SyncTransport
    /// How many change sets one download request asks for.
    public var pageSize: Int

    /// What one round moved.
    public struct Round: Sendable, Equatable {
        /// Local change sets the relay acknowledged.
        public var uploaded: Int
        /// Change sets downloaded (this device's own included, which are skipped).
        public var downloaded: Int
        /// Remote change sets applied.
        public var applied: Int
    }

    /// A synchronizer for `vault` through `transport`.
    public init(vault: SyncedVault, sealer: ChangeSetSealer, transport: any SyncTransport, pageSize: Int = 256) {
        self.vault = vault
        self.sealer = sealer
        self.transport = transport
        self.pageSize = pageSize
    }

    /// Uploads, then downloads until the relay has nothing newer.
    @discardableResult
    public func synchronize() async throws -> Round {
        var round = Round(uploaded: try await upload(), downloaded: 0, applied: 0)
        let (downloaded, applied) = try await download()
        round.downloaded = downloaded
        round.applied = applied
        return round
    }

    /// Seals and uploads the outbox; returns how many change sets the relay acknowledged.
    public func upload() async throws -> Int {
        let sealed = try vault.sealedPendingChangeSets(with: sealer)
        guard !sealed.isEmpty else { return 0 }
        let receipts = try await transport.upload(sealed, space: sealer.space)
        let acknowledged = receipts.filter { $0.device == vault.device }.map(\.sequence)
        if let last = acknowledged.max() { try vault.acknowledgeUploaded(through: last) }
        return acknowledged.count
    }

    /// Downloads and applies every page the relay holds past the stored position.
    public func download() async throws -> (downloaded: Int, applied: Int) {
        var downloaded = 0
        var applied = try vault.retryQuarantined(with: sealer)
        while true {
            let page = try await transport.receive(space: sealer.space, after: try vault.serverCursor(), limit: pageSize)
            guard let last = page.last else { break }
            // Entries that do not authenticate are kept apart in the vault and skipped (QuarantinedChangeSet).
            let (changeSets, quarantined) = try sealer.openDelivered(page, skipping: vault.device)
            applied += try vault.apply(changeSets, serverCursor: last.serverSequence, quarantined: quarantined)
            downloaded += page.count
            try await transport.acknowledge(space: sealer.space, device: vault.device, through: last.serverSequence)
        }
        return (downloaded, applied)
    }
}
