import Foundation

// MARK: - Signed envelopes (version 2)
//
// A space with members (see MembershipState.swift) carries version-2
// envelopes: the version-1 header of ChangeSetSealer.swift, grown by what a
// device needs before it can open anything, and a signature over all of it.
//
//   offset size
//    0      4   magic "VKS1"
//    4      1   envelope version (2)
//    5      1   cipher suite (1: XChaCha20-Poly1305-IETF)
//    6      1   kind (0: change set, 1: membership entry)
//    7      1   reserved (0)
//    8     16   space id
//   24      8   device id (u64): the signer and author
//   32      8   device sequence (u64)
//   40      4   key epoch the body is sealed under (u32)
//   44      4   box epoch (u32): the epoch whose key the boxes hold
//   48      2   box count n (u16)
//   50      2   wrapped-key length w (u16: 0, or 72 when the entry rotates)
//   52  n×108   boxes: recipient device id (u64) ‖ crypto_box_seal (100 bytes)
//    …      w   the previous epoch's key wrapped under the box epoch's (SpaceKeyring)
//    …     24   nonce
//    …      c   ciphertext of the padded body, then the 16-byte tag
//    …     64   Ed25519 signature (SignatureContext.envelope) of every byte before it
//
// Everything before the nonce is the AEAD's associated data, so the boxes and
// the wrapped key cannot be swapped between envelopes either. Boxes and the
// wrapped key sit outside the ciphertext because a device that joins holds no
// key yet: it finds its box by reading headers, and reaches older epochs by
// the wrapped keys, before it opens any body. They are opaque to the relay (a
// sealed box to one device's X25519 key, a key under a key).
//
// The signature is checked by every receiver against the signer's key as the
// membership stands at the envelope's place in the log, and by the server
// against the key the uploading device registered. Data entries grow by 72
// bytes over version 1 (8 of header, 64 of signature).

/// What an envelope carries.
public enum EnvelopeKind: UInt8, Sendable {
    /// A change set of the space's objects.
    case changeSet = 0
    /// A membership entry (devices and people added or removed, roles, key rotations).
    case membership = 1
}

/// The clear header of a sealed change set: what a relay routes and
/// deduplicates by without holding any key (see ``ChangeSetSealer`` for the
/// layout). Reading it checks only the shape; opening the envelope
/// authenticates it.
public struct EnvelopeHeader: Hashable, Sendable {
    /// The envelope format: 1 (unsigned, a space without members) or 2 (signed).
    public var version: UInt8
    /// What the envelope carries (always ``EnvelopeKind/changeSet`` in version 1).
    public var kind: EnvelopeKind
    /// The space the change set was sealed for.
    public var space: SyncSpaceID
    /// The author device.
    public var device: SyncDeviceID
    /// The author's sequence number.
    public var sequence: UInt64
    /// The id of the sync key it was sealed under (in version 2, the key epoch).
    public var keyID: UInt32
    /// The epoch whose key ``boxes`` hold (version 2; 0 without boxes).
    public var boxEpoch: UInt32
    /// Keys sealed to devices, by recipient (version 2 membership entries).
    public var boxes: [SyncDeviceID: [UInt8]]
    /// The previous epoch's key wrapped under ``boxEpoch``'s (a rotation), else empty.
    public var wrappedPrevious: [UInt8]
    /// Where the nonce starts: the bytes before it are the associated data.
    public var nonceOffset: Int
    /// Where the signature starts (the envelope's length in version 1, which has none).
    public var signatureOffset: Int

    /// The smallest envelope: header, nonce, a 4-byte length and the tag.
    public static let minimumEnvelopeSize = ChangeSetSealer.headerByteCount + ChangeSetSealer.nonceByteCount + 4 + ChangeSetSealer.tagByteCount
    /// A version-2 header before its boxes.
    static let signedHeaderByteCount = 52
    /// A box as stored: recipient id and the sealed 52 bytes of space, epoch and key.
    static let boxEntryByteCount = 8 + 52 + DevicePublicKeys.sealOverhead

    /// The header of `envelope`, or ``SyncError/malformedChangeSet(_:)`` when
    /// it is too short, lacks the "VKS1" magic or names an unknown version.
    public init(envelope: [UInt8]) throws(SyncError) {
        guard envelope.count >= Self.minimumEnvelopeSize, Array(envelope[0..<4]) == ChangeSetSealer.magic else {
            throw .malformedChangeSet("not a sealed change set (no VKS1 envelope)")
        }
        guard (envelope[4] == 1 || envelope[4] == 2), envelope[5] == 1 else {
            throw .malformedChangeSet("envelope version \(envelope[4]) or cipher suite \(envelope[5]) is not one this build reads; update the app")
        }
        var reader = ByteReader(envelope)
        _ = try reader.raw(4)
        version = try reader.u8()
        _ = try reader.u8()
        let kind = try reader.u8()
        let reserved = try reader.u8()
        guard let space = SyncSpaceID(bytes: try reader.raw(16)) else { throw .malformedChangeSet("a space id is 16 bytes") }
        self.space = space
        device = SyncDeviceID(rawValue: try reader.u64())
        sequence = try reader.u64()
        keyID = try reader.u32()
        guard version == 2 else {
            guard kind == 0, reserved == 0 else { throw .malformedChangeSet("a version-1 envelope with reserved bytes set") }
            self.kind = .changeSet
            boxEpoch = 0
            boxes = [:]
            wrappedPrevious = []
            nonceOffset = ChangeSetSealer.headerByteCount
            signatureOffset = envelope.count
            return
        }
        guard let parsedKind = EnvelopeKind(rawValue: kind), reserved == 0 else {
            throw .malformedChangeSet("envelope kind \(kind) is not one this build reads; update the app")
        }
        self.kind = parsedKind
        boxEpoch = try reader.u32()
        let boxCount = Int(try reader.u16())
        let wrapCount = Int(try reader.u16())
        guard wrapCount == 0 || wrapCount == SpaceKeyring.wrappedByteCount else {
            throw .malformedChangeSet("a wrapped key of \(wrapCount) bytes")
        }
        // Boxes, wrap, nonce, the smallest body and the signature must all fit.
        let fixed = ChangeSetSealer.nonceByteCount + 4 + ChangeSetSealer.tagByteCount + DevicePublicKeys.signatureByteCount
        guard reader.remaining >= boxCount * Self.boxEntryByteCount + wrapCount + fixed else {
            throw .malformedChangeSet("an envelope shorter than its \(boxCount) key boxes")
        }
        var boxes: [SyncDeviceID: [UInt8]] = [:]
        for _ in 0..<boxCount {
            let recipient = SyncDeviceID(rawValue: try reader.u64())
            guard boxes[recipient] == nil else { throw .malformedChangeSet("two key boxes for one device") }
            boxes[recipient] = try reader.raw(Self.boxEntryByteCount - 8)
        }
        self.boxes = boxes
        wrappedPrevious = try reader.raw(wrapCount)
        nonceOffset = envelope.count - reader.remaining
        signatureOffset = envelope.count - DevicePublicKeys.signatureByteCount
    }

    /// Whether the envelope carries a signature (version 2).
    public var isSigned: Bool { version == 2 }

    /// Whether `signer` signed `envelope` (this header's): the signature covers every byte before it.
    public func signatureVerifies(_ envelope: [UInt8], signer: DevicePublicKeys) -> Bool {
        guard isSigned, envelope.count == signatureOffset + DevicePublicKeys.signatureByteCount else { return false }
        return signer.verify(Array(envelope[signatureOffset...]), of: Array(envelope[..<signatureOffset]), context: .envelope)
    }
}

extension SealedChangeSet {
    /// The sealed change set `envelope` holds, named by its clear header (not yet authenticated).
    public init(envelope: [UInt8]) throws(SyncError) {
        let header = try EnvelopeHeader(envelope: envelope)
        self.init(device: header.device, sequence: header.sequence, envelope: envelope)
    }
}
