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
    /// Seals and opens change sets (the space and its keys); nil when the vault was opened
    /// with a ``SpaceAccess``, which seals, signs and judges entries itself.
    public let sealer: ChangeSetSealer?
    /// The space.
    public let space: SyncSpaceID
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
        space = sealer.space
        self.transport = transport
        self.pageSize = pageSize
    }

    /// A synchronizer for `vault`, opened with a ``SpaceAccess``, through `transport`: entries
    /// are signed when the access has an identity, and every entry read is judged by the
    /// space's membership (see ``SyncedVault/receive(_:)``).
    public init(vault: SyncedVault, transport: any SyncTransport, pageSize: Int = 256) throws(SyncError) {
        guard let access = vault.access else { throw .invalidKey("the synced vault was opened without a space (SpaceAccess)") }
        self.vault = vault
        sealer = nil
        space = access.space
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
        // A removal whose rotation another entry's beat leaves a rotation owed: a writer makes it.
        if sealer == nil, try vault.settleKeys() { round.uploaded += try await upload() }
        return round
    }

    /// Seals and uploads the outbox; returns how many change sets the relay acknowledged.
    public func upload() async throws -> Int {
        let sealed = try sealer.map { try vault.sealedPendingChangeSets(with: $0) } ?? vault.sealedPendingEntries()
        guard !sealed.isEmpty else { return 0 }
        let receipts = try await transport.upload(sealed, space: space)
        let acknowledged = receipts.filter { $0.device == vault.device }.map(\.sequence)
        if sealer == nil {
            try vault.acknowledgeUploaded(acknowledged)
        } else if let last = acknowledged.max() {
            try vault.acknowledgeUploaded(through: last)
        }
        return acknowledged.count
    }

    /// Downloads and applies every page the relay holds past the stored position.
    public func download() async throws -> (downloaded: Int, applied: Int) {
        var downloaded = 0
        var applied = try sealer.map { try vault.retryQuarantined(with: $0) } ?? vault.retryQuarantined()
        if sealer == nil, try vault.needsKey() {
            // A device that joins finds its key box in the log's headers before it reads anything.
            guard try await findKey(after: 0) else { return (0, 0) }
        }
        while true {
            let page = try await transport.receive(space: space, after: try vault.serverCursor(), limit: pageSize)
            guard let last = page.last else { break }
            if let sealer {
                // Entries that do not authenticate are kept apart in the vault and skipped (QuarantinedChangeSet).
                let (changeSets, quarantined) = try sealer.openDelivered(page, skipping: vault.device)
                applied += try vault.apply(changeSets, serverCursor: last.serverSequence, quarantined: quarantined)
            } else {
                let reception = try vault.receive(page)
                applied += reception.applied
                if reception.removed { break }
                // Reading stopped at an entry under a key this device lacks: a later entry may share it.
                if let stopped = reception.stoppedAt {
                    if try await findKey(after: max(stopped, 1) - 1, opening: page.first { $0.serverSequence == stopped }?.changeSet) { continue }
                    break
                }
            }
            downloaded += page.count
            try await transport.acknowledge(space: space, device: vault.device, through: last.serverSequence)
        }
        return (downloaded, applied)
    }

    /// Reads the log's membership headers after `after` for a key box of this device's; true when it gained a key.
    private func findKey(after start: UInt64, opening: SealedChangeSet? = nil) async throws -> Bool {
        var headers: [EnvelopeHeader] = []
        var after = start
        while true {
            let page = try await transport.receive(space: space, after: after, limit: pageSize)
            guard let last = page.last else { break }
            headers += page.compactMap { try? EnvelopeHeader(envelope: $0.changeSet.envelope) }.filter { $0.kind == .membership }
            after = last.serverSequence
        }
        return try vault.findKey(in: headers, opening: opening)
    }
}
