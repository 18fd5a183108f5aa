import CSodium
import Foundation

// MARK: - Sealed change sets
//
// OVERVIEW
//
// A relay stores and forwards change sets it cannot read. Each is sealed
// with XChaCha20-Poly1305-IETF (libsodium `crypto_aead_xchacha20poly1305_ietf_*`:
// a 24-byte random nonce is safe for any number of messages under one key)
// under a key derived from the user's sync key, and carries a clear header
// the relay routes by. The header is the associated data: a change set
// cannot be presented for another space, device, sequence or key id than it
// was sealed for without failing authentication.
//
// ENVELOPE
//
//   offset size
//    0      4   magic "VKS1"
//    4      1   envelope version (1)
//    5      1   cipher suite (1: XChaCha20-Poly1305-IETF)
//    6      2   reserved (0)
//    8     16   space id
//   24      8   device id (u64, little-endian)
//   32      8   device sequence (u64)
//   40      4   key id (u32)
//   44     24   nonce
//   68      n   ciphertext of the padded plaintext, then the 16-byte tag
//
// The plaintext is u32 L ‖ the change set (L bytes) ‖ zero bytes up to the
// PADMÉ length of 4 + L (Nikitin et al., 2019: at most 12 % larger), so the
// relay learns sizes only roughly.
//
// KEYS
//
// The sealing key for key id k is crypto_kdf_derive_from_key(32 bytes,
// subkey id k, context "VKsync01", the sync key). Rotating the sync key is
// adding a key id: new change sets use it, older ones still open with theirs.

/// Seals change sets for a relay, and opens the ones it delivers.
///
/// Without an identity it writes version-1 envelopes (a space without members);
/// with one, signed version-2 envelopes (see EnvelopeHeader.swift), whose
/// signatures the receiving device checks against the space's membership.
public struct ChangeSetSealer: Sendable {
    /// The space sealed for.
    public let space: SyncSpaceID
    /// The key id new change sets are sealed with.
    public let currentKeyID: UInt32
    private let keys: [UInt32: SyncKey]
    /// The device that signs what this sealer seals (version-2 envelopes); nil for version 1.
    let identity: DeviceIdentity?

    static let magic: [UInt8] = Array("VKS1".utf8)
    static let headerByteCount = 44
    static let nonceByteCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagByteCount = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    private static let context = Array("VKsync01".utf8).map { CChar(bitPattern: $0) }

    /// A sealer for `space` holding `keys` by id, sealing with `currentKeyID`.
    public init(space: SyncSpaceID, keys: [UInt32: SyncKey], currentKeyID: UInt32) throws(SyncError) {
        try self.init(space: space, keys: keys, currentKeyID: currentKeyID, identity: nil)
    }

    /// A sealer that signs as `identity` (nil: unsigned version-1 envelopes). A signing
    /// sealer may hold no key yet (a device that joins, before it receives one).
    public init(space: SyncSpaceID, keys: [UInt32: SyncKey], currentKeyID: UInt32, identity: DeviceIdentity?) throws(SyncError) {
        guard sodium_init() >= 0 else { throw .cryptoUnavailable }
        guard keys[currentKeyID] != nil || (identity != nil && keys.isEmpty) else { throw .unknownKey(keyID: currentKeyID) }
        self.space = space
        self.keys = keys
        self.currentKeyID = currentKeyID
        self.identity = identity
    }

    /// Whether the sealer holds the key of `keyID`.
    func holdsKey(_ keyID: UInt32) -> Bool { keys[keyID] != nil }

    /// `changeSet` sealed under the current key with a fresh random nonce.
    public func seal(_ changeSet: ChangeSet) throws(SyncError) -> SealedChangeSet {
        try sealEntry(kind: .changeSet, author: changeSet.author, sequence: changeSet.sequence, body: try ChangeSetCodec.encode(changeSet))
    }

    /// `body` sealed as an entry of `kind`: version 2 (signed, with `boxes` of the key of
    /// `boxEpoch` and a `wrapped` previous key) when the sealer has an identity, else version 1.
    func sealEntry(kind: EnvelopeKind, author: SyncDeviceID, sequence: UInt64, body: [UInt8],
                   boxEpoch: UInt32 = 0, boxes: [SyncDeviceID: [UInt8]] = [:], wrapped: [UInt8] = []) throws(SyncError) -> SealedChangeSet {
        var plaintext = [UInt8]()
        let padded = Self.padme(4 + body.count)
        plaintext.reserveCapacity(padded)
        for shift in stride(from: 0, to: 32, by: 8) { plaintext.append(UInt8(truncatingIfNeeded: UInt32(body.count) >> UInt32(shift))) }
        plaintext += body
        plaintext += [UInt8](repeating: 0, count: padded - plaintext.count)
        defer { sodium_memzero(&plaintext, plaintext.count) }

        var writer = ByteWriter()
        writer.raw(Self.magic)
        writer.u8(identity == nil ? 1 : 2)
        writer.u8(1)
        writer.u8(identity == nil ? 0 : kind.rawValue)
        writer.u8(0)
        writer.raw(space.bytes)
        writer.u64(author.rawValue)
        writer.u64(sequence)
        writer.u32(currentKeyID)
        if identity != nil {
            guard boxes.count <= Int(UInt16.max), wrapped.count <= Int(UInt16.max) else { throw .malformedChangeSet("too many key boxes for one entry") }
            writer.u32(boxEpoch)
            writer.u16(UInt16(boxes.count))
            writer.u16(UInt16(wrapped.count))
            for (recipient, box) in boxes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                writer.u64(recipient.rawValue)
                writer.raw(box)
            }
            writer.raw(wrapped)
        } else if kind != .changeSet || !boxes.isEmpty {
            throw .malformedChangeSet("only a signed (version-2) envelope carries membership")
        }
        let header = writer.bytes
        var nonce = [UInt8](repeating: 0, count: Self.nonceByteCount)
        randombytes_buf(&nonce, nonce.count)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + Self.tagByteCount)
        var ciphertextLength: UInt64 = 0
        var key = try sealingKey(currentKeyID)
        defer { sodium_memzero(&key, key.count) }
        let status = crypto_aead_xchacha20poly1305_ietf_encrypt(&ciphertext, &ciphertextLength, plaintext, UInt64(plaintext.count),
                                                               header, UInt64(header.count), nil, nonce, key)
        guard status == 0 else { throw .cryptoUnavailable }
        var envelope = header + nonce + ciphertext
        if let identity { envelope += identity.sign(envelope, context: .envelope) }
        return SealedChangeSet(device: author, sequence: sequence, envelope: envelope)
    }

    /// The change set `sealed` holds, once its envelope authenticates for this
    /// space and for the device and sequence it is delivered as. A signed envelope's
    /// signature is checked by the receiving vault against the space's membership.
    public func open(_ sealed: SealedChangeSet) throws(SyncError) -> ChangeSet {
        let (header, body) = try openBody(sealed)
        guard header.kind == .changeSet else { throw .malformedChangeSet("a membership entry, not a change set") }
        return try decode(body, of: sealed)
    }

    /// Opens what a relay delivered, this device's own change sets left out. An envelope
    /// that does not authenticate — noise from a token holder without the sync key, another
    /// sync key, a key id this device does not hold, damage, an envelope format this build
    /// does not read — is returned apart as quarantined, so that one bad entry of the log
    /// never stops a device. Content that authenticates but cannot be decoded throws: it
    /// was written by a holder of the key, and skipping it would lose a change.
    public func openDelivered(_ items: [DeliveredChangeSet], skipping own: SyncDeviceID) throws(SyncError) -> (opened: [ChangeSet], quarantined: [QuarantinedChangeSet]) {
        var opened: [ChangeSet] = []
        var quarantined: [QuarantinedChangeSet] = []
        for item in items where item.changeSet.device != own {
            let body: [UInt8]
            do throws(SyncError) {
                let header: EnvelopeHeader
                (header, body) = try openBody(item.changeSet)
                guard header.kind == .changeSet else { throw SyncError.malformedChangeSet("a membership entry, which only a member device reads") }
            } catch {
                switch error {
                case .cryptoUnavailable, .invalidKey: throw error   // this device's own problem, not the entry's
                default:
                    quarantined.append(QuarantinedChangeSet(serverSequence: item.serverSequence, device: item.changeSet.device,
                                                            sequence: item.changeSet.sequence, reason: error.description, envelope: item.changeSet.envelope))
                    continue
                }
            }
            opened.append(try decode(body, of: item.changeSet))
        }
        return (opened, quarantined)
    }

    /// The header and body of `sealed`, once its envelope authenticates (the header says
    /// what the relay delivered it as, for this space, and the AEAD tag verifies). The
    /// signature of a version-2 envelope is not checked here.
    func openBody(_ sealed: SealedChangeSet) throws(SyncError) -> (EnvelopeHeader, [UInt8]) {
        let envelope = sealed.envelope
        let header = try EnvelopeHeader(envelope: envelope)
        // The header must say what the relay delivered it as, and be for this space.
        guard header.space == space, header.device == sealed.device, header.sequence == sealed.sequence else {
            throw .authenticationFailed(device: sealed.device, sequence: sealed.sequence)
        }
        var key = try sealingKey(header.keyID)
        defer { sodium_memzero(&key, key.count) }
        let associated = Array(envelope[..<header.nonceOffset])
        let nonce = Array(envelope[header.nonceOffset..<(header.nonceOffset + Self.nonceByteCount)])
        let ciphertext = Array(envelope[(header.nonceOffset + Self.nonceByteCount)..<header.signatureOffset])
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count - Self.tagByteCount)
        defer { sodium_memzero(&plaintext, plaintext.count) }
        var plaintextLength: UInt64 = 0
        let status = crypto_aead_xchacha20poly1305_ietf_decrypt(&plaintext, &plaintextLength, nil, ciphertext, UInt64(ciphertext.count),
                                                               associated, UInt64(associated.count), nonce, key)
        guard status == 0 else { throw .authenticationFailed(device: sealed.device, sequence: sealed.sequence) }
        let length = Int((0..<4).reduce(UInt32(0)) { $0 | UInt32(plaintext[$1]) << UInt32(8 * $1) })
        guard length <= plaintext.count - 4, plaintext[(4 + length)...].allSatisfy({ $0 == 0 }) else {
            throw .malformedChangeSet("the padding of change set \(sealed.sequence) of device \(sealed.device) is wrong")
        }
        return (header, Array(plaintext[4..<(4 + length)]))
    }

    /// The change set an authenticated body holds (the codec's bytes).
    func decode(_ body: [UInt8], of sealed: SealedChangeSet) throws(SyncError) -> ChangeSet {
        let changeSet = try ChangeSetCodec.decode(body)
        guard changeSet.author == sealed.device, changeSet.sequence == sealed.sequence else {
            throw .malformedChangeSet("change set \(sealed.sequence) of device \(sealed.device) names another author or sequence inside")
        }
        return changeSet
    }

    private func sealingKey(_ keyID: UInt32) throws(SyncError) -> [UInt8] {
        guard let syncKey = keys[keyID] else { throw .unknownKey(keyID: keyID) }
        return try syncKey.subkey(id: UInt64(keyID), context: Self.context)
    }

    /// PADMÉ: the padded length of `length` (Nikitin et al., "Reducing Metadata
    /// Leakage from Encrypted Files and Communication with PURBs", 2019).
    static func padme(_ length: Int) -> Int {
        guard length > 2 else { return length }
        let exponent = Int.bitWidth - 1 - length.leadingZeroBitCount          // ⌊log2 L⌋
        let bits = Int.bitWidth - exponent.leadingZeroBitCount               // ⌊log2 E⌋ + 1
        let mask = (1 << (exponent - bits)) - 1
        return (length + mask) & ~mask
    }
}

/// A change set as a relay sees it: who made it, its place in that device's
/// sequence, and an envelope only the user's devices can open.
public struct SealedChangeSet: Hashable, Sendable {
    /// The author device.
    public var device: SyncDeviceID
    /// The author's sequence number.
    public var sequence: UInt64
    /// The envelope (see ChangeSetSealer): a clear header, then ciphertext.
    public var envelope: [UInt8]

    /// A sealed change set as delivered.
    public init(device: SyncDeviceID, sequence: UInt64, envelope: [UInt8]) {
        self.device = device
        self.sequence = sequence
        self.envelope = envelope
    }
}
