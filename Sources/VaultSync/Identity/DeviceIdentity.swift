import CSodium
import Foundation
import VaultCore

/// A device's own keys in a sync space: an Ed25519 key pair it signs its change
/// sets and membership entries with, and an X25519 key pair other devices seal
/// space keys to (libsodium's sealed boxes).
///
/// Both pairs are derived from one 64-byte key kept in the device's
/// `KeyStore` (a `FileKeyStore`, or the app's keychain-backed store), never
/// from or in the vault file:
///
/// - signing seed = BLAKE2b-256 keyed with the stored key, of "VaultKit device signing key v1";
/// - box seed = BLAKE2b-256 keyed with the stored key, of "VaultKit device box key v1";
///
/// then `crypto_sign_seed_keypair` and `crypto_box_seed_keypair`. The secret
/// keys live in memory the type wipes when it is released, and `description`
/// never shows them; ``publicKeys`` is all another party ever learns.
public final class DeviceIdentity: Sendable, CustomStringConvertible {
    // Immutable after init; wiped in deinit, when nothing else can read them.
    private nonisolated(unsafe) let signingSecret: UnsafeMutablePointer<UInt8>
    private nonisolated(unsafe) let boxSecret: UnsafeMutablePointer<UInt8>
    private static let signingSecretByteCount = Int(crypto_sign_SECRETKEYBYTES)
    private static let boxSecretByteCount = Int(crypto_box_SECRETKEYBYTES)
    /// What other devices and the server may know of this device.
    public let publicKeys: DevicePublicKeys

    /// The identity derived from the key stored under `identifier` in `keyStore`.
    public convenience init(keyStore: some KeyStore, identifier: String) throws {
        let stored = try keyStore.loadKey(identifier: identifier)
        try self.init(masterKey: stored)
    }

    /// Makes a new identity: a random 64-byte key stored under `identifier` in
    /// `keyStore` (which must not hold one under that name), and the identity it gives.
    public static func create(in keyStore: some KeyStore, identifier: String) throws -> DeviceIdentity {
        let key = try MasterKey.generate()
        try keyStore.storeKey(key, identifier: identifier)
        return try DeviceIdentity(masterKey: key)
    }

    /// The identity derived from `masterKey` (see the type's description).
    init(masterKey: MasterKey) throws(SyncError) {
        guard sodium_init() >= 0 else { throw .cryptoUnavailable }
        let signingSecret = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.signingSecretByteCount)
        let boxSecret = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.boxSecretByteCount)
        var signingPublic = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var boxPublic = [UInt8](repeating: 0, count: Int(crypto_box_PUBLICKEYBYTES))
        var seed = [UInt8](repeating: 0, count: 32)
        defer { sodium_memzero(&seed, seed.count) }
        var status = Self.deriveSeed(&seed, from: masterKey, label: "VaultKit device signing key v1")
        if status == 0 {
            status = crypto_sign_seed_keypair(&signingPublic, signingSecret, seed)
        }
        if status == 0 { status = Self.deriveSeed(&seed, from: masterKey, label: "VaultKit device box key v1") }
        if status == 0 {
            status = crypto_box_seed_keypair(&boxPublic, boxSecret, seed)
        }
        guard status == 0 else {
            Self.wipe(signingSecret, boxSecret)
            throw .invalidKey("the stored key could not be used to derive a device identity")
        }
        self.signingSecret = signingSecret
        self.boxSecret = boxSecret
        publicKeys = try DevicePublicKeys(signing: signingPublic, box: boxPublic)
    }

    /// BLAKE2b-256 of `label`, keyed with `masterKey`, into `seed`.
    private static func deriveSeed(_ seed: inout [UInt8], from masterKey: MasterKey, label: String) -> Int32 {
        let message = Array(label.utf8)
        return masterKey.withUnsafeBytes { key in
            crypto_generichash(&seed, seed.count, message, UInt64(message.count),
                               key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count)
        }
    }

    deinit { Self.wipe(signingSecret, boxSecret) }

    private static func wipe(_ signingSecret: UnsafeMutablePointer<UInt8>, _ boxSecret: UnsafeMutablePointer<UInt8>) {
        sodium_memzero(signingSecret, signingSecretByteCount)
        sodium_memzero(boxSecret, boxSecretByteCount)
        signingSecret.deallocate()
        boxSecret.deallocate()
    }

    /// The Ed25519 signature (64 bytes) of `context` followed by `message`: the
    /// context names what is signed, so a signature made for one purpose never
    /// verifies for another (see ``DevicePublicKeys/verify(_:of:context:)``).
    public func sign(_ message: [UInt8], context: SignatureContext) -> [UInt8] {
        let signed = context.prefix + message
        var signature = [UInt8](repeating: 0, count: DevicePublicKeys.signatureByteCount)
        // Cannot fail with a key made by crypto_sign_seed_keypair.
        _ = crypto_sign_ed25519_detached(&signature, nil, signed, UInt64(signed.count), signingSecret)
        return signature
    }

    /// Opens a sealed box made for this device (``DevicePublicKeys/seal(_:)``);
    /// nil when it was made for another device or altered.
    public func open(sealedBox: [UInt8]) -> [UInt8]? {
        guard sealedBox.count >= DevicePublicKeys.sealOverhead else { return nil }
        var opened = [UInt8](repeating: 0, count: sealedBox.count - DevicePublicKeys.sealOverhead)
        let status = crypto_box_seal_open(&opened, sealedBox, UInt64(sealedBox.count), publicKeys.box, boxSecret)
        guard status == 0 else {
            sodium_memzero(&opened, opened.count)
            return nil
        }
        return opened
    }

    public var description: String { "DeviceIdentity(\(publicKeys.fingerprint), secret keys redacted)" }
}

/// What a signature is for: its bytes are signed before the message, so a
/// signature made for one purpose never verifies as another.
public struct SignatureContext: Hashable, Sendable {
    /// The bytes signed before the message (a label and a NUL).
    let prefix: [UInt8]

    /// A context named `label` (ASCII, unique to its purpose).
    init(_ label: String) { prefix = Array(label.utf8) + [0] }

    /// A change set's or membership entry's envelope.
    public static let envelope = SignatureContext("VaultKit envelope v2")
    /// A device's request to be added to a space (it proves the device holds its keys).
    public static let joinRequest = SignatureContext("VaultKit join request v1")
    /// A device's registration of its keys with a sync server.
    public static let registration = SignatureContext("VaultKit server registration v1")
}

/// A device's public keys: what the server and the other devices of a space know of it.
public struct DevicePublicKeys: Hashable, Sendable, CustomStringConvertible {
    /// An Ed25519 public key's length.
    public static let signingKeyByteCount = Int(crypto_sign_PUBLICKEYBYTES)
    /// An X25519 public key's length.
    public static let boxKeyByteCount = Int(crypto_box_PUBLICKEYBYTES)
    /// An Ed25519 signature's length.
    public static let signatureByteCount = Int(crypto_sign_BYTES)
    /// How much longer a sealed box is than what it holds.
    public static let sealOverhead = Int(crypto_box_sealbytes())

    /// The Ed25519 key the device's signatures verify with.
    public let signing: [UInt8]
    /// The X25519 key space keys are sealed to.
    public let box: [UInt8]

    /// Keys as received (from a membership entry or an invitation); each must have its length.
    public init(signing: [UInt8], box: [UInt8]) throws(SyncError) {
        guard signing.count == Self.signingKeyByteCount, box.count == Self.boxKeyByteCount else {
            throw .invalidKey("a device's public keys are \(Self.signingKeyByteCount) and \(Self.boxKeyByteCount) bytes, these \(signing.count) and \(box.count)")
        }
        self.signing = signing
        self.box = box
    }

    /// Whether `signature` is this device's signature of `message` for `context`.
    public func verify(_ signature: [UInt8], of message: [UInt8], context: SignatureContext) -> Bool {
        guard signature.count == Self.signatureByteCount, sodium_init() >= 0 else { return false }
        let signed = context.prefix + message
        return crypto_sign_ed25519_verify_detached(signature, signed, UInt64(signed.count), signing) == 0
    }

    /// `plaintext` sealed to this device: only its ``DeviceIdentity`` opens it, and
    /// the sender stays anonymous (libsodium's `crypto_box_seal`).
    public func seal(_ plaintext: [UInt8]) throws(SyncError) -> [UInt8] {
        guard sodium_init() >= 0 else { throw .cryptoUnavailable }
        var sealed = [UInt8](repeating: 0, count: plaintext.count + Self.sealOverhead)
        guard crypto_box_seal(&sealed, plaintext, UInt64(plaintext.count), box) == 0 else {
            throw .invalidKey("the device's box key is not a valid X25519 public key")
        }
        return sealed
    }

    /// The device id a space gives these keys: BLAKE2b-64 of "VaultKit device id v1"
    /// and the signing key, never 0 (the same on every device and on the server).
    public var deviceID: SyncDeviceID {
        let digest = Self.hash(Array("VaultKit device id v1".utf8) + signing, length: 8)
        let value = digest.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return SyncDeviceID(rawValue: value == 0 ? 1 : value)
    }

    /// Six groups of five digits from BLAKE2b of both keys: what two people read
    /// to each other to check an invitation was not tampered with.
    public var fingerprint: String {
        let digest = Self.hash(Array("VaultKit fingerprint v1".utf8) + signing + box, length: 30)
        return stride(from: 0, to: 30, by: 5).map { start -> String in
            let number = digest[start..<start + 5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 100_000
            return String(repeating: "0", count: 5 - String(number).count) + String(number)
        }.joined(separator: " ")
    }

    private static func hash(_ bytes: [UInt8], length: Int) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        _ = sodium_init()
        _ = crypto_generichash(&digest, length, bytes, UInt64(bytes.count), nil, 0)
        return digest
    }

    public var description: String { "DevicePublicKeys(\(fingerprint))" }
}
