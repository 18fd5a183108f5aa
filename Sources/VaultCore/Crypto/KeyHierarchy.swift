import CSodium

/// The vault key hierarchy (SECURITY.md, "Key hierarchy"):
///
/// ```
/// master key M (64 B, from the app or a keystore)
///   └─ KEK = BLAKE2b-256(key: M, message: file salt, salt: slot's KEK salt,
///                        personal: "VaultKit-KEK-v1\0")          one per key slot
///        └─ unwraps DEK (32 random bytes) with XChaCha20-Poly1305   one per vault file
///             └─ page key = crypto_kdf_derive_from_key(DEK, id 1, "VKpages1")
/// ```
///
/// Failing to unwrap the DEK is the wrong-key check: it happens before SQLite
/// reads a single page.
enum KeyHierarchy {
    static let dataKeyByteCount = 32
    static let kekSaltByteCount = Int(crypto_generichash_blake2b_SALTBYTES)   // 16
    private static let kekPersonal = Array("VaultKit-KEK-v1\0".utf8)         // 16 bytes
    private static let pageKeyContext = "VKpages1"                           // crypto_kdf context: 8 bytes
    private static let pageKeyIdentifier: UInt64 = 1

    /// Derives the key-encryption key of one key slot.
    static func keyEncryptionKey(master: MasterKey, fileSalt: [UInt8], kekSalt: [UInt8]) throws(VaultError) -> SecureBytes {
        precondition(fileSalt.count == 32 && kekSalt.count == kekSaltByteCount)
        return try SecureBytes(count: 32) { (output: UnsafeMutablePointer<UInt8>) throws(VaultError) in
            let status = master.secret.withBytes { keyBytes in
                crypto_generichash_blake2b_salt_personal(
                    output, 32, fileSalt, UInt64(fileSalt.count),
                    keyBytes, MasterKey.byteCount, kekSalt, kekPersonal)
            }
            guard status == 0 else { throw VaultError.cryptoUnavailable("BLAKE2b key derivation failed") }
        }
    }

    /// Wraps `dataKey` under `kek`. Returns `nonce(24) ‖ ciphertext(32) ‖ tag(16)`.
    static func wrap(dataKey: SecureBytes, kek: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        var nonce = Sodium.randomBytes(count: UnitSealer.nonceByteCount)
        var wrapped = [UInt8](repeating: 0, count: dataKeyByteCount + UnitSealer.tagByteCount)
        dataKey.withBytes { dek in
            kek.withBytes { kekBytes in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &wrapped, nil, dek, UInt64(dataKeyByteCount),
                    associatedData, UInt64(associatedData.count),
                    nil, nonce, kekBytes)
            }
        }
        defer { Sodium.wipe(&nonce) }
        return nonce + wrapped
    }

    /// Unwraps a data key. Returns `nil` when authentication fails (wrong key or tampered slot).
    static func unwrap(_ sealed: [UInt8], kek: SecureBytes, associatedData: [UInt8]) throws(VaultError) -> SecureBytes? {
        let nonceCount = UnitSealer.nonceByteCount
        guard sealed.count == nonceCount + dataKeyByteCount + UnitSealer.tagByteCount else { return nil }
        var succeeded = false
        let nonce = Array(sealed[0..<nonceCount])
        let ciphertext = Array(sealed[nonceCount...])
        let dataKey = try SecureBytes(count: dataKeyByteCount) { (output: UnsafeMutablePointer<UInt8>) throws(VaultError) in
            let status = kek.withBytes { kekBytes in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    output, nil, nil, ciphertext, UInt64(ciphertext.count),
                    associatedData, UInt64(associatedData.count), nonce, kekBytes)
            }
            succeeded = status == 0
        }
        return succeeded ? dataKey : nil
    }

    /// Derives the page-sealing subkey from a data key (readable for its whole
    /// life: it is used on every page access).
    static func pageKey(dataKey: SecureBytes) throws(VaultError) -> SecureBytes {
        try SecureBytes(count: UnitSealer.keyByteCount, protection: .readOnly) { (output: UnsafeMutablePointer<UInt8>) throws(VaultError) in
            let status = dataKey.withBytes { dek in
                crypto_kdf_derive_from_key(output, UnitSealer.keyByteCount, pageKeyIdentifier, pageKeyContext, dek)
            }
            guard status == 0 else { throw VaultError.cryptoUnavailable("crypto_kdf_derive_from_key failed") }
        }
    }

    /// A random subkey for one temporary file; it never leaves the process and
    /// dies with the file handle.
    static func ephemeralKey() throws(VaultError) -> SecureBytes {
        try SecureBytes.random(count: UnitSealer.keyByteCount, protection: .readOnly)
    }
}
