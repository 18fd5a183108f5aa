import VaultSync

// MARK: - What the relay keeps
//
// A sync server is stateless: every process in front of one database serves
// any device, and everything that must outlive a connection is in the store.
// Per space it keeps one log of sealed envelopes numbered 1, 2, 3 … without
// gaps, in the order their appends committed; per (space, author device,
// author sequence) at most one entry, which is how a retried upload is stored
// once (a second upload of the same key with other bytes is refused, never
// stored in its place); which device label uploads for each author device id
// (so one device's token cannot post as another); how far each device has
// acknowledged the log; each device's public keys, once it registers them;
// whether a space is signed; and the device tokens, as SHA-256 digests only. It never holds a key, a change set's contents or a
// token itself.
//
// Appends notify every server process of the new head (PostgreSQL
// LISTEN/NOTIFY), so a device connected to any of them learns at once.

/// What a device token grants: one device of one space.
public struct DeviceGrant: Sendable, Hashable {
    /// The token's row.
    public var tokenID: Int64
    /// The space name the token was issued for.
    public var spaceName: String
    /// The space's id (``SyncSpaceID/init(name:)``), which every envelope the device uploads must name.
    public var space: SyncSpaceID
    /// The device label the token was issued for (an operator's name, not the sync device id).
    public var deviceLabel: String
}

/// A page of a space's log.
public struct LogPage: Sendable {
    /// Change sets in server order.
    public var items: [DeliveredChangeSet]
    /// The space's last server sequence.
    public var head: UInt64
    /// Envelope bytes after the last item, up to the head.
    public var remainingBytes: UInt64
}

/// What an append did.
public struct AppendOutcome: Sendable, Equatable {
    /// One receipt per change set, in upload order.
    public var receipts: [UploadReceipt]
    /// Change sets newly stored.
    public var stored: Int
    /// Their envelope bytes.
    public var storedBytes: Int
    /// Change sets that were already stored with the same bytes (retried uploads).
    public var deduplicated: Int

    /// An outcome.
    public init(receipts: [UploadReceipt], stored: Int, storedBytes: Int, deduplicated: Int) {
        self.receipts = receipts
        self.stored = stored
        self.storedBytes = storedBytes
        self.deduplicated = deduplicated
    }
}

/// Why an append stored nothing.
public enum AppendRefusal: Error, Sendable, Equatable {
    /// A change set names an author device whose change sets another device label uploads
    /// (a token of one device posting as another).
    case foreignDevice(SyncDeviceID)
    /// The log holds this author sequence with other bytes; the stored change set keeps its place.
    case conflictingChangeSet(device: SyncDeviceID, sequence: UInt64, serverSequence: UInt64)
    /// The space's log would hold more than `limit` envelope bytes.
    case quotaExceeded(limit: Int64)
    /// An unsigned (version-1) change set for a space whose log holds signed ones.
    case unsignedInSignedSpace
    /// A device id registered with other keys (the id is derived from the signing key, so
    /// this is a forgery, not a collision).
    case keysMismatch(SyncDeviceID)
}

/// The position of a space's log.
public struct LogHead: Sendable, Equatable {
    /// The last server sequence (0 for an empty log).
    public var head: UInt64
    /// The envelope bytes the log holds.
    public var totalBytes: UInt64
}

/// The durable state of a sync server (PostgreSQL in production, see ``PostgresSyncStore``).
public protocol SyncStore: Sendable {
    /// Creates or upgrades the store's own tables.
    func migrate() async throws
    /// The grant of the token whose SHA-256 digest is `digest`, nil when unknown or revoked.
    func grant(forTokenDigest digest: [UInt8]) async throws -> DeviceGrant?
    /// Whether the token of row `tokenID` is still live (not revoked).
    func tokenIsLive(_ tokenID: Int64) async throws -> Bool
    /// Stores a token digest for `device` of `space`; returns its row id.
    func issueToken(digest: [UInt8], spaceName: String, deviceLabel: String) async throws -> Int64
    /// Revokes the tokens of `device` in `space`; returns how many were live.
    func revokeTokens(spaceName: String, deviceLabel: String) async throws -> Int
    /// Records that `keys` (device id `keys.deviceID`) are the keys of the device `uploader`'s
    /// token uploads for in `space`: refused with ``AppendRefusal/foreignDevice(_:)`` when
    /// another device label claimed that device id first.
    func register(_ keys: DevicePublicKeys, space: SyncSpaceID, uploader: DeviceGrant) async throws
    /// Appends `changeSets`, uploaded with `uploader`'s token, to the log of `space` and
    /// notifies. Each (author device, sequence) is stored at most once: the same bytes again
    /// are a retry (their receipt names the stored place); other bytes are refused. All or
    /// nothing: a refusal (``AppendRefusal``) stores none of them.
    func append(_ changeSets: [SealedChangeSet], space: SyncSpaceID, uploader: DeviceGrant, quota: Int64) async throws -> AppendOutcome
    /// Up to `limit` change sets after `after`, stopping before `maxBytes` of envelopes (at least one).
    func page(space: SyncSpaceID, after: UInt64, limit: Int, maxBytes: Int) async throws -> LogPage
    /// The head of `space`'s log.
    func head(space: SyncSpaceID) async throws -> LogHead
    /// Records that `device` (a token) holds `space`'s log through `through`.
    func acknowledge(space: SyncSpaceID, tokenID: Int64, through: UInt64) async throws
    /// Whether the store answers (the health check).
    func ping() async throws
    /// Calls `onAppend` with (space, head) for every append by any server process, until cancelled.
    func listenForAppends(_ onAppend: @escaping @Sendable (SyncSpaceID, UInt64) async -> Void) async throws
}
