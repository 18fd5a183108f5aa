import CSodium
import Foundation

// MARK: - A space's keys, epoch by epoch
//
// Each key epoch has its own 32-byte space key. A rotation (a membership entry
// with `rotate`) carries what the remaining devices need and nothing a removed
// one can use:
//
//   boxes            for each device of the new membership, crypto_box_seal to
//                    its X25519 key of   space id (16) ‖ epoch u32 ‖ key (32);
//                    the space id and epoch inside bind a box to its place, so
//                    a box cannot be replayed as another epoch's or space's key
//   wrappedPrevious  the previous epoch's key sealed under the new one:
//                    XChaCha20-Poly1305, key = crypto_kdf_derive_from_key(32,
//                    epoch, "VKwrap01", new key), associated data "VKwrap" ‖
//                    space id ‖ epoch u32, stored as nonce (24) ‖ ciphertext
//
// A device that holds epoch e's key reads every earlier epoch by unwrapping
// the chain backwards, so a member added later reads the space's history; a
// device removed before epoch e was sealed no box of it, and the wrapped keys
// only lead backwards. Whoever makes a rotation knows the new key: the rules
// (MembershipState) never let a device on its way out make one.

/// What a rotation to `epoch` carries (see above).
struct EpochRotation: Hashable, Sendable {
    let epoch: UInt32
    /// The new key sealed to each device of the new membership.
    let boxes: [SyncDeviceID: [UInt8]]
    /// The previous epoch's key under the new one.
    let wrappedPrevious: [UInt8]
}

/// The epoch keys one device holds for a space.
struct SpaceKeyring: Sendable {
    let space: SyncSpaceID
    /// The keys by epoch.
    private(set) var keys: [UInt32: SyncKey]
    /// The newest epoch whose key this device holds.
    var current: UInt32 { keys.keys.max() ?? 0 }

    /// A keyring holding `key` for `epoch` (the space's first key, or a legacy sync key as epoch 0).
    init(space: SyncSpaceID, epoch: UInt32, key: SyncKey) {
        self.space = space
        keys = [epoch: key]
    }

    /// An empty keyring: a device joining, before it receives its first rotation.
    init(space: SyncSpaceID) {
        self.space = space
        keys = [:]
    }

    /// Takes in a key this device holds (stored, or the configuration's sync key as epoch 0).
    mutating func insert(_ key: SyncKey, epoch: UInt32) { keys[epoch] = key }

    private static let boxPlaintextCount = 16 + 4 + SyncKey.byteCount
    /// A wrapped key's length: nonce, key, tag.
    static let wrappedByteCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES) + SyncKey.byteCount + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    private static let wrapContext = Array("VKwrap01".utf8).map { CChar(bitPattern: $0) }

    /// A rotation from the current epoch to the next, for `recipients`; returns it and the new key.
    func rotation(to recipients: [SyncDeviceID: DevicePublicKeys], from current: UInt32? = nil) throws(SyncError) -> (EpochRotation, SyncKey) {
        let current = current ?? self.current
        guard let previous = keys[current] else { throw .unknownKey(keyID: current) }
        let epoch = current &+ 1
        let key = try SyncKey.generate()
        var boxes: [SyncDeviceID: [UInt8]] = [:]
        for (device, publicKeys) in recipients {
            var plaintext = try boxPlaintext(epoch: epoch, key: key)
            defer { sodium_memzero(&plaintext, plaintext.count) }
            boxes[device] = try publicKeys.seal(plaintext)
        }
        let wrapped = try wrap(previous, epoch: epoch, under: key)
        return (EpochRotation(epoch: epoch, boxes: boxes, wrappedPrevious: wrapped), key)
    }

    /// The key of `epoch` sealed to each of `recipients` (a device added to the space).
    func boxes(of epoch: UInt32, to recipients: [SyncDeviceID: DevicePublicKeys]) throws(SyncError) -> [SyncDeviceID: [UInt8]] {
        guard let key = keys[epoch] else { throw .unknownKey(keyID: epoch) }
        var boxes: [SyncDeviceID: [UInt8]] = [:]
        for (device, publicKeys) in recipients {
            var plaintext = try boxPlaintext(epoch: epoch, key: key)
            defer { sodium_memzero(&plaintext, plaintext.count) }
            boxes[device] = try publicKeys.seal(plaintext)
        }
        return boxes
    }

    /// Takes in a rotation: this device's box opened with `identity`, then every earlier
    /// key the chain of wrapped keys leads to (each rotation's, from `history` by epoch).
    /// Throws when the rotation has no box for `device` or a box or wrap does not open.
    mutating func receive(_ rotation: EpochRotation, as device: SyncDeviceID, identity: DeviceIdentity,
                          history: [UInt32: EpochRotation] = [:]) throws(SyncError) {
        guard let box = rotation.boxes[device] else { throw .invalidKey("the rotation to epoch \(rotation.epoch) holds no key for this device") }
        guard var plaintext = identity.open(sealedBox: box) else {
            throw .invalidKey("the key of epoch \(rotation.epoch) was not sealed to this device, or was altered")
        }
        defer { sodium_memzero(&plaintext, plaintext.count) }
        guard plaintext.count == Self.boxPlaintextCount, Array(plaintext[0..<16]) == space.bytes,
              Self.epoch(in: plaintext) == rotation.epoch else {
            throw .invalidKey("a key box for another space or epoch was presented as epoch \(rotation.epoch)'s")
        }
        let key = try SyncKey(bytes: Data(plaintext[20...]))
        // All or nothing: the keys change only once every step has opened.
        var received = keys
        received[rotation.epoch] = key
        // Backwards along the chain, as far as this device lacks keys and the log has rotations.
        var epoch = rotation.epoch, wrapped = rotation.wrappedPrevious, newer = key
        while epoch > 0, received[epoch - 1] == nil, !wrapped.isEmpty {
            let previous = try unwrap(wrapped, epoch: epoch, under: newer)
            received[epoch - 1] = previous
            epoch -= 1
            newer = previous
            wrapped = history[epoch]?.wrappedPrevious ?? []
        }
        keys = received
    }

    private func boxPlaintext(epoch: UInt32, key: SyncKey) throws(SyncError) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(space.bytes)
        writer.u32(epoch)
        var plaintext = writer.bytes
        try key.withBytes { (bytes) throws(SyncError) in plaintext.append(contentsOf: bytes) }
        return plaintext
    }

    private static func epoch(in plaintext: [UInt8]) -> UInt32? {
        var reader = ByteReader(Array(plaintext[16..<20]))
        return try? reader.u32()
    }

    private func associatedData(epoch: UInt32) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(Array("VKwrap".utf8) + space.bytes)
        writer.u32(epoch)
        return writer.bytes
    }

    private func wrappingKey(epoch: UInt32, under key: SyncKey) throws(SyncError) -> [UInt8] {
        try key.subkey(id: UInt64(epoch), context: Self.wrapContext)
    }

    private func wrap(_ previous: SyncKey, epoch: UInt32, under key: SyncKey) throws(SyncError) -> [UInt8] {
        var wrappingKey = try wrappingKey(epoch: epoch, under: key)
        defer { sodium_memzero(&wrappingKey, wrappingKey.count) }
        var nonce = [UInt8](repeating: 0, count: Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES))
        randombytes_buf(&nonce, nonce.count)
        let data = associatedData(epoch: epoch)
        var ciphertext = [UInt8](repeating: 0, count: SyncKey.byteCount + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES))
        var length: UInt64 = 0
        let status = try previous.withBytes { (bytes) throws(SyncError) -> Int32 in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { throw SyncError.invalidKey("empty") }
            return crypto_aead_xchacha20poly1305_ietf_encrypt(&ciphertext, &length, base, UInt64(bytes.count),
                                                              data, UInt64(data.count), nil, nonce, wrappingKey)
        }
        guard status == 0 else { throw .cryptoUnavailable }
        return nonce + ciphertext
    }

    private func unwrap(_ wrapped: [UInt8], epoch: UInt32, under key: SyncKey) throws(SyncError) -> SyncKey {
        let nonceCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        guard wrapped.count == nonceCount + SyncKey.byteCount + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES) else {
            throw .invalidKey("the wrapped key of epoch \(epoch - 1) has the wrong size")
        }
        var wrappingKey = try wrappingKey(epoch: epoch, under: key)
        defer { sodium_memzero(&wrappingKey, wrappingKey.count) }
        let data = associatedData(epoch: epoch)
        let ciphertext = Array(wrapped[nonceCount...])
        var plaintext = [UInt8](repeating: 0, count: SyncKey.byteCount)
        defer { sodium_memzero(&plaintext, plaintext.count) }
        var length: UInt64 = 0
        let status = crypto_aead_xchacha20poly1305_ietf_decrypt(&plaintext, &length, nil, ciphertext, UInt64(ciphertext.count),
                                                               data, UInt64(data.count), Array(wrapped[..<nonceCount]), wrappingKey)
        guard status == 0 else { throw .invalidKey("the wrapped key of epoch \(epoch - 1) does not open under epoch \(epoch)'s key") }
        return try SyncKey(bytes: Data(plaintext))
    }
}
