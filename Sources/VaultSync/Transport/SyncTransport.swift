// MARK: - The transport boundary
//
// What a device needs from whatever carries its change sets — a relay over
// the network (part 2 of sync), or the in-process relay tests use: store
// sealed change sets in one order per space, hand them out from a position in
// that order, and learn how far each device has durably taken them in.
//
// A relay never reads a change set: it sees the envelope's clear header
// (space, device, sequence, key id) and the padded size. It deduplicates by
// (device, sequence), so a device may retry an upload whose reply it lost;
// delivery may repeat and reorder, which devices tolerate (they apply each
// change set once, in causal order).

/// Carries sealed change sets between a space's devices.
public protocol SyncTransport: Sendable {
    /// Stores `changeSets` (in the order given) and returns a receipt for each.
    /// A change set already stored under its (device, sequence) is not stored
    /// again: its receipt is the first one.
    func upload(_ changeSets: [SealedChangeSet], space: SyncSpaceID) async throws -> [UploadReceipt]
    /// Up to `limit` change sets with a server sequence greater than
    /// `serverSequence`, in server order.
    func receive(space: SyncSpaceID, after serverSequence: UInt64, limit: Int) async throws -> [DeliveredChangeSet]
    /// Records that `device` holds every change set up to `serverSequence`
    /// durably (what a relay may use to compact its log).
    func acknowledge(space: SyncSpaceID, device: SyncDeviceID, through serverSequence: UInt64) async throws
}

/// A change set with the position the relay gave it.
public struct DeliveredChangeSet: Hashable, Sendable {
    /// The relay's sequence: increasing in the order the relay stored change sets.
    public var serverSequence: UInt64
    /// The change set.
    public var changeSet: SealedChangeSet

    /// A delivery of `changeSet` at `serverSequence`.
    public init(serverSequence: UInt64, changeSet: SealedChangeSet) {
        self.serverSequence = serverSequence
        self.changeSet = changeSet
    }
}

/// The relay's acknowledgement of one uploaded change set.
public struct UploadReceipt: Hashable, Sendable {
    /// The author.
    public var device: SyncDeviceID
    /// The author's sequence.
    public var sequence: UInt64
    /// Where the relay stored it.
    public var serverSequence: UInt64

    /// A receipt for `sequence` of `device`, stored at `serverSequence`.
    public init(device: SyncDeviceID, sequence: UInt64, serverSequence: UInt64) {
        self.device = device
        self.sequence = sequence
        self.serverSequence = serverSequence
    }
}
