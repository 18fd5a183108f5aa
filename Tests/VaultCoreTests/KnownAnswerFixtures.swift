import CSodium
import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

// The vector files of the known-answer tests (KnownAnswerTests.swift) and
// the helpers that read them.

// MARK: - Vector files

/// Tests/VaultCoreTests/Fixtures/known-answer, from this file's path.
let knownAnswerDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures/known-answer", isDirectory: true)

func loadKnownAnswers<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
    let data = try Data(contentsOf: knownAnswerDirectory.appendingPathComponent(name))
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(T.self, from: data)
}

/// key-hierarchy.json
struct KnownAnswerKeyHierarchy: Decodable {
    struct Vector: Decodable {
        var name: String
        var masterKey: String
        var fileSalt: String
        var kekSalt: String
        var dataKey: String
        var slotIndex: Int
        var generation: String
        var wrapNonce: String
        var staticHeader: String
        var wrapAssociatedData: String
        var kek: String
        var wrappedKey: String
        var slotBytes: String
        var pageKey: String
    }
    struct Header: Decodable {
        var name: String
        var block: String
        var fileSalt: String
        var slots: [String?]
        var activeSlot: Int
        var activeGeneration: String
        var opensWith: [String]
        var rejects: [String]
        var dataKey: String
        var pageKey: String
    }
    var vectors: [Vector]
    var headers: [Header]
}

/// unit-sealer.json
struct KnownAnswerUnits: Decodable {
    struct Vector: Decodable {
        var name: String
        var key: String
        var fileSalt: String
        var suite: UInt16
        var kind: String
        var kindByte: UInt8
        var index: String
        var nonce: String
        var associatedData: String
        var plaintext: String
        var tag: String
        var sealed: String
    }
    var vectors: [Vector]
}

/// key-file.json
struct KnownAnswerKeyFiles: Decodable {
    struct Vector: Decodable {
        var name: String
        var identifier: String
        var created: Int64
        var key: String
        var file: String
        var passphrase: String?
        var wrongPassphrase: String?
    }
    var vectors: [Vector]
}

/// vault-file.json
struct KnownAnswerVaultFile: Decodable {
    struct Row: Decodable {
        var id: Int64
        var body: String
    }
    struct Frame: Decodable {
        var frame: UInt64
        var headerOffset: Int64
        var pageOffset: Int64
    }
    var databaseFile: String
    var walFile: String
    var masterKey: String
    var pageCount: Int
    var walFrameCount: Int
    var walFramesChecked: [Frame]
    var rowsWithWal: [Row]
    var rowsWithoutWal: [Row]
}

// MARK: - Helpers

/// The bytes of a hex string from a vector file.
func knownAnswerBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    precondition(digits.count % 2 == 0, "odd-length hex in a vector file")
    func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: preconditionFailure("not a hex digit in a vector file")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
}

func knownAnswerSecret(_ bytes: [UInt8], protection: SecureBytes.Protection = .noAccessAtRest) throws -> SecureBytes {
    try bytes.withUnsafeBytes { raw in try SecureBytes(copying: raw, protection: protection) }
}

func knownAnswerContents(_ secret: SecureBytes) -> [UInt8] {
    secret.withUnsafeBytes { Array($0) }
}

/// `KeyHierarchy.unwrap`, as the unwrapped bytes (nil when authentication fails).
func knownAnswerUnwrap(_ wrapped: [UInt8], kek: SecureBytes, associatedData: [UInt8]) throws -> [UInt8]? {
    try KeyHierarchy.unwrap(wrapped, kek: kek, associatedData: associatedData).map { knownAnswerContents($0) }
}

func knownAnswerMasterKey(_ hex: String) throws -> MasterKey {
    try MasterKey(bytes: Data(knownAnswerBytes(hex)))
}

/// `UnitSealer.open` on arrays. Returns whether it authenticated and the output buffer
/// (pre-filled with 0xEE, so a failed open that does not wipe it shows).
func knownAnswerOpen(_ sealer: UnitSealer, _ sealed: [UInt8], count: Int, kind: UnitKind, index: UInt64) -> (opened: Bool, output: [UInt8]) {
    precondition(sealed.count == count + UnitSealer.overhead)
    var output = [UInt8](repeating: 0xEE, count: count)
    let opened = sealed.withUnsafeBytes { input in
        output.withUnsafeMutableBytes { out in
            sealer.open(input.baseAddress!, count: count, into: out.baseAddress!, kind: kind, index: index)
        }
    }
    return (opened, output)
}

/// `UnitSealer.seal` on arrays.
func knownAnswerSeal(_ sealer: UnitSealer, _ plaintext: [UInt8], kind: UnitKind, index: UInt64) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: plaintext.count + UnitSealer.overhead)
    plaintext.withUnsafeBytes { input in
        output.withUnsafeMutableBytes { out in
            sealer.seal(input.baseAddress!, count: plaintext.count, into: out.baseAddress!, kind: kind, index: index)
        }
    }
    return output
}

/// libsodium's detached XChaCha20-Poly1305, laid out as a unit: `ciphertext ‖ nonce ‖ tag`.
func referenceSealUnit(_ plaintext: [UInt8], associatedData: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8] {
    precondition(nonce.count == 24 && key.count == 32)
    var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
    var tag = [UInt8](repeating: 0, count: 16)
    let status = crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
        &ciphertext, &tag, nil, plaintext, UInt64(plaintext.count),
        associatedData, UInt64(associatedData.count), nil, nonce, key)
    precondition(status == 0)
    return ciphertext + nonce + tag
}

/// libsodium's combined XChaCha20-Poly1305, laid out as a wrapped key: `nonce ‖ ciphertext ‖ tag`.
func referenceWrap(_ dataKey: [UInt8], associatedData: [UInt8], nonce: [UInt8], kek: [UInt8]) -> [UInt8] {
    precondition(nonce.count == 24 && kek.count == 32)
    var sealed = [UInt8](repeating: 0, count: dataKey.count + 16)
    let status = crypto_aead_xchacha20poly1305_ietf_encrypt(
        &sealed, nil, dataKey, UInt64(dataKey.count),
        associatedData, UInt64(associatedData.count), nil, nonce, kek)
    precondition(status == 0)
    return nonce + sealed
}
