import Foundation

/// A vault's 64-byte master key, held in libsodium guarded memory.
///
/// The master key never encrypts a page. It derives a key-encryption key that
/// unwraps the vault's random data key (see SECURITY.md, "Key hierarchy"), so a
/// master key can be rotated without touching the data.
///
/// ```swift
/// let key = try MasterKey.generate()                 // 64 random bytes
/// let same = try MasterKey(bytes: keyData)           // exactly 64 bytes, or an error
/// ```
///
/// The bytes are wiped when the last reference goes away. `description` and
/// `debugDescription` never print them, and no error mentions them.
public final class MasterKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The only accepted key length, in bytes (Realm's key length, so Realm apps keep their keys).
    public static let byteCount = 64

    let secret: SecureBytes

    /// Copies a 64-byte key into guarded memory.
    ///
    /// The caller's `Data` is not wiped (Swift cannot wipe a value it does not own):
    /// prefer ``init(wiping:)`` or a ``KeyStore``-style loader that never creates a copy.
    /// - Throws: ``VaultError/invalidKey(_:)`` when `bytes` is not exactly 64 bytes long.
    public convenience init(bytes: Data) throws(VaultError) {
        guard bytes.count == Self.byteCount else {
            throw VaultError.invalidKey("a master key must be exactly \(Self.byteCount) bytes; this one has \(bytes.count)")
        }
        var result: Result<SecureBytes, VaultError> = .failure(.invalidKey("empty"))
        bytes.withUnsafeBytes { raw in result = Result { () throws(VaultError) in try SecureBytes(copying: raw) } }
        self.init(secret: try result.get())
    }

    /// Moves a 64-byte key into guarded memory and zeroes the caller's array.
    /// - Throws: ``VaultError/invalidKey(_:)`` when `bytes` is not exactly 64 bytes long
    ///   (the array is wiped in that case too).
    public convenience init(wiping bytes: inout [UInt8]) throws(VaultError) {
        defer { Sodium.wipe(&bytes) }
        guard bytes.count == Self.byteCount else {
            throw VaultError.invalidKey("a master key must be exactly \(Self.byteCount) bytes; this one has \(bytes.count)")
        }
        var result: Result<SecureBytes, VaultError> = .failure(.invalidKey("empty"))
        bytes.withUnsafeBytes { raw in result = Result { () throws(VaultError) in try SecureBytes(copying: raw) } }
        self.init(secret: try result.get())
    }

    /// Copies a 64-byte key from raw memory the caller owns (and wipes).
    public convenience init(copying raw: UnsafeRawBufferPointer) throws(VaultError) {
        guard raw.count == Self.byteCount else {
            throw VaultError.invalidKey("a master key must be exactly \(Self.byteCount) bytes; this one has \(raw.count)")
        }
        self.init(secret: try SecureBytes(copying: raw))
    }

    init(secret: SecureBytes) {
        self.secret = secret
    }

    /// A new key of 64 bytes from the operating system's CSPRNG (`randombytes_buf`).
    public static func generate() throws(VaultError) -> MasterKey {
        MasterKey(secret: try SecureBytes.random(count: byteCount))
    }

    /// Calls `body` with read access to the 64 key bytes (for example to write
    /// them to a key file). The pointer must not escape `body`.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try secret.withUnsafeBytes(body)
    }

    /// Constant-time equality of two keys.
    public func isSameKey(as other: MasterKey) -> Bool {
        secret.constantTimeEquals(other.secret)
    }

    public var description: String { "MasterKey(64 bytes, redacted)" }
    public var debugDescription: String { description }
}
