import CSodium
import Foundation
import VaultCore

/// The key a user's devices share to seal change sets: 32 random bytes
/// (libsodium's `crypto_kdf_KEYBYTES`). It never leaves the devices: a relay
/// stores only what it seals.
///
/// The bytes are copied into memory the type wipes when released
/// (`sodium_memzero`); `description` never shows them.
public final class SyncKey: Sendable, CustomStringConvertible {
    /// The key's length in bytes.
    public static let byteCount = Int(crypto_kdf_KEYBYTES)
    // Immutable after init; wiped in deinit, when nothing else can read it.
    private nonisolated(unsafe) let storage: UnsafeMutableRawBufferPointer

    /// A key from 32 bytes (for example `SyncConfiguration.syncKey`, or a key store's).
    public init(bytes: Data) throws(SyncError) {
        guard bytes.count == Self.byteCount else { throw .invalidKey("a sync key has \(Self.byteCount) bytes, this one \(bytes.count)") }
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.byteCount, alignment: 16)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
    }

    /// A new random key.
    public static func generate() throws(SyncError) -> SyncKey {
        guard sodium_init() >= 0 else { throw .cryptoUnavailable }
        var bytes = Data(count: byteCount)
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, byteCount) }
        }
        defer { bytes.resetBytes(in: 0..<bytes.count) }
        return try SyncKey(bytes: bytes)
    }

    /// The sync key of the 64-byte key stored in `keyStore` under `identifier`
    /// (a `FileKeyStore`, or the app's keychain-backed store): BLAKE2b-256 keyed
    /// with that key, of the message "VaultKit sync key v1". Store one key per
    /// space on every device of the user's (never on a server) and each derives
    /// the same sync key; a vault's own master key should not be reused for it.
    public convenience init(keyStore: some KeyStore, identifier: String) throws {
        var derived = try Self.derivedBytes(keyStore: keyStore, identifier: identifier)
        defer { derived.resetBytes(in: 0..<derived.count) }
        try self.init(bytes: derived)
    }

    /// The 32 bytes ``init(keyStore:identifier:)`` derives, for
    /// ``SyncConfiguration/syncKey`` (wipe the `Data` when done with it, as far
    /// as Swift allows: `resetBytes(in:)`).
    public static func derivedBytes(keyStore: some KeyStore, identifier: String) throws -> Data {
        guard sodium_init() >= 0 else { throw SyncError.cryptoUnavailable }
        let masterKey = try keyStore.loadKey(identifier: identifier)
        var derived = Data(count: Self.byteCount)
        let message = Array("VaultKit sync key v1".utf8)
        let status = derived.withUnsafeMutableBytes { output -> Int32 in
            guard let target = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return -1 }
            return masterKey.withUnsafeBytes { key in
                crypto_generichash(target, Self.byteCount, message, UInt64(message.count),
                                   key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count)
            }
        }
        guard status == 0 else { throw SyncError.invalidKey("the stored key could not be used to derive a sync key") }
        return derived
    }

    deinit {
        sodium_memzero(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    /// A 32-byte subkey: `crypto_kdf_derive_from_key` with subkey id `id` and the
    /// 8-character `context` (each use of the key has its own context).
    func subkey(id: UInt64, context: [CChar]) throws(SyncError) -> [UInt8] {
        var subkey = [UInt8](repeating: 0, count: Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES))
        let status = try withBytes { (bytes) throws(SyncError) -> Int32 in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { throw SyncError.invalidKey("empty") }
            return crypto_kdf_derive_from_key(&subkey, subkey.count, id, context, base)
        }
        guard status == 0 else { throw .cryptoUnavailable }
        return subkey
    }

    /// Reads the key's bytes for the duration of `body`.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(SyncError) -> R) throws(SyncError) -> R {
        try body(UnsafeRawBufferPointer(storage))
    }

    public var description: String { "SyncKey(32 bytes, redacted)" }
}

/// A sync space: the devices of one user (or one shared data set) that sync
/// with each other. Its 16 random bytes name it to the relay.
public struct SyncSpaceID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes.
    public let bytes: [UInt8]

    /// The space named by 16 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A new random space id.
    public static func generate() -> SyncSpaceID {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = sodium_init()
        randombytes_buf(&bytes, 16)
        return SyncSpaceID(unchecked: bytes)
    }

    /// The space named `name` (the name a sync server issues tokens for, as in
    /// ``SyncConfiguration/space``): the first 16 bytes of BLAKE2b of
    /// "VaultKit sync space v1", a zero byte and the name's UTF-8. Not secret:
    /// the server computes it too, to check that a device uploads to its space.
    public init(name: String) {
        _ = sodium_init()
        let message = Array("VaultKit sync space v1".utf8) + [0] + Array(name.utf8)
        var bytes = [UInt8](repeating: 0, count: 16)
        // BLAKE2b with a 16-byte output and no key cannot fail.
        _ = crypto_generichash(&bytes, 16, message, UInt64(message.count), nil, 0)
        self.bytes = bytes
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    public var description: String { bytes.map { String(format: "%02x", $0) }.joined() }
}
