import CSodium

/// What a sealed unit holds. The kind is bound into the unit's associated data,
/// so a unit cannot be replayed as a unit of another kind (a WAL page as a
/// database page, a frame header as a journal block).
enum UnitKind: UInt8, Sendable {
    case databasePage = 1     // one page of the main database file
    case walHeader = 2        // the 32-byte WAL header
    case walFrameHeader = 3   // a 24-byte WAL frame header
    case walPage = 4          // the page image of a WAL frame
    case journalBlock = 5     // a block of a rollback journal
    case temporaryBlock = 6   // a block of a temporary file (ephemeral key)

    /// A short name for error messages.
    var label: String {
        switch self {
        case .databasePage: "database page"
        case .walHeader: "WAL header"
        case .walFrameHeader: "WAL frame header"
        case .walPage: "WAL frame page"
        case .journalBlock: "journal block"
        case .temporaryBlock: "temporary-file block"
        }
    }
}

/// The AEAD that seals units. Stored in the vault header so that later versions
/// can add suites; v1 knows one.
public enum CipherSuite: UInt16, Sendable, CustomStringConvertible {
    /// XChaCha20-Poly1305-IETF (libsodium `crypto_aead_xchacha20poly1305_ietf_*`).
    case xchacha20Poly1305 = 1

    public var description: String {
        switch self {
        case .xchacha20Poly1305: "XChaCha20-Poly1305"
        }
    }
}

/// Seals and opens units with XChaCha20-Poly1305 under one subkey.
///
/// A sealed unit of `n` plaintext bytes is `n + 40` bytes: `ciphertext(n) ‖ nonce(24) ‖ tag(16)`.
/// For a database or WAL page the plaintext is the first 4056 bytes of the
/// 4096-byte page, so the sealed page is exactly 4096 bytes and the nonce and tag
/// sit in SQLite's 40 reserved bytes.
///
/// Associated data (42 bytes): `file salt(32) ‖ kind(1) ‖ suite(1) ‖ index(8, LE)`.
///
/// Nonces: a random 16-byte prefix drawn when the sealer is created, followed by
/// a 64-bit counter. Every sealer (one per open file handle) has its own prefix,
/// so two handles collide only if two random 128-bit prefixes do; this replaces
/// one `getrandom` syscall per page with none (see SECURITY.md, "Nonces").
///
/// Not thread-safe: a sealer belongs to one file handle, which SQLite uses from
/// one thread at a time.
final class UnitSealer {
    static let nonceByteCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)   // 24
    static let tagByteCount = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)         // 16
    /// Bytes a sealed unit adds to its plaintext.
    static let overhead = nonceByteCount + tagByteCount                              // 40
    static let keyByteCount = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)       // 32
    static let associatedDataByteCount = 42

    private let key: SecureBytes
    private let keyPointer: UnsafePointer<UInt8>
    private let associatedData: UnsafeMutablePointer<UInt8>
    private let nonce: UnsafeMutablePointer<UInt8>
    private var counter: UInt64 = 0

    /// - Parameters:
    ///   - key: a 32-byte subkey with ``SecureBytes/Protection/readOnly`` protection.
    ///   - fileSalt: the 32-byte salt of the vault this file belongs to.
    init(key: SecureBytes, fileSalt: [UInt8], suite: CipherSuite = .xchacha20Poly1305) {
        precondition(key.count == Self.keyByteCount && fileSalt.count == 32)
        self.key = key
        self.keyPointer = key.unsafeReadOnlyPointer.assumingMemoryBound(to: UInt8.self)
        associatedData = .allocate(capacity: Self.associatedDataByteCount)
        associatedData.initialize(repeating: 0, count: Self.associatedDataByteCount)
        for i in 0..<32 { associatedData[i] = fileSalt[i] }
        associatedData[33] = UInt8(truncatingIfNeeded: suite.rawValue)
        nonce = .allocate(capacity: Self.nonceByteCount)
        nonce.initialize(repeating: 0, count: Self.nonceByteCount)
        Sodium.randomBytes(UnsafeMutableRawBufferPointer(start: nonce, count: 16))
    }

    deinit {
        associatedData.deallocate()
        nonce.deallocate()
    }

    private func bind(kind: UnitKind, index: UInt64) {
        associatedData[32] = kind.rawValue
        var little = index.littleEndian
        withUnsafeBytes(of: &little) { bytes in
            for i in 0..<8 { associatedData[34 + i] = bytes[i] }
        }
    }

    /// Seals `count` bytes from `plaintext` into `output` (`count + 40` bytes).
    /// `output` must not overlap `plaintext`.
    func seal(_ plaintext: UnsafeRawPointer, count: Int, into output: UnsafeMutableRawPointer, kind: UnitKind, index: UInt64) {
        bind(kind: kind, index: index)
        counter &+= 1
        var little = counter.littleEndian
        withUnsafeBytes(of: &little) { bytes in
            for i in 0..<8 { nonce[16 + i] = bytes[i] }
        }
        let out = output.assumingMemoryBound(to: UInt8.self)
        let noncePosition = out + count
        noncePosition.update(from: nonce, count: Self.nonceByteCount)
        crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
            out, noncePosition + Self.nonceByteCount, nil,
            plaintext.assumingMemoryBound(to: UInt8.self), UInt64(count),
            associatedData, UInt64(Self.associatedDataByteCount),
            nil, nonce, keyPointer)
    }

    /// Authenticates and decrypts a sealed unit of `count` plaintext bytes
    /// (`sealed` holds `count + 40` bytes) into `output`.
    /// - Returns: `false` when the unit fails authentication; `output` is then zeroed.
    func open(_ sealed: UnsafeRawPointer, count: Int, into output: UnsafeMutableRawPointer, kind: UnitKind, index: UInt64) -> Bool {
        bind(kind: kind, index: index)
        let input = sealed.assumingMemoryBound(to: UInt8.self)
        let result = crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
            output.assumingMemoryBound(to: UInt8.self), nil,
            input, UInt64(count),
            input + count + Self.nonceByteCount,
            associatedData, UInt64(Self.associatedDataByteCount),
            input + count, keyPointer)
        return result == 0
    }
}
