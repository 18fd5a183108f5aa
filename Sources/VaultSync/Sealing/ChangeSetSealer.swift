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
public struct ChangeSetSealer: Sendable {
    /// The space sealed for.
    public let space: SyncSpaceID
    /// The key id new change sets are sealed with.
    public let currentKeyID: UInt32
    private let keys: [UInt32: SyncKey]

    static let magic: [UInt8] = Array("VKS1".utf8)
    static let headerByteCount = 44
    static let nonceByteCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagByteCount = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    private static let context = Array("VKsync01".utf8).map { CChar(bitPattern: $0) }

    /// A sealer for `space` holding `keys` by id, sealing with `currentKeyID`.
    public init(space: SyncSpaceID, keys: [UInt32: SyncKey], currentKeyID: UInt32) throws(SyncError) {
        guard sodium_init() >= 0 else { throw .cryptoUnavailable }
        guard keys[currentKeyID] != nil else { throw .unknownKey(keyID: currentKeyID) }
        self.space = space
        self.keys = keys
        self.currentKeyID = currentKeyID
    }

    /// `changeSet` sealed under the current key with a fresh random nonce.
    public func seal(_ changeSet: ChangeSet) throws(SyncError) -> SealedChangeSet {
        let body = try ChangeSetCodec.encode(changeSet)
        var plaintext = [UInt8]()
        let padded = Self.padme(4 + body.count)
        plaintext.reserveCapacity(padded)
        for shift in stride(from: 0, to: 32, by: 8) { plaintext.append(UInt8(truncatingIfNeeded: UInt32(body.count) >> UInt32(shift))) }
        plaintext += body
        plaintext += [UInt8](repeating: 0, count: padded - plaintext.count)
        defer { sodium_memzero(&plaintext, plaintext.count) }

        var header = Self.magic + [1, 1, 0, 0] + space.bytes
        for shift in stride(from: 0, to: 64, by: 8) { header.append(UInt8(truncatingIfNeeded: changeSet.author.rawValue >> UInt64(shift))) }
        for shift in stride(from: 0, to: 64, by: 8) { header.append(UInt8(truncatingIfNeeded: changeSet.sequence >> UInt64(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) { header.append(UInt8(truncatingIfNeeded: currentKeyID >> UInt32(shift))) }
        var nonce = [UInt8](repeating: 0, count: Self.nonceByteCount)
        randombytes_buf(&nonce, nonce.count)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + Self.tagByteCount)
        var ciphertextLength: UInt64 = 0
        var key = try sealingKey(currentKeyID)
        defer { sodium_memzero(&key, key.count) }
        let status = crypto_aead_xchacha20poly1305_ietf_encrypt(&ciphertext, &ciphertextLength, plaintext, UInt64(plaintext.count),
                                                               header, UInt64(header.count), nil, nonce, key)
        guard status == 0 else { throw .cryptoUnavailable }
        return SealedChangeSet(device: changeSet.author, sequence: changeSet.sequence, envelope: header + nonce + ciphertext)
    }

    /// The change set `sealed` holds, once its envelope authenticates for this
    /// space and for the device and sequence it is delivered as.
    public func open(_ sealed: SealedChangeSet) throws(SyncError) -> ChangeSet {
        var plaintext = try authenticate(sealed)
        defer { sodium_memzero(&plaintext, plaintext.count) }
        return try decode(plaintext, of: sealed)
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
            var plaintext: [UInt8]
            do {
                plaintext = try authenticate(item.changeSet)
            } catch {
                switch error {
                case .cryptoUnavailable, .invalidKey: throw error   // this device's own problem, not the entry's
                default:
                    quarantined.append(QuarantinedChangeSet(serverSequence: item.serverSequence, device: item.changeSet.device,
                                                            sequence: item.changeSet.sequence, reason: error.description, envelope: item.changeSet.envelope))
                    continue
                }
            }
            defer { sodium_memzero(&plaintext, plaintext.count) }
            opened.append(try decode(plaintext, of: item.changeSet))
        }
        return (opened, quarantined)
    }

    /// The padded plaintext of `sealed`, once its envelope authenticates (the header says what
    /// the relay delivered it as, for this space, and the AEAD tag verifies).
    private func authenticate(_ sealed: SealedChangeSet) throws(SyncError) -> [UInt8] {
        let envelope = sealed.envelope
        let failed = SyncError.authenticationFailed(device: sealed.device, sequence: sealed.sequence)
        let minimum = Self.headerByteCount + Self.nonceByteCount + Self.tagByteCount + 4
        guard envelope.count >= minimum, Array(envelope[0..<4]) == Self.magic else { throw .malformedChangeSet("not a sealed change set (no VKS1 envelope)") }
        guard envelope[4] == 1, envelope[5] == 1 else { throw .malformedChangeSet("envelope version \(envelope[4]) or cipher suite \(envelope[5]) is not one this build reads; update the app") }
        let header = Array(envelope[0..<Self.headerByteCount])
        func u64(_ offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(header[offset + $1]) << UInt64(8 * $1) } }
        let keyID = (0..<4).reduce(UInt32(0)) { $0 | UInt32(header[40 + $1]) << UInt32(8 * $1) }
        // The header must say what the relay delivered it as, and be for this space.
        guard Array(header[8..<24]) == space.bytes, u64(24) == sealed.device.rawValue, u64(32) == sealed.sequence else { throw failed }
        var key = try sealingKey(keyID)
        defer { sodium_memzero(&key, key.count) }
        let nonce = Array(envelope[Self.headerByteCount..<(Self.headerByteCount + Self.nonceByteCount)])
        let ciphertext = Array(envelope[(Self.headerByteCount + Self.nonceByteCount)...])
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count - Self.tagByteCount)
        var plaintextLength: UInt64 = 0
        let status = crypto_aead_xchacha20poly1305_ietf_decrypt(&plaintext, &plaintextLength, nil, ciphertext, UInt64(ciphertext.count),
                                                               header, UInt64(header.count), nonce, key)
        guard status == 0 else {
            sodium_memzero(&plaintext, plaintext.count)
            throw failed
        }
        return plaintext
    }

    /// The change set an authenticated plaintext holds (its length, the codec's bytes, zero padding).
    private func decode(_ plaintext: [UInt8], of sealed: SealedChangeSet) throws(SyncError) -> ChangeSet {
        let length = Int((0..<4).reduce(UInt32(0)) { $0 | UInt32(plaintext[$1]) << UInt32(8 * $1) })
        guard length <= plaintext.count - 4, plaintext[(4 + length)...].allSatisfy({ $0 == 0 }) else {
            throw .malformedChangeSet("the padding of change set \(sealed.sequence) of device \(sealed.device) is wrong")
        }
        let changeSet = try ChangeSetCodec.decode(Array(plaintext[4..<(4 + length)]))
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
