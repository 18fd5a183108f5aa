import CSodium
import Foundation

/// How much work Argon2id does to turn a passphrase into a key
/// (libsodium's presets, libsodium.gitbook.io/doc/password_hashing/default_phf).
public enum PassphraseCost: String, Sendable, CaseIterable {
    /// 2 passes, 64 MiB: for keys unlocked interactively, often.
    case interactive
    /// 3 passes, 256 MiB: the default for key files.
    case moderate
    /// 4 passes, 1 GiB: for keys unlocked rarely (backups, offline tools).
    case sensitive

    var operations: UInt64 {
        switch self {
        case .interactive: UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE)
        case .moderate: UInt64(crypto_pwhash_OPSLIMIT_MODERATE)
        case .sensitive: UInt64(crypto_pwhash_OPSLIMIT_SENSITIVE)
        }
    }

    var memory: UInt64 {
        switch self {
        case .interactive: UInt64(crypto_pwhash_MEMLIMIT_INTERACTIVE)
        case .moderate: UInt64(crypto_pwhash_MEMLIMIT_MODERATE)
        case .sensitive: UInt64(crypto_pwhash_MEMLIMIT_SENSITIVE)
        }
    }
}

/// The key-file format, version 1 (all integers little-endian):
///
/// ```
///  0   8  magic "VaultKey"
///  8   1  format version (1)
///  9   1  protection: 0 = plain, 1 = passphrase (Argon2id v1.3 + XChaCha20-Poly1305)
/// 10   2  identifier length n (1...128)
/// 12   8  creation time, seconds since 1970
/// 20   2  key length k (64 for every valid key)
/// 22   n  identifier, UTF-8
///  plain:      k   key
///  passphrase: 16  Argon2id salt
///              8   Argon2id operations limit
///              8   Argon2id memory limit, bytes
///              24  nonce
///              k+16 sealed key (XChaCha20-Poly1305; associated data = every byte before the nonce)
///  last 32        checksum: BLAKE2b-256(personal "VaultKit-keyfile", every byte before it)
/// ```
///
/// The checksum tells a damaged file from a wrong passphrase before Argon2id
/// runs; for sealed files the AEAD tag is what authenticates the key, and its
/// associated data binds the identifier and the Argon2id parameters.
struct KeyFile {
    static let magic = Array("VaultKey".utf8)
    static let version: UInt8 = 1
    static let checksumLength = 32
    static let saltLength = Int(crypto_pwhash_SALTBYTES)   // 16
    private static let checksumPersonal = Array("VaultKit-keyfile".utf8)
    /// Bounds on stored Argon2id parameters, so a crafted file cannot make a loader allocate without limit.
    static let maximumOperations: UInt64 = 16
    static let maximumMemory: UInt64 = 4 << 30

    var identifier: String
    var created: Date
    var key: MasterKey

    // MARK: Encoding

    /// The file's bytes. Plain keys appear in the returned array: the caller writes and wipes it.
    func encoded(passphrase: Passphrase?, cost: PassphraseCost) throws(VaultError) -> [UInt8] {
        let identifierBytes = Array(identifier.utf8)
        var bytes = Self.magic
        bytes.append(Self.version)
        bytes.append(passphrase == nil ? 0 : 1)
        bytes += littleEndianBytes(UInt16(identifierBytes.count))
        bytes += littleEndianBytes(Int64(created.timeIntervalSince1970.rounded(.down)))
        bytes += littleEndianBytes(UInt16(MasterKey.byteCount))
        bytes += identifierBytes
        if let passphrase {
            let salt = Sodium.randomBytes(count: Self.saltLength)
            bytes += salt
            bytes += littleEndianBytes(cost.operations)
            bytes += littleEndianBytes(cost.memory)
            let associatedData = bytes
            let kek = try Self.deriveKey(passphrase: passphrase, salt: salt, operations: cost.operations, memory: cost.memory)
            let nonce = Sodium.randomBytes(count: UnitSealer.nonceByteCount)
            var sealed = [UInt8](repeating: 0, count: MasterKey.byteCount + UnitSealer.tagByteCount)
            key.secret.withBytes { keyBytes in
                kek.withBytes { kekBytes in
                    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                        &sealed, nil, keyBytes, UInt64(MasterKey.byteCount),
                        associatedData, UInt64(associatedData.count), nil, nonce, kekBytes)
                }
            }
            bytes += nonce + sealed
        } else {
            key.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
        bytes += Self.checksum(bytes)
        return bytes
    }

    private static func checksum(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: checksumLength)
        _ = crypto_generichash_blake2b_salt_personal(&output, checksumLength, bytes, UInt64(bytes.count), nil, 0, nil, checksumPersonal)
        return output
    }

    private static func deriveKey(passphrase: Passphrase, salt: [UInt8], operations: UInt64, memory: UInt64) throws(VaultError) -> SecureBytes {
        try SecureBytes(count: UnitSealer.keyByteCount) { (output: UnsafeMutablePointer<UInt8>) throws(VaultError) in
            let status = passphrase.secret.withBytes { phrase in
                crypto_pwhash(output, UInt64(UnitSealer.keyByteCount),
                              UnsafeRawPointer(phrase).assumingMemoryBound(to: CChar.self), UInt64(passphrase.secret.count),
                              salt, operations, Int(memory), crypto_pwhash_ALG_ARGON2ID13)
            }
            guard status == 0 else {
                throw VaultError.cryptoUnavailable("Argon2id could not run (out of memory for \(memory >> 20) MiB?)")
            }
        }
    }

    // MARK: Decoding

    /// Parses and, if sealed, opens a key file.
    static func decode(_ data: [UInt8], path: String, passphrase: Passphrase?) throws(KeyStoreError) -> KeyFile {
        guard !data.isEmpty else { throw KeyStoreError.corrupt(path: path, reason: "the file is empty") }
        guard data.count >= magic.count, Array(data[0..<magic.count]) == magic else {
            throw KeyStoreError.corrupt(path: path, reason: "it is not a VaultKit key file (no \"VaultKey\" magic)")
        }
        guard data.count >= 22 else { throw KeyStoreError.corrupt(path: path, reason: "the file is cut short (\(data.count) bytes)") }
        guard data[8] == version else { throw KeyStoreError.unsupportedVersion(path: path, version: Int(data[8])) }
        let protection = data[9]
        guard protection <= 1 else { throw KeyStoreError.corrupt(path: path, reason: "unknown protection \(protection)") }
        let identifierLength = Int(readLittleEndian(UInt16.self, data, at: 10))
        let createdSeconds = readLittleEndian(Int64.self, data, at: 12)
        let keyLength = Int(readLittleEndian(UInt16.self, data, at: 20))
        let bodyStart = 22 + identifierLength
        let secretLength = protection == 0 ? keyLength : saltLength + 16 + UnitSealer.nonceByteCount + keyLength + UnitSealer.tagByteCount
        let expected = bodyStart + secretLength + checksumLength
        guard data.count >= expected else {
            throw KeyStoreError.corrupt(path: path, reason: "the file is cut short (\(data.count) of \(expected) bytes)")
        }
        guard data.count == expected else {
            throw KeyStoreError.corrupt(path: path, reason: "\(data.count - expected) unexpected bytes follow the key")
        }
        let body = Array(data[0..<(expected - checksumLength)])
        guard checksum(body) == Array(data[(expected - checksumLength)...]) else {
            throw KeyStoreError.corrupt(path: path, reason: "its checksum does not match (a byte was changed)")
        }
        guard identifierLength > 0, let identifier = String(bytes: data[22..<bodyStart], encoding: .utf8) else {
            throw KeyStoreError.corrupt(path: path, reason: "the identifier is not valid UTF-8")
        }
        guard keyLength == MasterKey.byteCount else { throw KeyStoreError.wrongKeyLength(path: path, length: keyLength) }
        let created = Date(timeIntervalSince1970: TimeInterval(createdSeconds))

        if protection == 0 {
            do {
                let key = try data.withUnsafeBytes { buffer throws(VaultError) -> MasterKey in
                    try MasterKey(copying: UnsafeRawBufferPointer(rebasing: buffer[bodyStart..<(bodyStart + keyLength)]))
                }
                return KeyFile(identifier: identifier, created: created, key: key)
            } catch {
                throw KeyStoreError.io(path: path, detail: "\(error)")
            }
        }
        guard let passphrase else { throw KeyStoreError.passphraseRequired(path: path) }
        var offset = bodyStart
        let salt = Array(data[offset..<(offset + saltLength)]); offset += saltLength
        let operations = readLittleEndian(UInt64.self, data, at: offset); offset += 8
        let memory = readLittleEndian(UInt64.self, data, at: offset); offset += 8
        guard (1...maximumOperations).contains(operations), (8192...maximumMemory).contains(memory) else {
            throw KeyStoreError.corrupt(path: path, reason: "unreasonable Argon2id parameters (\(operations) passes, \(memory >> 20) MiB)")
        }
        let associatedData = Array(data[0..<offset])
        let nonce = Array(data[offset..<(offset + UnitSealer.nonceByteCount)]); offset += UnitSealer.nonceByteCount
        let sealed = Array(data[offset..<(offset + keyLength + UnitSealer.tagByteCount)])
        do {
            let kek = try deriveKey(passphrase: passphrase, salt: salt, operations: operations, memory: memory)
            var opened = false
            let secret = try SecureBytes(count: MasterKey.byteCount) { (output: UnsafeMutablePointer<UInt8>) throws(VaultError) in
                let status = kek.withBytes { kekBytes in
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        output, nil, nil, sealed, UInt64(sealed.count),
                        associatedData, UInt64(associatedData.count), nonce, kekBytes)
                }
                opened = status == 0
            }
            guard opened else { throw KeyStoreError.wrongPassphrase(path: path) }
            return KeyFile(identifier: identifier, created: created, key: MasterKey(secret: secret))
        } catch let error as KeyStoreError {
            throw error
        } catch {
            throw KeyStoreError.io(path: path, detail: "\(error)")
        }
    }
}
