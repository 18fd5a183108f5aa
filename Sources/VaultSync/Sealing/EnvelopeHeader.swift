import Foundation

/// The clear header of a sealed change set: what a relay routes and
/// deduplicates by without holding any key (see ``ChangeSetSealer`` for the
/// layout). Reading it checks only the shape; opening the envelope
/// authenticates it.
public struct EnvelopeHeader: Hashable, Sendable {
    /// The space the change set was sealed for.
    public var space: SyncSpaceID
    /// The author device.
    public var device: SyncDeviceID
    /// The author's sequence number.
    public var sequence: UInt64
    /// The id of the sync key it was sealed under.
    public var keyID: UInt32

    /// The smallest envelope: header, nonce, a 4-byte length and the tag.
    public static let minimumEnvelopeSize = ChangeSetSealer.headerByteCount + ChangeSetSealer.nonceByteCount + 4 + ChangeSetSealer.tagByteCount

    /// The header of `envelope`, or ``SyncError/malformedChangeSet(_:)`` when
    /// it is too short, lacks the "VKS1" magic or names an unknown version.
    public init(envelope: [UInt8]) throws(SyncError) {
        guard envelope.count >= Self.minimumEnvelopeSize, Array(envelope[0..<4]) == ChangeSetSealer.magic else {
            throw .malformedChangeSet("not a sealed change set (no VKS1 envelope)")
        }
        guard envelope[4] == 1, envelope[5] == 1 else {
            throw .malformedChangeSet("envelope version \(envelope[4]) or cipher suite \(envelope[5]) is not one this build reads")
        }
        func u64(_ offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(envelope[offset + $1]) << UInt64(8 * $1) } }
        guard let space = SyncSpaceID(bytes: Array(envelope[8..<24])) else { throw .malformedChangeSet("a space id is 16 bytes") }
        self.space = space
        device = SyncDeviceID(rawValue: u64(24))
        sequence = u64(32)
        keyID = (0..<4).reduce(UInt32(0)) { $0 | UInt32(envelope[40 + $1]) << UInt32(8 * $1) }
    }
}

extension SealedChangeSet {
    /// The sealed change set `envelope` holds, named by its clear header (not yet authenticated).
    public init(envelope: [UInt8]) throws(SyncError) {
        let header = try EnvelopeHeader(envelope: envelope)
        self.init(device: header.device, sequence: header.sequence, envelope: envelope)
    }
}
